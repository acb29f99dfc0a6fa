"""Labelling-tool benchmark: how long one save takes as the manifest grows, and one photo's first view.

``python -m vision.label.benchmark [--sizes 200,2000,10000] [--json]``

Every change rewrites the whole manifest atomically (see ``workspace``), so a save costs time in
proportion to the dataset; this measures it through the real HTTP API on a local server, with
records of 20 tiles each (the photos they name need not exist: they are kept verbatim). Also
times the first view of a real table photo (``GET /api/images/N``) with and without the shipped
classifier.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from vision.dataset.manifest import ManifestRecord, TileLabel, write_manifest
from vision.dataset.paths import shared_data_dir
from vision.label.proposals import ModelBundle, ProposalCache
from vision.label.server import LabelApp, LabelServer
from vision.label.workspace import LabelWorkspace


def _serve(folder: Path, models: ModelBundle) -> tuple[LabelServer, threading.Thread]:
    workspace = LabelWorkspace(folder)
    server = LabelServer(LabelApp(workspace, ProposalCache(workspace.sidecar_dir, models)), port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, thread


def _request(url: str, body: dict | None = None) -> tuple[float, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="PUT" if body is not None else "GET",
                                     headers={"Content-Type": "application/json", "X-Taicam-Label": "1"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        obj = json.loads(response.read())
    return time.perf_counter() - start, obj


def save_latency(size: int, photo: Path, saves: int = 15) -> dict[str, float]:
    """Median and p95 seconds of one save with ``size`` other photos in the manifest."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copy(photo, folder / "photo.jpg")
        tiles = [TileLabel(code="5p", box=(10.0 * i, 20.0, 10.0 * i + 9, 33.0)) for i in range(20)]
        write_manifest(folder / "manifest.jsonl",
                       [ManifestRecord(image=f"archive/{n}.jpg", width=640, height=480, tiles=tiles)
                        for n in range(size)])
        server, thread = _serve(folder, ModelBundle(enabled=False))
        try:
            times, revision = [], 0
            for step in range(saves):
                tiles = [{"code": "1s", "box": [5 * i, 5, 5 * i + 4, 12]} for i in range(step + 1)]
                edit = {"revision": revision, "reviewed": False, "tiles": tiles}
                elapsed, state = _request(f"{server.url}api/images/0", edit)
                revision = state["revision"]
                times.append(elapsed)
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    return {"photos": size, "median_s": statistics.median(times), "p95_s": p95}


def first_view(photo: Path, models: ModelBundle) -> dict[str, float | str]:
    """Seconds for the page's first and second request of one photo's tiles and proposals."""
    labels = photo.parent.parent / "labels" / f"{photo.stem}.txt"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "images").mkdir()
        (folder / "labels").mkdir()
        shutil.copy(photo, folder / "images" / photo.name)
        if labels.is_file():
            lines = [line.split()[1:] for line in labels.read_text().splitlines() if line.strip()]
            (folder / "labels" / labels.name).write_text("".join(f"0 {' '.join(b)}\n" for b in lines))
            (folder / "data.yaml").write_text("names: ['tile']\n")
        server, thread = _serve(folder, models)
        try:
            first, state = _request(f"{server.url}api/images/0")
            second, _ = _request(f"{server.url}api/images/0")
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
    found = ", ".join(kind for kind, path in models.describe().items() if path) or "none"
    return {"models": found, "source": state["source"], "tiles": len(state["tiles"]),
            "first_s": first, "cached_s": second}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vision.label.benchmark", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,2000,10000", help="manifest sizes (photos) to time saves at")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    photos = sorted((shared_data_dir() / "table-photos" / "images").glob("*.jpg"))
    if not photos:
        print("benchmark needs ../shared/data/table-photos (set TAICAM_SHARED_DATA)")
        return 2
    saves = [save_latency(int(size), photos[0]) for size in args.sizes.split(",")]
    views = [first_view(photos[0], ModelBundle(enabled=False)), first_view(photos[0], ModelBundle())]
    if args.json:
        print(json.dumps({"saves": saves, "first_view": views}, indent=2))
        return 0
    print("save (20 tiles per photo already in the manifest)")
    for row in saves:
        print(f"  {row['photos']:>6} photos: median {row['median_s'] * 1000:7.1f} ms   "
              f"p95 {row['p95_s'] * 1000:7.1f} ms")
    print("first view of a table photo (YOLO boxes beside it)")
    for row in views:
        print(f"  models {row['models']:<22} source {row['source']:<8} {row['tiles']:>3} tiles: "
              f"first {row['first_s'] * 1000:7.1f} ms, again {row['cached_s'] * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
