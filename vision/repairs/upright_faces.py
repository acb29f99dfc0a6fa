"""A tile flagged sideways that reads sure only upright: the detector's turn was wrong.

The detector flags a tile sideways when its face's up axis is turned against its neighbours'.
On a tile seen at a slant (a row laid at 30-45 degrees to the camera, a flower set down askew) the
axis can come out a quarter turn off, and the tile is then flagged sideways although it stands
like its neighbours: its face is cut lying on its side and reads unsure and often wrong (a 2z
read 5f, a 4z read 2f). Cut a quarter turn back, the same face reads sure and right.

So a tile flagged sideways that the classifier reads under :data:`UNSURE_AS_FLAGGED` is read once
more a quarter turn back; if that reading reaches :data:`SURE_UPRIGHT`, the tile stands (not
sideways) with it. A tile truly lying sideways reads sure as flagged (the sideways box cut of
``vision.repairs.sideways_cut`` sees to that), so it is left alone. A face that reads sure both ways
(a sideways 6s reads 9p upright) never meets the first threshold. On the held-out renders it
mends tiles flagged in error, none truly lying sideways, and loses no hand
(``models/EXPERIMENTS.md``). The photo and the
live mode (``vision.live.reading``, on the frame it last processed) both read tiles so.
"""

from __future__ import annotations

from vision.repairs.turned_faces import Classify, turned_a_quarter
from vision.types import TileReading

#: A tile flagged sideways is read again upright when its top code is less sure than this...
UNSURE_AS_FLAGGED = 0.5
#: ...and stands, read upright, when that reading's top code is at least this sure.
SURE_UPRIGHT = 0.9


def with_false_turns_undone(readings: list[TileReading], classify: Classify) -> list[TileReading]:
    """``readings`` with each tile flagged sideways that reads sure only upright standing, read so.

    ``classify`` reads detections (in the readings' coordinates) with the classifier. Costs one
    classifier call, and only when a flagged tile reads unsure.
    """
    doubtful = [i for i, reading in enumerate(readings)
                if reading.detection.rotated and reading.detection.quad is not None
                and reading.candidates[0][1] < UNSURE_AS_FLAGGED]
    if not doubtful:
        return readings
    upright = classify([turned_a_quarter(readings[i].detection, sideways=False) for i in doubtful])
    out = list(readings)
    for index, reading in zip(doubtful, upright, strict=True):
        if reading.candidates[0][1] >= SURE_UPRIGHT:
            out[index] = reading
    return out
