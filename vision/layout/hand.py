"""Which runs belong to the hand: the rows of sets stepping out from the concealed row, lone
flowers and winning tiles beside them, and how many rows lie one behind another (a grid of tiles).
"""

from __future__ import annotations

import math

import numpy as np

from vision.layout.rows import Frame, Tile
from vision.layout.sets import SURE_FLOWER, backs_only, row_like

#: Runs at most this many tile heights from the concealed row (across it) belong to the hand (with
#: all five sets laid down, their third row lies up to 4.7 from the pair's standing tile).
HAND_REACH = 5.0
#: The first row of sets lies at most this many tile heights from the concealed row (players leave
#: room between a standing row and the sets in front of it; seen up to 2.6 in held-out renders) ...
FIRST_STEP = 2.8
#: ... and each further row at most this many tile heights beyond the previous one.
ROW_STEP = 2.2
#: ... and at most this many tile widths beyond its ends (along it).
HAND_SPAN = 14.0
#: Runs of three or more whose tiles all look smaller than this share of the concealed row's lie
#: far beyond it on the table (sets in front of the row are nearer the camera and look larger):
#: another player's sets, the far wall. A real photo's far pung of 3s, tiles a third of the row's
#: width, completed a hand one set short (table photo 420479065_..._8997936954384187486, scored 13
#: tai); at 0.6, a far render's set was left out of its hand.
FAR_TILE_SCALE = 0.45
#: ... when they lie more than this many tile heights across the row (a set close behind a standing
#: row shows only slivers of its tiles, as small).
FAR_SET_ACROSS = 1.5
#: A lone sideways tile at most this many tile heights across the concealed row may be its winning
#: tile laid beside it; farther, it is a discard, and the rows of sets do not reach on past it (a real
#: photo's discard lying 2.7 heights off a pair let a chow among the discards complete a hand a set
#: short: table photo 421037392_..._3606502953821611535, scored 16 tai at 69%).
BESIDE_ROW = 2.5
#: How far along a row of sets (tile widths, centre to the nearest end tile's centre) a tile lying in
#: line with it still belongs to it: the winning tile set apart, a flower, a kong's last backs.
SET_END_REACH = 2.2
#: How far (tile widths, centre to the nearest end tile's centre) a sure flower in line with a row
#: of sets may lie from it: a held-out render had one 2.5 widths before its chow.
FLOWER_APART = 3.0
#: A lone tile is compared with this many of a row's tiles nearest it (:func:`_alike`).
ALIKE_NEIGHBOURS = 3


def _alike(tile: Tile, row: list[Tile]) -> bool:
    """Does a lone tile look like it lies the way the row's tiles do (size and turn)? A discard
    thrown on the table lies at any angle, a tile laid in a row of sets lies like its neighbours.
    It is compared with the row's tiles nearest it: perspective shrinks a row along its length
    (a flower in front of a pung can be far longer than the row's median tile, and the far end of
    the row, a kong's backs, shorter than the pung)."""
    upright = [t for t in row if not t.rotated] or row
    upright = sorted(upright, key=lambda t: math.hypot(t.x - tile.x, t.y - tile.y))[:ALIKE_NEIGHBOURS]
    across = float(np.median([t.across for t in upright]))
    along = float(np.median([t.along for t in upright]))
    return 0.7 * across <= tile.across <= 1.4 * across and 0.7 * along <= tile.along <= 1.4 * along


