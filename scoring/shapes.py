"""Hand shapes: every way standing tiles split into sets and a pair, and which tiles complete a hand.

Tiles are handled as 34 counts (index = position in ``SET_TILE_CODES``). Each suit is solved on
its own and the answers are cached by the suit's 9 counts, which is what makes scoring every
reading of thousands of hands a second possible in pure Python: real hands reuse the same few
hundred suit patterns. Special shapes (seven pairs + a pung, 13 and 16 orphans) are separate
functions because they ignore the set structure.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from scoring.tiles import SET_TILE_CODES

INDEX: dict[str, int] = {code: i for i, code in enumerate(SET_TILE_CODES)}
CODE: tuple[str, ...] = SET_TILE_CODES
ORPHAN_INDICES: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
HONOUR_INDICES: tuple[int, ...] = (27, 28, 29, 30, 31, 32, 33)

#: A group found in standing tiles: (kind, first tile index) with kind "chow", "pung" or "pair".
Group = tuple[str, int]
#: A reading's shape name and its groups.
Shaped = tuple[str, tuple[Group, ...]]


def counts_of(codes: list[str] | tuple[str, ...]) -> list[int]:
    counts = [0] * 34
    for code in codes:
        counts[INDEX[code]] += 1
    return counts


@lru_cache(maxsize=65536)
def _suit_splits(counts: tuple[int, ...], honours: bool) -> tuple[tuple[Group, ...], ...]:
    """Every split of one suit's counts into chows/pungs and at most one pair (ranks 0-based)."""
    first = next((i for i, c in enumerate(counts) if c), -1)
    if first < 0:
        return ((),)
    out: list[tuple[Group, ...]] = []
    c = list(counts)
    if c[first] >= 3:
        c[first] -= 3
        out.extend((("pung", first),) + rest for rest in _suit_splits(tuple(c), honours))
        c[first] += 3
    if not honours and first <= 6 and c[first + 1] and c[first + 2]:
        c[first] -= 1
        c[first + 1] -= 1
        c[first + 2] -= 1
        out.extend((("chow", first),) + rest for rest in _suit_splits(tuple(c), honours))
        c[first] += 1
        c[first + 1] += 1
        c[first + 2] += 1
    if c[first] >= 2:
        c[first] -= 2
        out.extend((("pair", first),) + rest for rest in _suit_splits(tuple(c), honours)
                   if all(kind != "pair" for kind, _ in rest))
    return tuple(out)


@lru_cache(maxsize=65536)
def _suit_status(counts: tuple[int, ...], honours: bool) -> tuple[bool, bool]:
    """(splits into sets only, splits into sets plus exactly one pair) for one suit."""
    no_pair = with_pair = False
    for split in _suit_splits(counts, honours):
        if any(kind == "pair" for kind, _ in split):
            with_pair = True
        else:
            no_pair = True
        if no_pair and with_pair:
            break
    return no_pair, with_pair


def _blocks(counts: list[int]) -> list[tuple[tuple[int, ...], bool, int]]:
    return [(tuple(counts[0:9]), False, 0), (tuple(counts[9:18]), False, 9),
            (tuple(counts[18:27]), False, 18), (tuple(counts[27:34]), True, 27)]


def standard_splits(counts: list[int]) -> list[tuple[Group, ...]]:
    """Every split of the standing tiles into sets plus exactly one pair (indices are global)."""
    if sum(counts) % 3 != 2:
        return []
    per_block = []
    for block, _, offset in _blocks(counts):
        splits = _placed_splits(block, offset)
        if not splits:
            return []
        per_block.append(splits)
    out = []
    for combo in product(*per_block):
        if sum(pairs for pairs, _ in combo) == 1:
            out.append(tuple(g for _, part in combo for g in part))
    return out


@lru_cache(maxsize=65536)
def _placed_splits(block: tuple[int, ...], offset: int) -> tuple[tuple[int, tuple[Group, ...]], ...]:
    """A block's splits with global tile indices, each with its number of pairs (0 or 1)."""
    return tuple((sum(1 for kind, _ in split if kind == "pair"),
                  tuple((kind, start + offset) for kind, start in split))
                 for split in _suit_splits(block, offset == 27))


