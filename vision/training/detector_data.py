"""Training data for the tile detector: real table photos and synthetic scenes (``detector_views``
cuts the training views from them, ``detector_targets`` encodes what the network learns on each).

Real table photos (``../shared/data/table-photos``) box only the tiles of the player's hand; the
discards in the middle of the table are unboxed, so on those photos a discard is background. The
detector therefore learns "a tile of the hand laid out for the photo", which is also what the
layout stage wants. Synthetic scenes add what the photos lack (sideways and face-down tiles, hands
pushed down flat); their distractor tiles (discards, wall, racks) are background too, so the two
sources agree. Tiles mostly hidden (under a hand, cut by the frame) are *ignore*: no loss either way.

Unknown flags are -1: the real photos say nothing about sideways tiles, so that loss is masked there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.detection import TruthImage
from vision.imageio import read_bgr


@dataclass
class DetectorSample:
    """One training image with its boxes (pixels) and per-box flags (1, 0, or -1 = unknown)."""

    image: np.ndarray
    boxes: np.ndarray  # (n, 4) float32 x1 y1 x2 y2
    sideways: np.ndarray  # (n,) int8
    face_down: np.ndarray  # (n,) int8
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # (m, 4)
    source: str = ""
    quads: np.ndarray | None = None  # (n, 4, 2) tile outlines when known (synthetic scenes)
    # Only some tiles are boxed (the real table photos box the player's row, not the discards and
    # walls): the heatmap learns "no tile" only near the boxed ones (``detection.LABELLED_REACH``).
    partly_boxed: bool = False
    # False where the boxes are loose around their tiles (an augmented copy turned by any angle):
    # the centres are right, the sizes are not, so only the centre offsets are learned there.
    size_known: bool = True


def samples_from_truth(images: list[TruthImage]) -> list[DetectorSample]:
    """Decode real table photos into samples; their boxes are faces, sideways is unknown."""
    samples = []
    for truth in images:
        image = read_bgr(truth.path)
        n = len(truth.boxes)
        samples.append(DetectorSample(
            image=image, boxes=truth.boxes.astype(np.float32),
            sideways=np.full(n, -1, np.int8), face_down=np.zeros(n, np.int8), source=truth.path.name,
            partly_boxed=True,
        ))
    return samples


#: Synthetic scenes are rendered at 640x480: training views scale every image to a 512 longest side
#: anyway, and rendering a quarter of the pixels is four times faster than the renderer's default.
SYNTH_SIZE = (640, 480)


def render_synthetic_sample(index: int, seed: int, size: tuple[int, int] = SYNTH_SIZE) -> DetectorSample:
    """Scene ``index`` of a seeded series; each scene has its own generator, so any subset can be redone."""
    from vision.synth import SceneConfig, render_scene  # only the training path needs the renderer

    rng = np.random.default_rng([seed, index])
    image, record = render_scene(rng, SceneConfig(width=size[0], height=size[1]))
    boxes, quads, sideways, face_down, ignore = [], [], [], [], []
    for tile in record.tiles:
        box = [float(v) for v in tile.box]
        if tile.role == "distractor":
            continue  # background, as the unboxed discards of the real photos
        if float(tile.extra.get("visible", 1.0)) < 0.5:
            ignore.append(box)
            continue
        boxes.append(box)
        quad = tile.quad if tile.quad is not None else _box_corners(box)
        quads.append([[float(x), float(y)] for x, y in quad])
        sideways.append(1 if tile.rotated else 0)
        face_down.append(1 if tile.face_down else 0)
    return DetectorSample(
        image=image,
        boxes=np.asarray(boxes, np.float32).reshape(-1, 4),
        sideways=np.asarray(sideways, np.int8),
        face_down=np.asarray(face_down, np.int8),
        ignore=np.asarray(ignore, np.float32).reshape(-1, 4),
        source=f"synth-{seed}-{index}",
        quads=np.asarray(quads, np.float32).reshape(-1, 4, 2),
    )


def _box_corners(box: list[float]) -> list[tuple[float, float]]:
    x1, y1, x2, y2 = box
    return [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]


def _save_cached(sample: DetectorSample, image_path: Path, label_path: Path) -> None:
    """PNG (lossless) then its labels; the label file appears last (atomic rename), marking completeness."""
    if not cv2.imwrite(str(image_path), sample.image):
        raise OSError(f"cannot write {image_path}")
    labels = {"boxes": sample.boxes.tolist(), "sideways": sample.sideways.tolist(),
              "face_down": sample.face_down.tolist(), "ignore": sample.ignore.tolist(),
              "source": sample.source, "quads": None if sample.quads is None else sample.quads.tolist()}
    tmp = label_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(labels))
    tmp.replace(label_path)


def _load_cached(image_path: Path, label_path: Path) -> DetectorSample | None:
    if not (label_path.is_file() and image_path.is_file()):
        return None
    image = read_bgr(image_path)
    labels = json.loads(label_path.read_text())
    quads = labels.get("quads")
    return DetectorSample(
        image=image,
        boxes=np.asarray(labels["boxes"], np.float32).reshape(-1, 4),
        sideways=np.asarray(labels["sideways"], np.int8),
        face_down=np.asarray(labels["face_down"], np.int8),
        ignore=np.asarray(labels["ignore"], np.float32).reshape(-1, 4),
        source=labels["source"],
        quads=None if quads is None else np.asarray(quads, np.float32).reshape(-1, 4, 2),
    )


#: Bumped whenever the renderer draws a seed differently, so a run never trains on stale cached
#: scenes. v5: a standing row's winning tile lies on the player's side, where the camera sees it
#: (v4 was a reverted labelling change).
RENDER_VERSION = 5


def synthetic_samples(count: int, seed: int, cache_dir: Path | None = None,
                      indices: range | None = None) -> Iterator[DetectorSample]:
    """Scenes ``0..count-1`` of the series ``seed``; with ``cache_dir`` each is rendered once and reused.

    The cache only saves time (rendering is the slow part of a run): a cached scene is the same
    scene the renderer would produce for that seed and index.
    """
    folder = None
    if cache_dir is not None:
        folder = Path(cache_dir) / f"scenes-v{RENDER_VERSION}-seed{seed}-{SYNTH_SIZE[0]}x{SYNTH_SIZE[1]}"
        folder.mkdir(parents=True, exist_ok=True)
    for index in indices if indices is not None else range(count):
        if folder is None:
            yield render_synthetic_sample(index, seed)
            continue
        image_path, label_path = folder / f"{index:05d}.png", folder / f"{index:05d}.json"
        sample = _load_cached(image_path, label_path)
        if sample is None:
            sample = render_synthetic_sample(index, seed)
            _save_cached(sample, image_path, label_path)
        yield sample