def hand_runs(frame: Frame, runs: list[list[Tile]]) -> list[list[Tile]]:
    """The runs that belong to the hand: rows of sets stepping out from the concealed row.

    On each side of the row, runs are taken in order of distance while each is within ROW_STEP
    tile heights of the last one taken, the first within FIRST_STEP of the row (sets lie in one or
    two rows in front of the hand; discards lie beyond; only a run showing faces is taken beyond
    ROW_STEP, where the wall behind a rack of standing tiles lies). A lone tile counts only if it
    lines up with a taken run of several tiles (a single flower or the winning tile set apart), or
    lies sideways close to the row (the winning tile).
    """
    placed = []
    for run in runs:
        beyond, across = frame.position(run[len(run) // 2], signed=True)
        # A set far off: all its tiles small (one hidden in part is small too, its neighbours are not;
        # a set close behind a standing row shows only slivers, small too, but lies close).
        far_off = (len(run) >= 3 and abs(across) > FAR_SET_ACROSS
                   and max(t.width for t in run) < FAR_TILE_SCALE * frame.width)
        if beyond <= HAND_SPAN and abs(across) <= HAND_REACH and not far_off:
            placed.append((across, run))
    taken: list[tuple[float, list[Tile]]] = []
    for side in (1.0, -1.0):
        reach = 0.0
        for across, run in sorted((p for p in placed if p[0] * side >= 0), key=lambda p: abs(p[0])):
            if abs(across) - reach > (ROW_STEP if reach else FIRST_STEP):
                break
            if not reach and abs(across) > ROW_STEP and all(t.back for t in run):
                continue  # the wall behind a rack lies there; sets that far must show faces
            taken.append((across, run))
            if row_like(run) or (len(run) == 1 and run[0].rotated and abs(across) <= BESIDE_ROW):
                reach = abs(across)
    rows = [(a, run) for a, run in taken if row_like(run)]
    keep = [run for _, run in rows]
    spans = [frame.along(t) for _, run in rows for t in run]
    for across, run in taken:
        if backs_only(run) == 2 and any(abs(a - across) <= 0.6 and near_end(run, o, frame)
                                         for a, o in rows):
            keep.append(run)  # two backs at the end of a row of sets: a concealed kong, half found
            continue
        if len(run) != 1:
            continue  # a set (kept above), or two discards touching
        tile = run[0]
        if tile.rotated and abs(across) <= BESIDE_ROW:
            keep.append(run)  # the winning tile lying beside a standing row
            continue
        # In line with the concealed row or a row of sets, and close to its end (not far along it).
        here = frame.along(tile)
        # A sure flower may lie a little further from the sets' end: players set flowers apart.
        reach = FLOWER_APART if tile.flower_p >= SURE_FLOWER else SET_END_REACH
        in_line = (abs(across) <= 0.5 and frame.position(tile)[0] <= 3.0) or any(
            abs(a - across) <= 0.6 and _alike(tile, o) and near_end([tile], o, frame, reach)
            for a, o in rows)
        # A lone flower starting a second row of sets lines up with the start (or end) of the rows.
        offset = min(abs(here - min(spans)), abs(here - max(spans))) if spans else math.inf
        nearest = min(rows, key=lambda item: abs(item[0] - across)) if rows else None
        within = (tile.flower and nearest is not None and offset <= 0.7
                  and abs(nearest[0] - across) <= 1.1 and _alike(tile, nearest[1]))
        # With no sets laid down, the flowers lie alone in front of the row, within its length.
        alone = tile.flower and not rows and abs(across) <= 3.0 and frame.position(tile)[0] <= 1.0
        within = within or alone
        if in_line or within:
            keep.append(run)
    return keep


def near_end(run: list[Tile], row: list[Tile], frame: Frame, reach: float = SET_END_REACH) -> bool:
    """Whether ``run`` lies along ``row`` within ``reach`` tile widths of one of its ends."""
    ends = (frame.along(row[0]), frame.along(row[-1]))
    return min(abs(frame.along(t) - end) for t in run for end in ends) <= reach


#: Rows of three or more tiles this many tile heights apart across the concealed row are separate rows ...
LINE_GAP = 0.5
#: ... and a "hand" with this many such rows one behind another is a grid of tiles (:func:`stacked_rows`).
GRID_LINES = 5


def stacked_rows(frame: Frame, concealed: list[Tile], near: list[list[Tile]]) -> int:
    """The most rows of three or more tiles (the concealed row among them) lying one behind another
    over a common stretch of the row.

    A hand lays its sets in one or two rows in front of the standing row, its flowers perhaps in
    another; a whole tile set laid out for a photo (a shop's picture, a set being checked) is a grid
    of such rows, which the layout would otherwise read as a hand of kongs. Rows side by side along
    the table (a row of sets beside the flowers) are not stacked, whatever the row direction."""
    rows = [(frame.position(run[len(run) // 2], signed=True)[1],
             min(frame.along(t) for t in run) - 0.5, max(frame.along(t) for t in run) + 0.5)
            for run in near if len(run) >= 3]
    if len(concealed) >= 3:
        rows.append((0.0, frame.start / frame.width - 0.5, frame.end / frame.width + 0.5))
    most = 0
    for _, low, high in rows:
        probe = (low + high) / 2
        levels = np.sort([level for level, start, end in rows if start <= probe <= end])
        most = max(most, 1 + int(np.sum(np.diff(levels) > LINE_GAP)))
    return most