def is_standard_complete(counts: list[int]) -> bool:
    """True if the standing tiles are sets plus exactly one pair (cheap: no split is built)."""
    if sum(counts) % 3 != 2:
        return False
    statuses = [_suit_status(block, honours) for block, honours, _ in _blocks(counts)]
    for j, (_, with_pair) in enumerate(statuses):
        if with_pair and all(no_pair for k, (no_pair, _) in enumerate(statuses) if k != j):
            return True
    return False


def seven_pairs_and_pung(counts: list[int]) -> list[tuple[Group, ...]]:
    """Seven pairs plus one pung (17 tiles; four of a kind may stand as two pairs)."""
    if sum(counts) != 17:
        return []
    odd = [i for i, c in enumerate(counts) if c % 2]
    if len(odd) != 1 or counts[odd[0]] != 3:
        return []
    groups: list[Group] = [("pung", odd[0])]
    for i, c in enumerate(counts):
        if i != odd[0]:
            groups.extend(("pair", i) for _ in range(c // 2))
    return [tuple(groups)]


def thirteen_orphans_16(counts: list[int]) -> list[tuple[Group, ...]]:
    """16-tile 13 orphans: one of each terminal and honour, an orphan pair and one more set."""
    if sum(counts) != 17 or any(counts[i] == 0 for i in ORPHAN_INDICES):
        return []
    out = []
    for pair_tile in ORPHAN_INDICES:
        if counts[pair_tile] < 2:
            continue
        rest = list(counts)
        for i in ORPHAN_INDICES:
            rest[i] -= 1
        rest[pair_tile] -= 1
        for kind, start in _single_set(rest):
            groups = tuple(("single", i) for i in ORPHAN_INDICES if i != pair_tile)
            out.append(groups + (("pair", pair_tile), (kind, start)))
    return out


def _single_set(counts: list[int]) -> list[Group]:
    """The ways three remaining tiles form one set."""
    present = [i for i, c in enumerate(counts) if c]
    if len(present) == 1 and counts[present[0]] == 3:
        return [("pung", present[0])]
    if len(present) == 3 and all(counts[i] == 1 for i in present):
        a, b, c = present
        if a < 27 and b == a + 1 and c == a + 2 and a // 9 == c // 9:
            return [("chow", a)]
    return []


def sixteen_unrelated(counts: list[int]) -> list[tuple[Group, ...]]:
    """十六不搭 (LRC "16 Orphans"): all 7 honours and 3 unrelated tiles per suit, one tile paired.

    Unrelated = ranks at least 3 apart within a suit (A-LRC-10), so no two can join a chow.
    """
    if sum(counts) != 17 or any(counts[i] == 0 for i in HONOUR_INDICES) or max(counts) > 2:
        return []
    pairs = [i for i, c in enumerate(counts) if c == 2]
    if len(pairs) != 1:
        return []
    for base in (0, 9, 18):
        ranks = [r for r in range(9) if counts[base + r]]
        if len(ranks) != 3 or any(b - a < 3 for a, b in zip(ranks, ranks[1:], strict=False)):
            return []
    groups = tuple(("single", i) for i, c in enumerate(counts) if c and i != pairs[0])
    return [groups + (("pair", pairs[0]),)]


SPECIAL_SHAPES = {
    "seven_pairs_pung": seven_pairs_and_pung,
    "thirteen_orphans": thirteen_orphans_16,
    "sixteen_orphans": sixteen_unrelated,
}


def decompositions(counts: tuple[int, ...], special: tuple[str, ...]) -> tuple[Shaped, ...]:
    """Every ``(shape, groups)`` reading of 17 standing tiles: ``standard`` splits into sets and a
    pair, then the ``special`` shapes that fit. Not cached itself: the layouts built from it are
    (``readings._standing_layouts``), and every cache entry is garbage-collector work."""
    out: list[Shaped] = [("standard", split) for split in standard_splits(list(counts))]
    for shape in special:
        out.extend((shape, split) for split in SPECIAL_SHAPES[shape](list(counts)))
    return tuple(out)


def winning_tiles(counts: list[int], used: list[int], special: tuple[str, ...] = ()) -> list[int]:
    """Tile indices that would complete ``counts`` (standing tiles before the win).

    ``used`` counts every copy already in the hand (standing and melds), so a tile whose four
    copies are all in the hand is not a wait. ``special`` names special shapes that count.
    The answer before that last filter depends only on the standing tiles, so it is cached by
    their counts (the photo decoder and a table's repeated hands ask the same question often).
    """
    return [i for i in _raw_waits(tuple(counts), special) if used[i] < 4]


@lru_cache(maxsize=16384)
def _raw_waits(counts: tuple[int, ...], special: tuple[str, ...]) -> tuple[int, ...]:
    """Every tile index that completes ``counts``, four-copy limits aside.

    Only the block (suit) that receives the candidate tile is re-solved; the others' answers
    are reused, and tiles with no neighbour within two ranks are skipped (they cannot join a set).
    Special shapes try only the candidates their shape allows (a missing orphan or honour).
    """
    waits: set[int] = set()
    if sum(counts) % 3 == 1:
        blocks = (counts[0:9], counts[9:18], counts[18:27], counts[27:34])
        status = [_suit_status(block, k == 3) for k, block in enumerate(blocks)]
        plain = [no_pair for no_pair, _ in status]
        paired = [with_pair for _, with_pair in status]
        for k in range(4):
            others = [j for j in range(4) if j != k]
            not_plain = [j for j in others if not plain[j]]
            all_plain = not not_plain
            # exactly one other block takes the pair, the rest split into sets only
            one_pair = (len(not_plain) == 1 and paired[not_plain[0]]) or (
                all_plain and any(paired[j] for j in others))
            if not all_plain and not one_pair:
                continue
            base = 9 * k
            for rank, no_pair, with_pair in _block_completions(blocks[k], k == 3):
                if (with_pair and all_plain) or (no_pair and one_pair):
                    waits.add(base + rank)
    for name in special:
        if not _special_possible(name, counts):
            continue
        if name == "seven_pairs_pung":
            waits.update(i for i in _seven_pairs_waits(counts) if counts[i] < 4)
            continue
        check = SPECIAL_SHAPES[name]
        trial = list(counts)
        for index in _special_candidates(name, counts):
            if index in waits or counts[index] >= 4:
                continue
            trial[index] += 1
            if check(trial):
                waits.add(index)
            trial[index] -= 1
    return tuple(sorted(waits))


def _special_candidates(name: str, counts: tuple[int, ...]) -> list[int] | range:
    """Tiles worth trying for an orphan shape: if one of the shape's required tiles is missing,
    only that tile can complete it (``_special_possible`` has already allowed at most one gap)."""
    required = ORPHAN_INDICES if name == "thirteen_orphans" else HONOUR_INDICES
    missing = [i for i in required if not counts[i]]
    return missing if missing else range(34)


def _seven_pairs_waits(counts: list[int]) -> list[int]:
    """Waits of 16 tiles for seven pairs + a pung: the finished hand has one tile three times and
    every other count even. With no odd count, any pair can become the pung; with two odd counts
    (a, b), adding a works when b is already three of a kind, and the other way round."""
    odd = [i for i, c in enumerate(counts) if c % 2]
    if not odd:
        return [i for i, c in enumerate(counts) if c == 2]
    if len(odd) == 2:
        a, b = odd
        return [x for x, y in ((a, b), (b, a)) if counts[y] == 3 and counts[x] + 1 <= 4]
    return []


@lru_cache(maxsize=65536)
def _block_completions(block: tuple[int, ...], honours: bool) -> tuple[tuple[int, bool, bool], ...]:
    """For each rank worth adding to this block: (rank, splits into sets, splits into sets + a pair).

    Ranks with no tile within two ranks (or, for honours, no copy) are skipped: a lone tile
    cannot join a set or a pair.
    """
    out = []
    counts = list(block)
    for rank in range(len(counts)):
        if honours:
            if not counts[rank]:
                continue
        elif not any(counts[max(0, rank - 2):rank + 3]):
            continue
        counts[rank] += 1
        no_pair, with_pair = _suit_status(tuple(counts), honours)
        counts[rank] -= 1
        if no_pair or with_pair:
            out.append((rank, no_pair, with_pair))
    return tuple(out)


def _special_possible(name: str, counts: list[int]) -> bool:
    """Cheap necessary conditions, so special shapes cost nothing on ordinary hands."""
    if sum(counts) != 16:
        return False
    if name == "seven_pairs_pung":
        return sum(1 for c in counts if c % 2) <= 2
    if name == "thirteen_orphans":
        return sum(1 for i in ORPHAN_INDICES if counts[i]) >= 12
    if name == "sixteen_orphans":
        return sum(1 for i in HONOUR_INDICES if counts[i]) >= 6 and max(counts) <= 2
    return True
