"""Two flowers lying side by side found as one outline, read again as two.

Why: flowers are laid down flat beside the hand, often touching. The detector then sometimes
outlines two of them as one tile, and the classifier reads that outline as one flower, unsure.
The hand still reads, legal, with a flower too few, and the score would be called sure and
wrong. Cut in two across its longer side, such an outline gives two faces the flower model is
sure of.

So after a hand reads, each outline of the hand's flowers, or left out beside the hand, that is
both unsure and much larger than the photo's tiles (:data:`PAIR_AREA`) is cut in two. The two
halves are read; when both are flowers the flower model is sure of (:data:`SURE_HALF`), and two
different ones, the hand is read again with them in the outline's place, and kept when it then
holds more flowers. A single tile, cut in two, gives two halves of one face: they are not two
different sure flowers, so a large flower close to the camera is not split.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vision.geometry import face_frame, frame_rectangle
from vision.layout import FLOWER_MASS, flower_mass
from vision.repairs.attempt import Attempt, HandResult, attempt, more_flowers_than
from vision.repairs.stray_flowers import ReadFlowers, left_out_near_hand
from vision.repairs.turned_faces import Classify
from vision.types import Detection, GroupRole, Layout, TileReading

#: An outline at least this many times the median tile's area may hold two tiles (two flowers
#: outlined as one measure about 2.5; one flat flower seen from the same camera about 1.3).
PAIR_AREA = 1.8
#: Below this probability of its best code an outline is unsure enough to be looked at (two
#: flowers read as one spread the belief over both, and more).
UNSURE = 0.8
#: The flower model's flower mass each half must have.
SURE_HALF = 0.9

WARNING = ("read {count} outline(s) beside the hand as two flowers lying side by side (the detector found "
           "each pair as one tile)")


def pair_outlines(readings: list[TileReading], layout: Layout | None) -> list[int]:
    """Indices of the unsure, oversized outlines among the hand's flowers and the tiles left out
    beside the hand (flower mass at least :data:`vision.layout.FLOWER_MASS`) that may be two
    flowers found as one."""
    outlined = [r.detection for r in readings if r.detection.quad is not None and not r.detection.spare]
    if layout is None or len(outlined) < 3:
        return []
    typical = float(np.median([face_frame(d.quad).area for d in outlined]))
    flowers = [i for group in layout.groups if group.role == GroupRole.FLOWERS for i in group.tile_indices]
    found = []
    for i in sorted(set(flowers) | set(left_out_near_hand(readings, layout))):
        reading = readings[i]
        if reading.detection.quad is None or reading.detection.spare:
            continue
        best = reading.candidates[0][1] if reading.candidates else 0.0
        if best < UNSURE and flower_mass(reading) >= FLOWER_MASS \
                and face_frame(reading.detection.quad).area >= PAIR_AREA * typical:
            found.append(i)
    return found


def halves(detection: Detection) -> tuple[Detection, Detection]:
    """``detection``'s outline cut in two across its longer side (each half in the outline's axes)."""
    frame = face_frame(detection.quad)
    if frame.width >= frame.height:
        step, size = frame.across * frame.width / 4, (frame.width / 2, frame.height)
    else:
        step, size = frame.up * frame.height / 4, (frame.width, frame.height / 2)
    first, second = (frame_rectangle(frame.centre + sign * step, frame, *size, detection.score)
                     for sign in (-1.0, 1.0))
    return first, second


def _two_flowers(halves_read: list[TileReading], flowers: np.ndarray) -> bool:
    codes = [reading.code for reading in halves_read]
    return (all(row.sum() >= SURE_HALF for row in flowers) and all(code.endswith("f") for code in codes)
            and codes[0] != codes[1])


def flower_pair_attempts(result: HandResult, classify: Classify,
                         read_flowers: ReadFlowers) -> Iterator[Attempt]:
    """For a hand that reads (``result``): the readings with each pair of flowers found as one
    outline (:func:`pair_outlines`) read as its two flowers, when both halves are sure, different
    flowers; kept when the hand then holds more flowers."""
    readings = list(result.readings)
    added: list[TileReading] = []
    for index in pair_outlines(result.readings, result.layout):
        cut = list(halves(result.readings[index].detection))
        flowers = read_flowers(cut)
        if flowers is None:
            return
        halves_read = classify(cut)
        if not _two_flowers(halves_read, flowers):
            continue
        readings[index] = halves_read[0]
        added.append(halves_read[1])
    if added:
        yield attempt(readings + added, WARNING.format(count=len(added)), keep=more_flowers_than(result))
