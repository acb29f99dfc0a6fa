"""One detection per tile: the detector's duplicates merged, its split halves joined, its spares
kept only where no kept tile lies.

The detector sometimes finds a tile twice (upright and sideways), or a face with two columns of
marks as two narrow tiles; a winning tile laid flat in front of its row overlaps the row's tiles
yet is another tile. The rules below tell these apart before anything is classified.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vision.geometry import face_frame, intersection_area, merged_detection, outline_containment, outline_iou
from vision.repairs.row_completion import SPARE_OVERLAP_IOU
from vision.repairs.split_tiles import join_split_tiles
from vision.types import Detection

#: Two detections sharing more than this fraction of the smaller box are one tile found twice.
DUPLICATE_OVERLAP = 0.5
#: Two face outlines overlapping more than this (IoU) are one tile found twice. Faces lie side by
#: side and do not overlap: on 40 held-out renders (detector r7) 468 pairs of neighbouring tiles
#: overlapped at most 0.14 (99% under 0.11), the 12 tiles found twice at least 0.17.
DUPLICATE_OUTLINE_IOU = 0.16


#: A face turned at least this many degrees against another whose centre lies at least this many
#: face widths from the other's is a second tile lying across in front of it (a winning tile laid
#: flat before its row), not the same tile found twice: a tile found twice, upright and sideways,
#: has both centres on one face. On held-out renders the overlap rules above merge many pairs of
#: different tiles; this keeps most of those lying across apart and almost no true twins, whose
#: centres lie closer together.
CROSSWISE_DEGREES = 45.0
CROSSWISE_CENTRE_OFFSET = 0.45
#: ...unless the smaller outline lies at least this much inside the other: then it is part of that
#: face (a sideways 4p's half, upright, read 2p). On held-out renders two different tiles lying
#: across overlap far less of the smaller outline.
CROSSWISE_INSIDE = 0.8


def lies_across(first: Any, second: Any) -> bool:
    """Whether outline ``second`` is another tile lying across ``first`` (or the reverse), its centre
    off ``first``'s face: axes :data:`CROSSWISE_DEGREES` apart, :data:`CROSSWISE_CENTRE_OFFSET` off."""
    a, b = face_frame(first), face_frame(second)
    turned = math.degrees(math.acos(min(1.0, abs(float(a.up @ b.up))))) >= CROSSWISE_DEGREES
    offset = float(np.hypot(*(a.centre - b.centre))) / max(min(a.width, b.width), 1e-9)
    return turned and offset >= CROSSWISE_CENTRE_OFFSET


def same_tile(first: Detection, second: Detection) -> bool:
    """Whether two detections are one tile: their outlines overlap, or one box mostly covers the
    other, unless one lies across the other off its face (:func:`lies_across`)."""
    outlines = first.quad is not None and second.quad is not None
    if outlines and lies_across(first.quad, second.quad) and (
            outline_containment(first.quad, second.quad) < CROSSWISE_INSIDE):
        return False
    if outlines and outline_iou(first.quad, second.quad) > DUPLICATE_OUTLINE_IOU:
        return True
    smaller = max(1e-6, min(first.width * first.height, second.width * second.height))
    return intersection_area(first.box, second.box) / smaller > DUPLICATE_OVERLAP


def merge_duplicates(detections: list[Detection]) -> list[Detection]:
    """One detection per tile, where the detector found a tile twice.

    Tiles in a row touch but hardly overlap; the detector sometimes finds a sideways tile twice, or
    splits a tile whose face has two columns of marks (4s) into two narrow ones. Box overlap is
    measured on the smaller box, so a small box inside a big one counts as a duplicate; outlines,
    when the detector gives them, also catch the split tiles, whose boxes overlap little. The
    stronger detection stays, its outline grown to cover the other's (a split tile whole again).
    """
    kept: list[Detection] = []
    for detection in sorted(detections, key=lambda d: -d.score):
        twin = next((i for i, other in enumerate(kept) if same_tile(detection, other)), None)
        if twin is None:
            kept.append(detection)
        else:
            kept[twin] = merged_detection(kept[twin], detection)
    return kept


def with_spares(detections: list[Detection]) -> list[Detection]:
    """:func:`merge_duplicates` on the kept detections; then the spares that are not one of them
    (judged as the detector judged them: a tile in front of a row may hide part of its faces)."""
    kept = join_split_tiles(merge_duplicates([d for d in detections if not d.spare]))

    def is_kept_tile(spare: Detection, other: Detection) -> bool:
        if spare.quad is None or other.quad is None:
            return same_tile(spare, other)
        return outline_iou(spare.quad, other.quad) > SPARE_OVERLAP_IOU

    spares = [d for d in merge_duplicates([d for d in detections if d.spare])
              if not any(is_kept_tile(d, other) for other in kept)]
    return kept + spares
