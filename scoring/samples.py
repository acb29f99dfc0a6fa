"""Random legal winning hands, for property tests and the scoring benchmark.

``random_hand(rng, kind)`` builds a hand that is a legal win by construction (at most four of a
tile, legal melds, the winning tile among the standing tiles) with a random but consistent win
context. Kinds: ``simple`` (suited chows and pungs), ``honours`` (wind and dragon pungs),
``multi`` (runs such as 111222333 that read several ways), ``special`` (seven pairs + a pung,
13 and 16 orphans), ``flowers`` (seven or eight flowers, instant wins).
"""

from __future__ import annotations

import random

from scoring.hand import Hand, Meld, WinContext
from scoring.shapes import CODE, HONOUR_INDICES, ORPHAN_INDICES
from scoring.tiles import FLOWER_CODES, WIND_CODES, sorted_codes

KINDS = ("simple", "honours", "multi", "special", "flowers")


def _set_tiles(kind: str, first: int) -> list[int]:
    return [first, first + 1, first + 2] if kind == "chow" else [first] * 3


def _random_set(rng: random.Random, counts: list[int], honour_weight: float) -> tuple[str, int] | None:
    for _ in range(50):
        if rng.random() < honour_weight:
            kind, first = "pung", rng.choice(HONOUR_INDICES)
        else:
            suit = rng.randrange(3) * 9
            if rng.random() < 0.6:
                kind, first = "chow", suit + rng.randrange(7)
            else:
                kind, first = "pung", suit + rng.randrange(9)
        need = _set_tiles(kind, first)
        if all(counts[i] + need.count(i) <= 4 for i in set(need)):
            for i in need:
                counts[i] += 1
            return kind, first
    return None


def _multi_sets(rng: random.Random, counts: list[int]) -> list[tuple[str, int]]:
    """Three pungs of consecutive ranks (also three identical chows): a hand with several readings."""
    suit = rng.randrange(3) * 9
    start = suit + rng.randrange(7)
    for i in range(3):
        counts[start + i] += 3
    return [("pung", start), ("pung", start + 1), ("pung", start + 2)]


def _context(rng: random.Random, melds: tuple[Meld, ...]) -> WinContext:
    self_drawn = rng.random() < 0.4
    seat = rng.choice(WIND_CODES)
    others = [w for w in WIND_CODES if w != seat]
    return WinContext(
        self_drawn=self_drawn, seat_wind=seat, round_wind=rng.choice(WIND_CODES),
        dealer_streak=rng.randrange(4) if seat == "1z" else None,
        discarder=None if self_drawn else rng.choice(others),
        last_tile=rng.random() < 0.05 or None,
        robbing_kong=(not self_drawn and rng.random() < 0.03) or None,
        replacement_draw=(self_drawn and rng.random() < 0.05) or None,
        ting=rng.random() < 0.1 or None,
        tiles_on_table=rng.randrange(40) if rng.random() < 0.3 else None,
        first_turn=(not melds and rng.random() < 0.02) or None)


def _flowers(rng: random.Random, n: int | None = None) -> tuple[str, ...]:
    n = rng.choice((0, 0, 0, 1, 1, 2, 3, 4)) if n is None else n
    return tuple(sorted_codes(rng.sample(FLOWER_CODES, n)))


ALL_SHAPES = ("seven_pairs_pung", "thirteen_orphans", "sixteen_orphans")


