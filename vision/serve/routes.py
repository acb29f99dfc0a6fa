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

import re
import threading
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from scoring.errors import InputError
from vision.serve.app import ServeApp
from vision.serve.photos import UPLOAD_LIMITS
from vision.serve.store import StaleGameError
from vision.server_core import Access, AccessError, ToolHandler

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
                "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
                "/static/app.css": ("app.css", "text/css; charset=utf-8"),
                "/static/cjk.ttf": ("cjk.ttf", "font/ttf")}
#: Largest JSON body: a hand and its choices are well under 1 kB.
MAX_BODY_BYTES = 64 * 1024
TOOL_HEADER = "X-Taicam"
_PHOTO_ROUTE = re.compile(r"^/api/photos/([0-9a-f]{24}\.(?:jpg|png|heic))/(read|preview\.jpg)$")


class ServeHandler(ToolHandler):
    """One request; ``server.app`` is the ServeApp, ``server.access`` the rules it is let in by."""

    server_version = "taicam-serve"
    server: ServeServer
    change_header = TOOL_HEADER
    log_name = "serve"
    cache_control = "private, max-age=3600"
    max_json_bytes = MAX_BODY_BYTES
    stale_errors = (StaleGameError,)

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
