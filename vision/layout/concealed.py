"""The concealed row: runs in line joined into one row, and the rows tried in order of how well the
tile count fits them.
"""

from __future__ import annotations

from vision.layout.hand import hand_runs
from vision.layout.rows import Frame, Tile, plain_count
from vision.layout.sets import sets_in
from vision.layout.winning import winning_tile
from vision.types import HAND_SIZE, Refusal

#: Runs in line with the concealed row (across it by at most this many tile heights) ...
COLLINEAR = 0.45
#: ... and at most this many tile widths beyond its end are part of it (gaps between its sets).
ROW_GAP = 1.6
#: A lone upright tile in line with the row joins it when its centre is at most this many widths
#: beyond the row's end (touching, with the detector's box noise); farther, it is set apart.
LONE_JOIN = 1.35


def _row_with(runs: list[list[Tile]], start: int) -> list[int]:
    """Run ``start`` and the runs in line with it, a short gap apart: one concealed row split by gaps
    between its sets (a lone upright tile is not taken: it is the winning tile set apart)."""
    members = [start]
    grown = True
    while grown:
        grown = False
        row = [t for k in members for t in runs[k]]
        frame = Frame.of(row)
        for k, run in enumerate(runs):
            if k in members or not any(t.plain for t in run):
                continue
            ends = [frame.position(t) for t in (run[0], run[-1])]
            # A lone upright tile joins only when it touches the row (centre about one width beyond
            # its end); a clear gap makes it the winning tile set apart.
            reach = ROW_GAP + _facing_excess(frame, row, run) if len(run) > 1 or run[0].rotated else LONE_JOIN
            if all(across <= COLLINEAR for _, across in ends) and min(b for b, _ in ends) <= reach:
                members.append(k)
                grown = True
    return members


def _facing_excess(frame: Frame, row: list[Tile], run: list[Tile]) -> float:
    """How much longer along the row (in tile widths) the two tiles facing each other across the gap
    between ``row`` and ``run`` are than two upright tiles: :data:`ROW_GAP` counts centres, so a
    sideways winning tile or a nearer, larger face at the gap would otherwise widen it (and a
    concealed row would split at its sideways tile, half of it read as sets)."""
    near = min((run[0], run[-1]), key=lambda t: frame.position(t)[0])
    ahead = frame.along(near) > 0
    facing = max(row, key=frame.along) if ahead else min(row, key=frame.along)
    return max(0.0, (near.along + facing.along) / (2 * frame.width) - 1.0)


def choose_concealed(runs: list[list[Tile]], hand_size: int = HAND_SIZE) -> list[list[int]] | Refusal:
    """Concealed-row hypotheses (as run indices), best first: standing tiles whose count fits
    ``hand_size`` - 3 x (sets near them) before those that do not; a row with a sideways tile first.
    A refusal when no run holds two face-up tiles."""
    candidates = [i for i, run in enumerate(runs) if plain_count(run) >= 2]
    if not candidates:
        return Refusal("no standing tiles found: lay the hand out face up in a row")
    rows: list[list[int]] = []
    for i in sorted(candidates, key=lambda i: (-plain_count(runs[i]), -len(runs[i]))):
        if not any(i in row for row in rows):
            rows.append(_row_with(runs, i))

    def standing(row: list[int]) -> int:
        return sum(plain_count(runs[k]) for k in row)

    def fits(row: list[int]) -> int:
        """2: the sets near the row make its count exactly; 1: some of them do; 0: no."""
        tiles = [t for k in row for t in runs[k]]
        frame = Frame.of(tiles)
        others = [run for k, run in enumerate(runs) if k not in row]
        near = hand_runs(frame, others)
        sets = sum(sets_in(run) for run in near if not all(t.back for t in run))
        backs = sum(1 for run in near if all(t.back for t in run) and len(run) == 4)
        winning, source = winning_tile(tiles, frame, near, [])
        # Some runs in front may be discards or wall (four backs): the row fits if some of the sets
        # near it make the count; exactly all of them is better.
        needed = hand_size - standing(row) - int(source is not None)
        if needed < 0 or needed % 3:
            return 0
        return 2 if needed // 3 == sets + backs or needed // 3 == sets else int(needed // 3 <= sets + backs)

    def sideways(row: list[int]) -> bool:
        return any(t.rotated for k in row for t in runs[k])

    score = {id(row): fits(row) for row in rows}
    if not any(score.values()):
        # With all five sets laid down only the pair's tile stands (the winning tile, its partner,
        # lies across or apart): a lone upright tile is a row when the sets near it make the hand.
        for i, run in enumerate(runs):
            if len(run) == 1 and run[0].plain and not run[0].rotated and not any(i in row for row in rows):
                row = [i]
                if fits(row) == 2:
                    rows.append(row)
                    score[id(row)] = 2
    rows.sort(key=lambda row: (score[id(row)] == 0, not sideways(row), -score[id(row)], -standing(row)))
    return rows
