"""Chow (sequence) detectors: all chows, straights, identical, sister and stepping chows,
four ways."""

from __future__ import annotations

from collections import Counter

from scoring.patterns.registry import STANDARD, Hits, reading_level, tiles_of
from scoring.readings import Group, HandFacts, Reading
from scoring.shapes import CODE


@reading_level(max_pungs=0, shapes=STANDARD)
def all_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 All chows 平胡 (LRC All Sheung, mahjongtime Chow hand, taiwan 小平和, allmj Peaceful Win).

    params: ``no_honour_pair`` (allmj: pair not a wind or dragon), ``no_single_wait`` and
    ``no_self_draw`` (allmj: Waiting for One and Self-Touch are not allowed).
    """
    if r.shape != "standard" or r.pungs:
        return None
    if p.get("no_honour_pair") and r.pair is not None and r.pair.suit == "z":
        return None
    if p.get("no_single_wait") and len(f.waits) == 1:
        return None
    if p.get("no_self_draw") and f.self_drawn:
        return None
    return [tiles_of(r.chows)]


@reading_level(max_pungs=0, shapes=STANDARD)
def all_chows_plain(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 All chows with no flowers and no honours 大平胡."""
    if f.flowers or f.has_honours:
        return None
    return all_chows(r, f, p)


def _straight_chows(r: Reading) -> list[list[Group]]:
    """For each suit, the chows 123, 456, 789 if all three are present."""
    keys = r.chow_keys
    if len(keys) < 3:
        return []
    out = []
    for suit in "mps":
        if (suit, 1) in keys and (suit, 4) in keys and (suit, 7) in keys:
            out.append([next(c for c in r.chows if c.suit == suit and c.rank == rank) for rank in (1, 4, 7)])
    return out


def _closed(groups: list[Group], f: HandFacts, mode: str) -> bool:
    if mode == "self_drawn":
        return f.self_drawn
    if mode == "self_drawn_completes":
        return f.self_drawn and any(g.winning for g in groups)
    return not any(g.exposed for g in groups)  # all_concealed


