"""``taicam serve``'s HTTP server: the page's three files and a small JSON API (stdlib only).

Access is ``vision.server_core``'s: loopback by default, a token on every request off it; every
change needs the ``X-Taicam`` header and a same-origin ``Origin``. Photos are named only by the ids
the server gave out; bodies over their limit are refused (413) unread.

The page's Chinese names are drawn with a subset of WenQuanYi Micro Hei served from here
(``static/FONT.md``), for a laptop without a Chinese font; a phone's own fonts come first.

API: ``GET /api/meta``, ``GET /api/game``, ``POST /api/games`` (a new game), ``POST /api/photos``
(a photo's bytes: kept and read), ``POST /api/photos/ID/read`` (read again with ``fixes``),
``GET /api/photos/ID/preview.jpg``, ``POST /api/score`` (a hand scored, not added), ``POST
/api/hands`` (added), ``POST /api/undo``, ``GET /api/export.json``, ``GET /api/export.csv``.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scoring.errors import InputError
from vision.serve.app import ServeApp
from vision.serve.photos import UPLOAD_LIMITS
from vision.serve.store import StaleGameError
from vision.server_core import SECURITY_HEADERS, Access, AccessError, body_length, check_change

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
                "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
                "/static/app.css": ("app.css", "text/css; charset=utf-8"),
                "/static/cjk.ttf": ("cjk.ttf", "font/ttf")}
#: Largest JSON body: a hand and its choices are well under 1 kB.
MAX_BODY_BYTES = 64 * 1024
TOOL_HEADER = "X-Taicam"
_PHOTO_ROUTE = re.compile(r"^/api/photos/([0-9a-f]{24}\.(?:jpg|png|heic))/(read|preview\.jpg)$")


class ServeHandler(BaseHTTPRequestHandler):
    """One request; ``server.app`` is the ServeApp, ``server.access`` the rules it is let in by."""

    server_version = "taicam-serve"
    protocol_version = "HTTP/1.1"
    server: ServeServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if self.server.verbose:
            sys.stderr.write("serve: " + format % args + "\n")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, cache: bool = False,
              download: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "private, max-age=3600" if cache else "no-store")
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        if download:
            self.send_header("Content-Disposition", f'attachment; filename="{download}"')
        if self._token_in_url:
            self.send_header("Set-Cookie", self.server.access.cookie_header())
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json")

    def _body(self, limit: int, what: str) -> bytes:
        check_change(self.headers, TOOL_HEADER)
        self.close_connection = True  # an oversized body is never read: the connection closes
        length = body_length(self.headers, limit, what)
        data = self.rfile.read(length)
        self.close_connection = False
        return data

    def _read_json(self) -> dict[str, Any]:
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            raise AccessError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
        try:
            body = json.loads(self._body(MAX_BODY_BYTES, "request body") or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise AccessError(HTTPStatus.BAD_REQUEST, "body is not valid JSON") from None
        if not isinstance(body, dict):
            raise AccessError(HTTPStatus.BAD_REQUEST, "body must be a JSON object")
        return body

    def _handle(self, method: str) -> None:
        self._token_in_url = False
        try:
            self._token_in_url = self.server.access.check(self.headers, self.path)
            self._route(method)
        except AccessError as error:
            self._json({"error": str(error)}, error.status)
        except StaleGameError as error:
            self._json({"error": str(error), "stale": True}, HTTPStatus.CONFLICT)
        except InputError as error:
            self._json({"error": str(error)}, HTTPStatus.BAD_REQUEST)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as error:  # noqa: BLE001 - one bad request must not stop the table's server
            self._json({"error": f"internal error: {type(error).__name__}: {error}"},
                       HTTPStatus.INTERNAL_SERVER_ERROR)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._handle("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    def _route(self, method: str) -> None:
        path = urlsplit(self.path).path
        app = self.server.app
        if method == "GET" and path in STATIC_FILES:
            name, content_type = STATIC_FILES[path]
            self._send(HTTPStatus.OK, (STATIC_DIR / name).read_bytes(), content_type)
        elif method == "GET" and path == "/api/meta":
            self._json(app.meta())
        elif method == "GET" and path == "/api/game":
            self._json(app.view())
        elif method == "GET" and path in ("/api/export.json", "/api/export.csv"):
            kind = path.rsplit(".", 1)[1]
            body, content_type = app.export(kind)
            self._send(HTTPStatus.OK, body, content_type, download=f"taicam-game.{kind}")
        elif method == "POST" and path == "/api/photos":
            photo = app.desk.keep(self._body(UPLOAD_LIMITS.max_bytes, "photo"))
            self._json(app.desk.read(photo))
        elif method == "POST" and path in ("/api/games", "/api/score", "/api/hands", "/api/undo"):
            body = self._read_json()
            action = {"/api/games": app.new_game, "/api/score": app.score, "/api/hands": app.add_hand,
                      "/api/undo": app.undo}[path]
            with self.server.game_lock:
                self._json(action(body))
        elif (match := _PHOTO_ROUTE.match(path)) is not None:
            self._photo_route(method, match.group(1), match.group(2))
        else:
            raise AccessError(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def _photo_route(self, method: str, photo: str, action: str) -> None:
        desk = self.server.app.desk
        if method == "GET" and action == "preview.jpg":
            self._send(HTTPStatus.OK, desk.preview(photo), "image/jpeg", cache=True)
        elif method == "POST" and action == "read":
            fixes = self._read_json().get("fixes") or []
            if not isinstance(fixes, list) or not all(isinstance(f, str) for f in fixes):
                raise InputError("'fixes' must be a list of READ=TRUE texts")
            self._json(desk.read(photo, tuple(fixes)))
        else:
            raise AccessError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} not allowed here")


class ServeServer(ThreadingHTTPServer):
    """ThreadingHTTPServer carrying the app; changes to the game never interleave (``game_lock``)."""

    daemon_threads = True

    def __init__(self, app: ServeApp, host: str = "127.0.0.1", port: int = 8766, verbose: bool = False,
                 token: str | None = None) -> None:
        self.app = app
        self.verbose = verbose
        self.host = host
        self.game_lock = threading.Lock()
        super().__init__((host, port), ServeHandler)
        self.access = Access.for_bind(host, self.server_address[1], token)

    @property
    def url(self) -> str:
        """The URL to open (with ``--lan``: the LAN address, with the token)."""
        return self.access.public_url(self.host)
