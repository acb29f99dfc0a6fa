"""A tile flagged sideways that reads sure only upright: the detector's turn was wrong.

The detector flags a tile sideways when its face's up axis is turned against its neighbours'.
On a tile seen at a slant (a row laid at 30-45 degrees to the camera, a flower set down askew) the
axis can come out a quarter turn off, and the tile is then flagged sideways although it stands
like its neighbours: its face is cut lying on its side and reads unsure and often wrong (render
900119's 2z read 5f at 0.32, 910059's 4z read 2f at 0.22). Cut a quarter turn back, the same face
reads sure and right (2z at 1.00, 4z at 1.00).

So a tile flagged sideways that the classifier reads under :data:`UNSURE_AS_FLAGGED` is read once
more a quarter turn back; if that reading reaches :data:`SURE_UPRIGHT`, the tile stands (not
sideways) with it. A tile truly lying sideways reads sure as flagged (the sideways box cut of
``vision.repairs.sideways_cut`` sees to that), so it is left alone. Measured on the 350 held-out renders
(seeds 900000- and 910000-, shipped models; the flagged hand tiles' readings against their cuts
turned back): 11 of the 41 tiles flagged sideways in error met both thresholds, all 11 read right
upright, and none of the 424 flagged tiles truly lying sideways did. A face that reads sure both
ways (a sideways 6s reads 9p upright at 1.00) never meets the first threshold. Whole hands: 910059
gained, none lost (200, 150 and 100 fresh renders); 10 more tiles read right. The photo and the
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
