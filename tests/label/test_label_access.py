"""A save never wipes a photo's labels, and a server off the loopback needs its token (issue 43).

The LAN-mode server binds every interface but is reached on 127.0.0.1 only.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from label_helpers import RunningServer, seed_labels

from vision.label.proposals import ModelBundle, ProposalCache
from vision.label.server import LabelApp, LabelServer
from vision.label.workspace import LabelWorkspace

JSON_HEADERS = {"Content-Type": "application/json", "X-Taicam-Label": "1"}


def call(port: int, method: str, path: str, body: object = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers or {})
        response = connection.getresponse()
        raw = response.read()
        is_json = response.getheader("Content-Type", "").startswith("application/json")
        content = json.loads(raw) if is_json else {}
        return response.status, content, dict(response.getheaders())
    finally:
        connection.close()


@pytest.mark.parametrize("body", [
    {}, {"revision": 0}, {"tiles": []}, {"revision": 0, "tiles": []}, {"revision": "0", "tiles": [],
                                                                         "reviewed": False},
    {"revision": 0, "tiles": {}, "reviewed": False}, {"revision": 0, "tiles": [], "reviewed": 1},
    {"revision": 0, "tiles": [], "reviewed": False, "wipe": True},
])
def test_a_save_without_its_revision_and_record_changes_nothing(server: RunningServer, photo_dir: Path,
                                                                body: dict) -> None:
    manifest = photo_dir / "manifest.jsonl"
    before = manifest.read_bytes()
    status, answer, _ = call(server.server.server_address[1], "PUT", "/api/images/0", body, JSON_HEADERS)
    assert status == 400, answer
    assert manifest.read_bytes() == before


def test_a_save_of_an_older_revision_is_a_conflict(server: RunningServer, photo_dir: Path) -> None:
    manifest = photo_dir / "manifest.jsonl"
    before = manifest.read_bytes()
    status, answer, _ = call(server.server.server_address[1], "PUT", "/api/images/0",
                             {"revision": 5, "tiles": [], "reviewed": False}, JSON_HEADERS)
    assert status == 409 and answer["stale"]
    assert manifest.read_bytes() == before


@pytest.fixture
def lan_server(photo_dir: Path) -> Iterator[LabelServer]:
    seed_labels(photo_dir)
    workspace = LabelWorkspace(photo_dir)
    app = LabelApp(workspace, ProposalCache(workspace.sidecar_dir, ModelBundle(None, enabled=False)))
    server = LabelServer(app, host="0.0.0.0", port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.mark.parametrize("route", ["/", "/static/app.js", "/api/meta", "/api/images", "/api/images/0",
                                   "/api/images/0/file", "/api/review", "/nowhere"])
def test_off_the_loopback_every_request_without_the_token_is_401(lan_server: LabelServer, route: str) -> None:
    port = lan_server.server_address[1]
    assert call(port, "GET", route)[0] == 401
    assert call(port, "GET", route + "?token=wrong")[0] == 401
    assert call(port, "GET", route, headers={"Cookie": "taicam_token=wrong"})[0] == 401


def test_off_the_loopback_the_printed_url_lets_the_page_in(lan_server: LabelServer) -> None:
    port, token = lan_server.server_address[1], lan_server.access.token
    assert token and len(token) >= 32
    url = urlsplit(lan_server.url)
    assert url.hostname != "127.0.0.1" or url.query == f"token={token}"
    assert url.query == f"token={token}"
    status, _, headers = call(port, "GET", f"/?token={token}")
    assert status == 200
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    # Later requests carry the cookie (the page's fetches), or the header.
    assert call(port, "GET", "/api/images", headers={"Cookie": cookie.split(";")[0]})[0] == 200
    assert call(port, "GET", "/api/meta", headers={"X-Taicam-Token": token})[0] == 200
    status, _, _ = call(port, "PUT", "/api/images/0", {}, {**JSON_HEADERS, "X-Taicam-Token": token})
    assert status == 400
    status, _, _ = call(port, "PUT", "/api/images/0", {"revision": 0, "tiles": [], "reviewed": False},
                        {**JSON_HEADERS, "X-Taicam-Token": token, "Origin": "http://evil.example"})
    assert status == 403


def test_label_off_the_loopback_says_so(photo_dir: Path) -> None:
    from vision.server_core import Access, announce

    access = Access.for_bind("0.0.0.0", 8765)
    lines = announce("label", access, "0.0.0.0")
    assert "127.0.0.1" not in lines[0] or "token=" in lines[0]
    assert f"token={access.token}" in lines[0] and "WARNING" in lines[1]
    assert announce("label", Access.for_bind("127.0.0.1", 8765), "127.0.0.1") == [
        "taicam label: serving http://127.0.0.1:8765/ (Ctrl+C to stop)"]
