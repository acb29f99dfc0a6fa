"""Flowers and sets among the runs in front of the hand: which tiles are flowers, how many sets a
run holds, which runs are exposed sets or concealed kongs, and the groups the tile count leaves out.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from vision.layout.rows import Frame, Tile
from vision.types import HAND_SIZE, GroupRole, TileGroup

#: A tile the classifier calls a flower this surely stays a flower whatever the counts say.
SURE_FLOWER = 0.9


def _composable(n: int) -> bool:
    """Can n touching tiles be cut into sets of 3 and 4?"""
    return n >= 3 and n != 5


def _unflower(run: list[Tile]) -> list[Tile]:
    """A set whose tiles are partly read as flowers: take back the least flower-like tiles when
    that (and only that) makes the rest a whole number of sets. Misread faces are the classifier's
    problem; a set of two plus a "flower" is not a thing on the table."""
    flagged = sorted((t for t in run if t.flower and t.flower_p < SURE_FLOWER), key=lambda t: t.flower_p)
    rest = sum(1 for t in run if not t.flower)
    if not flagged or rest == 0 or _composable(rest):
        return run
    for k in range(1, len(flagged) + 1):
        if _composable(rest + k):
            taken = {t.index for t in flagged[:k]}
            return [replace(t, flower=False) if t.index in taken else t for t in run]
    return run


def _reflower(run: list[Tile]) -> list[Tile]:
    """A group of flowers with a few tiles misread as set tiles: those are flowers too (a flower
    group is laid apart; two or three set tiles touching it cannot be a set)."""
    flowers = sum(1 for t in run if t.flower)
    rest = [t for t in run if not t.flower]
    if flowers >= 2 and flowers >= len(rest) and not _composable(len(rest)) and not any(t.back for t in rest):
        return [replace(t, flower=True) for t in run]
    return run


def _flower_log_likelihood(run: list[Tile]) -> float:
    """How well a run's flower/set split agrees with the classifier's flower mass on each tile."""
    return sum(math.log(max(t.flower_p if t.flower else 1.0 - t.flower_p, 1e-3)) for t in run)


def _settle_flowers(run: list[Tile]) -> list[Tile]:
    """Which tiles of a run are flowers, where the readings leave the rest no whole number of sets.

    Two mends: :func:`_unflower` takes the least flower-like tiles back into the sets, then
    :func:`_reflower` may make a flower group whole; or :func:`_reflower` alone. They disagree on a
    row of flowers with one flower misread as a set tile (seven in a row, one read 2p: the first
    made a "set" of 2p and the two least sure flowers) and on a set misread as flowers beside a
    flower. The one asking the classifier to be wrong about less flower mass wins (a tie keeps the
    first).
    """
    taken_back = _reflower(_unflower(run))
    all_flowers = _reflower(run)
    if all_flowers in (run, taken_back):
        return taken_back
    return max((taken_back, all_flowers), key=_flower_log_likelihood)


def row_like(run: list[Tile]) -> bool:
    """A run that can be part of the hand in front of the row: a set or more, or flowers together.
    A set with a tile read unsure as a flower counts as the set it is (:func:`_unflower`)."""
    run = _unflower(run)
    flowers = sum(1 for t in run if t.flower)
    rest = len(run) - flowers
    return rest >= 3 or (flowers >= 2 and flowers >= rest)


def sets_in(run: list[Tile]) -> int:
    """How many sets a run of exposed tiles holds (flowers and strays excluded)."""
    return sets_in_count(sum(1 for t in run if not t.flower))


def sets_in_count(n: int) -> int:
    """How many sets of 3 or 4 a run of ``n`` set tiles holds."""
    return 0 if n < 3 else max(1, min(n // 3, (n + 3) // 4 if n % 3 else n // 3))


def sets_of(group: TileGroup) -> int:
    """How many sets a group counts for: a concealed kong one, a meld its run's, flowers none."""
    if group.role is GroupRole.CONCEALED_KONG:
        return 1
    return sets_in_count(len(group.tile_indices)) if group.role is GroupRole.MELD else 0


def backs_only(run: list[Tile]) -> int:
    """How many backs the run holds when, flowers aside, it holds nothing else (else 0)."""
    rest = [t for t in run if not t.flower]
    return len(rest) if rest and all(t.back for t in rest) else 0


def _lone_back(run: list[Tile]) -> int | None:
    """Where the run's one back lies, when the faces on each side of it make whole sets."""
    at = next(k for k, t in enumerate(run) if t.back)
    pieces = [len(run[:at]), len(run[at + 1:])]
    return at if len(run) >= 4 and all(n == 0 or _composable(n) for n in pieces) else None


def _kong_split(run: list[Tile]) -> tuple[list[Tile], list[list[Tile]]] | None:
    """A concealed kong (4 tiles, some face-down) inside a longer run: (kong, the pieces left)."""
    backs = [k for k, t in enumerate(run) if t.back]
    for start in range(max(0, backs[-1] - 3), min(backs[0], len(run) - 4) + 1):
        before, after = run[:start], run[start + 4:]
        if len(before) in (0, 3, 4, 6, 7, 8) and len(after) in (0, 3, 4, 6, 7, 8):
            return run[start:start + 4], [p for p in (before, after) if p]
    return None


