"""Held-out sets rendered: each held-out crop set's faces drawn as a photographed set, learned and read.

The real held-out sets either show each flower and season in one photo only (roboflow-chinese's
dated sets) or were trained on (the table photos), so how a learned set reads flowers and seasons
is measured here too. For each of ``crops-labelled``'s validation sets (complete sets, flowers
and seasons included, none trained on) a photo of the set laid out in the documented order is
rendered and learned the way ``taicam sets learn`` learns it (the detector finds the tiles, the
order gives the codes); then photos of the same faces laid out shuffled, on other tables, under
another light's colour and at another size, are read, each tile cut at its true outline (the
renderer's), so the set is judged without the detector, as the real sets are from their labels.

The faces are the set's one crop each, so the read photos show the learned faces again under
other light and geometry, as a player's four copies of a face print alike; what differs is the
photo, not the print.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.set_tiles import HeldOutSet, Tile
from vision.imageio import PhotoSource, read_bgr
from vision.models.classifier import TileClassifier
from vision.models.crops import crop_detection
from vision.models.detector import TileDetector
from vision.sets.learn import LearnedPhoto, cut_views, learn_photo
from vision.sets.order import SET_ORDER
from vision.synth.faces import FaceStyle, face_styles, load_art_styles
from vision.synth.set_layout import laid_out, render_rows, rows_of
from vision.types import Detection

#: First seed of the rendered sets (set ``i``, photo ``k`` draws from ``default_rng([SEED, i, k])``).
SEED = 770000
#: The documented layout's rows: the three suits, the honours, the flowers and seasons.
ORDER_ROWS = (9, 9, 9, 7, 8)
#: Photos read after learning, each holding every face once.
READ_PHOTOS = 3


def _mirrored(face: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(face[:, ::-1])


@dataclass(frozen=True)
class Look:
    """A set to render: a face style, drawn as printed or mirrored (a calligraphy no model saw)."""

    style: FaceStyle
    mirrored: bool

    @property
    def name(self) -> str:
        return self.style.name.removeprefix("crop:") + (" mirrored" if self.mirrored else "")

    @property
    def face(self) -> Callable[[np.ndarray], np.ndarray] | None:
        return _mirrored if self.mirrored else None


def looks() -> list[Look]:
    """Each complete held-out crop set as printed and mirrored, and the Unicode art mirrored (the
    art as printed was trained on)."""
    held_out = [style for style in face_styles("val") if all(style.has(code) for code in SET_ORDER)]
    art = [style for style in load_art_styles() if all(style.has(code) for code in SET_ORDER)]
    return ([Look(style, False) for style in held_out] + [Look(style, True) for style in held_out]
            + [Look(style, True) for style in art])


def _read_tiles(look: Look, number: int, rng: np.random.Generator, folder: Path,
                classifier: TileClassifier) -> list[Tile]:
    """The set's faces shuffled into rows of 10-14, rendered at another size, its colours cast by
    another light, each tile cut at its true outline."""
    codes = [str(code) for code in rng.permutation(SET_ORDER)]
    length = int(rng.integers(10, 15))
    width = int(rng.choice([1280, 1600, 2000]))
    image, faces = laid_out(rows_of(codes, [length] * (len(codes) // length + 1)), look.style, rng,
                            width=width, height=width * 3 // 4, face=look.face)
    cast = rng.uniform(0.85, 1.15, size=3)
    path = folder / f"{number}.jpg"
    cv2.imwrite(str(path), np.clip(image.astype(np.float32) * cast, 0, 255).astype(np.uint8),
                [cv2.IMWRITE_JPEG_QUALITY, 90])
    image = read_bgr(path)
    detections = [Detection(box=tuple(float(v) for v in (*quad.min(axis=0), *quad.max(axis=0))), score=1.0,
                            quad=tuple((float(x), float(y)) for x, y in quad)) for quad in faces]
    views = cut_views(PhotoSource(path), detections, codes, path.name)
    return [Tile(number, code, crop_detection(image, d, classifier.input_size), view)
            for code, d, view in zip(codes, detections, views, strict=True)]


def _learned_tiles(learned: LearnedPhoto, classifier: TileClassifier) -> list[Tile]:
    image = read_bgr(learned.photo)
    size = classifier.input_size
    return [Tile(0, tile.placed.code, crop_detection(image, tile.placed.detection, size), tile.view)
            for tile in learned.tiles]


def rendered_sets(classifier: TileClassifier, detector: TileDetector, read_photos: int = READ_PHOTOS,
                  names: Collection[str] | None = None) -> list[HeldOutSet]:
    """Photo 0 of each set (of :func:`looks`, or those ``names`` lists) is its ordered layout,
    learned as ``taicam sets learn`` does; photos ``1..read_photos`` are shuffled layouts to read.
    A set whose ordered photo is refused is reported by its refusal (an
    :class:`~vision.sets.order.OrderError` propagates)."""
    sets = []
    with tempfile.TemporaryDirectory(prefix="taicam-rendered-sets-") as folder:
        for index, look in enumerate(looks()):
            if names is not None and look.name not in names:
                continue
            rng = np.random.default_rng([SEED, index, 0])
            ordered = render_rows(rows_of(SET_ORDER, ORDER_ROWS), look.style, rng, face=look.face)
            (Path(folder) / str(index)).mkdir()
            path = Path(folder) / str(index) / "0.jpg"
            cv2.imwrite(str(path), ordered, [cv2.IMWRITE_JPEG_QUALITY, 92])
            tiles = _learned_tiles(learn_photo(path, classifier, detector), classifier)
            for number in range(1, read_photos + 1):
                tiles += _read_tiles(look, number, np.random.default_rng([SEED, index, number]),
                                     Path(folder) / str(index), classifier)
            sets.append(HeldOutSet(f"rendered {look.name}", tuple(tiles)))
    return sets
