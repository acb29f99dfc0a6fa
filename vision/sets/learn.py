"""Learning a set from photos: the tiles found and the codes they get, cut out as views.

Three ways to say which tile is which: the documented order (``vision.sets.order.SET_ORDER``,
rows wrapping anywhere, either way up), the codes row by row (``--rows``), or a labelled manifest
(``--labels``, as ``taicam label`` writes it). Corrections (``taicam photo --fix ... --learn``)
give the fixed tiles of a read hand. Each ends in :class:`LearnedPhoto`: where each tile lay,
its code, whether the shipped models read it otherwise, and its upright view.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.manifest import ManifestRecord, image_path, read_manifest
from vision.imageio import PhotoSource
from vision.layout import face_outline, row_angle
from vision.models.classifier import TileClassifier
from vision.models.crops import InputSize, crop_detection
from vision.models.detector import TileDetector
from vision.repairs.duplicates import merge_duplicates
from vision.repairs.farther_look import detect_whole_tiles
from vision.repairs.split_tiles import join_split_tiles
from vision.sets.order import OrderError, Placed, assign_rows, assign_set_order, group_rows
from vision.sets.profile import VIEW_SIZE, View, as_view
from vision.types import Detection

#: The detector sees the photo at this long side, as ``taicam photo`` does.
DETECT_SIDE = 1024
#: Views are cut from the photo decoded so a tile's long side is at least this (pixels), never
#: larger than the photo itself.
VIEW_TILE_PIXELS = 2 * VIEW_SIZE[0]
#: Warping a face outline at ``2 x`` this input gives exactly a :data:`VIEW_SIZE` view.
_VIEW_INPUT = InputSize(VIEW_SIZE[0] // 2, VIEW_SIZE[1] // 2)
TOP_K = 5


class RefusedLayout(OrderError):
    """A set photo whose tiles do not fit the order, with the tiles found (full-resolution pixels)
    and the row each was put in, so ``--annotate`` can show why."""

    def __init__(self, message: str, photo: Path, rows: list[list[Detection]]) -> None:
        super().__init__(message)
        self.photo = photo
        self.rows = rows


@dataclass(frozen=True)
class LearnedTile:
    """One tile taught: where it lay (row, position), its code, what the shipped models read."""

    placed: Placed
    read_as: str
    view: View

    @property
    def agrees(self) -> bool:
        return self.read_as == self.placed.code


@dataclass(frozen=True)
class LearnedPhoto:
    photo: Path
    tiles: tuple[LearnedTile, ...]
    reversed_order: bool = False

    @property
    def views(self) -> list[View]:
        return [tile.view for tile in self.tiles]


def _with_outlines(detections: Sequence[Detection]) -> list[Detection]:
    """Each detection with a face outline (a boxes-only detector's turned along the rows)."""
    if all(d.quad is not None for d in detections):
        return list(detections)
    angle = row_angle(list(detections))
    return [d if d.quad is not None else replace(d, quad=face_outline(d, angle)) for d in detections]


def _scaled(detection: Detection, factor: float) -> Detection:
    x1, y1, x2, y2 = detection.box
    quad = None if detection.quad is None else tuple((x * factor, y * factor) for x, y in detection.quad)
    return replace(detection, box=(x1 * factor, y1 * factor, x2 * factor, y2 * factor), quad=quad)


def cut_views(source: PhotoSource, detections: Sequence[Detection], codes: Sequence[str],
              label: str, turned: bool = False) -> list[View]:
    """The upright views of ``detections`` (full-resolution pixels) with their ``codes``; ``turned``:
    the photo shows the set upside down, so each face is turned a half to stand upright."""
    if not detections:
        return []
    faces = _with_outlines(detections)
    tile = float(np.median([max(d.width, d.height) for d in faces]))
    longest = max(source.full_size)
    side = min(longest, int(math.ceil(longest * VIEW_TILE_PIXELS / max(tile, 1.0))))
    image, scale = source.image(None if side >= longest else side)
    views = []
    for detection, code in zip(faces, codes, strict=True):
        crop = crop_detection(image, _scaled(detection, scale), _VIEW_INPUT)
        if turned:
            crop = cv2.rotate(crop, cv2.ROTATE_180)
        views.append(as_view(crop, code, label))
    return views


def _detect(source: PhotoSource, detector: TileDetector) -> tuple[list[Detection], np.ndarray, float]:
    small, scale = source.image(DETECT_SIDE)
    # As ``taicam photo`` finds them: one tile found twice or as two halves is one tile.
    detections = join_split_tiles(merge_duplicates(detect_whole_tiles(detector, small)))
    if not detections:
        raise InputError(f"{source.path}: no tiles found in the photo")
    return [_scaled(d, 1.0 / scale) for d in _with_outlines(detections)], small, scale


def _learned(source: PhotoSource, placed: Sequence[Placed], read: Sequence[str],
             turned: bool) -> LearnedPhoto:
    views = cut_views(source, [p.detection for p in placed], [p.code for p in placed], source.path.name,
                      turned)
    tiles = tuple(LearnedTile(p, code, view) for p, code, view in zip(placed, read, views, strict=True))
    return LearnedPhoto(source.path, tiles, turned)


def learn_photo(photo: Path, classifier: TileClassifier, detector: TileDetector,
                rows: Sequence[Sequence[str]] | None = None) -> LearnedPhoto:
    """The tiles of a set photo, in the documented order or in ``rows`` (the codes of each row as
    the photo shows them); an :class:`~vision.sets.order.OrderError` when they do not fit."""
    source = PhotoSource(photo)
    detections, small, scale = _detect(source, detector)
    in_small = [_scaled(d, scale) for d in detections]
    readings = classifier.classify(small, in_small, top_k=TOP_K)
    candidates = [[code for code, _ in reading.candidates] for reading in readings]
    try:
        if rows is not None:
            placed, turned = assign_rows(detections, rows), False
        else:
            placed, turned = assign_set_order(detections, candidates)
    except OrderError as error:
        found = [[detections[i] for i in row] for row in group_rows(detections)]
        raise RefusedLayout(str(error), photo, found) from None
    read_as = {id(d): reading.code for d, reading in zip(detections, readings, strict=True)}
    return _learned(source, placed, [read_as[id(p.detection)] for p in placed], turned)


def _record_for(photo: Path, manifest: Path) -> ManifestRecord:
    records = read_manifest(manifest)
    wanted = photo.resolve()
    for record in records:
        if image_path(record, manifest).resolve() == wanted:
            return record
    by_name = [record for record in records if Path(record.image).name == photo.name]
    if len(by_name) == 1:
        return by_name[0]
    raise InputError(f"--labels {manifest}: no labels for {photo}")


def learn_labelled(photo: Path, manifest: Path, classifier: TileClassifier) -> LearnedPhoto:
    """The labelled face tiles of ``photo`` in ``manifest`` (face-down tiles are left out)."""
    from vision.dataset.manifest import detection_of

    record = _record_for(photo, manifest)
    labelled = [tile for tile in record.tiles if tile.code != "back" and not tile.face_down]
    if not labelled:
        raise InputError(f"--labels {manifest}: {photo.name} has no labelled face tiles")
    source = PhotoSource(photo)
    detections = _with_outlines([detection_of(tile) for tile in labelled])
    codes = [tile.code for tile in labelled]
    small, scale = source.image(DETECT_SIDE)
    readings = classifier.classify(small, [_scaled(d, scale) for d in detections], top_k=1)
    placed = [Placed(d, 0, index, code)
              for index, (d, code) in enumerate(zip(detections, codes, strict=True))]
    return _learned(source, placed, [reading.code for reading in readings], False)


def table_lines(learned: LearnedPhoto) -> list[str]:
    """The text table of what was assigned: one line a row, a tile the shipped models read otherwise
    marked ``code(read X)``."""
    rows: dict[int, list[str]] = {}
    for tile in learned.tiles:
        text = tile.placed.code if tile.agrees else f"{tile.placed.code}(read {tile.read_as})"
        rows.setdefault(tile.placed.row, []).append(text)
    disagree = sum(not tile.agrees for tile in learned.tiles)
    head = (f"{learned.photo.name}: {len(learned.tiles)} tiles"
            + (", the order runs backwards (photo upside down)" if learned.reversed_order else "")
            + f"; the shipped models read {disagree} otherwise")
    return [head, *(f"  row {number + 1}: {' '.join(codes)}" for number, codes in sorted(rows.items()))]


def annotated_refusal(refused: RefusedLayout, max_side: int = 1600) -> np.ndarray:
    """The photo with the tiles found, each labelled with the row it was put in (``r2``), and the reason."""
    image, scale = PhotoSource(refused.photo).image(max_side)
    image = image.copy()
    for number, row in enumerate(refused.rows, start=1):
        for position, detection in enumerate(row, start=1):
            _draw(image, _scaled(detection, scale), f"r{number}.{position}", (0, 140, 255))
    cv2.putText(image, str(refused)[:120], (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2,
                cv2.LINE_AA)
    return image


def _draw(image: np.ndarray, detection: Detection, text: str, colour: tuple[int, int, int]) -> None:
    corners = np.array(detection.quad if detection.quad is not None else [
        (detection.box[0], detection.box[1]), (detection.box[2], detection.box[1]),
        (detection.box[2], detection.box[3]), (detection.box[0], detection.box[3])], np.int32)
    cv2.polylines(image, [corners], True, colour, 2)
    x, y = corners.min(axis=0)
    size = max(0.4, detection.height / 90)
    for thickness, ink in ((4, (0, 0, 0)), (2, colour)):
        cv2.putText(image, text, (int(x) + 2, int(y) + int(24 * size)), cv2.FONT_HERSHEY_SIMPLEX, size, ink,
                    thickness, cv2.LINE_AA)


def annotated(learned: LearnedPhoto, max_side: int = 1600) -> np.ndarray:
    """The photo with each tile's outline and assigned code (orange where the models read otherwise)."""
    image, scale = PhotoSource(learned.photo).image(max_side)
    image = image.copy()
    for tile in learned.tiles:
        colour = (40, 170, 40) if tile.agrees else (0, 140, 255)
        _draw(image, _scaled(tile.placed.detection, scale), tile.placed.code, colour)
    return image
