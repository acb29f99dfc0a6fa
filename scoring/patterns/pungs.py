"""Pung detectors: all pungs, consecutive, sister and terminal pungs."""

from __future__ import annotations

from scoring.patterns.registry import STANDARD, Hits, reading_level, tiles_of
from scoring.readings import Group, HandFacts, Reading


@reading_level(max_chows=0, shapes=STANDARD)
def all_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 All pungs 對對胡 (mahjongtime Pung hand, allmj All Pòng): sets are all pungs or kongs."""
    if r.shape != "standard" or r.chows:
        return None
    return [tiles_of(r.pungs)]


def _pung_runs(r: Reading) -> list[list[Group]]:
    memo = r.memo()
    if "pung_runs" not in memo:
        memo["pung_runs"] = _find_pung_runs(r) if len(r.pungs) >= 2 else []
    return memo["pung_runs"]


def _find_pung_runs(r: Reading) -> list[list[Group]]:
    first: dict[tuple[str, int], Group] = {}
    for g in r.pungs:
        if g.suit != "z":
            first.setdefault((g.suit, g.rank), g)
    if len(first) < 2:
        return []
    runs = []
    for suit in "mps":
        ranks = sorted(rank for s, rank in first if s == suit)
        run: list[int] = []
        for rank in ranks + [99]:
            if run and rank == run[-1] + 1:
                run.append(rank)
                continue
            if len(run) >= 2:
                runs.append([first[(suit, k)] for k in run])
            run = [rank]
    return runs


@reading_level(pungs="count")
def consecutive_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 Neighbors / Uncle Pongs 姊妹: ``params.count`` consecutive pungs of one suit (each run)."""
    if len(r.pungs) < p["count"]:
        return None
    hits = [tiles_of(run) for run in _pung_runs(r) if len(run) == p["count"]]
    return hits or None


@reading_level(pungs=5)
def neighbours_hand(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 Neighbors / Uncles Hand (A-LRC-8): five consecutive pungs of one suit plus a pair."""
    return consecutive_pungs(r, f, {"count": 5})


@reading_level(pungs="count")
def sister_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 Sister Pongs 兄弟: ``params.count`` pungs of the same number in different suits."""
    if len(r.pungs) < p["count"]:
        return None
    by_rank: dict[int, list[Group]] = {}
    for g in r.pungs:
        if g.suit != "z":
            by_rank.setdefault(g.rank, []).append(g)
    hits = []
    for found in by_rank.values():
        if len(found) >= p["count"] and len({g.suit for g in found}) == p["count"]:
            hits.append(tiles_of(found))
    return hits or None


def _terminal_pung_sets(r: Reading) -> list[tuple[str, tuple[str, ...]]]:
    memo = r.memo()
    if "terminal_pungs" not in memo:
        memo["terminal_pungs"] = _find_terminal_pung_sets(r) if len(r.pungs) >= 2 else []
    return memo["terminal_pungs"]


def _find_terminal_pung_sets(r: Reading) -> list[tuple[str, tuple[str, ...]]]:
    lows: dict[str, Group] = {}
    highs: dict[str, Group] = {}
    for g in r.pungs:
        if g.suit != "z" and g.rank in (1, 9):
            (lows if g.rank == 1 else highs).setdefault(g.suit, g)
    return [(suit, lows[suit].tiles + highs[suit].tiles) for suit in "mps" if suit in lows and suit in highs]


@reading_level(pungs=2)
def terminal_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 Terminal Pong Set: 111 + 999 of one suit, each such set."""
    return [tiles for _, tiles in _terminal_pung_sets(r)] or None


@reading_level(pungs=4)
def two_terminal_pung_sets(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 Two terminal pung sets (in two suits)."""
    found = _terminal_pung_sets(r)
    return [tuple(t for _, tiles in found for t in tiles)] if len(found) >= 2 else None
