"""The labelling tool's HTTP server: the static page plus a small JSON API (stdlib only).

Security: the binding, token, Host and same-origin rules are ``vision.server_core``'s (loopback
by default; off it a random token on every request). Images are addressed by their index in the
folder's list, so no client-supplied path ever reaches the file system; static files come from a
fixed list; request bodies over :data:`MAX_BODY_BYTES` (photos: over ``MAX_UPLOAD_BYTES``) are
refused (413) without being read. Every change needs the ``X-Taicam-Label`` header with a JSON
body; a save names the revision it edits (409 when another save came first).

API (all JSON): ``GET /api/meta``, ``GET /api/images``, ``GET /api/images/N`` (labels, or the
model's proposals for an unlabelled image, with per-tile top-k), ``PUT /api/images/N`` (save),
``POST /api/images/N/undo|redo``, ``POST /api/images/N/readings`` (top-k for boxes being drawn),
``GET /api/images/N/file``, ``GET /api/images/N/tiles/J/crop.jpg``, ``GET /api/review``,
``GET /api/crops?code=C``, ``POST /api/upload?name=F`` (a photo's bytes, into ``DIR/uploads/``).
"""

from __future__ import annotations

import re
import threading
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from scoring.errors import InputError
from scoring.tiles import ALIASES, ENGLISH_NAMES, VISION_CODES
from vision.dataset.files import BROWSER_UNREADABLE_SUFFIXES
from vision.dataset.manifest import LABEL_CODES, ROLES, UNKNOWN_CODE, TileLabel
from vision.label import review
from vision.label.crops import thumbnail_jpeg, upright_jpeg
from vision.label.hand import CONTEXT_FIELDS, hand_check, hand_from_labels
from vision.label.proposals import ProposalCache
from vision.label.seeds import seed_tiles
from vision.label.workspace import MAX_UPLOAD_BYTES, LabelWorkspace, StaleEditError
from vision.server_core import Access, AccessError, ToolHandler

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"/": "index.html", "/static/app.js": "app.js", "/static/app.css": "app.css"}
_CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                  ".css": "text/css; charset=utf-8", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                  ".png": "image/png", ".bmp": "image/bmp", ".webp": "image/webp"}
#: Largest request body accepted: one image's labels are a few kB; 2 MiB leaves room for 1000s of tiles.
MAX_BODY_BYTES = 2 * 1024 * 1024
#: Tiles whose model confidence is below this are highlighted and reachable with ``l``.
LOW_CONFIDENCE = 0.6
#: The keys a save carries: the revision it edits and the whole record (context may be left out).
SAVE_KEYS = frozenset({"revision", "tiles", "reviewed", "context"})
_ROUTE = re.compile(r"^/api/images/(\d{1,9})(?:/(file|undo|redo|readings|tiles/(\d{1,6})/crop\.jpg))?$")




