"""The second cut of a sideways tile: its face rectangle found from its box, across the row.

The detector's face outline is least reliable on the tile that matters most, the winning tile lying
across its row: there it comes out turned 20-45 degrees and too small, so the face is cut out askew
and read wrongly, often sure (a 1m as 1s, a 6s as 9p). Its box is better: the box of a tile lying
flat across a row, with the row's direction, fixes the face's rectangle
(``vision.layout.face_outline``, as for a boxes-only detector). So a tile flagged sideways gets that
rectangle, read lying on its side, as its second cut, in place of the cut squared onto its
neighbours (``vision.repairs.outline_views``); the classifier averages the two cuts' logits.

On the held-out renders it reads more whole hands exactly and more sure scores right, and loses
none; the box cut only for tiles without a squared cut, or also for slanted upright tiles, reads
fewer (``models/EXPERIMENTS.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from vision.layout import face_outline, row_angle
from vision.repairs.outline_views import second_outlines
from vision.types import Detection, Quad


def box_face_across(detection: Detection, angle: float) -> Quad:
    """The face of ``detection`` lying across a row turned ``angle`` (radians), from its box alone,
    corners taken one step on so that the face is cut out as lying on its side."""
    quad = face_outline(replace(detection, quad=None), angle)
    return quad[1:] + quad[:1]


def second_cuts(detections: Sequence[Detection]) -> list[Quad | None]:
    """Per detection, a second cut for the classifier (None for most): a sideways tile's face from its
    box across the row (:func:`box_face_across`), another tile's outline squared onto its neighbours'
    axis where it is slanted (``vision.repairs.outline_views.second_outlines``)."""
    seconds = second_outlines(detections)
    if not any(d.rotated for d in detections):
        return seconds
    angle = row_angle(list(detections))
    return [box_face_across(d, angle) if d.rotated else second
            for d, second in zip(detections, seconds, strict=True)]
