"""Row completion: keep a weak detection when it fills the next place in a row of sure tiles.

Why: one missing tile makes a whole hand unreadable (the tile count is wrong), and the tiles the
detector misses are mostly not invisible to it. On 80 held-out renders (detector r11) most of the
hand tiles it missed still had a heatmap peak between 0.25 and the model's threshold of 0.5: the
face-down tiles of concealed kongs (plain backs, which look like the walls it learned to ignore),
flowers set apart, a tile at the end of a meld. A lower threshold everywhere finds those and also
adds discards and wall tiles. A weak peak that sits exactly where the next tile of a row of sure
tiles would be, the same size, touching it, is very likely a tile. This is hysteresis, as in edge
detection: sure detections seed the rows, weak ones only extend them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.geometry import box_iou, face_frame, outline_iou, tile_outline
from vision.types import Detection

#: Weakest heatmap peak that may extend a row. Below it the peaks are mostly table texture.
WEAK_SCORE = 0.25
#: A weak tile's face height against the row's sure tiles' median: a tile of the same set.
SIZE_RATIO = (0.75, 1.33)
#: How far off the neighbour's across axis (as a fraction of its face height) a row's next tile
#: may sit: sideways tiles lie a little lower than standing ones, perspective bends rows.
ROW_OFFSET = 0.4
#: The widest gap (fraction of the neighbour's face height) between a weak tile and the sure tile
#: it extends; tiles of one group touch, groups are set apart by about half a tile.
ROW_GAP = 0.6
#: A weak detection that overlaps a kept one this much (outline IoU, or box IoU for the boxes, which
#: hold the tile's sides too) is that tile again.
OVERLAP_IOU = 0.1
OVERLAP_BOX_IOU = 0.3


def _face_height(outline: np.ndarray) -> float:
    """The longer side of a face: its height whichever way the tile lies."""
    frame = face_frame(outline)
    return max(frame.width, frame.height)


def extends_row(weak: np.ndarray, sure: np.ndarray) -> bool:
    """Whether outline ``weak`` is the next place along ``sure``'s row, touching or nearly so."""
    across, up, _, height, _ = face_frame(sure)
    offset = weak.mean(axis=0) - sure.mean(axis=0)
    if abs(float(offset @ up)) > ROW_OFFSET * height:
        return False
    # The gap between the two faces along the row, from their extents on the across axis.
    sure_span = sure @ across
    weak_span = weak @ across
    gap = max(float(weak_span.min() - sure_span.max()), float(sure_span.min() - weak_span.max()))
    return -0.25 * height <= gap <= ROW_GAP * height


def _same_place(first: Detection, first_outline: np.ndarray, second: Detection, second_outline: np.ndarray
                ) -> bool:
    """Whether two detections are one tile (their outlines or boxes overlap too much)."""
    return (outline_iou(first_outline, second_outline) > OVERLAP_IOU
            or box_iou(first.box, second.box) > OVERLAP_BOX_IOU)


def extend_rows(detections: list[Detection], score_threshold: float,
                weak_score: float = WEAK_SCORE) -> list[int]:
    """Indices of the detections to keep: every sure one (score at least ``score_threshold``), then
    each weak one (at least ``weak_score``) that extends a row of kept tiles, strongest first. A weak
    tile kept can in turn be extended (two face-down tiles of a kong side by side).

    Each pair is judged once: keeping a tile can only make a weak one overlap a kept tile (then it
    is dropped) or extend a row (then it may be kept next), so only the newly kept tile is checked.
    """
    sure = [i for i, d in enumerate(detections) if d.score >= score_threshold]
    weak = sorted((i for i, d in enumerate(detections) if weak_score <= d.score < score_threshold),
                  key=lambda i: -detections[i].score)
    if not sure or not weak:
        return sure
    outlines = {i: tile_outline(detections[i]) for i in sure + weak}

    def same_place(first: int, second: int) -> bool:
        return _same_place(detections[first], outlines[first], detections[second], outlines[second])

    typical = float(np.median([_face_height(outlines[i]) for i in sure]))
    pending = [i for i in weak if SIZE_RATIO[0] <= _face_height(outlines[i]) / typical <= SIZE_RATIO[1]
               and not any(same_place(i, k) for k in sure)]
    touching = {i for i in pending if any(extends_row(outlines[i], outlines[k]) for k in sure)}
    chosen = list(sure)
    while touching:
        best = next(i for i in pending if i in touching)  # pending is strongest first
        chosen.append(best)
        pending = [i for i in pending if i != best and not same_place(i, best)]
        touching = {i for i in pending if i in touching or extends_row(outlines[i], outlines[best])}
    return chosen


