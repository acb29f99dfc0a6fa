"""How-the-hand-was-won detectors: concealment, self-draw, the special draws and turns, and the
dealer."""

from __future__ import annotations

from scoring.patterns.registry import ONCE, Hits, hand_level, reading_level
from scoring.readings import HandFacts, Reading


@hand_level
def concealed_hand(f: HandFacts, p: dict) -> Hits:
    """1.5 Concealed hand 門清: no exposed meld (concealed kongs allowed; R-8 option for exposed kongs).

    The winning discard does not break it (A-S3-3). ``params.win``: ``any`` or ``discard``.
    """
    if not f.concealed_hand:
        return None
    if p.get("win", "any") == "discard" and f.self_drawn:
        return None
    return ONCE


@hand_level
def self_drawn(f: HandFacts, p: dict) -> Hits:
    """1.5 Self-draw 自摸."""
    return ONCE if f.self_drawn else None


@hand_level
def concealed_self_drawn(f: HandFacts, p: dict) -> Hits:
    """1.5 Concealed hand and self-drawn 門清自摸 / 門清不求 / Pure Self-Touch."""
    return ONCE if f.self_drawn and f.concealed_hand else None


@hand_level
def fully_exposed(f: HandFacts, p: dict) -> Hits:
    """1.5 All sets exposed 全求人 / Exposed hand / Full Beggar's Hand: every set claimed, one tile
    waited on for the pair. ``params.win``: ``any``, ``discard`` or ``self_drawn``;
    ``params.self_drawn_counts`` false drops self-drawn wins (mahjongtime A-S1-4 option)."""
    hand = f.hand
    if len(hand.concealed) != 2 or not hand.melds or any(m.concealed for m in hand.melds):
        return None
    win = p.get("win", "any")
    if (win == "discard" and f.self_drawn) or (win == "self_drawn" and not f.self_drawn):
        return None
    if f.self_drawn and p.get("self_drawn_counts", True) is False:
        return None
    return [hand.concealed]


@hand_level
def replacement_win(f: HandFacts, p: dict) -> Hits:
    """1.5 Win on the replacement tile after a flower or kong 槓上開花 (LRC Self Draw from the
    Flower Wall)."""
    return ONCE if f.context.replacement_draw and f.self_drawn else None


@hand_level
def kong_chain(f: HandFacts, p: dict) -> Hits:
    """1.5 LRC chain of kongs, all self-drawn 槓上槓 (context ``kong_chain``)."""
    return ONCE if f.context.kong_chain and f.self_drawn else None


@hand_level
def robbing_kong(f: HandFacts, p: dict) -> Hits:
    """1.5 Robbing a kong 搶槓."""
    return [(f.hand.winning_tile,)] if f.context.robbing_kong else None


@hand_level
def last_tile_self_drawn(f: HandFacts, p: dict) -> Hits:
    """1.5 Last wall tile, self-drawn 海底撈月 (LRC Seabed Hand)."""
    return [(f.hand.winning_tile,)] if f.context.last_tile and f.self_drawn else None


@hand_level
def last_discard(f: HandFacts, p: dict) -> Hits:
    """1.5 Won on the last discard 河底撈魚 (a robbed kong counts as a discard)."""
    return [(f.hand.winning_tile,)] if f.context.last_tile and not f.self_drawn else None


@hand_level
def early_win(f: HandFacts, p: dict) -> Hits:
    """1.5 Early win: ``params.min <= tiles_on_table <= params.max`` (needs the count, R-1;
    A-LRC-4, A-S4-6)."""
    n = f.context.tiles_on_table
    if n is None:
        return None
    return ONCE if p.get("min", 0) <= n <= p["max"] else None


@hand_level
def heavenly_hand(f: HandFacts, p: dict) -> Hits:
    """1.5 Heavenly hand 天胡: the dealer wins on the dealt hand (context ``first_turn``)."""
    return ONCE if f.context.first_turn and f.context.is_dealer and f.self_drawn else None


@hand_level
def earthly_hand(f: HandFacts, p: dict) -> Hits:
    """1.5 Earthly hand 地胡: a non-dealer wins on the dealer's first discard (context ``first_turn``)."""
    ctx = f.context
    if ctx.first_turn and not ctx.is_dealer and not f.self_drawn and ctx.discarder in (None, "1z"):
        return ONCE
    return None


@hand_level
def turn_win(f: HandFacts, p: dict) -> Hits:
    """1.5 allmj Heaven's Grace (``params.turn=1``) / Earth's Grace (``turn=2``): win on that turn
    with no kong, pung or chow called (A-S3, §3.17: by turn number, not by dealer)."""
    flag = f.context.first_turn if p["turn"] == 1 else f.context.second_turn
    return ONCE if flag and not f.hand.melds else None


@hand_level
def dealt_ready(f: HandFacts, p: dict) -> Hits:
    """1.5 Ready on the dealt hand 天聽 (announced; context ``dealt_ready``)."""
    return ONCE if f.context.dealt_ready else None


@reading_level
def ting(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Declared ready / Ting 聽牌 (only where the table plays it). ``params.not_in_special``:
    no Calling in Nico Nico or Orphan hands (seed 000)."""
    if not f.context.ting or not f.options.get("ting_in_play", True):
        return None
    if p.get("not_in_special") and r.shape != "standard":
        return None
    return ONCE


@hand_level
def dealer_point(f: HandFacts, p: dict) -> Hits:
    """1.10 allmj Dealer's Point: the dealer wins (R-11: a hand item only in allmj)."""
    return ONCE if f.context.is_dealer else None


@hand_level
def consecutive_wins(f: HandFacts, p: dict) -> Hits:
    """1.10 allmj Consecutive Win: 2 per consecutive win after the first (``dealer_streak``, A-S3-5)."""
    n = f.context.dealer_streak or 0
    return [()] * n if f.context.is_dealer and n > 0 else None
