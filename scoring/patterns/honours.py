"""Honour detectors: wind and dragon pungs, their families, and honours held or not."""

from __future__ import annotations

from scoring.patterns.registry import ONCE, Hits, hand_level, reading_level, tiles_of, whole_hand
from scoring.readings import Group, HandFacts, Reading
from scoring.tiles import DRAGON_CODES, WIND_CODES


def wind_pungs(r: Reading) -> list[Group]:
    """The reading's wind pungs and kongs (also used by the classic own-wind double)."""
    return [g for g in r.pungs if g.suit == "z" and g.rank <= 4]


def _dragon_pungs(r: Reading) -> list[Group]:
    return [g for g in r.pungs if g.suit == "z" and g.rank >= 5]


@reading_level(honour_pungs=1)
def wind_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Pung/kong of winds. ``params.which``: ``any`` (1 each), ``seat`` (門風) or ``round`` (圈風)."""
    if not r.honour_pungs:
        return None
    which = p.get("which", "any")
    pungs = wind_pungs(r)
    if which == "seat":
        pungs = [g for g in pungs if g.tiles[0] == f.context.seat_wind]
    elif which == "round":
        pungs = [g for g in pungs if g.tiles[0] == f.context.round_wind]
    return [g.tiles for g in pungs] or None


@reading_level(honour_pungs=1)
def honour_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 mahjongtime Pung/Kong of Honors: any wind or dragon pung, 1 each."""
    if not r.honour_pungs:
        return None
    return [g.tiles for g in r.pungs if g.suit == "z"] or None


@reading_level(honour_pungs=1)
def dragon_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Pung/kong of a dragon 三元牌, each."""
    if not r.honour_pungs:
        return None
    return [g.tiles for g in _dragon_pungs(r)] or None


def _honour_family(r: Reading, family: tuple[str, ...], pungs: int, pair: bool) -> Hits:
    if r.honour_pungs < pungs:
        return None
    found = [g for g in r.pungs if g.tiles[0] in family]
    has_pair = r.pair is not None and r.pair.tiles[0] in family
    if len(found) == pungs and has_pair == pair:
        return [tiles_of(found) + (r.pair.tiles if pair else ())]
    return None


@reading_level(honour_pungs=2)
def little_three_winds(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Little Three Winds 小三風: two wind pungs and a wind pair."""
    return _honour_family(r, WIND_CODES, 2, True)


@reading_level(honour_pungs=3)
def big_three_winds(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Big Three Winds 大三風: three wind pungs, and not a wind pair (that is Little Four Winds)."""
    return _honour_family(r, WIND_CODES, 3, False)


@reading_level(honour_pungs=3)
def little_four_winds(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Little Four Winds 小四喜: three wind pungs and a pair of the fourth wind."""
    return _honour_family(r, WIND_CODES, 3, True)


@reading_level(honour_pungs=4)
def big_four_winds(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Big Four Winds 大四喜: four wind pungs."""
    if not r.honour_pungs:
        return None
    found = wind_pungs(r)
    return [tiles_of(found)] if len(found) == 4 else None


@reading_level(honour_pungs=2)
def little_three_dragons(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Little Three Dragons 小三元: two dragon pungs and a dragon pair."""
    return _honour_family(r, DRAGON_CODES, 2, True)


@reading_level(honour_pungs=3)
def big_three_dragons(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Big Three Dragons 大三元: three dragon pungs."""
    if not r.honour_pungs:
        return None
    found = _dragon_pungs(r)
    return [tiles_of(found)] if len(found) == 3 else None


@hand_level
def all_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 LRC Pure Honor Hand 字一色: winds and dragons only."""
    return whole_hand(f) if not f.suits else None


@hand_level
def no_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 No honours 無字 (allmj "No Characters": no winds or dragons, A-S3-1)."""
    return None if f.has_honours else ONCE


@hand_level
def no_flowers_no_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 No flowers and no honours 無字無花."""
    return None if f.has_honours or f.flowers else ONCE
