"""Join the two halves of a tile the detector found as two narrow tiles.

Why: a face with two columns of marks (4s above all, also 2s, 3s, 6p) sometimes gives the detector
two peaks, one per column, each with a narrow face outline that reads as another tile (a 4s as two
2s). The halves touch but hardly overlap, so ``vision.repairs.duplicates.merge_duplicates`` keeps
both. Where both halves are found the join mends the hand; on the held-out renders it gains hands
and loses none (``models/EXPERIMENTS.md``). A tile is never that narrow against its own height: two
such slivers side by side, the same height, which together are as wide as the other tiles and have a
whole tile beside them in their row, are one tile. (Without the row neighbour, two tiles seen
edge-on in a pile on a real photo were joined.)
"""

from __future__ import annotations

import numpy as np

from vision.geometry import FaceFrame, face_frame, merged_detection, merged_outline
from vision.types import Detection

#: A face narrower than this share of the tiles' typical width (across / up) is a sliver. Typical is
#: the upper quartile of the aspects: slivers and half-hidden faces only ever pull it down.
SLIVER_SHARE = 0.7
TYPICAL_PERCENTILE = 75
#: Two slivers joined must make a face this wide against the typical one (a tile, not two).
JOINED_SHARE = (0.75, 1.3)
#: Slivers of one tile: heights within this ratio, centres this far apart up the face (in heights),
#: and at most this gap between them across the face (in heights) ...
HEIGHT_RATIO = 1.25
UP_OFFSET = 0.25
#: Up axes this close (cosine; about 16 degrees) belong to tiles seen alike.
SAME_AXIS = 0.96
ACROSS_GAP = 0.15
#: ... and may overlap this much (the halves often share the middle of the face).
ACROSS_OVERLAP = 0.35
#: A joined face's neighbour in its row lies at most this far from it (in heights).
NEIGHBOUR_GAP = 0.5


def across_gap(a: np.ndarray, b: np.ndarray, frame: FaceFrame) -> float | None:
    """The gap between outlines ``a`` and ``b`` across ``a``'s face (negative: overlap), or None when
    ``b`` is not level with ``a`` (centres further apart up the face than :data:`UP_OFFSET`)."""
    across, up, height = frame.across, frame.up, frame.height
    if abs(float((b.mean(axis=0) - a.mean(axis=0)) @ up)) > UP_OFFSET * height:
        return None
    span_a, span_b = a @ across, b @ across
    return max(float(span_b.min() - span_a.max()), float(span_a.min() - span_b.max()))


def _halves_of_one_tile(a: np.ndarray, b: np.ndarray, frame: FaceFrame, other: FaceFrame,
                        typical_aspect: float) -> bool:
    if not seen_alike(frame, other):
        return False
    gap = across_gap(a, b, frame)
    height = frame.height
    if gap is None or not -ACROSS_OVERLAP * height <= gap <= ACROSS_GAP * height:
        return False
    joined = face_frame(merged_outline(a, b))
    return JOINED_SHARE[0] <= (joined.width / joined.height) / typical_aspect <= JOINED_SHARE[1]


def seen_alike(first: FaceFrame, second: FaceFrame) -> bool:
    """Two faces of about one height whose up axes lie along each other."""
    same_size = max(first.height, second.height) <= HEIGHT_RATIO * min(first.height, second.height)
    return same_size and abs(float(first.up @ second.up)) >= SAME_AXIS


def _similar_tiles(frames: dict[int, FaceFrame], index: int) -> list[int]:
    """The upright tiles seen like ``index`` (a standing row and the flat sets behind it differ in
    height and axis, and in their faces' aspect)."""
    return [j for j in frames if seen_alike(frames[index], frames[j])]


def _in_a_row(quad: np.ndarray, frames: dict[int, FaceFrame], quads: dict[int, np.ndarray], others: list[int]
              ) -> bool:
    """Whether a joined face has a whole tile beside it in its row: the same height and axis, level
    with it, touching along its across axis. The halves of a tile in a laid-out hand have one; two
    tiles lying askew in a pile rarely do."""
    frame = face_frame(quad)
    height = frame.height
    for j in others:
        if not seen_alike(frame, frames[j]):
            continue
        gap = across_gap(quad, quads[j], frame)
        if gap is not None and -ACROSS_GAP * height <= gap <= NEIGHBOUR_GAP * height:
            return True
    return False


def join_split_tiles(detections: list[Detection]) -> list[Detection]:
    """The detections with each pair of slivers that are one tile's halves made one detection
    (the stronger half's, its outline and box grown to hold both). A sliver is narrow against the
    tiles seen like it (at least three of them). Needs face outlines; sideways tiles are left alone
    (their aspect is the other way round)."""
    upright = [i for i, d in enumerate(detections) if d.quad is not None and not d.rotated]
    if len(upright) < 3:
        return detections
    quads = {i: np.asarray(detections[i].quad, np.float64) for i in upright}
    frames = {i: face_frame(quads[i]) for i in upright}
    aspects = {i: frame.width / max(frame.height, 1e-9) for i, frame in frames.items()}
    typical: dict[int, float] = {}
    for i in upright:
        similar = _similar_tiles(frames, i)
        if len(similar) >= 3:
            typical[i] = float(np.percentile([aspects[j] for j in similar], TYPICAL_PERCENTILE))
    slivers = sorted((i for i in typical if aspects[i] < SLIVER_SHARE * typical[i]),
                     key=lambda i: -detections[i].score)
    sliver_set = set(slivers)
    whole = [j for j in upright if j not in sliver_set]
    joined: dict[int, Detection] = {}
    absorbed: set[int] = set()
    for position, i in enumerate(slivers):
        if i in absorbed or i in joined:
            continue
        partner = next((j for j in slivers[position + 1:] if j not in absorbed and j not in joined
                        and _halves_of_one_tile(quads[i], quads[j], frames[i], frames[j], typical[i])), None)
        if partner is None or not _in_a_row(merged_outline(quads[i], quads[partner]), frames, quads, whole):
            continue
        joined[i] = merged_detection(detections[i], detections[partner])
        absorbed.add(partner)
    return [joined.get(i, d) for i, d in enumerate(detections) if i not in absorbed]
