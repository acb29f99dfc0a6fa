"""Which augmented copies of a labelled photo show mirrored faces, told by a classifier.

An augmented copy was flipped horizontally and/or vertically at random: a flip alone mirrors
every face (a mirrored 三萬 labelled 3m), both together are a half turn. The labels are known, so
the test is plain: a classifier that never trained on mirrored faces gives the true codes more
probability on the crops as they are than on the same crops mirrored back, unless the copy is
mirrored. A half turn does not matter (the classifier reads tiles upside down). Only faces that
change when mirrored are read (:data:`ASYMMETRIC`), a few per photo: one is often enough.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.models.crops import crop_detection
from vision.types import Detection

#: Faces that look different mirrored (characters, winds, green and red dragons, flowers and
#: seasons): the test reads only these.
ASYMMETRIC = frozenset([f"{n}m" for n in range(1, 10)] + ["1z", "2z", "3z", "4z", "6z", "7z"]
                       + [f"{n}f" for n in range(1, 9)])
#: At most this many of a photo's tiles are read (the first asymmetric ones): a few decide.
MOST_TILES = 8
#: Log-probability margins smaller than this (summed over the tiles) decide nothing: such a copy is
#: neither trusted as unmirrored nor taken as mirrored.
UNDECIDED_MARGIN = 3.0


class Reader(Protocol):
    """What the test needs of a classifier (``TileClassifier`` has it)."""

    labels: list[str]

    def probabilities(self, crops_bgr: Sequence[np.ndarray]) -> np.ndarray: ...


@dataclass(frozen=True)
class MirrorVerdict:
    """The summed log-probability of the true codes mirrored back minus as they are (positive:
    mirrored), and the verdict: True mirrored, False not, None too close to call."""

    margin: float
    mirrored: bool | None


def mirror_verdict(reader: Reader, image_bgr: np.ndarray, boxes: np.ndarray,
                   codes: Sequence[str]) -> MirrorVerdict:
    """Whether the faces in ``image_bgr`` (tiles ``boxes`` labelled ``codes``) are mirrored."""
    index = {code: i for i, code in enumerate(reader.labels)}
    crops, columns = [], []
    for box, code in zip(np.asarray(boxes, np.float32).reshape(-1, 4), codes, strict=True):
        x1, y1, x2, y2 = (float(v) for v in box)
        if code not in index or code not in ASYMMETRIC or x2 - x1 < 4 or y2 - y1 < 4:
            continue
        if len(crops) == MOST_TILES:
            break
        crops.append(crop_detection(image_bgr, Detection(box=(x1, y1, x2, y2), score=1.0)))
        columns.append(index[code])
    if not crops:
        return MirrorVerdict(0.0, None)
    as_is = reader.probabilities(crops)
    flipped = reader.probabilities([cv2.flip(crop, 1) for crop in crops])
    rows = np.arange(len(crops))
    margin = float(np.sum(np.log(flipped[rows, columns] + 1e-6) - np.log(as_is[rows, columns] + 1e-6)))
    verdict = None if abs(margin) < UNDECIDED_MARGIN else margin > 0
    return MirrorVerdict(round(margin, 3), verdict)
