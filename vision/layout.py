"""Layout: which detected tiles form the hand, and how (concealed row, exposed sets, flowers, winning tile).

How a winning hand lies on the table (seed 000): the concealed tiles stand in one row; exposed sets
and flowers lie in front of it, each set a tight run of 3 or 4 tiles with a gap to the next; a
concealed kong lies face-down (when revealed at the end, usually the two outer tiles stay
face-down and the two inner ones are turned up); a claimed tile sits in the middle of its set,
and the winning tile is "placed horizontally across the completed set" (sideways) or set apart at
the end of the row.

The camera may be turned any way and tilted moderately, so nothing here uses image axes. The row
direction comes from the vectors between touching neighbours (tiles in a row touch; rows do not),
everything is then measured in row coordinates (u along the row, v across it) in units of the
tile's short side, which cancels the photo's scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scoring.errors import InputError
from vision.types import GroupRole, Layout, TileGroup, TileReading

#: A mahjong tile's long side over its short side (real sets: 1.3-1.4).
TILE_ASPECT = 1.35
#: Neighbouring tiles farther apart than this many short sides (beyond touching) start a new group.
GROUP_GAP = 0.35
#: Rows whose centres are farther apart than this many long sides are different rows.
ROW_SPLIT = 0.6
#: A row farther than this many long sides from the concealed row is not part of the hand.
HAND_REACH = 3.5
#: A run of at least this many upright non-flower tiles can only be a concealed row.
LONG_RUN = 8
#: Probability mass on flower codes above which a tile is taken for a flower when grouping.
FLOWER_MASS = 0.5


@dataclass(frozen=True)
class _Tile:
    index: int
    u: float
    v: float
    extent: float  # length along the row, in pixels
    rotated: bool
    face_down: bool
    flower: bool


def flower_mass(reading: TileReading) -> float:
    """How much of the classifier's belief says 'flower or season' (1f..8f)."""
    return sum(p for code, p in reading.candidates if code.endswith("f"))


def back_mass(reading: TileReading) -> float:
    """How much says 'face-down tile', combining the detector flag and the classifier."""
    if reading.detection.face_down:
        return 1.0
    return sum(p for code, p in reading.candidates if code == "back")


def _centres(readings: list[TileReading]) -> np.ndarray:
    return np.array([reading.detection.center for reading in readings], dtype=np.float64)


def _side_lengths(reading: TileReading) -> tuple[float, float]:
    """(short, long) side in pixels: from the outline when the detector gives one, else the box."""
    quad = reading.detection.quad
    if quad is not None and len(quad) == 4:
        points = np.asarray(quad, dtype=np.float64)
        a = (np.linalg.norm(points[1] - points[0]) + np.linalg.norm(points[2] - points[3])) / 2
        b = (np.linalg.norm(points[2] - points[1]) + np.linalg.norm(points[3] - points[0])) / 2
        return min(a, b), max(a, b)
    width, height = reading.detection.width, reading.detection.height
    return min(width, height), max(width, height)


