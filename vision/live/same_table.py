"""Does the table still show the tiles the announced hand was read from?

Once a hand is announced, a player expects to see its total again only if the table changed. The
tracker's identities do not carry that meaning across an occlusion: a tile hidden by a player's
hand for longer than the tracker's miss tolerance comes back as a new track (the table key
changes, the table is read again), and the votes of the tiles the fingers covered now hold
classifier outputs of fingers. The photo pipeline weighs runner-up codes when it decodes, so
that re-read of an unchanged table can decode to another hand (seen with detector r15: the same
20 tiles, the same top codes, but three flowers re-read through their polluted runner-ups as a
4m5m6m chow, announced as 3 tai after the right 4) or to no hand at all (a spurious "cleared").

What a player calls the same table is physical: the same number of tiles, each at the same place
(within half a tile, so never a neighbour's place) showing the same face (code, sideways,
face down). :func:`same_tiles` compares two :func:`table_tiles` snapshots that way; the engine
keeps the announced hand while the table shows its tiles, and reads again only when they differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.types import TileReading

#: Two sightings are the same tile when their centres lie within this fraction of the tile's short
#: side: a re-detection jitters by a few pixels, a neighbouring tile is a whole tile away.
SAME_PLACE_FRACTION = 0.5


@dataclass(frozen=True)
class TileSeen:
    """One tile as the reading sees it: where it lies and which face it shows."""

    center: tuple[float, float]
    short_side: float
    code: str
    rotated: bool
    face_down: bool


def table_tiles(readings: list[TileReading]) -> tuple[TileSeen, ...]:
    """The snapshot of the table that a reading is made from (each tile's top voted code)."""
    tiles = []
    for reading in readings:
        detection = reading.detection
        code = reading.candidates[0][0] if reading.candidates else ""
        short_side = max(1.0, min(detection.width, detection.height))
        tiles.append(TileSeen(detection.center, short_side, code, detection.rotated, detection.face_down))
    return tuple(tiles)


def same_tiles(
    before: tuple[TileSeen, ...], now: tuple[TileSeen, ...], fraction: float = SAME_PLACE_FRACTION
) -> bool:
    """Whether ``now`` shows exactly the tiles of ``before``: one to one, same place, same face.

    A tile added, removed, moved to another place, or read with another code or flag makes the
    tables differ. Matching is greedy by distance; within half a tile it cannot be ambiguous.
    """
    if len(before) != len(now):
        return False
    pairs = sorted(
        (_distance(a, b), i, j)
        for i, a in enumerate(before)
        for j, b in enumerate(now)
        if _distance(a, b) <= fraction * min(a.short_side, b.short_side)
    )
    matched_before: set[int] = set()
    matched_now: set[int] = set()
    for _, i, j in pairs:
        if i in matched_before or j in matched_now:
            continue
        a, b = before[i], now[j]
        if (a.code, a.rotated, a.face_down) != (b.code, b.rotated, b.face_down):
            return False
        matched_before.add(i)
        matched_now.add(j)
    return len(matched_before) == len(before)


def _distance(a: TileSeen, b: TileSeen) -> float:
    return ((a.center[0] - b.center[0]) ** 2 + (a.center[1] - b.center[1]) ** 2) ** 0.5