#: How far a spare's centre may lie from the nearest kept tile's centre, in face heights: the
#: winning tile laid flat in front of a standing row sits about one height from the row's tiles.
SPARE_REACH = 1.6
#: At most this many spares are offered to the decoder (each costs a decode when the hand is short).
MAX_SPARES = 3
#: A spare's face height against the kept tiles' median. Wider than a row's: a tile lying nearer
#: the camera than the row looks bigger.
SPARE_SIZE_RATIO = (0.6, 1.6)
#: A spare overlapping a kept tile this much (outline IoU) is that tile again. Looser than a row's:
#: a tile lying in front of a standing row hides the bottom of the faces behind it, and a winning
#: tile lying across in front of a row lies half over a row tile (IoU a little under this).
SPARE_OVERLAP_IOU = 0.5
#: A spare overlapping a kept tile more than this is taken only as the hand's winning tile
#: (``vision.pipeline._overlapping_spares_win``); elsewhere it is likelier a tile found twice (the
#: weak peaks half over kept tiles of the held-out renders: 0.33-0.49). The bound was 0.3 for all.
WINNER_ONLY_OVERLAP_IOU = 0.3


def overlaps_a_tile(detection: Detection, tiles: Sequence[Detection],
                    iou: float = WINNER_ONLY_OVERLAP_IOU) -> bool:
    """Whether ``detection``'s outline overlaps one of ``tiles``' by more than ``iou``: a weak peak
    half over a tile already found, the winning tile lying over a row tile or that tile again."""
    return detection.quad is not None and any(
        tile.quad is not None and outline_iou(detection.quad, tile.quad) > iou for tile in tiles)


def spare_tiles(detections: list[Detection], chosen: list[int], weak_score: float = WEAK_SCORE,
                limit: int = MAX_SPARES) -> list[int]:
    """Weak detections beside the kept tiles that no row extends, strongest first: the decoder's
    second chance for a hand that is one tile short.

    Why: the tile the detector most often leaves weak is a winning tile laid flat next to the hand
    (in front of a standing row, across the end of a flat one). Locally it looks like a discard,
    which the detector learned to ignore, so its peak lands between 0.35 and the threshold and no
    row extends to it. Only the hand's constraints can tell the two apart: a spare is read only when
    the hand is a tile short without it and whole with it (``vision.pipeline.read_readings``).
    """
    kept = set(chosen)
    if not kept:
        return []
    outlines = {i: tile_outline(detections[i]) for i in range(len(detections))}
    typical = float(np.median([_face_height(outlines[i]) for i in kept]))
    centres = np.array([outlines[i].mean(axis=0) for i in kept])
    candidates = sorted((i for i, d in enumerate(detections) if i not in kept and d.score >= weak_score),
                        key=lambda i: -detections[i].score)
    spares: list[int] = []
    for i in candidates:
        if not SPARE_SIZE_RATIO[0] <= _face_height(outlines[i]) / typical <= SPARE_SIZE_RATIO[1]:
            continue
        if any(outline_iou(outlines[i], outlines[k]) > SPARE_OVERLAP_IOU for k in [*kept, *spares]):
            continue
        nearest = float(np.min(np.hypot(*(centres - outlines[i].mean(axis=0)).T)))
        if nearest <= SPARE_REACH * typical:
            spares.append(i)
            if len(spares) == limit:
                break
    return spares
