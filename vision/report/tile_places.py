"""Where a tile lies in the hand, in words a player can find on the table or the annotated picture.

The decoder and the confidence report name tiles they changed or doubt. Their index in the
readings list means nothing to a player; "flower 2 of 3 from the left" does. Tiles are counted
along the hand: the direction of the standing row in the picture (from the left, or from the top
when the row runs down the picture), and sets are numbered the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from vision.layout import estimate_row_direction
from vision.types import GroupRole, TileReading


class _Group(Protocol):
    role: GroupRole
    tile_indices: tuple[int, ...]


#: What a tile of each kind of group is called, and what the group is called.
_TILE_WORDS = {GroupRole.CONCEALED: "standing tile", GroupRole.FLOWERS: "flower"}
_SET_WORDS = {GroupRole.MELD: "exposed set", GroupRole.CONCEALED_KONG: "concealed kong"}


def tile_place(index: int, groups: Sequence[_Group], readings: Sequence[TileReading],
               winning_index: int | None = None) -> str:
    """``index``'s place in the hand laid out as ``groups``: "the winning tile", "flower 2 of 3
    from the left", "tile 1 of exposed set 2 from the left" ("from the top" when the row runs down)."""
    if index == winning_index:
        return "the winning tile"
    axis, side = _hand_axis(groups, readings)
    for group in groups:
        if index not in group.tile_indices:
            continue
        # The winning tile is named apart, so it is not counted among its row's tiles.
        tiles = _along([i for i in group.tile_indices if i != winning_index], readings, axis)
        ordinal = tiles.index(index) + 1
        if group.role in _TILE_WORDS:
            return f"{_TILE_WORDS[group.role]} {ordinal} of {len(tiles)} {side}"
        alike = [g for g in groups if g.role is group.role]
        number = sorted(alike, key=lambda g: _position(g.tile_indices, readings, axis)).index(group) + 1
        return f"tile {ordinal} of {_SET_WORDS[group.role]} {number} {side}"
    return "a tile beside the hand"


def _centre(reading: TileReading) -> np.ndarray:
    return np.array(reading.detection.center)


def _position(indices: Sequence[int], readings: Sequence[TileReading], axis: np.ndarray) -> float:
    return float(np.mean([_centre(readings[i]) @ axis for i in indices]))


def _along(indices: Sequence[int], readings: Sequence[TileReading], axis: np.ndarray) -> list[int]:
    return sorted(indices, key=lambda i: float(_centre(readings[i]) @ axis))


def _hand_axis(groups: Sequence[_Group], readings: Sequence[TileReading]) -> tuple[np.ndarray, str]:
    """The unit direction tiles are counted along, and how to say it. The standing row's main
    direction (all hand tiles' when the row is too short to have one), pointing right, or down when
    the row runs more down the picture than across it."""
    rows = (g.tile_indices for g in groups if g.role is GroupRole.CONCEALED and len(g.tile_indices) > 1)
    row = next(rows, ())
    indices = row or tuple(i for g in groups for i in g.tile_indices)
    angle = estimate_row_direction(np.array([_centre(readings[i]) for i in indices]))
    axis = np.array([math.cos(angle), math.sin(angle)])
    if abs(axis[0]) >= abs(axis[1]):
        return (axis if axis[0] > 0 else -axis), "from the left"
    return (axis if axis[1] > 0 else -axis), "from the top"
