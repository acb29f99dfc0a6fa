"""``taicam serve``'s access rules against a real server: the token off the loopback, same-origin
changes, refused uploads (not a photo, too large, a decompression bomb), no path traversal.

The ``--lan`` server binds every interface but is reached on 127.0.0.1 only.
"""

from __future__ import annotations

import http.client
import io
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from serve_helpers import CHANGE, SAMPLES, RunningServe

ROUTES = [("GET", "/"), ("GET", "/static/app.js"), ("GET", "/static/app.css"), ("GET", "/static/cjk.ttf"),
          ("GET", "/api/meta"),
          ("GET", "/api/game"), ("GET", "/api/export.json"), ("GET", "/api/export.csv"),
          ("POST", "/api/games"), ("POST", "/api/photos"), ("POST", "/api/score"), ("POST", "/api/hands"),
          ("POST", "/api/undo"), ("GET", f"/api/photos/{'0' * 24}.jpg/preview.jpg"),
          ("POST", f"/api/photos/{'0' * 24}.jpg/read"), ("GET", "/nowhere"), ("PUT", "/api/game"),
          ("DELETE", "/api/game")]
PLAYERS = {"players": ["Ann", "Bo", "Cy", "Di"]}


@pytest.fixture
def lan(tmp_path: Path, pipeline: object) -> Iterator[RunningServe]:
    running = RunningServe(tmp_path, pipeline, host="0.0.0.0")
    yield running
    running.stop()


@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_lan_mode_answers_401_to_every_route_without_the_token(lan: RunningServe, method: str,
                                                               route: str) -> None:
    body = {} if method in ("POST", "PUT") else None
    assert lan.call(method, route, body, CHANGE)[0] == 401
    assert lan.call(method, route + "?token=guess", body, CHANGE)[0] == 401
    assert lan.call(method, route, body, {**CHANGE, "Cookie": "taicam_token=guess"})[0] == 401


def test_lan_mode_lets_the_printed_url_in_and_keeps_the_token_in_a_cookie(lan: RunningServe) -> None:
    token = lan.server.access.token
    assert token and len(token) >= 32 and lan.server.url.endswith(f"/?token={token}")
    connection = http.client.HTTPConnection("127.0.0.1", lan.port, timeout=10)
    connection.request("GET", f"/?token={token}")
    response = connection.getresponse()
    response.read()
    cookie = response.getheader("Set-Cookie")
    connection.close()
    assert response.status == 200 and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    jar = {"Cookie": cookie.split(";")[0]}
    assert lan.call("GET", "/api/game", None, jar)[0] == 200
    status, view = lan.call("POST", "/api/games", PLAYERS, {**CHANGE, **jar})
    assert status == 200 and view["game"]["players"] == PLAYERS["players"]


def test_the_qr_code_holds_the_url_with_the_token() -> None:
    from vision.serve.cli import qr_lines

    drawing = qr_lines("http://192.168.1.20:8766/?token=abc")
    rows = drawing.strip("\n").splitlines()
    assert len(rows) > 10 and len({len(row) for row in rows}) == 1


def test_changes_need_the_tool_header_and_the_same_origin(serve: RunningServe) -> None:
    json_only = {"Content-Type": "application/json"}
    assert serve.call("POST", "/api/games", PLAYERS, json_only)[0] == 403
    status, answer = serve.call("POST", "/api/games", PLAYERS, {**CHANGE, "Origin": "http://evil.example"})
    assert status == 403 and "another site" in answer["error"]
    assert serve.call("POST", "/api/games", PLAYERS, {**CHANGE, "Sec-Fetch-Site": "cross-site"})[0] == 403
    assert serve.call("POST", "/api/games", PLAYERS, {**CHANGE, "Host": "evil.example"})[0] == 403
    assert serve.store.current() is None
    origin = {"Origin": f"http://127.0.0.1:{serve.port}"}
    assert serve.call("POST", "/api/games", PLAYERS, {**CHANGE, **origin})[0] == 200


