"""Two tiles at the end of a row found as one outline, cut into the two the row's spacing puts there.

Why: at the far end of a standing row the tiles are small and seen at a slant, and the detector
sometimes outlines the last two as one tile: an outline half again as long and as tall as its
neighbours', read unsure (an 8s and 8s as one 5s; a 6m and 7m as one 4s; a 7s and 7s as one
7s). The hand is then a tile short and reads, if at all, with a
tile inferred, often the wrong one.

A row is evenly spaced, so where such an outline ends a row, the two tiles it holds sit one and two
steps on from the last tile it continues, the step being that tile's offset from the one before
it, each the size of those two. The two are read at those places, and the hand is kept when it
then reads with every tile seen and none corrected; its score is not called sure (the two places
are the row's guess, not the detector's). It is tried only for a hand that does not read, or
reads with a tile inferred.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vision.geometry import FaceFrame, face_frame, frame_rectangle, stands_upright
from vision.repairs.attempt import Attempt, HandResult, attempt
from vision.repairs.turned_faces import Classify
from vision.types import Detection, TileReading

#: The outline is at least this many times as large (area) as its two row neighbours' mean...
AREA_RATIO = 1.4
#: ...and its centre lies beyond the last of them, within this many steps of the row's end.
END_REACH = (1.0, 2.2)
#: Row neighbours: centres at most this many of their widths apart along the row, level within this
#: share of their height.
STEP_REACH = 1.6
LEVEL = 0.5
#: At most this many outlines are cut, the largest against its neighbours first.
MAX_TRIES = 2
#: The warning for a hand read with such a cut; ``{codes}`` what the two tiles read.
PAIR_WARNING = "two tiles at the end of a row were found as one and cut apart, read {codes}"


def _nearest_along(frames: dict[int, FaceFrame], origin: np.ndarray, direction: np.ndarray, reach: float,
                   exclude: set[int]) -> int | None:
    """The upright tile nearest ``origin`` (a point) along ``direction`` (unit vector), at least half
    and at most ``reach`` of its own widths on, level within :data:`LEVEL` of its height; or None."""
    normal = np.array([-direction[1], direction[0]])
    best: tuple[float, int] | None = None
    for j, other in frames.items():
        offset = other.centre - origin
        along, across = float(offset @ direction), float(offset @ normal)
        near = 0.5 * other.width <= along <= reach * other.width and abs(across) <= LEVEL * other.height
        if near and j not in exclude and (best is None or along < best[0]):
            best = (along, j)
    return None if best is None else best[1]


def row_end_pairs(readings: list[TileReading]) -> list[tuple[int, list[Detection]]]:
    """Each outline that ends a row and is about two of its tiles large (:data:`AREA_RATIO`), with
    the two detections the row's spacing puts in its place; the largest against its row first. The
    big outline's own axes are not trusted (they come out turned); the row's two last tiles give
    the step."""
    upright = [i for i, reading in enumerate(readings) if stands_upright(reading.detection)]
    frames = {i: face_frame(readings[i].detection.quad) for i in upright}
    found = []
    for i in upright:
        big = frames[i]
        distances = [(float(np.hypot(*(frames[j].centre - big.centre))) / frames[j].width, j)
                     for j in upright if j != i]
        near = [(distance, j) for distance, j in distances if distance <= 2 * STEP_REACH]
        if not near:
            continue
        last = min(near)[1]
        away = frames[last].centre - big.centre
        step_back = _nearest_along(frames, frames[last].centre, away / max(float(np.hypot(*away)), 1e-9),
                                   STEP_REACH, {i, last})
        if step_back is None:
            continue
        step = frames[last].centre - frames[step_back].centre
        length = float(np.hypot(*step))
        size = (frames[last].area + frames[step_back].area) / 2
        offset = big.centre - frames[last].centre
        beyond = float(offset @ step) / (length * length)
        aside = abs(float(offset @ np.array([-step[1], step[0]]))) / length
        if (big.area < AREA_RATIO * size or not END_REACH[0] <= beyond <= END_REACH[1]
                or aside > LEVEL * frames[last].height):
            continue
        if _nearest_along(frames, big.centre, step / length, STEP_REACH, {i, last, step_back}) is not None:
            continue  # a tile lies beyond it: not the row's end
        width = (frames[last].width + frames[step_back].width) / 2
        height = (frames[last].height + frames[step_back].height) / 2
        pair = [frame_rectangle(frames[last].centre + step * k, frames[last], width, height,
                                readings[i].detection.score) for k in (1, 2)]
        found.append((big.area / size, i, pair))
    return [(i, pair) for _, i, pair in sorted(found, key=lambda item: -item[0])]


def row_end_pair_attempts(readings: list[TileReading], classify: Classify) -> Iterator[Attempt]:
    """The readings with an outline ending a row cut into two tiles (:func:`row_end_pairs`, at most
    :data:`MAX_TRIES`), kept when the hand then reads with every tile seen, as the classifier read
    it (none corrected: a standing 4s outlined large, cut into two 2s, read as a legal hand with
    one tile changed) and with both tiles in it; a guess, so its score is not sure."""
    for index, pair in row_end_pairs(readings)[:MAX_TRIES]:
        two = classify(pair)
        cut = [reading for i, reading in enumerate(readings) if i != index] + two

        def keep(result: HandResult, two: list[TileReading] = two) -> bool:
            if result.decoded is None or result.decoded.unseen is not None or result.decoded.changes:
                return False
            kept = {id(reading.detection) for reading in result.readings}
            return all(id(reading.detection) in kept for reading in two)

        codes = " ".join(reading.code for reading in two)
        yield attempt(cut, PAIR_WARNING.format(codes=codes), keep=keep, unsure=True)