class LabelApp:
    """What the handler serves: a workspace, its proposal cache, and the page's metadata."""

    def __init__(self, workspace: LabelWorkspace, cache: ProposalCache) -> None:
        self.workspace = workspace
        self.cache = cache

    def meta(self) -> dict[str, Any]:
        models = self.cache.models
        return {
            "folder": str(self.workspace.root),
            "manifest": str(self.workspace.manifest_path),
            "count": len(self.workspace),
            "codes": [*VISION_CODES, UNKNOWN_CODE],
            "names": ENGLISH_NAMES,
            # "?" marks a tile the labeller cannot read (the manifest's "unknown").
            "aliases": {**{alias: code for alias, code in ALIASES.items() if code in LABEL_CODES},
                        "?": UNKNOWN_CODE, UNKNOWN_CODE: UNKNOWN_CODE},
            "roles": list(ROLES),
            "context_fields": CONTEXT_FIELDS,
            "low_confidence": LOW_CONFIDENCE,
            "models": models.describe(),
            "max_body_bytes": MAX_BODY_BYTES,
            "max_upload_bytes": MAX_UPLOAD_BYTES,
        }

    def image_list(self) -> list[dict[str, Any]]:
        rows = []
        for index, key in enumerate(self.workspace.keys):
            record = self.workspace.record(index)
            rows.append({"index": index, "image": key, "labelled": record is not None,
                         "reviewed": bool(record and record.reviewed),
                         "tiles": len(record.tiles) if record else 0})
        return rows

    def image_state(self, index: int, warnings: list[str] | None = None) -> dict[str, Any]:
        """Everything the page shows for one image: its labels (or proposals) with top-k."""
        workspace = self.workspace
        key, path = workspace.key(index), workspace.image_file(index)
        width, height = workspace.image_size(index)
        record = workspace.record(index)
        if record is not None:
            tiles = [tile.to_json() for tile in record.tiles]
            readings = self.cache.readings(key, path, record.tiles)
            for tile, reading in zip(tiles, readings, strict=True):
                tile["candidates"] = reading or []
            source = "labels"
            context = dict((record.hand or {}).get("context") or {})
            if warnings is None:
                warnings = hand_from_labels(record.tiles, context, record.hand)[1]
        else:
            tiles, source = seed_tiles(workspace, self.cache, index)
            context, warnings = {}, []
        can_undo, can_redo = workspace.can_undo(index)
        return {
            "index": index, "image": key, "width": width, "height": height,
            "revision": workspace.revision(index), "labelled": record is not None,
            "reviewed": bool(record and record.reviewed), "source": source, "tiles": tiles,
            "context": context, "hand": record.hand if record else None, "warnings": warnings or [],
            "check": hand_check(record.hand) if record else None,
            "can_undo": can_undo, "can_redo": can_redo,
        }

    def save(self, index: int, body: dict[str, Any]) -> dict[str, Any]:
        """Replace the image's labels with the whole record ``body`` holds, edited from ``revision``.
        A body without the revision or the record (``{}`` would wipe the labels) is refused."""
        revision = body.get("revision")
        if not isinstance(revision, int) or isinstance(revision, bool):
            raise InputError("a save must carry the integer 'revision' it edits")
        unknown = sorted(set(body) - SAVE_KEYS)
        if unknown:
            raise InputError(f"a save carries {', '.join(sorted(SAVE_KEYS))}; not {', '.join(unknown)}")
        if not isinstance(body.get("tiles"), list):
            raise InputError("a save must carry the record's 'tiles' (a list, [] for none)")
        if not isinstance(body.get("reviewed"), bool):
            raise InputError("a save must carry 'reviewed' (true or false)")
        warnings = self.workspace.save(index, body, revision)
        return self.image_state(index, warnings)

    def readings(self, index: int, body: dict[str, Any]) -> list[Any]:
        tiles_obj = body.get("tiles")
        if not isinstance(tiles_obj, list) or len(tiles_obj) > 500:
            raise InputError("'tiles' must be a list of at most 500 tiles")
        tiles = [TileLabel.from_json({"code": UNKNOWN_CODE, **_geometry(t)}) for t in tiles_obj]
        return self.cache.readings(self.workspace.key(index), self.workspace.image_file(index), tiles)

    def review(self) -> dict[str, Any]:
        records = [record for _, record in self.workspace.records()]
        return {
            "counts": review.class_counts(records),
            "images": len(self.workspace),
            "labelled": len(records),
            "unreviewed": review.unreviewed(self.workspace),
            "disagreements": review.disagreements(self.workspace, self.cache),
            "has_classifier": self.cache.models.has_classifier,
            "has_detector": self.cache.models.has_detector,
        }

    def crop(self, index: int, tile_number: int) -> bytes:
        record = self.workspace.record(index)
        if record is None or not 0 <= tile_number < len(record.tiles):
            raise AccessError(HTTPStatus.NOT_FOUND, f"image {index} has no tile {tile_number}")
        return thumbnail_jpeg(self.workspace.image_file(index), record.tiles[tile_number])


def _geometry(tile: Any) -> dict[str, Any]:
    """Only the keys a reading depends on (the page may send a half-edited tile)."""
    if not isinstance(tile, dict):
        raise InputError("each tile must be a JSON object")
    return {key: tile[key] for key in ("box", "quad", "rotated") if tile.get(key) is not None}