@pytest.mark.parametrize("path", [
    "/static/../routes.py", "/static/..%2froutes.py", "/static/routes.py", "/../../etc/passwd",
    "/api/photos/../../etc/passwd/preview.jpg", f"/api/photos/{'0' * 24}.jpg/../../../etc/passwd",
    "/api/photos/..%2f..%2fgames.sqlite3/preview.jpg", "/games.sqlite3", "/photos/", "//etc/passwd",
])
def test_nothing_but_the_page_and_the_api_is_served(serve: RunningServe, path: str) -> None:
    status, body = serve.call("GET", path)
    assert status == 404, (path, status)
    assert b"root:" not in (body if isinstance(body, bytes) else str(body).encode())


def test_an_unknown_photo_id_is_not_found(serve: RunningServe) -> None:
    status, answer = serve.call("GET", f"/api/photos/{'a' * 24}.jpg/preview.jpg")
    assert status == 400 and "no such photo" in answer["error"]


def announce_only(port: int, path: str, length: int) -> tuple[str, float]:
    """Send the headers of a photo upload of ``length`` bytes and no body; the status line, seconds."""
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Taicam: 1\r\n"
                           f"Content-Type: image/jpeg\r\nContent-Length: {length}\r\n\r\n".encode())
        answer = connection.recv(4096).decode("latin-1")
    return answer.splitlines()[0], time.perf_counter() - started


def png_bomb() -> bytes:
    out = io.BytesIO()
    Image.new("1", (40000, 40000)).save(out, format="PNG", optimize=True)
    return out.getvalue()


def test_uploads_that_are_not_photos_too_large_or_bombs_are_refused_quickly(serve: RunningServe) -> None:
    status_line, seconds = announce_only(serve.port, "/api/photos", 21 * 1024 * 1024)
    assert "413" in status_line and seconds < 1.0
    jpeg_header = b"\xff\xd8\xff\xe0" + b"\0" * 100
    heic_like = b"\0\0\0\x18ftypheic" + b"\0" * 100
    for data, said in [(b"hello, I am text", "not a photo"), (b"", "empty"),
                       (b"%PDF-1.7\n" + b"\0" * 100, "not a photo"), (jpeg_header, "not a readable JPEG"),
                       (heic_like, "not a readable HEIF image"), (png_bomb(), "the limit is")]:
        started = time.perf_counter()
        status, answer = serve.call("POST", "/api/photos", data, {"X-Taicam": "1",
                                                                  "Content-Type": "image/jpeg"})
        assert status == 400 and said in answer["error"], (said, answer)
        assert time.perf_counter() - started < 1.0
    folder = serve.app.desk.folder
    assert not folder.exists() or not any(folder.iterdir())


def test_a_photo_is_kept_under_its_hash_and_read(serve: RunningServe) -> None:
    data = (SAMPLES / "hand-overhead.jpg").read_bytes()
    status, reading = serve.call("POST", "/api/photos", data, {"X-Taicam": "1", "Content-Type": "image/jpeg"})
    assert status == 200 and reading["ok"] and len(reading["tiles"]) == 21
    assert [p.name for p in serve.app.desk.folder.iterdir()] == [reading["photo"]]
    status, preview = serve.call("GET", f"/api/photos/{reading['photo']}/preview.jpg")
    assert status == 200 and preview[:3] == b"\xff\xd8\xff"


def test_an_iphone_heic_photo_is_read(serve: RunningServe) -> None:
    import pillow_heif

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    Image.open(SAMPLES / "hand-overhead.jpg").save(out, format="HEIF", quality=90)
    status, reading = serve.call("POST", "/api/photos", out.getvalue(),
                                 {"X-Taicam": "1", "Content-Type": "image/heic"})
    assert status == 200 and reading["photo"].endswith(".heic")
    assert reading["ok"] and len(reading["tiles"]) == 21
    status, preview = serve.call("GET", f"/api/photos/{reading['photo']}/preview.jpg")
    assert status == 200 and preview[:3] == b"\xff\xd8\xff"
