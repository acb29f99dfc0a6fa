"""``scripts/benchmark.py models``: CPU latency of detector + classifier on a 17-tile photo.

The photo is a rendered scene of a fixed 17-tile hand (no discards, so the classifier reads exactly
the hand) at 1280x960, and the same scene upscaled to a 12-megapixel phone photo (4032x3024): the
detector's network input is the same size for both, so the difference is the resize and the crops.
``--image PATH`` measures a real photo instead (resized to each size).

Latency is wall time of ``detector.detect`` then ``classifier.classify`` on the full image (with
the second cuts of slanted tiles that the pipeline asks for, ``vision.repairs.outline_views``), after
warm-up; the table gives median and p95 per stage and in total. Threads follow ``$TAICAM_THREADS``
(default 2, the runtime default).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.repairs.farther_look import detect_whole_tiles
from vision.repairs.sideways_cut import second_cuts

SIZES: tuple[tuple[int, int], ...] = ((1280, 960), (4032, 3024))
TARGET_MS_1280 = 100.0

#: A concealed 17-tile hand (5 sets + pair), so a correct read finds exactly 17 tiles.
BENCHMARK_HAND: dict[str, object] = {
    "concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2z", "2z", "2z",
                  "5m", "6m", "7m", "9p", "9p"],
    "melds": [], "flowers": [], "winning_tile": "9p", "context": {},
}


def benchmark_image(image_path: Path | None, seed: int = 3) -> tuple[np.ndarray, str]:
    """The photo to time (BGR at 1280x960) and a description of where it came from."""
    if image_path is not None:
        from vision.imageio import load_image

        image = load_image(image_path)
        return cv2.resize(image, SIZES[0], interpolation=cv2.INTER_AREA), str(image_path)
    from vision.synth import SceneConfig, render_scene

    config = SceneConfig(width=SIZES[0][0], height=SIZES[0][1], distractors=False, occluder_probability=0.0)
    image, _ = render_scene(np.random.default_rng(seed), config, hand=dict(BENCHMARK_HAND))
    return image, f"rendered 17-tile hand (vision.synth, seed {seed})"


def _percentiles(samples: list[float]) -> dict[str, float]:
    values = np.asarray(samples) * 1000.0
    median, p95 = float(np.median(values)), float(np.percentile(values, 95))
    return {"median_ms": round(median, 1), "p95_ms": round(p95, 1)}


def measure(detector, classifier, image: np.ndarray, repeats: int, warmup: int = 3) -> dict[str, object]:
    """Time detect and classify on ``image``; returns per-stage and total median / p95 in ms."""
    detect_s, classify_s, total_s, counts = [], [], [], []
    for run in range(warmup + repeats):
        start = time.perf_counter()
        detections = detect_whole_tiles(detector, image)
        middle = time.perf_counter()
        if classifier is not None:
            classifier.classify(image, detections, second_outlines=second_cuts(detections))
        end = time.perf_counter()
        if run >= warmup:
            detect_s.append(middle - start)
            classify_s.append(end - middle)
            total_s.append(end - start)
            counts.append(len(detections))
    result: dict[str, object] = {
        "tiles_found": int(np.median(counts)),
        "detector": _percentiles(detect_s),
        "total": _percentiles(total_s),
    }
    if classifier is not None:
        result["classifier"] = _percentiles(classify_s)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py models", description=__doc__.splitlines()[0])
    parser.add_argument("--image", type=Path, default=None, help="time this photo instead of a rendered one")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)

    from vision.models.detector import TileDetector

    detector = TileDetector()
    try:
        from vision.models.classifier import TileClassifier

        classifier = TileClassifier()
        classifier_note = str(classifier.model_path)
    except Exception as error:  # noqa: BLE001 - report the detector alone rather than nothing
        classifier, classifier_note = None, f"not measured ({type(error).__name__}: {error})"
    base, source = benchmark_image(args.image)
    rows = []
    for width, height in SIZES:
        image = base if (width, height) == SIZES[0] else cv2.resize(base, (width, height),
                                                                      interpolation=cv2.INTER_CUBIC)
        rows.append({"size": f"{width}x{height}", **measure(detector, classifier, image, args.repeats)})
    report = {"benchmark": "models", "photo": source, "classifier": classifier_note,
              "repeats": args.repeats, "target_ms_1280x960": TARGET_MS_1280, "results": rows}
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"photo: {source}\nclassifier: {classifier_note}\nrepeats: {args.repeats}")
    print(f"{'size':<10} {'tiles':>5} {'detect med/p95 ms':>18} {'classify med/p95 ms':>20} "
          f"{'total med/p95 ms':>17}")
    for row in rows:
        det, tot = row["detector"], row["total"]
        cls = row.get("classifier", {"median_ms": float("nan"), "p95_ms": float("nan")})
        print(f"{row['size']:<10} {row['tiles_found']:>5} {det['median_ms']:>9.1f}/{det['p95_ms']:<8.1f}"
              f" {cls['median_ms']:>10.1f}/{cls['p95_ms']:<9.1f}"
              f" {tot['median_ms']:>8.1f}/{tot['p95_ms']:<8.1f}")
    return 0
