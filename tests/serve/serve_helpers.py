"""Helpers for ``taicam serve``'s tests: a real server (real models, a real SQLite file) in a thread."""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

from vision.serve.app import ServeApp
from vision.serve.photos import PhotoDesk
from vision.serve.routes import ServeServer
from vision.serve.store import GameStore

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
CHANGE = {"Content-Type": "application/json", "X-Taicam": "1"}


class RunningServe:
    """A ServeServer on a free port, serving from a thread until :meth:`stop`."""

    def __init__(self, folder: Path, pipeline: object = None, host: str = "127.0.0.1") -> None:
        self.store = GameStore(folder / "games.sqlite3")
        self.app = ServeApp(self.store, PhotoDesk(folder / "photos", pipeline))
        self.server = ServeServer(self.app, host=host, port=0)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def call(self, method: str, path: str, body: bytes | dict | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict | bytes]:
        """One request to 127.0.0.1; a JSON answer parsed."""
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            raw = response.read()
            if response.getheader("Content-Type", "").startswith("application/json"):
                return response.status, json.loads(raw)
            return response.status, raw
        finally:
            connection.close()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        self.store.close()
