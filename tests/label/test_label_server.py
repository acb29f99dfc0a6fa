"""The HTTP API: saves, undo, and the security rules (loopback, no traversal, bounded bodies)."""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from label_helpers import RunningServer

from vision.dataset.manifest import read_manifest
from vision.label.server import MAX_BODY_BYTES
from vision.label.workspace import MAX_UPLOAD_BYTES


def request(server: RunningServer, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def send_json(server: RunningServer, method: str, path: str, obj: object) -> tuple[int, dict]:
    status, body = request(server, method, path, json.dumps(obj).encode(),
                           {"Content-Type": "application/json", "X-Taicam-Label": "1"})
    return status, json.loads(body)


def test_binds_to_the_loopback_by_default(server: RunningServer) -> None:
    assert server.server.server_address[0] == "127.0.0.1"


def test_page_and_assets_are_served(server: RunningServer) -> None:
    status, body = request(server, "GET", "/")
    assert status == 200 and b"taicam label" in body
    assert request(server, "GET", "/static/app.js")[0] == 200
    assert request(server, "GET", "/static/app.css")[0] == 200


@pytest.mark.parametrize("path", [
    "/static/../server.py", "/static/..%2fserver.py", "/static/server.py", "/../../etc/passwd",
    "/api/images/0/../../../etc/passwd", "/api/images/-1/file", "/api/images/99/file",
    "/api/images/0/file/../../manifest.jsonl", "/manifest.jsonl", "/images/table0.jpg", "//etc/passwd",
])
def test_nothing_outside_the_api_and_the_page_is_served(server: RunningServer, path: str) -> None:
    status, body = request(server, "GET", path)
    assert status == 404, (path, status)
    assert b"root:" not in body and b"import" not in body


def test_images_are_served_by_index_only(server: RunningServer, photo_dir: Path) -> None:
    status, body = request(server, "GET", "/api/images/1/file")
    assert status == 200 and body == (photo_dir / "images" / "table1.jpg").read_bytes()


def test_foreign_host_header_is_refused(server: RunningServer) -> None:
    status, _ = request(server, "GET", "/api/images", headers={"Host": "evil.example:80"})
    assert status == 403


def test_changes_need_the_tool_header_and_json(server: RunningServer) -> None:
    body = json.dumps({"tiles": []}).encode()
    assert request(server, "PUT", "/api/images/0", body, {"Content-Type": "application/json"})[0] == 403
    assert request(server, "PUT", "/api/images/0", body,
                   {"Content-Type": "text/plain", "X-Taicam-Label": "1"})[0] == 415


def announce_body(server: RunningServer, method: str, path: str, length: int) -> tuple[int, bytes]:
    """Send only the headers of a request whose body would be ``length`` bytes; read the answer."""
    url = urlsplit(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as connection:
        connection.sendall(f"{method} {path} HTTP/1.1\r\nHost: {url.netloc}\r\n"
                           f"Content-Type: application/json\r\nX-Taicam-Label: 1\r\n"
                           f"Content-Length: {length}\r\n\r\n".encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_oversized_body_is_refused_unread(server: RunningServer, photo_dir: Path) -> None:
    before = (photo_dir / "manifest.jsonl").read_bytes()
    status, body = announce_body(server, "PUT", "/api/images/0", MAX_BODY_BYTES + 1)
    assert status == 413 and b"refused" in body
    assert (photo_dir / "manifest.jsonl").read_bytes() == before


def test_malformed_edits_get_a_clear_error(server: RunningServer) -> None:
    status, body = request(server, "PUT", "/api/images/0", b"{not json",
                           {"Content-Type": "application/json", "X-Taicam-Label": "1"})
    assert status == 400 and b"not valid JSON" in body
    status, obj = send_json(server, "PUT", "/api/images/0", {"tiles": [{"code": "10m", "box": [1, 1, 5, 5]}]})
    assert status == 400 and "unknown tile code" in obj["error"]


def test_save_reload_undo_round_trip(server: RunningServer, photo_dir: Path) -> None:
    status, raw = request(server, "GET", "/api/images/0")
    state = json.loads(raw)
    assert status == 200 and state["labelled"] and state["revision"] == 0
    tiles = [{k: v for k, v in t.items() if k != "candidates"} for t in state["tiles"]]
    tiles[3]["code"] = "6p"
    edit = {"revision": 0, "tiles": tiles, "reviewed": True, "context": {"seat_wind": "2z"}}
    status, saved = send_json(server, "PUT", "/api/images/0", edit)
    assert status == 200 and saved["revision"] == 1 and saved["can_undo"]
    assert saved["hand"]["context"] == {"seat_wind": "2z"}
    assert saved["check"] is None  # no winning tile marked: no complete hand to score yet
    (record,) = read_manifest(photo_dir / "manifest.jsonl")
    assert [t.code for t in record.tiles] == ["1m", "2m", "3m", "6p", "5p", "5p"] and record.reviewed

    status, stale = send_json(server, "PUT", "/api/images/0", {"revision": 0, "tiles": []})
    assert status == 409 and stale["stale"]

    status, undone = send_json(server, "POST", "/api/images/0/undo", {})
    assert status == 200 and undone["changed"] and undone["tiles"][3]["code"] == "5p"
    (record,) = read_manifest(photo_dir / "manifest.jsonl")
    assert record.tiles[3].code == "5p" and not record.reviewed


def test_unlabelled_image_without_models_proposes_nothing(server: RunningServer) -> None:
    state = json.loads(request(server, "GET", "/api/images/2")[1])
    assert state["labelled"] is False and state["tiles"] == [] and state["source"] == "none"


def test_review_counts_unreviewed_and_contact_sheet(server: RunningServer) -> None:
    data = json.loads(request(server, "GET", "/api/review")[1])
    assert data["counts"]["5p"] == 3 and data["counts"]["1m"] == 1 and data["counts"]["9s"] == 0
    assert [row["index"] for row in data["unreviewed"]] == [0, 1, 2]
    assert data["disagreements"] == [] and data["has_classifier"] is False
    crops = json.loads(request(server, "GET", "/api/crops?code=5p")[1])
    assert [(c["index"], c["tile"]) for c in crops] == [(0, 3), (0, 4), (0, 5)]
    status, jpeg = request(server, "GET", "/api/images/0/tiles/3/crop.jpg")
    assert status == 200 and jpeg[:2] == b"\xff\xd8"
    assert request(server, "GET", "/api/images/0/tiles/9/crop.jpg")[0] == 404
    assert request(server, "GET", "/api/crops?code=zz")[0] == 400


def upload(server: RunningServer, name: str, data: bytes) -> tuple[int, dict]:
    status, body = request(server, "POST", f"/api/upload?name={name}", data,
                           {"Content-Type": "application/octet-stream", "X-Taicam-Label": "1"})
    return status, json.loads(body)


def test_photos_can_be_added_inside_the_folder_only(server: RunningServer, photo_dir: Path) -> None:
    jpeg = (photo_dir / "images" / "table1.jpg").read_bytes()
    status, added = upload(server, "..%2F..%2Fescape.jpg", jpeg)  # a name that tries to climb out
    assert status == 200 and added == {"index": 3, "image": "uploads/escape.jpg"}
    assert (photo_dir / "uploads" / "escape.jpg").read_bytes() == jpeg
    assert not (photo_dir.parent / "escape.jpg").exists()
    status, again = upload(server, "escape.jpg", jpeg)  # never over an existing file
    assert again["image"] == "uploads/escape-2.jpg"
    assert request(server, "GET", "/api/images/4/file")[1] == jpeg
    assert len(json.loads(request(server, "GET", "/api/images")[1])) == 5


def test_uploads_that_are_not_photos_or_too_big_are_refused(server: RunningServer, photo_dir: Path) -> None:
    status, body = upload(server, "notes.txt", b"hello")
    assert status == 400 and "not a photo name" in body["error"]
    status, body = upload(server, "fake.jpg", b"\xff\xd8 definitely not a jpeg")
    assert status == 400 and "'fake.jpg': not an image" in body["error"]
    status, raw = announce_body(server, "POST", "/api/upload?name=big.jpg", MAX_UPLOAD_BYTES + 1)
    assert status == 413 and b"refused" in raw
    status, _ = request(server, "POST", "/api/upload?name=a.jpg", b"\xff\xd8",
                        {"Content-Type": "application/octet-stream"})
    assert status == 403
    assert not (photo_dir / "uploads").exists() or not any((photo_dir / "uploads").iterdir())
