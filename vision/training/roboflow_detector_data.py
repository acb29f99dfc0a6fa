"""Detector training samples from the training sources of ``roboflow-chinese``, with ignore regions.

The export boxes the tiles of the hand but often not the tiles lying loose off it (discards, the
wall). Teaching the detector that those are background would undo what a laid-out hand needs, so
the photos are *partly boxed*, as the table photos are: the heatmap learns "no tile" only near the
boxed tiles (``detector_targets.labelled_weight``). Optionally (``detector``) each photo also gets
*ignore regions*: the tiles a detector finds there with no label box, no loss either way inside
them, so an unboxed tile beside the hand is not taught as background either. That pass costs a
detector run per training image (about 1.9 s each with the shipped ensemble on the shared 2-core
machine, 2026-12-02), so the shipped recipe does without it. Augmented copies were turned by
any angle, so their boxes are loose around turned tiles: they teach centres, not sizes
(``DetectorSample.size_known``). Mirrored copies are fine for a detector (it is trained on
mirrored views anyway).

Finding the ignore regions runs the detector on every training image once; the result is kept in
a cache file keyed by the detector's file hash, so a second run starts at once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.dataset.files import atomic_write_text
from vision.dataset.roboflow import RoboflowImage, RoboflowSplit, load_roboflow, read_split
from vision.evaluation.detection import box_iou
from vision.imageio import read_bgr
from vision.training.detector_data import DetectorSample

#: Detections at least this sure with no label box become ignore regions. Low on purpose: an
#: unboxed tile found weakly must not be taught as background either.
IGNORE_SCORE = 0.2
#: A detection overlapping a label box this much is that tile, not an unboxed one.
LABELLED_IOU = 0.2


def unlabelled_tiles(detected: np.ndarray, scores: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """The detected boxes (n, 4) scoring at least :data:`IGNORE_SCORE` that no label box covers
    (IoU under :data:`LABELLED_IOU` and centre outside every label box)."""
    detected = np.asarray(detected, np.float32).reshape(-1, 4)[np.asarray(scores) >= IGNORE_SCORE]
    labelled = np.asarray(labelled, np.float32).reshape(-1, 4)
    if not len(detected) or not len(labelled):
        return detected
    overlap = box_iou(detected, labelled).max(axis=1) >= LABELLED_IOU
    cx, cy = (detected[:, 0] + detected[:, 2]) / 2, (detected[:, 1] + detected[:, 3]) / 2
    inside = ((cx[:, None] >= labelled[None, :, 0]) & (cx[:, None] <= labelled[None, :, 2])
              & (cy[:, None] >= labelled[None, :, 1]) & (cy[:, None] <= labelled[None, :, 3])).any(axis=1)
    return detected[~(overlap | inside)]


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def ignore_regions(images: list[RoboflowImage], detector_path: Path, cache: Path | None,
                   log: Callable[[str], None] = print, threads: int = 2) -> dict[str, list[list[float]]]:
    """Each image's ignore regions (file name -> boxes), found with the detector at ``detector_path``."""
    key = _file_hash(detector_path)
    cache_file = None if cache is None else cache / f"roboflow-ignore-{key}.json"
    known: dict[str, list[list[float]]] = {}
    if cache_file is not None and cache_file.is_file():
        known = json.loads(cache_file.read_text(encoding="utf-8"))
    missing = [image for image in images if image.path.name not in known]
    if missing:
        from vision.models.detector import TileDetector

        detector = TileDetector(detector_path, score_threshold=IGNORE_SCORE, threads=threads)
        for number, image in enumerate(missing):
            picture = read_bgr(image.path)
            found = detector.detect(picture, complete_rows=False)
            boxes = np.asarray([d.box for d in found], np.float32).reshape(-1, 4)
            scores = np.asarray([d.score for d in found], np.float32)
            known[image.path.name] = [[round(float(v), 1) for v in box]
                                      for box in unlabelled_tiles(boxes, scores, image.boxes)]
            if number % 200 == 199:
                log(f"ignore regions: {number + 1} of {len(missing)} images")
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(cache_file, json.dumps(known))
    return {image.path.name: known[image.path.name] for image in images}


def roboflow_samples(detector_path: Path | None, cache: Path | None, split: RoboflowSplit | None = None,
                     data_dir: Path | None = None, log: Callable[[str], None] = print,
                     threads: int = 2) -> list[DetectorSample]:
    """Every copy of the training sources as a partly boxed sample (loose sizes marked; with
    ``detector_path``, ignore regions where it finds unboxed tiles)."""
    split = split or read_split()
    images = split.images(load_roboflow(data_dir), "train")
    ignored = {} if detector_path is None else ignore_regions(images, detector_path, cache, log, threads)
    samples = []
    for image in images:
        picture = read_bgr(image.path)
        count = len(image.tiles)
        samples.append(DetectorSample(
            image=picture, boxes=image.boxes, sideways=np.full(count, -1, np.int8),
            face_down=np.zeros(count, np.int8),
            ignore=np.asarray(ignored.get(image.path.name, []), np.float32).reshape(-1, 4),
            source=image.path.name, partly_boxed=True, size_known=not image.augmented))
    regions = sum(len(sample.ignore) for sample in samples)
    log(f"roboflow-chinese: {len(samples)} training images of "
        f"{len({image.source for image in images})} sources, {regions} ignore regions")
    return samples
