"""Random legal Taiwanese winning hands (16-tile game), as hand JSON, and how to lay them out.

Built constructively so rendering never depends on a search: five sets (chow, pung or kong) and a
pair, at most four of any face, each flower at most once. Some sets are exposed melds (claimed),
some are concealed kongs, the rest stand in the concealed row with the pair; the winning tile is
one tile of a concealed set or of the pair, so the hand JSON is always a legal winning hand that
``scoring.score_hand`` accepts (tests check this).

``split_concealed`` recovers the sets of a *given* hand's concealed tiles, so that a chosen hand
(the photo and live engineers' test scenes) is laid out the same way as a random one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring.tiles import FLOWER_CODES, SET_TILE_CODES, WIND_CODES, is_suited, rank_of, sort_key

#: Probability that a set is a chow (else a pung/kong), that a set is exposed, that it is a kong.
CHOW_PROBABILITY = 0.55
EXPOSED_PROBABILITY = 0.3
KONG_PROBABILITY = 0.12


@dataclass
class PlannedSet:
    """One set of the hand: its tiles in table order and where it lies."""

    kind: str  # chow | pung | kong | pair
    tiles: list[str]
    exposed: bool = False
    concealed_kong: bool = False
    #: Index into ``tiles`` of the claimed tile of an exposed set (laid in the middle), or None.
    claimed_index: int | None = None


@dataclass
class HandPlan:
    """A hand split into what lies where on the table."""

    concealed_sets: list[PlannedSet]
    melds: list[PlannedSet]
    flowers: list[str]
    winning_tile: str
    #: Index into ``concealed_sets`` of the set the winning tile completes (None: no split found).
    winning_set: int | None
    #: Concealed tiles not covered by any set (special shapes); laid at the end of the row.
    loose: list[str] = field(default_factory=list)


def random_winning_hand(rng: np.random.Generator, *, max_flowers: int = 7) -> dict[str, Any]:
    """A random legal winning hand as hand JSON (README.md, "Hand JSON"), context included."""
    counts: Counter[str] = Counter()
    sets: list[PlannedSet] = []
    while len(sets) < 5:
        planned = _random_set(rng, counts)
        if planned is not None:
            sets.append(planned)
    pair_tile = _pick(rng, [c for c in SET_TILE_CODES if counts[c] <= 2])
    counts[pair_tile] += 2

    melds: list[dict[str, Any]] = []
    concealed: list[str] = [pair_tile, pair_tile]
    winning_candidates: list[str] = [pair_tile]
    for planned in sets:
        if planned.kind == "kong":
            concealed_kong = rng.random() < 0.45
            melds.append({"kind": "kong", "tiles": planned.tiles, "concealed": bool(concealed_kong)})
        elif rng.random() < EXPOSED_PROBABILITY:
            melds.append({"kind": planned.kind, "tiles": planned.tiles, "concealed": False})
        else:
            concealed.extend(planned.tiles)
            winning_candidates.extend(planned.tiles)
    winning_tile = _pick(rng, winning_candidates)
    n_flowers = int(min(max_flowers, rng.choice([0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7])))
    flowers = sorted(rng.choice(FLOWER_CODES, size=n_flowers, replace=False).tolist(), key=sort_key)
    seat = int(rng.integers(1, 5))
    context: dict[str, Any] = {
        "self_drawn": bool(rng.random() < 0.4),
        "seat_wind": WIND_CODES[seat - 1],
        "round_wind": WIND_CODES[int(rng.integers(0, 4))],
        "dealer": seat == 1,
        "dealer_streak": int(rng.integers(0, 3)) if seat == 1 else 0,
    }
    return {
        "concealed": sorted(concealed, key=sort_key),
        "melds": melds,
        "flowers": flowers,
        "winning_tile": winning_tile,
        "context": context,
    }


def plan_hand(hand: dict[str, Any], rng: np.random.Generator) -> HandPlan:
    """How a hand lies on the table: concealed sets in a row, melds, flowers, the winning set.

    The concealed tiles are split into sets + pair with the winning tile's set chosen so that the
    winning tile can lie across it; hands without such a split (seven pairs, orphans) keep their
    tiles loose, in sorted order, with the winning tile set apart.
    """
    concealed = list(hand.get("concealed", []))
    winning = hand.get("winning_tile")
    melds: list[PlannedSet] = []
    for meld in hand.get("melds", []):
        tiles = list(meld["tiles"])
        kind = meld["kind"]
        if kind == "kong" and meld.get("concealed"):
            melds.append(PlannedSet("kong", tiles, exposed=False, concealed_kong=True))
            continue
        claimed = None
        if kind == "chow":
            # The claimed tile goes in the middle; which face was claimed is not in the JSON, so any.
            tiles = sorted(tiles, key=sort_key)
            pick = int(rng.integers(0, 3))
            claimed_tile = tiles.pop(pick)
            tiles.insert(1, claimed_tile)
            claimed = 1
        elif kind in ("pung", "kong"):
            claimed = len(tiles) // 2
        melds.append(PlannedSet(kind, tiles, exposed=True, claimed_index=claimed))
    flowers = sorted(hand.get("flowers", []), key=sort_key)

    split = split_concealed(concealed, winning)
    if split is None:
        return HandPlan([], melds, flowers, winning, None, loose=sorted(concealed, key=sort_key))
    sets, winning_set = split
    return HandPlan(sets, melds, flowers, winning, winning_set)


def split_concealed(tiles: list[str], winning_tile: str | None) -> tuple[list[PlannedSet], int | None] | None:
    """Split concealed tiles into chows/pungs and exactly one pair (sorted), or None if impossible.

    Returns the sets and the index of a set containing ``winning_tile`` (preferring a chow or the
    pung, so the sideways tile marks a full set).
    """
    if len(tiles) % 3 != 2:
        return None
    counts = Counter(tiles)
    found = _decompose(counts, pair_used=False)
    if found is None:
        return None
    sets = sorted(found, key=lambda s: (sort_key(s.tiles[0]), s.kind == "pair"))
    winning_set = None
    if winning_tile is not None:
        holders = [i for i, s in enumerate(sets) if winning_tile in s.tiles]
        if holders:
            non_pair = [i for i in holders if sets[i].kind != "pair"]
            winning_set = (non_pair or holders)[0]
    return sets, winning_set


def _decompose(counts: Counter[str], pair_used: bool) -> list[PlannedSet] | None:
    remaining = sorted((c for c, n in counts.items() if n > 0), key=sort_key)
    if not remaining:
        return [] if pair_used else None
    first = remaining[0]
    options: list[tuple[str, list[str]]] = []
    if counts[first] >= 3:
        options.append(("pung", [first] * 3))
    if is_suited(first) and rank_of(first) <= 7:
        second, third = f"{rank_of(first) + 1}{first[1]}", f"{rank_of(first) + 2}{first[1]}"
        if counts[second] > 0 and counts[third] > 0:
            options.append(("chow", [first, second, third]))
    if not pair_used and counts[first] >= 2:
        options.append(("pair", [first] * 2))
    for kind, used in options:
        counts.subtract(used)
        rest = _decompose(counts, pair_used or kind == "pair")
        counts.update(used)
        if rest is not None:
            return [PlannedSet(kind, used), *rest]
    return None


def _random_set(rng: np.random.Generator, counts: Counter[str]) -> PlannedSet | None:
    if rng.random() < CHOW_PROBABILITY:
        suit = "mps"[int(rng.integers(0, 3))]
        start = int(rng.integers(1, 8))
        tiles = [f"{start + i}{suit}" for i in range(3)]
        if any(counts[t] >= 4 for t in tiles):
            return None
        counts.update(tiles)
        return PlannedSet("chow", tiles)
    code = SET_TILE_CODES[int(rng.integers(0, len(SET_TILE_CODES)))]
    if rng.random() < KONG_PROBABILITY:
        if counts[code] > 0:
            return None
        counts[code] += 4
        return PlannedSet("kong", [code] * 4)
    if counts[code] > 1:
        return None
    counts[code] += 3
    return PlannedSet("pung", [code] * 3)


def _pick(rng: np.random.Generator, options: list[str]) -> str:
    return options[int(rng.integers(0, len(options)))]
