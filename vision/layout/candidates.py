"""The layouts of a photo's tiles: each concealed-row hypothesis laid out with its sets, flowers,
winning tile and what is not the hand, most plausible first.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from scoring.errors import InputError
from vision.layout.concealed import choose_concealed
from vision.layout.hand import GRID_LINES, hand_runs, stacked_rows
from vision.layout.rows import Frame, Tile, plain_count, readings_row_angle, to_tiles, touching_runs
from vision.layout.sets import SURE_FLOWER, exposed_groups, fit_count, partial_kong, sets_of
from vision.layout.winning import lying_beside, winning_tile
from vision.types import HAND_SIZE, GroupRole, Layout, Refusal, TileGroup, TileReading

#: A run of at least this many face-up tiles away from the hand means a second hand.
LONG_RUN = 8


#: Why a row taken for the concealed one is refused when it is mostly backs: a Ting hand, or a wall
#: taken for the row (the next row is tried; this reason stands if none reads).
FACE_DOWN_ROW = "the concealed tiles are face-down (Ting?); turn them face up to read the hand"


def layout_tiles(readings: list[TileReading], hand_size: int = HAND_SIZE) -> Layout:
    """Arrange readings into the hand's groups; see the module docstring for the table conventions.

    Groups hold indices into ``readings``; the concealed group includes the winning tile. A MELD
    group may hold several touching sets (6-8 tiles): the decoder splits it into legal sets.
    Raises InputError when there are no tiles, two hands, or a face-down concealed row
    (:func:`layouts_of` gives the refusal as a value).
    ``hand_size``: the tiles of a complete hand under the rule set (:data:`vision.types.HAND_SIZE`).
    """
    return layout_candidates(readings, limit=1, hand_size=hand_size)[0]


def layout_candidates(readings: list[TileReading], limit: int = 3, complete_kongs: bool = False,
                      hand_size: int = HAND_SIZE) -> list[Layout]:
    """:func:`layouts_of`, its refusal raised as InputError."""
    layouts = layouts_of(readings, limit, complete_kongs, hand_size)
    if isinstance(layouts, Refusal):
        raise InputError(layouts.reason)
    return layouts


def layouts_of(readings: list[TileReading], limit: int = 3, complete_kongs: bool = False,
               hand_size: int = HAND_SIZE) -> list[Layout] | Refusal:
    """Up to ``limit`` layouts, most plausible first, differing in which row is the concealed one.

    Two rows can both fit the tile count (four standing tiles and ten exposed in a row in front of
    them, or the other way round); only the tiles' faces can tell, so the decoder tries them in
    order and keeps the first that reads as a legal winning hand. ``complete_kongs`` reads two or
    three backs as a concealed kong whose other backs were not found, when the hand is one set short
    (:func:`partial_kong`); a photo may, the camera should not (the player may still be laying it).
    ``hand_size``: the tiles of a complete hand, a kong as 3 (17; 14 under a 13-tile rule set).
    A refusal when there are no tiles, two hands, a grid, or only face-down rows.
    """
    if not readings:
        return Refusal("no tiles found in the photo")
    tiles = to_tiles(readings, readings_row_angle(readings))
    runs = touching_runs(tiles)
    if sum(t.face_down for t in tiles) * 2 > len(tiles) and not any(plain_count(r) >= 2 for r in runs):
        return Refusal(FACE_DOWN_ROW)
    rows = choose_concealed(runs, hand_size)
    if isinstance(rows, Refusal):
        return rows
    layouts: list[Layout] = []
    face_down: Refusal | None = None
    considered = limit  # rows looked at: the ``limit`` likeliest, and one more per row of backs
    for row in rows:
        if considered == 0:  # also when ``limit`` layouts are made: each took one look
            break
        considered -= 1
        layout = _layout_for(readings, runs, row, complete_kongs, hand_size)
        if isinstance(layout, Layout):
            layouts.append(layout)
        elif layout.reason == FACE_DOWN_ROW:
            # A row of backs (a wall that the tile count fitted better than the hand's row) gives
            # way to the next row; if no row reads, the likeliest row's reason is the one given.
            face_down = face_down or layout
            considered += 1
        elif not layouts and face_down is None:
            return layout  # the likeliest row's reason (two hands, a grid) stands
        # else an unlikely reading of the rows that makes no sense; the first one stands
    if not layouts:
        assert face_down is not None  # every other refusal of the first row was returned above
        return face_down
    return layouts


def concealed_row_of_sure_tiles(readings: list[TileReading],
                                hand_size: int = HAND_SIZE) -> tuple[list[int], int | None] | None:
    """The concealed row of the most plausible layout of the sure detections (spares left out), as
    indices into ``readings``, and the winning tile's index there (None when the layout names none);
    None when the sure tiles make no layout. For the second looks at a photo (a tile read turned, a
    tile too many), which ask where the row lies before the hand is read again."""
    sure = [i for i, reading in enumerate(readings) if not reading.detection.spare]
    layouts = layouts_of([readings[i] for i in sure], hand_size=hand_size)
    if isinstance(layouts, Refusal):
        return None
    found = concealed_row_in(layouts[0])
    if found is None:
        return None
    row, winning = found
    return [sure[k] for k in row], (None if winning is None else sure[winning])


def concealed_row_in(layout: Layout) -> tuple[list[int], int | None] | None:
    """``layout``'s concealed row and winning tile, as indices into the readings it was laid out
    from; None when it has no concealed row."""
    concealed = next((g for g in layout.groups if g.role is GroupRole.CONCEALED), None)
    if concealed is None:
        return None
    return list(concealed.tile_indices), layout.winning_index


def _layout_for(readings: list[TileReading], runs: list[list[Tile]], row: list[int],
                complete_kongs: bool = False, hand_size: int = HAND_SIZE) -> Layout | Refusal:
    """The hand laid out with ``row`` (run indices) as its concealed row; a refusal when that makes
    two hands, a grid, or a row mostly of backs (:data:`FACE_DOWN_ROW`)."""
    concealed = [t for k in row for t in runs[k]]
    frame = Frame.of(concealed)
    concealed.sort(key=lambda t: float(np.array([t.x, t.y]) @ frame.direction))
    warnings: list[str] = []
    rest = [r for k, r in enumerate(runs) if k not in row]
    near = hand_runs(frame, rest)
    far = [r for r in rest if not any(r is n for n in near)]
    long_runs = [r for r in far if plain_count(r) >= LONG_RUN]
    if long_runs and plain_count(concealed) >= LONG_RUN:
        return Refusal(f"the photo seems to show two hands (rows of {plain_count(concealed)} and "
                       f"{plain_count(long_runs[0])} standing tiles); photograph one hand at a time")
    stacked = stacked_rows(frame, concealed, near)
    if stacked >= GRID_LINES:
        return Refusal(f"the photo seems to show tiles laid out in a grid ({stacked} rows of three or "
                       "more, one behind another), not one hand; photograph one player's hand as laid "
                       "down at the table")
    winning, source = winning_tile(concealed, frame, near, warnings)
    standing = sum(1 for t in concealed if not t.flower or t.flower_p < SURE_FLOWER)
    rival = lying_beside(frame, near) if source is None and winning is not None and winning.rotated else None
    if rival is not None:
        groups, _ = exposed_groups([r for r in near if r is not rival])
        if standing + 1 == hand_size - 3 * sum(sets_of(g) for g in groups):
            # The row's sideways tile makes the hand a tile short; with the tile lying beside the row
            # as the winning tile it is whole: the row's tile stands, its sideways flag was wrong.
            warnings.append("a tile lying beside the concealed row was taken as the winning tile, not the "
                            "row's sideways tile (the tile count fits only so)")
            winning, source = rival[0], rival
    if source is not None:
        near = [r for r in near if r is not source]
    groups, stray = exposed_groups(near)
    by_index = {t.index: t for run in runs for t in run}
    lying = int(source is not None)
    standing += lying
    groups, dropped = fit_count(groups, standing, by_index, frame, hand_size)
    if complete_kongs:
        groups, stray = partial_kong(groups, stray, near, standing, warnings, hand_size)
    if stray:
        warnings.append(f"{len(stray)} tile(s) near the hand belong to no set and were ignored")
    if dropped:
        warnings.append(f"{len(dropped)} tile(s) touching in front of the hand were taken for discards or a "
                        "wall, not sets (the tile count fits without them)")
        stray = stray + dropped
    # Flowers never stand in the concealed row; tiles there read as flowers leave it only if the
    # tile count says so (flowers laid in line with the row), else they are misread set tiles.
    sets = sum(sets_of(g) for g in groups)
    flagged = [t for t in concealed if t.flower]
    loose = flagged if flagged and len(concealed) - len(flagged) + lying == hand_size - 3 * sets else []
    concealed = [t if t.flower and t in loose else replace(t, flower=False) for t in concealed]
    concealed_indices = [t.index for t in concealed if not t.flower]
    loose_flowers = [t.index for t in concealed if t.flower]
    if loose_flowers:
        flower_group = next((g for g in groups if g.role is GroupRole.FLOWERS), None)
        merged = tuple(sorted((flower_group.tile_indices if flower_group else ()) + tuple(loose_flowers)))
        groups = [g for g in groups if g.role is not GroupRole.FLOWERS]
        groups.append(TileGroup(GroupRole.FLOWERS, merged))
    winning_index = winning.index if winning is not None else None
    if winning_index is not None and winning_index not in concealed_indices:
        concealed_indices.append(winning_index)
    face_down = [i for i in concealed_indices if readings[i].detection.face_down]
    if face_down and len(face_down) * 2 > len(concealed_indices):
        return Refusal(FACE_DOWN_ROW)
    groups.insert(0, TileGroup(GroupRole.CONCEALED, tuple(concealed_indices)))
    ignored_tiles = [t.index for r in far for t in r]
    if ignored_tiles:
        warnings.insert(0, f"{len(ignored_tiles)} tile(s) away from the hand were ignored (discards, walls)")
    ignored = tuple(sorted(ignored_tiles + stray))
    return Layout(groups=groups, winning_index=winning_index, ignored=ignored, warnings=warnings,
                  set_aside=tuple(sorted(stray)))