class LabelRequestHandler(ToolHandler):
    """One request. ``server.app`` is the LabelApp; ``server.access`` the rules it is let in by."""

    server_version = "taicam-label"
    server: LabelServer
    change_header = "X-Taicam-Label"
    log_name = "label"
    max_json_bytes = MAX_BODY_BYTES
    stale_errors = (StaleEditError,)

    # ------------------------------------------------------------ routes
    def _route(self, method: str) -> None:
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        app = self.server.app
        if method == "GET" and path in STATIC_FILES:
            name = STATIC_FILES[path]
            self._send(HTTPStatus.OK, (STATIC_DIR / name).read_bytes(), _CONTENT_TYPES[Path(name).suffix])
            return
        if method == "GET" and path == "/api/meta":
            self._json(app.meta())
            return
        if method == "GET" and path == "/api/images":
            self._json(app.image_list())
            return
        if method == "GET" and path == "/api/review":
            self._json(app.review())
            return
        if method == "POST" and path == "/api/upload":
            name = (query.get("name") or [""])[0]
            index = app.workspace.add_upload(name, self._body(MAX_UPLOAD_BYTES, "photo"))
            self._json({"index": index, "image": app.workspace.key(index)})
            return
        if method == "GET" and path == "/api/crops":
            code = (query.get("code") or [""])[0]
            if code not in LABEL_CODES:
                raise InputError(f"unknown tile code {code!r}")
            self._json(review.crops_of_code(app.workspace, code))
            return
        match = _ROUTE.match(path)
        if match is None:
            raise AccessError(HTTPStatus.NOT_FOUND, f"no such page: {path}")
        index = int(match.group(1))
        if not 0 <= index < len(app.workspace):
            raise AccessError(HTTPStatus.NOT_FOUND, f"no image {index}")
        action = match.group(2)
        with self.server.edit_lock:
            self._image_route(method, index, action, match.group(3))

    def _image_route(self, method: str, index: int, action: str | None, tile: str | None) -> None:
        app = self.server.app
        if method == "GET" and action is None:
            self._json(app.image_state(index))
        elif method == "PUT" and action is None:
            self._json(app.save(index, self._read_json()))
        elif method == "POST" and action in ("undo", "redo"):
            self._read_json()
            step = app.workspace.undo if action == "undo" else app.workspace.redo
            changed = step(index)
            self._json({**app.image_state(index), "changed": changed})
        elif method == "POST" and action == "readings":
            self._json({"readings": app.readings(index, self._read_json())})
        elif method == "GET" and action == "file":
            file = app.workspace.image_file(index)
            if file.suffix.lower() in BROWSER_UNREADABLE_SUFFIXES:
                self._send(HTTPStatus.OK, upright_jpeg(file), "image/jpeg", cache=True)
            else:
                self._send(HTTPStatus.OK, file.read_bytes(),
                           _CONTENT_TYPES.get(file.suffix.lower(), "application/octet-stream"), cache=True)
        elif method == "GET" and tile is not None:
            self._send(HTTPStatus.OK, app.crop(index, int(tile)), "image/jpeg")
        else:
            raise AccessError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} not allowed here")


class LabelServer(ThreadingHTTPServer):
    """ThreadingHTTPServer carrying the app; edits of one image never interleave (``edit_lock``)."""

    daemon_threads = True

    def __init__(self, app: LabelApp, host: str = "127.0.0.1", port: int = 8765,
                 verbose: bool = False, token: str | None = None) -> None:
        self.app = app
        self.verbose = verbose
        self.host = host
        self.edit_lock = threading.Lock()
        super().__init__((host, port), LabelRequestHandler)
        #: Off the loopback a token is required on every request (``token``, or a random one).
        self.access = Access.for_bind(host, self.server_address[1], token)

    @property
    def url(self) -> str:
        """The URL to open (off the loopback: the LAN address, with the token)."""
        return self.access.public_url(self.host)
