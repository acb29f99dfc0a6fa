"""``taicam serve`` benchmark: a phone photo's upload-to-result time through the real HTTP API.

``python scripts/benchmark.py serve [--repeats 3] [--json]``

What it measures: each bundled sample photo (``datasets/samples``) is scaled to 4032x3024 (a 12 MP
phone photo) and sent as a JPEG (quality 92) to a ``taicam serve`` server on the loopback, as the
page sends it; the time runs from the first byte sent to the whole JSON reading received (check,
keep, decode at a reduced size, detect, classify, decode the hand, score, report). The server is
warmed with one upload first (the models load once per server). Each upload carries its own JPEG
comment, so none is answered from the server's cache of readings. Target: 1.5 s at the median on 2 cores.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from vision.imageio import read_bgr
from vision.serve.app import ServeApp
from vision.serve.photos import PhotoDesk
from vision.serve.routes import ServeServer
from vision.serve.store import GameStore

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
PHOTOS = ("hand-overhead.jpg", "hand-flat-row.jpg", "hand-four-sets.jpg")
PHONE_SIZE = (4032, 3024)


def phone_jpeg(photo: Path, mark: int) -> bytes:
    """``photo`` scaled to 4032x3024 as a quality-92 JPEG with the comment ``upload MARK``."""
    image = cv2.resize(read_bgr(photo), PHONE_SIZE, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise RuntimeError("cannot encode the benchmark photo")
    comment = f"upload {mark}".encode()
    segment = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
    return data[:2].tobytes() + segment + data[2:].tobytes()


def upload(port: int, data: bytes) -> tuple[float, dict]:
    """Seconds from sending ``data`` to the reading received, and the reading."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    try:
        connection.request("POST", "/api/photos", body=data,
                           headers={"X-Taicam": "1", "Content-Type": "image/jpeg"})
        response = connection.getresponse()
        reading = json.loads(response.read())
    finally:
        connection.close()
    return time.perf_counter() - started, reading


def run(repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        store = GameStore(Path(tmp) / "games.sqlite3")
        server = ServeServer(ServeApp(store, PhotoDesk(Path(tmp) / "photos")), port=0)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        port = server.server_address[1]
        try:
            upload(port, phone_jpeg(SAMPLES / PHOTOS[0], 65535))  # loads the models
            rows = []
            for n in range(repeats):
                for name in PHOTOS:
                    data = phone_jpeg(SAMPLES / name, n)
                    seconds, reading = upload(port, data)
                    rows.append({"photo": name, "bytes": len(data), "seconds": seconds,
                                 "read": bool(reading.get("ok")), "tiles": len(reading.get("tiles", []))})
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
            store.close()
    times = sorted(row["seconds"] for row in rows)
    return {"photo_size": f"{PHONE_SIZE[0]}x{PHONE_SIZE[1]}", "cores": len(os.sched_getaffinity(0)),
            "uploads": len(rows), "median_s": statistics.median(times),
            "p90_s": float(np.percentile(times, 90)), "max_s": times[-1], "target_s": 1.5, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py serve", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="uploads of each sample photo")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    result = run(max(1, args.repeats))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"upload-to-result, {result['photo_size']} JPEG, {result['cores']} cores, "
          f"{result['uploads']} uploads:")
    for row in result["rows"]:
        print(f"  {row['photo']:<22} {row['bytes'] / 1e6:4.1f} MB  {row['seconds']:5.2f} s  "
              f"{'read' if row['read'] else 'refused'} ({row['tiles']} tiles)")
    print(f"median {result['median_s']:.2f} s, p90 {result['p90_s']:.2f} s, max {result['max_s']:.2f} s "
          f"(target <= {result['target_s']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
