"""A small detection lying half on a bigger one: the hand read again without it.

The detector sometimes finds a tile once whole and once as a part of it: a sideways 6p in an
exposed chow as its own box and as a narrow box over its left half read 2p. The two boxes share
about half of the smaller one, just under what
``vision.repairs.duplicates.merge_duplicates`` takes for one tile (tiles standing in a row seen from
the side overlap that much too, so the merge cannot reach further), and the chow became four tiles:
the hand did not read. So when a hand does not read for any reason but its tile count (which
the count repairs mend), each detection that lies at least
:data:`HALF_ON` on a detection at least :data:`BIGGER` times its size is left out in turn, least
sure first; the first reading that makes a whole hand with every tile seen is kept, a warning names
the tile left out, and the score is not called sure. On the held-out renders it gains hands and
loses none (``models/EXPERIMENTS.md``).
"""

from __future__ import annotations

from collections.abc import Iterator

from vision.geometry import intersection_area
from vision.repairs.attempt import Attempt, attempt, sees_every_tile
from vision.types import Detection, TileReading

#: A detection this much of whose box lies on another's...
HALF_ON = 0.3
#: ...whose box is at least this many times larger, may be a part of that tile found on its own.
BIGGER = 1.4
#: At most this many such detections are tried left out.
MOST_TRIED = 3


def _area(detection: Detection) -> float:
    return max(1e-6, detection.width * detection.height)


def parts_of_tiles(readings: list[TileReading]) -> list[int]:
    """Indices of the detections that may be part of a bigger detected tile, least sure first."""
    detections = [reading.detection for reading in readings]
    parts = [index for index, small in enumerate(detections)
             if not small.spare and any(
                 other is not small and not other.spare and _area(other) >= BIGGER * _area(small)
                 and intersection_area(small.box, other.box) / _area(small) >= HALF_ON
                 for other in detections)]
    return sorted(parts, key=lambda index: detections[index].score)[:MOST_TRIED]


def without_one_part(readings: list[TileReading]) -> Iterator[tuple[int, list[TileReading]]]:
    """``readings`` without one of the :func:`parts_of_tiles` in turn, with the index left out."""
    for index in parts_of_tiles(readings):
        yield index, readings[:index] + readings[index + 1:]


#: The warning when the hand reads only without a part of a tile (``{code}``: what it was read as).
PART_WARNING = ("left out a small detection lying on a bigger tile (read {code}): the hand reads only "
                "without it (a tile found twice?)")


def part_attempts(readings: list[TileReading]) -> Iterator[Attempt]:
    """For a hand that does not read: the readings without each small detection lying on a bigger
    tile (:func:`without_one_part`), kept when the hand then reads with every tile seen; a guess,
    so its score is not sure."""
    for index, rest in without_one_part(readings):
        yield attempt(rest, PART_WARNING.format(code=readings[index].code), keep=sees_every_tile, unsure=True)
