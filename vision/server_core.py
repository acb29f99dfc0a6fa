"""What both local web tools (``taicam label``, ``taicam serve``) need to serve safely.

Why: a page that shows a user's photos and writes their labels or their table's money must be
reachable by them alone. The rules, in one place so both servers keep them alike:

* bind to the loopback unless told otherwise; there the ``Host`` header must name the loopback
  (blocks DNS rebinding);
* off the loopback, a random access token is made and required on every request: in the URL the
  server prints once (``?token=...``), then in an HttpOnly, SameSite=Strict cookie the first
  answer sets, or in the ``X-Taicam-Token`` header; anything else is answered 401;
* a request that changes something must carry the tool's own header (``X-Taicam-Label`` or
  ``X-Taicam``), which a page of another origin cannot send without a CORS preflight these
  servers never grant, and an ``Origin`` (when the browser sends one) naming this very server.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, quote, urlsplit

from scoring.errors import InputError

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
TOKEN_COOKIE = "taicam_token"
TOKEN_HEADER = "X-Taicam-Token"
TOKEN_QUERY = "token"
#: Bytes of randomness in an access token (32 characters of URL-safe base64).
TOKEN_BYTES = 24
#: The address used to find this machine's LAN address: a UDP socket is "connected" to it, which
#: sends nothing, and the address the system would send from is read back.
_ROUTE_PROBE = ("10.255.255.255", 1)


class AccessError(Exception):
    """A request these rules refuse: its HTTP status and a one-line reason."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine (127.x, ::1, ``localhost``)."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on its local network (what a phone on the same Wi-Fi dials), or
    ``127.0.0.1`` when it has none. Nothing is sent: connecting a UDP socket only picks a route."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(_ROUTE_PROBE)
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Access:
    """The rules one server applies: the port it is bound to, whether on the loopback, and the token
    (None on the loopback, where the Host check keeps other machines' pages out)."""

    port: int
    loopback: bool
    token: str | None

    @classmethod
    def for_bind(cls, host: str, port: int, token: str | None = None) -> Access:
        """The rules for a server bound to ``host:port``: off the loopback a token is required
        (``token``, or a new one)."""
        loopback = is_loopback(host)
        return cls(port, loopback, None if loopback else (token or new_token()))

    def public_url(self, host: str) -> str:
        """The URL to open: the loopback's, or the LAN address's with the token in it."""
        if self.loopback:
            return f"http://127.0.0.1:{self.port}/"
        shown = lan_address() if host in ("0.0.0.0", "", "::") else host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{self.port}/?{TOKEN_QUERY}={quote(self.token or '')}"

    def check(self, headers: Mapping[str, str], target: str) -> bool:
        """Let the request in or raise AccessError (403 foreign Host, 401 no or wrong token).
        Returns whether the token came in the URL (the answer then sets the cookie)."""
        if self.loopback:
            allowed = {f"{name}:{self.port}" for name in LOOPBACK_NAMES}
            if headers.get("Host", "") not in allowed:
                raise AccessError(HTTPStatus.FORBIDDEN, "unexpected Host header")
            return False
        expected = self.token or ""
        from_url = (parse_qs(urlsplit(target).query).get(TOKEN_QUERY) or [""])[0]
        for given in (from_url, headers.get(TOKEN_HEADER, ""), _cookie_token(headers.get("Cookie", ""))):
            if given and hmac.compare_digest(given.encode(), expected.encode()):
                return bool(from_url) and given == from_url
        raise AccessError(HTTPStatus.UNAUTHORIZED,
                          "this server needs its access token: open the URL it printed (with ?token=)")

    def cookie_header(self) -> str:
        """The ``Set-Cookie`` value that keeps the token for the page's later requests."""
        return f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"


def _cookie_token(cookie_text: str) -> str:
    try:
        cookie = SimpleCookie(cookie_text)
    except CookieError:
        return ""
    morsel = cookie.get(TOKEN_COOKIE)
    return morsel.value if morsel is not None else ""


def check_change(headers: Mapping[str, str], tool_header: str) -> None:
    """Refuse (403) a state-changing request without the tool's header or from another origin."""
    if headers.get(tool_header) != "1":
        raise AccessError(HTTPStatus.FORBIDDEN, f"missing {tool_header} header")
    origin = headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc != headers.get("Host", ""):
        raise AccessError(HTTPStatus.FORBIDDEN, "the request comes from another site")
    if headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        raise AccessError(HTTPStatus.FORBIDDEN, "the request comes from another site")