def exposed_groups(runs: list[list[Tile]]) -> tuple[list[TileGroup], list[int]]:
    """Flowers out of every run; the rest are exposed sets or concealed kongs (by their backs)."""
    groups: list[TileGroup] = []
    flowers: list[int] = []
    stray: list[int] = []
    pending = list(runs)
    while pending:
        run = _settle_flowers(pending.pop(0))
        flowers.extend(t.index for t in run if t.flower)
        rest = [t for t in run if not t.flower]
        if not rest:
            continue
        backs = sum(t.back for t in rest)
        if len(rest) < 3 or (backs and len(rest) != 4 and backs == len(rest)):
            stray.extend(t.index for t in rest)
            continue
        lone_back = _lone_back(rest) if backs == 1 else None
        if lone_back is not None:
            # A concealed kong shows two backs or four; one back beside sets of faces is a gap or
            # shadow taken for a tile (a faint detection), so the faces are sets of their own.
            stray.append(rest[lone_back].index)
            pending.extend(piece for piece in (rest[:lone_back], rest[lone_back + 1:]) if piece)
        elif backs and len(rest) == 4:
            groups.append(TileGroup(GroupRole.CONCEALED_KONG, tuple(t.index for t in rest)))
        elif backs:
            split = _kong_split(rest)
            if split is None:
                stray.extend(t.index for t in rest)
                continue
            kong, pieces = split
            groups.append(TileGroup(GroupRole.CONCEALED_KONG, tuple(t.index for t in kong)))
            pending.extend(pieces)
        else:
            groups.append(TileGroup(GroupRole.MELD, tuple(t.index for t in rest)))
    if flowers:
        groups.append(TileGroup(GroupRole.FLOWERS, tuple(flowers)))
    return groups, stray


#: Backs of a concealed kong the detector may miss some of (plain coloured blocks at a group's end).
PARTIAL_KONG_BACKS = (2, 3)


def partial_kong(groups: list[TileGroup], stray: list[int], near: list[list[Tile]], standing: int,
                 warnings: list[str], hand_size: int = HAND_SIZE) -> tuple[list[TileGroup], list[int]]:
    """Two or three backs in a run of their own near the hand become a concealed kong when the hand
    is exactly one set short. A concealed kong lies as four backs (or two backs around two faces), and
    the backs are the tiles the detector misses most; a stray run of backs is otherwise a piece of
    wall, so this happens only when the tile count asks for one more set and one such run is there."""
    sets = sum(sets_of(g) for g in groups)
    if standing != hand_size - 3 * (sets + 1):
        return groups, stray
    loose = set(stray)
    candidates = []
    for run in near:
        indices = [t.index for t in run if not t.flower]
        if backs_only(run) in PARTIAL_KONG_BACKS and loose.issuperset(indices):
            candidates.append(tuple(indices))
    if len(candidates) != 1:
        return groups, stray
    kong = candidates[0]
    warnings.append(f"a concealed kong was read from {len(kong)} backs; its other {4 - len(kong)} "
                    "were not found in the photo")
    at = next((k for k, g in enumerate(groups) if g.role is GroupRole.FLOWERS), len(groups))
    groups = groups[:at] + [TileGroup(GroupRole.CONCEALED_KONG, kong)] + groups[at:]
    return groups, [i for i in stray if i not in kong]


def _doubt(group: TileGroup, tiles: dict[int, Tile], frame: Frame) -> float:
    """How little a group looks like a set laid by the player: all backs (a piece of wall), tiles
    lying every which way (discards that happen to touch), far from the row."""
    members = [tiles[i] for i in group.tile_indices]
    doubt = 1.0 if all(t.back for t in members) else 0.0
    for values in ([t.along for t in members], [t.across for t in members]):
        doubt += 4.0 * float(np.std(values) / max(np.mean(values), 1e-6))
    # Far away on the table (the discards' area): smaller than the hand's tiles, farther across.
    size = float(np.mean([t.width for t in members])) / frame.width
    doubt += 4.0 * max(0.0, 0.85 - size)
    return doubt + 1.0 * float(np.mean([frame.position(t)[1] for t in members]))


def fit_count(groups: list[TileGroup], standing: int, tiles: dict[int, Tile], frame: Frame,
              hand_size: int = HAND_SIZE) -> tuple[list[TileGroup], list[int]]:
    """Too many sets for the standing tiles (``hand_size`` - 3 per set): drop the most doubtful groups
    (wall pieces, discards touching) when that makes the count exact."""
    sets = sum(sets_of(g) for g in groups)
    if standing <= hand_size - 3 * sets or (hand_size - standing) % 3:
        return groups, []
    needed = (hand_size - standing) // 3
    doubtful = sorted((g for g in groups if g.role is not GroupRole.FLOWERS),
                      key=lambda g: -_doubt(g, tiles, frame))
    dropped: list[TileGroup] = []
    for group in doubtful:
        if sets <= needed:
            break
        if sets - sets_of(group) < needed:
            continue
        dropped.append(group)
        sets -= sets_of(group)
    if sets != needed:
        return groups, []
    kept = [g for g in groups if not any(g is d for d in dropped)]
    return kept, [i for g in dropped for i in g.tile_indices]
