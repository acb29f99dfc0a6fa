"""``python scripts/benchmark.py sets``: how long learning a set takes, and what reading with one costs.

Photos are rendered (``vision.synth.set_layout``, the Unicode art of the shared data): a set of
42 tiles laid out in order, and a hand of 17 tiles and a flower. ``learn``: one photo learned
with the models already loaded (detect, assign, cut, embed, write the profile), and once more
from a cold start (models loaded too). ``read``: ``taicam photo``'s pipeline on the hand with and
without the set, median of ``--repeat`` runs each, interleaved, and the set's own step alone (a
photo makes several classifier calls; on a shared machine the whole-photo difference is mostly
noise). Targets: learning under 5 s on two
cores, a set costing at most 10 ms a photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.models.classifier import TileClassifier
from vision.sets.order import SET_ORDER

HAND = ("1p", "2p", "3p", "3p", "4p", "5p", "6p", "7p", "8p", "7m", "8m", "9m", "5m", "5m", "5m", "2s", "2s")


def _render(folder: Path) -> tuple[Path, Path]:
    from scoring.errors import InputError
    from vision.synth.faces import load_art_styles
    from vision.synth.set_layout import render_rows, rows_of

    styles = {style.name: style for style in load_art_styles()}
    if "art:uni" not in styles:
        raise InputError("the sets benchmark renders with the shared Unicode tile art, which is missing")
    style = styles["art:uni"]
    paths = folder / "set.jpg", folder / "hand.jpg"
    layouts = ((paths[0], rows_of(SET_ORDER, [9, 9, 9, 7, 8]), 1), (paths[1], [list(HAND), ["3f"]], 3))
    for path, rows, seed in layouts:
        cv2.imwrite(str(path), render_rows(rows, style, np.random.default_rng(seed)),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
    return paths


def _evidence_ms(classifier: TileClassifier, photo: Path, calls: int = 200) -> float:
    """Median milliseconds of the set's step alone on the hand's tiles (one ``classify`` call)."""
    from vision.imageio import PhotoSource
    from vision.models.crops import crop_detection
    from vision.pipeline import PhotoPipeline

    image, _ = PhotoSource(photo).image(None)
    readings = PhotoPipeline(classifier=classifier).read_tiles(PhotoSource(photo))
    crops = [crop_detection(image, reading.detection, classifier.input_size) for reading in readings]
    probabilities = classifier.with_set(None).probabilities(crops)
    _, embeddings = classifier.features(crops)
    evidence = classifier.set_evidence
    if evidence is None or embeddings is None:
        return float("nan")
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        evidence.adjust(probabilities, embeddings)
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def measure(repeat: int) -> dict[str, float]:
    from vision.models.detector import TileDetector
    from vision.pipeline import PhotoPipeline
    from vision.sets.learn import learn_photo
    from vision.sets.reading import add_views, set_classifier

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        set_photo, hand_photo = _render(folder)
        started = time.perf_counter()
        classifier, detector = TileClassifier(), TileDetector()
        add_views("bench", learn_photo(set_photo, classifier, detector).views, classifier, replace=True,
                  folder=folder)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        learned = learn_photo(set_photo, classifier, detector)
        add_views("bench", learned.views, classifier, replace=True, folder=folder)
        warm = time.perf_counter() - started
        with_set, _ = set_classifier("bench", classifier, folder)
        plain = PhotoPipeline(detector, classifier)
        reading = PhotoPipeline(detector, with_set)
        plain.read_photo(hand_photo)
        reading.read_photo(hand_photo)
        times: dict[str, list[float]] = {"plain": [], "set": []}
        for _ in range(repeat):
            for name, pipeline in (("plain", plain), ("set", reading)):
                started = time.perf_counter()
                pipeline.read_photo(hand_photo)
                times[name].append(time.perf_counter() - started)
        evidence_ms = _evidence_ms(with_set, hand_photo)
    plain_ms, set_ms = (1000 * statistics.median(times[name]) for name in ("plain", "set"))
    return {"evidence_ms_per_call": round(evidence_ms, 3), "learn_tiles": len(learned.tiles),
            "learn_s": round(warm, 3), "learn_cold_s": round(cold, 3), "read_ms": round(plain_ms, 1),
            "read_with_set_ms": round(set_ms, 1), "set_cost_ms": round(set_ms - plain_ms, 1)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py sets", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each photo reading")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(max(1, args.repeat))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"learn one photo of {result['learn_tiles']} tiles: {result['learn_s']:.2f} s "
          f"(from a cold start, models loaded too: {result['learn_cold_s']:.2f} s; target < 5 s)")
    print(f"read a hand: {result['read_ms']:.1f} ms without the set, {result['read_with_set_ms']:.1f} ms "
          f"with it: {result['set_cost_ms']:+.1f} ms (target <= 10 ms; the set's own step "
          f"{result['evidence_ms_per_call']:.2f} ms a classifier call)")
    return 0