def body_length(headers: Mapping[str, str], limit: int, what: str) -> int:
    """The announced body length, refused (411, 400, 413) when absent, malformed or over ``limit``;
    the caller must then not read the body at all."""
    text = headers.get("Content-Length")
    if text is None:
        raise AccessError(HTTPStatus.LENGTH_REQUIRED, "Content-Length required")
    try:
        length = int(text)
    except ValueError:
        raise AccessError(HTTPStatus.BAD_REQUEST, "bad Content-Length") from None
    if length < 0 or length > limit:
        size = f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        raise AccessError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"{what} over {size} refused")
    return length


#: Headers every answer carries: no sniffing, nothing loaded from elsewhere, no framing.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


def announce(tool: str, access: Access, host: str) -> list[str]:
    """The lines a server prints when it starts: where to open it, and a warning off the loopback."""
    url = access.public_url(host)
    if access.loopback:
        return [f"taicam {tool}: serving {url} (Ctrl+C to stop)"]
    return [f"taicam {tool}: serving {url} (Ctrl+C to stop)",
            f"taicam {tool}: WARNING: listening on {host or 'every interface'}: anyone on this network "
            "who has the URL above (its token) can use this page; keep it to yourself"]


def serve_until_stopped(server: HTTPServer) -> None:
    """Serve until Ctrl+C (an ordinary way to stop a local tool, not an error), then close the socket."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


class ToolHandler(BaseHTTPRequestHandler):
    """The request plumbing both tools share: access checked first, bodies read within their limit,
    every refusal answered as one JSON line with its status. A tool subclasses it and routes in
    ``_route``; ``server`` must carry ``access`` (:class:`Access`) and ``verbose``."""

    protocol_version = "HTTP/1.1"
    #: The tool's own header that every change must carry (:func:`check_change`).
    change_header = ""
    #: The prefix of the tool's log lines.
    log_name = ""
    #: How long a browser may keep what ``_send(..., cache=True)`` sends.
    cache_control = "max-age=3600"
    #: Largest JSON body.
    max_json_bytes = 64 * 1024
    #: Errors meaning "this edits an old revision": answered 409 with ``"stale": true``.
    stale_errors: tuple[type[Exception], ...] = ()
    _token_in_url = False

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        if self.server.verbose:
            sys.stderr.write(f"{self.log_name}: " + format % args + "\n")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, cache: bool = False,
              download: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", self.cache_control if cache else "no-store")
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        if download:
            self.send_header("Content-Disposition", f'attachment; filename="{download}"')
        if self._token_in_url:
            self.send_header("Set-Cookie", self.server.access.cookie_header())
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: object, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json")

    def _body(self, limit: int, what: str) -> bytes:
        """The body of a change, at most ``limit`` bytes (an oversized one is refused unread and the
        connection closed, since its bytes were never taken off the wire)."""
        check_change(self.headers, self.change_header)
        self.close_connection = True
        length = body_length(self.headers, limit, what)
        data = self.rfile.read(length)
        self.close_connection = False
        return data

    def _read_json(self) -> dict[str, object]:
        check_change(self.headers, self.change_header)
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            raise AccessError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
        try:
            body = json.loads(self._body(self.max_json_bytes, "request body") or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise AccessError(HTTPStatus.BAD_REQUEST, "body is not valid JSON") from None
        if not isinstance(body, dict):
            raise AccessError(HTTPStatus.BAD_REQUEST, "body must be a JSON object")
        return body

    def _route(self, method: str) -> None:
        raise NotImplementedError

    def _handle(self, method: str) -> None:
        self._token_in_url = False
        try:
            self._token_in_url = self.server.access.check(self.headers, self.path)
            self._route(method)
        except AccessError as error:
            self._json({"error": str(error)}, error.status)
        except self.stale_errors as error:
            self._json({"error": str(error), "stale": True}, HTTPStatus.CONFLICT)
        except InputError as error:
            self._json({"error": str(error)}, HTTPStatus.BAD_REQUEST)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as error:  # noqa: BLE001 - one bad request must not stop the tool's server
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