def _special(rng: random.Random, shapes: tuple[str, ...]) -> tuple[list[int], int]:
    """Standing tiles of a special shape and the index of the winning tile."""
    shape = rng.choice(shapes)
    counts = [0] * 34
    if shape == "seven_pairs_pung":
        tiles = rng.sample(range(34), 8)
        counts[tiles[0]] = 3
        for i in tiles[1:]:
            counts[i] += 2
    elif shape == "thirteen_orphans":
        for i in ORPHAN_INDICES:
            counts[i] = 1
        counts[rng.choice(ORPHAN_INDICES)] += 1
        suit = rng.randrange(3) * 9
        start = suit + rng.randrange(1, 6)
        for i in (start, start + 1, start + 2):
            counts[i] += 1
    else:
        for i in HONOUR_INDICES:
            counts[i] = 1
        patterns = [(0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 3, 7), (0, 4, 7), (0, 3, 8), (0, 4, 8), (1, 4, 8),
                    (0, 5, 8), (1, 5, 8)]
        for suit in (0, 9, 18):
            for rank in rng.choice(patterns):
                counts[suit + rank] = 1
        present = [i for i, c in enumerate(counts) if c]
        counts[rng.choice(present)] += 1
    present = [i for i, c in enumerate(counts) if c]
    return counts, rng.choice(present)


def random_hand(rng: random.Random, kind: str = "simple", hand_tiles: int = 16,
                shapes: tuple[str, ...] = ALL_SHAPES) -> Hand:
    """A random legal winning hand of ``kind`` (see the module docstring).

    ``special`` hands use one of ``shapes``; with no shapes (or 13 tiles) they fall back to ``multi``.
    """
    sets_needed = (hand_tiles - 1) // 3
    if kind == "special" and (hand_tiles != 16 or not shapes):
        kind = "multi"
    if kind == "special":
        counts, win = _special(rng, shapes)
        standing = [CODE[i] for i, c in enumerate(counts) for _ in range(c)]
        return Hand(concealed=tuple(sorted_codes(standing)), flowers=_flowers(rng), winning_tile=CODE[win],
                    context=_context(rng, ()))
    while True:
        counts = [0] * 34
        honour_weight = {"honours": 0.55, "simple": 0.0}.get(kind, 0.12)
        sets: list[tuple[str, int]] = _multi_sets(rng, counts) if kind == "multi" else []
        while len(sets) < sets_needed:
            found = _random_set(rng, counts, honour_weight)
            if found is None:
                break
            sets.append(found)
        pair_choices = [i for i in range(34) if counts[i] <= 2]
        if len(sets) < sets_needed or not pair_choices:
            continue
        pair = rng.choice(pair_choices)
        counts[pair] += 2
        break
    rng.shuffle(sets)
    melds: list[Meld] = []
    standing: list[int] = [pair, pair]
    max_melds = rng.choice((0, 0, 1, 2, 3, sets_needed))
    for set_kind, first in sets:
        tiles = _set_tiles(set_kind, first)
        if len(melds) < max_melds and rng.random() < 0.7:
            if set_kind == "pung" and counts[first] == 3 and rng.random() < 0.3:
                counts[first] += 1
                melds.append(Meld("kong", (CODE[first],) * 4, rng.random() < 0.4))
            else:
                melds.append(Meld(set_kind, tuple(CODE[i] for i in tiles), False))
        else:
            standing.extend(tiles)
    win = CODE[rng.choice(standing)]
    flowers = _flowers(rng, rng.choice((7, 8)) if kind == "flowers" else None)
    context = _context(rng, tuple(melds))
    return Hand(concealed=tuple(sorted_codes([CODE[i] for i in standing])), melds=tuple(melds),
                flowers=flowers, winning_tile=win, context=context)


def mixed_hands(count: int, seed: int = 2026, hand_tiles: int = 16,
                shapes: tuple[str, ...] = ALL_SHAPES) -> list[Hand]:
    """A fixed, reproducible mix: 40% simple, 25% honour-heavy, 20% multi-reading, 15% special
    (special shapes limited to ``shapes``, the ones the rule set knows, so every hand is legal)."""
    rng = random.Random(seed)
    plan = ["simple"] * 8 + ["honours"] * 5 + ["multi"] * 4 + ["special"] * 3
    return [random_hand(rng, plan[n % len(plan)], hand_tiles, shapes) for n in range(count)]
