"""``scripts/benchmark.py photo``: end-to-end photo latency (median, p95) and peak memory by photo size.

Targets (issue 5): median under 200 ms for a 1280x960 photo and under 600 ms for 4032x3024, peak
memory under 500 MB. The photo is a bundled sample; the 4032x3024 one is that sample scaled up and
written as a phone-like JPEG, so decoding cost is real. A third, "4032x3024 far", has the sample at
half that size in the middle of the frame (a photo of the whole table), which the pipeline reads
from a closer look (``vision.repairs.closer_look``): what that second detection costs. Latency is measured
warm (models loaded, one untimed run first), from the file path to the scored report, as ``taicam
photo`` does it. Peak memory is the peak resident set of a fresh process that loads the models and
reads the photo (``ru_maxrss``), so it includes the interpreter, onnxruntime and the models.

``--batch FOLDER`` times every photo of a folder once instead (warm): what a player waits on photos
that are not our renders. Most of the shared table photos hold no complete hand, so this is mostly
the time a refusal takes: every look and layout is tried before a photo is refused.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.imageio import read_bgr

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "hand-overhead.jpg"
SIZES = ((1280, 960), (4032, 3024))


def photo_of_size(source: Path, width: int, height: int, folder: Path) -> Path:
    """The sample resized to width x height, saved as a JPEG (quality 92, like a phone)."""
    image = read_bgr(source)
    if (image.shape[1], image.shape[0]) != (width, height):
        image = cv2.resize(image, (width, height), interpolation=cv2.INTER_CUBIC)
    path = folder / f"photo-{width}x{height}.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def far_off(image: np.ndarray, times: int) -> np.ndarray:
    """``image`` in the middle of a frame ``times`` its size, the rest a plain surface of its edge
    colour: the hand far off in a big photo (the benchmark's far photo, and the tests' ones)."""
    height, width = image.shape[:2]
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    fill = [int(value) for value in np.median(edge, axis=0)]
    top, left = (times - 1) * height // 2, (times - 1) * width // 2
    bottom, right = times * height - height - top, times * width - width - left
    return cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=fill)


def far_photo_of_size(source: Path, width: int, height: int, folder: Path) -> Path:
    """The sample at half of width x height in the middle of a width x height JPEG (:func:`far_off`)."""
    image = read_bgr(source)
    image = cv2.resize(image, (width // 2, height // 2), interpolation=cv2.INTER_CUBIC)
    path = folder / f"photo-{width}x{height}-far.jpg"
    cv2.imwrite(str(path), far_off(image, 2), [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def _read(pipeline: object, path: Path) -> tuple[dict[str, float], str]:
    """One photo, start to finish; a photo the models cannot make a hand of is timed all the same
    (the user waits for the refusal just as long)."""
    from scoring.errors import InputError

    try:
        result = pipeline.read_photo(path, context={"self_drawn": True})  # type: ignore[attr-defined]
    except InputError as error:
        timings, outcome = getattr(error, "timings", {}), f"refused: {str(error)[:60]}"
    else:
        timings, outcome = result.timings, f"scored {result.score.total} {result.score.unit}"
    return {stage: seconds for stage, seconds in timings.items() if stage != "total"}, outcome


def time_photo(path: Path, runs: int) -> dict[str, object]:
    from vision.pipeline import PhotoPipeline

    pipeline = PhotoPipeline()
    _read(pipeline, path)  # warm-up: models load, caches fill
    seconds = []
    stages: dict[str, list[float]] = {}
    outcome = ""
    for _ in range(runs):
        started = time.perf_counter()
        timings, outcome = _read(pipeline, path)
        seconds.append(time.perf_counter() - started)
        for stage, value in timings.items():
            stages.setdefault(stage, []).append(value)
    ordered = sorted(seconds)
    return {
        "median_ms": round(statistics.median(seconds) * 1000, 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))] * 1000, 1),
        "runs": runs,
        "outcome": outcome,
        **{f"{stage}_ms": round(statistics.median(values) * 1000, 1) for stage, values in stages.items()},
    }


def time_batch(folder: Path) -> dict[str, object]:
    """Each photo of ``folder`` read once, warm: median, p90 and slowest, and how many were scored."""
    from vision.pipeline import PhotoPipeline

    paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not paths:
        raise SystemExit(f"no photos in {folder}")
    pipeline = PhotoPipeline()
    _read(pipeline, paths[0])  # warm-up
    timed = []
    for path in paths:
        started = time.perf_counter()
        _, outcome = _read(pipeline, path)
        timed.append((time.perf_counter() - started, path.name, outcome))
    seconds = sorted(t for t, _, _ in timed)
    slowest = max(timed)
    return {"photos": len(timed), "scored": sum(o.startswith("scored") for _, _, o in timed),
            "median_s": round(statistics.median(seconds), 2),
            "p90_s": round(seconds[math.ceil(0.9 * len(seconds)) - 1], 2),  # nearest rank
            "slowest_s": round(slowest[0], 2), "slowest": slowest[1], "total_s": round(sum(seconds), 2)}


def _peak_child(path: Path) -> None:
    """Child mode: load the models, read the photo three times, print the peak RSS in MB."""
    from vision.pipeline import PhotoPipeline

    pipeline = PhotoPipeline()
    for _ in range(3):
        _read(pipeline, path)
    print(json.dumps({"peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


def peak_memory(path: Path) -> float:
    output = subprocess.run([sys.executable, "-m", "vision.photo_benchmark", "--peak-child", str(path)],
                            check=True, capture_output=True, text=True).stdout
    return float(json.loads(output.strip().splitlines()[-1])["peak_mb"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py photo", description=__doc__.split("\n")[0])
    parser.add_argument("--photo", type=Path, default=SAMPLE, help="source photo (default: a bundled sample)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--batch", type=Path, help="time each photo of this folder once instead")
    parser.add_argument("--peak-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peak_child is not None:
        _peak_child(args.peak_child)
        return 0
    if args.batch is not None:
        batch = time_batch(args.batch)
        if args.json:
            print(json.dumps({"benchmark": "photo batch", "folder": str(args.batch), **batch}, indent=2))
        else:
            print(f"{batch['photos']} photos of {args.batch}, each once, warm: median {batch['median_s']} s, "
                  f"p90 {batch['p90_s']} s, slowest {batch['slowest_s']} s ({batch['slowest']}), "
                  f"{batch['total_s']} s in all; {batch['scored']} scored, the rest refused")
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        photos = [(f"{width}x{height}", photo_of_size(args.photo, width, height, Path(folder)))
                  for width, height in SIZES]
        width, height = SIZES[-1]
        photos.append((f"{width}x{height} far", far_photo_of_size(args.photo, width, height, Path(folder))))
        for size, path in photos:
            rows.append({"size": size, **time_photo(path, args.runs), "peak_mb": peak_memory(path)})
    if args.json:
        print(json.dumps({"benchmark": "photo", "photo": str(args.photo), "results": rows}, indent=2))
    else:
        print(f"photo latency, warm, {args.runs} runs each, source {args.photo.name}")
        for row in rows:
            stages = ", ".join(f"{k[:-3]} {v}" for k, v in row.items()
                               if k.endswith("_ms") and k not in ("median_ms", "p95_ms"))
            print(f"  {row['size']:>14}: median {row['median_ms']} ms, p95 {row['p95_ms']} ms, "
                  f"peak {row['peak_mb']} MB  ({stages}; {row['outcome']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
