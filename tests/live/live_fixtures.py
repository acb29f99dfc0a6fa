"""Helpers for the live-mode tests: small real video files and a real HTTP MJPEG stream."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np
import pytest


def numbered_frame(i: int, size: tuple[int, int] = (160, 120)) -> np.ndarray:
    """A frame whose brightness encodes its number (i * 8), so a reader can tell which one it got."""
    return np.full((size[1], size[0], 3), (i * 8) % 256, np.uint8)


def frame_number(image: np.ndarray) -> int:
    return int(round(float(image.mean()) / 8))


@pytest.fixture
def counting_video(tmp_path: Path) -> Path:
    """A 30-frame MJPG .avi at 30 fps whose frames can be told apart."""
    path = tmp_path / "count.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (160, 120))
    assert writer.isOpened()
    for i in range(30):
        writer.write(numbered_frame(i))
    writer.release()
    return path


class MjpegServer:
    """A real multipart-JPEG HTTP stream (what phone camera apps serve) that can drop and go away.

    Each connection streams ``frames_per_connection`` frames and then closes, like a flaky network.
    ``stop()`` takes the server down so reconnects are refused; ``max_connections`` makes the camera
    vanish after that many connections (later ones get HTTP 503).
    """

    def __init__(
        self, frames_per_connection: int = 10, interval: float = 0.02, max_connections: int = 0
    ) -> None:
        self.frames_per_connection = frames_per_connection
        self.interval = interval
        self.max_connections = max_connections  # after this many, answer 503 (0: no limit)
        self.connections = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.connections += 1
                if server.max_connections and server.connections > server.max_connections:
                    self.send_error(503, "camera gone")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    for i in range(server.frames_per_connection):
                        ok, encoded = cv2.imencode(".jpg", numbered_frame(i))
                        data = encoded.tobytes()
                        header = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(
                            data
                        )
                        self.wfile.write(header + data + b"\r\n")
                        time.sleep(server.interval)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/stream.mjpg"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def mjpeg_server() -> Iterator[MjpegServer]:
    server = MjpegServer()
    yield server
    server.stop()