def _nearest_neighbours(centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of and distance to each point's nearest other point."""
    deltas = centres[:, None, :] - centres[None, :, :]
    distances = np.hypot(deltas[..., 0], deltas[..., 1])
    np.fill_diagonal(distances, np.inf)
    nearest = distances.argmin(axis=1)
    return nearest, distances[np.arange(len(centres)), nearest]


def estimate_row_direction(centres: np.ndarray, fallback_angle: float = 0.0) -> float:
    """Angle (radians, in [-pi/2, pi/2)) of the rows, from the touching-neighbour vectors.

    Directions are axial (a vector and its opposite are the same row), so the mean is taken over
    doubled angles; a second pass drops vectors more than 25 degrees off (a tile's neighbour in the
    next row) and averages again.
    """
    if len(centres) < 2:
        return fallback_angle
    nearest, _ = _nearest_neighbours(centres)
    vectors = centres[nearest] - centres
    doubled = 2 * np.arctan2(vectors[:, 1], vectors[:, 0])
    angle = math.atan2(np.sin(doubled).mean(), np.cos(doubled).mean()) / 2
    off = np.abs(((doubled / 2 - angle) + math.pi / 2) % math.pi - math.pi / 2)
    keep = off < math.radians(25)
    if keep.sum() >= 2:
        angle = math.atan2(np.sin(doubled[keep]).mean(), np.cos(doubled[keep]).mean()) / 2
    # Prefer the row direction that runs left-to-right in the image, so "first" means leftmost.
    return (angle + math.pi / 2) % math.pi - math.pi / 2


def _tile_unit(readings: list[TileReading], centres: np.ndarray) -> float:
    """The short side of a tile in pixels: the spacing of touching neighbours, or the box size."""
    shorts = np.array([_side_lengths(r)[0] for r in readings])
    if len(centres) < 3:
        return float(np.median(shorts))
    _, spacing = _nearest_neighbours(centres)
    unit = float(np.median(spacing))
    # Spacing equals the short side for touching tiles; scattered tiles make it too large.
    return min(unit, float(np.median(shorts)) * 1.25) if unit > 0 else float(np.median(shorts))


def _to_tiles(readings: list[TileReading], angle: float, unit: float) -> list[_Tile]:
    direction = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    centres = _centres(readings)
    tiles = []
    for index, reading in enumerate(readings):
        rotated = reading.detection.rotated
        tiles.append(_Tile(
            index=index,
            u=float(centres[index] @ direction),
            v=float(centres[index] @ normal),
            extent=unit * (TILE_ASPECT if rotated else 1.0),
            rotated=rotated,
            face_down=back_mass(reading) > 0.5,
            flower=flower_mass(reading) > FLOWER_MASS,
        ))
    return tiles


def _split_rows(tiles: list[_Tile], unit: float) -> list[list[_Tile]]:
    """Cluster tiles into rows by their position across the row direction."""
    ordered = sorted(tiles, key=lambda t: t.v)
    rows: list[list[_Tile]] = [[ordered[0]]]
    for tile in ordered[1:]:
        row_v = float(np.median([t.v for t in rows[-1]]))
        if tile.v - row_v > ROW_SPLIT * unit * TILE_ASPECT:
            rows.append([tile])
        else:
            rows[-1].append(tile)
    return [sorted(row, key=lambda t: t.u) for row in rows]


def _split_groups(row: list[_Tile], unit: float) -> list[list[_Tile]]:
    """Split a row into runs of touching tiles wherever the gap exceeds GROUP_GAP tile widths."""
    groups: list[list[_Tile]] = [[row[0]]]
    for previous, tile in zip(row, row[1:], strict=False):
        gap = (tile.u - previous.u) - (tile.extent + previous.extent) / 2
        if gap > GROUP_GAP * unit:
            groups.append([tile])
        else:
            groups[-1].append(tile)
    return groups


def _row_distance(a: list[_Tile], b: list[_Tile]) -> float:
    return abs(float(np.median([t.v for t in a])) - float(np.median([t.v for t in b])))


def _plain_count(group: list[_Tile]) -> int:
    """Tiles that could stand in a concealed row: upright, face up, not flowers."""
    return sum(1 for t in group if not t.flower and not t.face_down)


@dataclass
class _Plan:
    concealed: list[_Tile]
    winning: _Tile | None
    others: list[list[_Tile]]
    ignored: list[_Tile]
    warnings: list[str]


def _choose_hand(rows: list[list[list[_Tile]]], unit: float) -> _Plan:
    """Pick the concealed group (the longest run), the rows near it, and reject two-hand photos."""
    runs = [(row_index, group) for row_index, groups in enumerate(rows) for group in groups]
    row_index, concealed = max(runs, key=lambda item: (_plain_count(item[1]), len(item[1])))
    long_runs = [(r, g) for r, g in runs if _plain_count(g) >= LONG_RUN and g is not concealed]
    far_long = [g for r, g in long_runs
                if r != row_index or abs(g[0].u - concealed[0].u) > 30 * unit]
    if _plain_count(concealed) >= LONG_RUN and far_long:
        raise InputError(f"the photo seems to show two hands (rows of {_plain_count(concealed)} and "
                         f"{_plain_count(far_long[0])} standing tiles); photograph one hand at a time")
    warnings: list[str] = []
    concealed_row = rows[row_index]
    hand_rows = [r for r in rows if r is concealed_row
                 or _row_distance([t for g in r for t in g], [t for g in concealed_row for t in g])
                 <= HAND_REACH * unit * TILE_ASPECT]
    ignored = [t for r in rows if not any(r is h for h in hand_rows) for g in r for t in g]
    if ignored:
        warnings.append(f"{len(ignored)} tile(s) far from the hand were ignored (discards or the wall?)")
    others = [g for r in hand_rows for g in r if g is not concealed]
    winning, others = _winning_tile(concealed, concealed_row, others, warnings)
    return _Plan(concealed, winning, others, ignored, warnings)


def _winning_tile(concealed: list[_Tile], concealed_row: list[list[_Tile]], others: list[list[_Tile]],
                  warnings: list[str]) -> tuple[_Tile | None, list[list[_Tile]]]:
    """The sideways tile of the concealed row, else a lone tile set apart at either end of it."""
    sideways = [t for t in concealed if t.rotated]
    if len(sideways) == 1:
        return sideways[0], others
    if len(sideways) > 1:
        warnings.append(f"{len(sideways)} sideways tiles in the concealed row; the last one is taken "
                        "as the winning tile")
        return sideways[-1], others
    position = next(i for i, g in enumerate(concealed_row) if g is concealed)
    neighbours = [concealed_row[i] for i in (position - 1, position + 1) if 0 <= i < len(concealed_row)]
    apart = [g for g in neighbours if len(g) == 1 and not g[0].flower and not g[0].face_down]
    if len(apart) == 1:
        return apart[0][0], [g for g in others if g is not apart[0]]
    if len(apart) == 2:
        warnings.append("a tile is set apart at both ends of the concealed row; the one after it "
                        "is taken as the winning tile")
        return apart[1][0], [g for g in others if g is not apart[1]]
    warnings.append("the photo does not show which tile won (no sideways tile, none set apart); "
                    "every possible winning tile is considered")
    return None, others


def _roles(others: list[list[_Tile]], warnings: list[str]) -> tuple[list[TileGroup], list[int]]:
    """Flowers out of every group; the rest are exposed sets or concealed kongs by their backs."""
    groups: list[TileGroup] = []
    flowers: list[int] = []
    stray: list[int] = []
    for group in others:
        flowers.extend(t.index for t in group if t.flower)
        rest = [t for t in group if not t.flower]
        if not rest:
            continue
        if len(rest) < 3:
            stray.extend(t.index for t in rest)
            continue
        indices = tuple(t.index for t in rest)
        backs = sum(t.face_down for t in rest)
        if len(rest) == 4 and backs:
            groups.append(TileGroup(GroupRole.CONCEALED_KONG, indices))
        else:
            groups.append(TileGroup(GroupRole.MELD, indices))
    if stray:
        warnings.append(f"{len(stray)} tile(s) in front of the hand belong to no set and were ignored")
    if flowers:
        groups.append(TileGroup(GroupRole.FLOWERS, tuple(flowers)))
    return groups, stray


def layout_tiles(readings: list[TileReading]) -> Layout:
    """Arrange readings into the hand's groups; see the module docstring for the table conventions.

    Groups hold indices into ``readings``. A MELD group may hold several touching sets (6-8 tiles);
    the decoder splits it into legal sets. Raises InputError when there are no tiles or two hands.
    """
    if not readings:
        raise InputError("no tiles found in the photo")
    centres = _centres(readings)
    unit = _tile_unit(readings, centres)
    angle = estimate_row_direction(centres)
    tiles = _to_tiles(readings, angle, unit)
    rows = [_split_groups(row, unit) for row in _split_rows(tiles, unit)]
    plan = _choose_hand(rows, unit)
    concealed_indices = [t.index for t in plan.concealed if not t.flower]
    groups, stray = _roles(plan.others, plan.warnings)
    loose_flowers = [t.index for t in plan.concealed if t.flower]
    if loose_flowers:
        flower_group = next((g for g in groups if g.role is GroupRole.FLOWERS), None)
        merged = tuple(sorted((flower_group.tile_indices if flower_group else ()) + tuple(loose_flowers)))
        groups = [g for g in groups if g.role is not GroupRole.FLOWERS]
        groups.append(TileGroup(GroupRole.FLOWERS, merged))
    winning_index = plan.winning.index if plan.winning is not None else None
    if winning_index is not None and winning_index not in concealed_indices:
        concealed_indices.append(winning_index)
    face_down = [i for i in concealed_indices if back_mass(readings[i]) > 0.5]
    if face_down and len(face_down) * 2 > len(concealed_indices):
        raise InputError("the concealed tiles are face-down (Ting?); turn them face up to read the hand")
    groups.insert(0, TileGroup(GroupRole.CONCEALED, tuple(concealed_indices)))
    ignored = tuple(sorted([t.index for t in plan.ignored] + stray))
    return Layout(groups=groups, winning_index=winning_index, ignored=ignored, warnings=plan.warnings)
