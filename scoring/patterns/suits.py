"""Suit and terminal detectors: flushes, suits held, simples, outside hands, gem hands."""

from __future__ import annotations

from scoring.patterns.registry import STANDARD, Hits, hand_level, reading_level, whole_hand
from scoring.readings import HandFacts, Reading
from scoring.tiles import DRAGON_CODES, WIND_CODES, is_terminal, is_terminal_or_honour


@hand_level
def half_flush(f: HandFacts, p: dict) -> Hits:
    """1.8 One suit and honours 混一色. ``params.honour_pair_only`` (allmj A-S3-2 literal reading):
    the honours must be exactly the pair."""
    if len(f.suits) != 1 or not f.has_honours:
        return None
    if p.get("honour_pair_only") and (len(f.honours) != 2 or f.honours[0] != f.honours[1]):
        return None
    return whole_hand(f)


@hand_level
def full_flush(f: HandFacts, p: dict) -> Hits:
    """1.8 One suit only 清一色."""
    return whole_hand(f) if len(f.suits) == 1 and not f.has_honours else None


@hand_level
def two_suits(f: HandFacts, p: dict) -> Hits:
    """1.8 Two suits only, no honours 缺一門 (``params.no_flowers`` for DXB's 15 row, R-16)."""
    if len(f.suits) != 2 or f.has_honours:
        return None
    if p.get("no_flowers") and f.flowers:
        return None
    return whole_hand(f)


@hand_level
def all_five_types(f: HandFacts, p: dict) -> Hits:
    """1.8 All five types 五門齊: characters, dots, bamboo, winds and dragons."""
    has_wind = any(t in WIND_CODES for t in f.honours)
    has_dragon = any(t in DRAGON_CODES for t in f.honours)
    return whole_hand(f) if len(f.suits) == 3 and has_wind and has_dragon else None


@hand_level
def all_simples(f: HandFacts, p: dict) -> Hits:
    """1.8 All simples 斷么: no terminals and no honours."""
    return None if any(is_terminal_or_honour(t) for t in f.tiles) else whole_hand(f)


@reading_level(shapes=STANDARD)
def outside_hand(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.8 Terminals + honours 混么 (``params.honours=true``) / terminals only 清么 (``false``): every
    set and the pair holds a 1, a 9 or an honour, as the seed's "Terminal Pongs/Sheungs" says.
    Both need terminals: a hand of honours only is the Pure Honor Hand, not a terminals hand
    (seed 000: "Terminal Pongs/Sheungs + Honor tiles")."""
    if r.shape != "standard":
        return None
    if p.get("honours", True) != f.has_honours or not f.suits:
        return None
    for g in r.groups:
        if not any(is_terminal_or_honour(t) for t in g.tiles):
            return None
    if not p.get("honours", True) and not all(any(is_terminal(t) for t in g.tiles) for g in r.groups):
        return None
    return whole_hand(f)


@reading_level(honour_pungs=1)
def gem_hand(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.8 Jade / Ruby / Diamond / Sapphire: a pung of ``params.dragon`` plus ``params.suit`` only;
    any other honour disqualifies (R-15)."""
    dragon = p["dragon"]
    if f.suits != frozenset(p["suit"]) or any(t != dragon for t in f.honours):
        return None
    return whole_hand(f) if any(g.tiles[0] == dragon for g in r.pungs) else None
