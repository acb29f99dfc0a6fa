"""Flower detectors: the base point, flowers and seasons held, and the instant flower wins."""

from __future__ import annotations

from scoring.patterns.registry import ONCE, Hits, hand_level, reading_level
from scoring.readings import HandFacts, Reading


@hand_level
def always(f: HandFacts, p: dict) -> Hits:
    """1.1 Base for any win (LRC/DXB Base Point 5, mahjongtime "Winning" 2, classic Mahjong 20)."""
    return ONCE


@hand_level
def flowers_each(f: HandFacts, p: dict) -> Hits:
    """1.2 Each flower or season held, 1 each."""
    return [(code,) for code in f.flowers] or None


@hand_level
def seat_flowers(f: HandFacts, p: dict) -> Hits:
    """1.2 Seat flower 正花: flower n and season n+4 belong to seat n (R-10, A-GEN-4)."""
    return [(code,) for code in f.seat_flowers()] or None


@hand_level
def no_flowers(f: HandFacts, p: dict) -> Hits:
    """1.2 No flowers 無花."""
    return None if f.flowers else ONCE


@hand_level
def flower_set(f: HandFacts, p: dict) -> Hits:
    """1.2 Full set of four flowers or of four seasons (allmj Four Flowers / Four Seasons, LRC Pure Garden).

    ``params.which``: ``flowers``, ``seasons`` or ``either`` (one hit per complete set).
    """
    which = p.get("which", "either")
    sets = [s for s in f.full_flower_sets()
            if which == "either" or (which == "seasons") == (s[0] >= "5f")]
    return sets or None


@hand_level
def mixed_bouquet(f: HandFacts, p: dict) -> Hits:
    """1.2 LRC/DXB Mixed Bouquet: flowers numbered 1, 2, 3 and 4 held, in both colours (A-LRC-2)."""
    if f.flower_numbers() != {1, 2, 3, 4}:
        return None
    colours = {code >= "5f" for code in f.flowers}
    return [tuple(f.flowers)] if len(colours) == 2 else None


# --------------------------------------------------------------------------- instant flower wins


@reading_level(shapes=("flowers",))
def seven_flowers(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.2 Seven flowers: LRC/DXB instant win on the 7th (``needs_robbed=false``); mahjongtime,
    allmj and taiwan 七搶一 need the 8th robbed from another player (context ``robbed_eighth_flower``)."""
    if r.shape != "flowers" or len(f.flowers) != 7:
        return None
    if p.get("needs_robbed", True) and not f.context.robbed_eighth_flower:
        return None
    return [tuple(f.flowers)]


@reading_level(shapes=("flowers",))
def eight_flowers(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.2 All eight flowers 八仙過海 / Eight Immortals."""
    return [tuple(f.flowers)] if r.shape == "flowers" and len(f.flowers) == 8 else None
