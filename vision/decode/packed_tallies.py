"""Face counts packed into one integer, so the decoder judges a whole-hand reading in a few integer
operations instead of a pass over every tile.

Why: a photo that reads as no hand is searched to the decoder's budget (30 000 readings) once per
layout and per second look. Counting faces tile by tile for every reading took most of that time
(a real table photo that is no hand: 119 searches, 27 of its 59 seconds in the counting). Each
option of each search variable adds a fixed amount to the counts, so a reading's counts are a sum,
and the best-first search's next reading differs from the one it grew from in one variable: one
subtraction and one addition of packed integers.

Each face gets :data:`FIELD` bits. A count stays far below ``2**FIELD`` (a hand has fewer than 40
tiles), so one face's count never carries into the next face's bits.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Bits per face.
FIELD = 7
_MASK = (1 << FIELD) - 1


def _every_field(value: int, fields: int) -> int:
    return sum(value << (FIELD * i) for i in range(fields))


def pack(indices: Iterable[int], weight: int = 1) -> int:
    """The packed counts of these face indices, each counted ``weight`` times."""
    return sum(weight << (FIELD * i) for i in indices)


def unpack(packed: int, faces: int) -> list[int]:
    """The counts of the first ``faces`` faces."""
    return [(packed >> (FIELD * i)) & _MASK for i in range(faces)]


class Limit:
    """Tests whether any face's count exceeds ``most`` (at most 31), for up to ``faces`` faces: adding
    ``32 - most - 1`` to every field sets bit 5 or 6 of exactly the fields that exceed it."""

    def __init__(self, most: int, faces: int) -> None:
        if not 0 <= most < 32:
            raise ValueError(f"a limit of {most} does not fit the packed test (0-31)")
        self._add = _every_field(31 - most, faces)
        self._high = _every_field(0b1100000, faces)

    def exceeded(self, packed: int) -> bool:
        return bool((packed + self._add) & self._high)