@reading_level(chows=3)
def pure_straight(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Pure straight 一條龍 (123-456-789 of one suit). ``params.closed``: only when closed, by
    ``self_drawn_completes`` (LRC/DXB §3.12), ``self_drawn`` (mahjongtime A-S1-2) or
    ``all_concealed`` (taiwan 內龍)."""
    mode = p.get("closed")
    hits = [tiles_of(chows) for chows in _straight_chows(r)
            if mode is None or _closed(chows, f, mode)]
    return hits[:1] or None


def _mixed_straights(r: Reading) -> list[list[Group]]:
    keys = r.chow_keys
    if len(keys) < 3 or len({suit for suit, _ in keys}) < 3:
        return []
    out = []
    for order in ("mps", "msp", "pms", "psm", "smp", "spm"):
        if all((suit, rank) in keys for suit, rank in zip(order, (1, 4, 7), strict=True)):
            out.append([next(c for c in r.chows if c.suit == suit and c.rank == rank)
                        for suit, rank in zip(order, (1, 4, 7), strict=True)])
    return out


@reading_level(chows=3)
def mixed_straight(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 LRC/DXB Mixed Complete Sequence: 123, 456, 789 in three different suits (``params.closed`` as
    for the pure straight)."""
    mode = p.get("closed")
    hits = [tiles_of(chows) for chows in _mixed_straights(r)
            if mode is None or _closed(chows, f, mode)]
    return hits[:1] or None


@reading_level(chows="count")
def identical_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Brother Sheungs 一般高: ``params.count`` identical chows of one suit (one hit per such chow)."""
    if len(r.chows) < p["count"] or len(r.chow_keys) == len(r.chows) and p["count"] > 1:
        return None
    counter = Counter(g.first for g in r.chows)
    hits = [tiles_of(g for g in r.chows if g.first == first)
            for first, n in counter.items() if n == p["count"]]
    return hits or None


@reading_level(chows="count")
def sister_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Sister Sheungs 相逢: same-number chows in different suits. LRC counts distinct suits
    (``params.distinct_suits``); DXB counts every chow of that number once two suits are there
    (A-DXB-3)."""
    if len(r.chows) < p["count"]:
        return None
    by_rank: dict[int, list[Group]] = {}
    for g in r.chows:
        by_rank.setdefault(g.rank, []).append(g)
    hits = []
    for rank in sorted(by_rank):
        chows = by_rank[rank]
        if len(chows) < 2:
            continue
        suits = {g.suit for g in chows}
        if len(suits) < 2:
            continue
        n = len(suits) if p.get("distinct_suits", True) else len(chows)
        if n == p["count"]:
            hits.append(tiles_of(chows))
    return hits or None


@reading_level(chows=3)
def step_up_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Step Up Sheungs: three chows each one number up (A-LRC-7: any suits, or with
    ``params.three_suits`` one chow from each suit). Scored once ("no extra for 4 sets")."""
    if len(r.chows) < 3:
        return None
    by_rank: dict[int, list[Group]] = {}
    for g in r.chows:
        by_rank.setdefault(g.rank, []).append(g)
    for rank in range(1, 6):
        if rank in by_rank and rank + 1 in by_rank and rank + 2 in by_rank:
            if p.get("three_suits"):
                for a in by_rank[rank]:
                    for b in by_rank[rank + 1]:
                        for c in by_rank[rank + 2]:
                            if len({a.suit, b.suit, c.suit}) == 3:
                                return [a.tiles + b.tiles + c.tiles]
                continue
            a, b, c = by_rank[rank][0], by_rank[rank + 1][0], by_rank[rank + 2][0]
            return [a.tiles + b.tiles + c.tiles]
    return None


@reading_level(chows=5)
def all_step_up(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 All Step Up Hand: five chows stepping up by one (``params.same_suit`` for the +90 row)."""
    chows = r.chows
    if len(chows) != 5:
        return None
    ranks = sorted(g.rank for g in chows)
    if ranks != list(range(ranks[0], ranks[0] + 5)):
        return None
    if p.get("same_suit") and len({g.suit for g in chows}) != 1:
        return None
    return [tiles_of(sorted(chows, key=lambda g: g.rank))]


def _terminal_chow_pairs(r: Reading) -> list[tuple[str, tuple[str, ...]]]:
    memo = r.memo()
    if "terminal_chows" not in memo:
        memo["terminal_chows"] = _find_terminal_chow_pairs(r) if len(r.chows) >= 2 else []
    return memo["terminal_chows"]


def _find_terminal_chow_pairs(r: Reading) -> list[tuple[str, tuple[str, ...]]]:
    lows: dict[str, list[Group]] = {}
    highs: dict[str, list[Group]] = {}
    for g in r.chows:
        if g.rank == 1:
            lows.setdefault(g.suit, []).append(g)
        elif g.rank == 7:
            highs.setdefault(g.suit, []).append(g)
    if not lows or not highs:
        return []
    out = []
    for suit in "mps":
        out.extend((suit, lo.tiles + hi.tiles)
                   for lo, hi in zip(lows.get(suit, ()), highs.get(suit, ()), strict=False))
    return out


@reading_level(chows=2)
def terminal_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Terminal Sheung Set 老少: 123 + 789 of one suit, each such pair."""
    return [tiles for _, tiles in _terminal_chow_pairs(r)] or None


@reading_level(chows=4)
def two_terminal_chow_sets(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Two 123+789 sets: ``params.same_suit`` true (all one suit) or false (each in its own suit)."""
    found = _terminal_chow_pairs(r)
    if len(found) < 2:
        return None
    same = len({suit for suit, _ in found}) == 1
    if same != p.get("same_suit", True):
        return None
    return [tuple(t for _, tiles in found for t in tiles)]


@reading_level(shapes=STANDARD)
def four_ways(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Four in 2/3/4 Ways (A-LRC-6): all four copies of a tile spread over ``params.ways``
    different groups (sets and the pair) of the reading. One hit per such tile."""
    if f.fours is None:
        f.fours = [i for i, n in enumerate(f.counts) if n == 4]
    hits = []
    for i in f.fours:
        tile = CODE[i]
        ways = sum(1 for g in r.groups if tile in g.tiles)
        if ways == p["ways"]:
            hits.append((tile,) * 4)
    return hits or None
