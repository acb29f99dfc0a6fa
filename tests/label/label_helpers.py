"""Helpers for the labelling tool's tests: real table photos, a seeded manifest, a server in a thread."""

from __future__ import annotations

import threading
from pathlib import Path

from shared_data import require_shared_data

from vision.dataset.manifest import ManifestRecord, TileLabel, write_manifest
from vision.dataset.paths import shared_data_dir
from vision.label.proposals import ModelBundle, ProposalCache
from vision.label.server import LabelApp, LabelServer
from vision.label.workspace import LabelWorkspace

TABLE_PHOTOS = shared_data_dir() / "table-photos" / "images"


def real_photos(count: int) -> list[Path]:
    require_shared_data("table-photos", "images")
    return sorted(TABLE_PHOTOS.glob("*.jpg"))[:count]


def seed_labels(folder: Path) -> list[ManifestRecord]:
    """A starting manifest for the first photo: six tiles in a row, as an import would leave them."""
    tiles = [TileLabel(code=code, box=(100.0 + 40 * i, 200.0, 136.0 + 40 * i, 250.0), source_label=f"up{i}")
             for i, code in enumerate(["1m", "2m", "3m", "5p", "5p", "5p"])]
    records = [ManifestRecord(image="images/table0.jpg", width=640, height=640, tiles=tiles, source="import",
                              extra={"note": "kept"})]
    write_manifest(folder / "manifest.jsonl", records)
    return records


class RunningServer:
    def __init__(self, server: LabelServer, thread: threading.Thread) -> None:
        self.server, self.thread = server, thread
        self.url = server.url

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_server(folder: Path, model_dir: Path | None = None, enabled: bool = False) -> RunningServer:
    workspace = LabelWorkspace(folder)
    app = LabelApp(workspace, ProposalCache(workspace.sidecar_dir, ModelBundle(model_dir, enabled=enabled)))
    server = LabelServer(app, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return RunningServer(server, thread)
