"""Flowers the layout left out of the hand, found again by the flower model.

A flower the main classifier misreads as a suit tile (set-297's 梅 1 as 2p at up to 0.98) is no
flower to the layout: lying apart it fits no set, so it is set aside or ignored as a discard, and
the hand reads without it, legal but a flower short. Worse, one such tile in a row of flowers can
make the layout take two unsure flowers back as a "set" with it (``vision.layout.sets._unflower``),
and the three are left out together. The flower model (``models/flowers.onnx``) reads the number and
the name, not the picture, and is sure of many of these, and of few of the other tiles left out (a
discarded flower, tiles found twice). So after a hand reads, the tiles it left out beside its groups
to which the main classifier gives any flower mass (:func:`maybe_flowers`; the flower model alone
takes some badly cut suit tiles of real photos for flowers) are read by the flower model; those it
calls a flower at least :data:`SURE_FLOWER_MASS` are read as flowers and the hand is read again,
kept when it then holds more flowers. Requiring the main model's flower mass read the same held-out
hands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from scoring.tiles import FLOWER_CODES
from vision.layout import flower_mass
from vision.repairs.attempt import Attempt, HandResult, attempt, more_flowers_than
from vision.types import Detection, Layout, TileReading

#: The flower model's flower mass from which a tile left out is read as a flower (0.5 read the same
#: hands on the held-out renders; the higher bar leaves room for a doubtful discard).
SURE_FLOWER_MASS = 0.8
#: How near a tile left out must lie to one of the hand's tiles, centre to centre, in tile lengths
#: (the median longer side of the tiles' boxes): flowers lie beside the sets or the row.
NEAR_HAND = 1.5
#: The classifier's flower mass from which a tile left out beside a hand that reads makes its score
#: unsure (:func:`maybe_flowers`). On the 390 held-out renders, 12 hands called sure left such a
#: tile out after the flower model's second look: the 6 with a wrong total had 0.002-0.13 flower
#: mass on it, the 6 right ones none among its five best codes.
MAYBE_FLOWER = 0.001
#: The share of a re-read tile's probability left on the main model's best non-flower code, so the
#: decoder can still read it so when the hand needs it.
NON_FLOWER_SHARE = 0.05

#: The flower model's probability of each flower (``FLOWER_CODES`` order) per detection, or None
#: without a flower model (``vision.models.classifier.TileClassifier.flower_probabilities``).
ReadFlowers = Callable[[list[Detection]], np.ndarray | None]


def left_out_near_hand(readings: Sequence[TileReading], layout: Layout | None) -> list[int]:
    """Indices (into ``readings``) of the tiles ``layout`` left out that lie beside the hand: set
    aside among the sets, or ignored within :data:`NEAR_HAND` of a tile of the hand."""
    if layout is None or not layout.ignored:
        return []
    in_hand = [i for group in layout.groups for i in group.tile_indices]
    if not in_hand:
        return []
    length = float(np.median([max(r.detection.width, r.detection.height) for r in readings]))
    anchors = np.array([readings[i].detection.center for i in in_hand])
    out = []
    for index in layout.ignored:
        if readings[index].detection.spare:
            continue
        distance = float(np.min(np.hypot(*(anchors - np.array(readings[index].detection.center)).T)))
        if index in layout.set_aside or distance <= NEAR_HAND * length:
            out.append(index)
    return out


def maybe_flowers(readings: Sequence[TileReading], layout: Layout | None) -> list[int]:
    """The tiles left out beside the hand (:func:`left_out_near_hand`) to which the classifier gives
    at least :data:`MAYBE_FLOWER` flower mass: if one is a flower, the total lacks it."""
    return [i for i in left_out_near_hand(readings, layout)
            if flower_mass(readings[i]) >= MAYBE_FLOWER]


def as_flower(reading: TileReading, flowers: np.ndarray) -> TileReading:
    """``reading`` read as the flower model reads it among the flowers (``flowers``: its probability
    of each, ``FLOWER_CODES`` order), with :data:`NON_FLOWER_SHARE` left on the main model's best
    non-flower code."""
    within = flowers / max(float(flowers.sum()), 1e-12)
    other = next((code for code, _ in reading.candidates if code not in FLOWER_CODES), None)
    share = NON_FLOWER_SHARE if other is not None else 0.0
    candidates = [(code, float((1.0 - share) * p)) for code, p in zip(FLOWER_CODES, within, strict=True)]
    if other is not None:
        candidates.append((other, share))
    candidates.sort(key=lambda pair: -pair[1])
    return TileReading(reading.detection, tuple(candidates[:len(reading.candidates)]))


def stray_flower_attempts(result: HandResult, read_flowers: ReadFlowers) -> Iterator[Attempt]:
    """For a hand that reads (``result``): the readings with the tiles left out beside it that may
    be flowers (:func:`maybe_flowers`) and that the flower model is sure are flowers read as
    flowers; kept when the hand then holds more flowers."""
    left_out = maybe_flowers(result.readings, result.layout)
    if not left_out:
        return
    flowers = read_flowers([result.readings[i].detection for i in left_out])
    if flowers is None:
        return
    sure = {index: row for index, row in zip(left_out, flowers, strict=True) if row.sum() >= SURE_FLOWER_MASS}
    if not sure:
        return
    readings = [as_flower(reading, sure[i]) if i in sure else reading
                for i, reading in enumerate(result.readings)]
    read_as = ", ".join(sorted({result.readings[i].code for i in sure}))
    warning = (f"read {len(sure)} tile(s) beside the hand as flowers (the flower model is sure of them; "
               f"the classifier read {read_as}, which fits no set)")
    yield attempt(readings, warning,
                  keep=more_flowers_than(result))
