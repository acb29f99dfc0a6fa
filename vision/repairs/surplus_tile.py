"""One standing tile too many: the row read again without each of its weakest detections in turn.

A row one tile over the count the sets on the table allow holds a tile that is not the hand's: a
discard lying against the row's end, or a tile found twice, whose second detection sits between
two real ones (a 9p lying sideways at the row's end, scored lower by the detector than any of
the hand's tiles). The hand cannot be read as it is (its refusal says the count is one
over), so each of the :data:`WEAKEST` least sure detections of the concealed row
is left out in turn; the first reading that makes a whole hand with every tile seen is kept. The
rule covers a discard lying against a real row (``tests/pipeline/test_surplus_tile.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from vision.layout import concealed_row_of_sure_tiles
from vision.repairs.attempt import Attempt, attempt, sees_every_tile
from vision.types import TileReading

#: How many of the concealed row's least sure detections are tried left out.
WEAKEST = 3


def without_one_weak_tile(readings: list[TileReading]) -> Iterator[tuple[int, list[TileReading]]]:
    """``readings`` without one of the concealed row's :data:`WEAKEST` least sure detections (by the
    detector's score), weakest first, with the index left out. Spare detections are not row tiles."""
    found = concealed_row_of_sure_tiles(readings)
    if found is None:
        return
    for index in sorted(found[0], key=lambda i: readings[i].detection.score)[:WEAKEST]:
        yield index, readings[:index] + readings[index + 1:]


#: The warning when the hand reads without one of the row's tiles (``{code}``: what it was read as).
SURPLUS_WARNING = ("one tile too many stood in the row; the hand reads without the least sure one, read "
                   "{code} (a discard or a tile found twice?)")


def surplus_attempts(readings: list[TileReading], surplus: int) -> Iterator[Attempt]:
    """For a row ``surplus`` tiles over the count: when that is one, the readings without each of
    the row's weakest detections (:func:`without_one_weak_tile`), kept when the hand then reads
    with every tile seen."""
    if surplus != 1:
        return
    for index, rest in without_one_weak_tile(readings):
        yield attempt(rest, SURPLUS_WARNING.format(code=readings[index].code), keep=sees_every_tile)
