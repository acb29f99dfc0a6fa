"""Pattern detectors: small pure functions a rule set's rows point at by name.

A detector answers "does this hand (or this reading of it) earn the row, and with which tiles?".
It returns ``None`` when the row does not apply, else a list with one tuple of tiles per
instance (a row worth 1 *each* that fires for two wind pungs returns two tuples). Values,
names and supersessions live in the rule-set TOML files, never here, so a house rule set can
reuse these detectors with other numbers. ``params`` come from the row (``[pattern.params]``).

Hand-scope detectors look only at :class:`HandFacts` (flowers, suits, how the hand was won)
and run once per hand; reading-scope detectors run once per reading, and declare a
:class:`Requirement` (at least n chows / pungs / honour pungs, a shape) so the engine can skip
them on readings that cannot earn them. Each docstring names the seed rows it implements
(RULESETS.md section numbers). To add a pattern: write a detector here, then a row in a rule
file that names it; ``tests/scoring/test_scoring_patterns.py`` then asks for an example hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scoring.readings import Group, HandFacts, Reading
from scoring.shapes import CODE
from scoring.tiles import DRAGON_CODES, WIND_CODES, is_terminal, is_terminal_or_honour

Hits = list[tuple[str, ...]] | None
ONCE: list[tuple[str, ...]] = [()]


@dataclass(frozen=True)
class Requirement:
    """What a reading must have for a reading-scope detector to possibly fire.

    The engine skips a row whose requirement the reading fails, without calling the detector:
    most rows fail on counts alone, and skipping them is what keeps scoring fast. A value that is
    a string names a row parameter (``"count"``: at least ``params.count`` chows or pungs).
    """

    chows: int | str = 0
    pungs: int | str = 0
    honour_pungs: int | str = 0
    max_chows: int | None = None
    max_pungs: int | None = None
    shapes: tuple[str, ...] | None = None

    def bounds(self, params: dict) -> tuple[int, int, int, int, int, tuple[str, ...] | None]:
        def value(v: int | str) -> int:
            return int(params[v]) if isinstance(v, str) else v

        return (value(self.chows), value(self.pungs), value(self.honour_pungs),
                99 if self.max_chows is None else self.max_chows,
                99 if self.max_pungs is None else self.max_pungs, self.shapes)


@dataclass(frozen=True)
class Detector:
    function: Callable
    scope: str  # "hand" or "reading"
    requirement: Requirement = Requirement()


DETECTORS: dict[str, Detector] = {}


def hand_level(fn: Callable) -> Callable:
    """Register a hand-scope detector: it needs the hand's facts only, not a reading of its sets."""
    DETECTORS[fn.__name__] = Detector(fn, "hand")
    return fn


def reading_level(fn: Callable | None = None, **needs) -> Callable:
    """Register a reading-scope detector; ``needs`` are its :class:`Requirement` fields."""

    def register(function: Callable) -> Callable:
        DETECTORS[function.__name__] = Detector(function, "reading", Requirement(**needs))
        return function

    return register(fn) if fn is not None else register


STANDARD = ("standard",)


def _all(f: HandFacts) -> list[tuple[str, ...]]:
    return [tuple(f.tiles)]


def _tiles_of(groups: Iterable[Group]) -> tuple[str, ...]:
    """The tiles of ``groups`` in order, as one hit."""
    return tuple(t for g in groups for t in g.tiles)


# --------------------------------------------------------------------------- base and flowers


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


# --------------------------------------------------------------------------- honours


def _wind_pungs(r: Reading) -> list[Group]:
    return [g for g in r.pungs if g.suit == "z" and g.rank <= 4]


def _dragon_pungs(r: Reading) -> list[Group]:
    return [g for g in r.pungs if g.suit == "z" and g.rank >= 5]


@reading_level(honour_pungs=1)
def wind_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.3 Pung/kong of winds. ``params.which``: ``any`` (1 each), ``seat`` (門風) or ``round`` (圈風)."""
    if not r.honour_pungs:
        return None
    which = p.get("which", "any")
    pungs = _wind_pungs(r)
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
        return [_tiles_of(found) + (r.pair.tiles if pair else ())]
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
    found = _wind_pungs(r)
    return [_tiles_of(found)] if len(found) == 4 else None


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
    return [_tiles_of(found)] if len(found) == 3 else None


@hand_level
def all_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 LRC Pure Honor Hand 字一色: winds and dragons only."""
    return _all(f) if not f.suits else None


@hand_level
def no_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 No honours 無字 (allmj "No Characters": no winds or dragons, A-S3-1)."""
    return None if f.has_honours else ONCE


@hand_level
def no_flowers_no_honours(f: HandFacts, p: dict) -> Hits:
    """1.3 No flowers and no honours 無字無花."""
    return None if f.has_honours or f.flowers else ONCE


# --------------------------------------------------------------------------- kongs and concealed pungs


@hand_level
def exposed_kong(f: HandFacts, p: dict) -> Hits:
    """1.4 Exposed kong 明槓, each."""
    return [m.tiles for m in f.exposed_kongs] or None


@hand_level
def concealed_kong(f: HandFacts, p: dict) -> Hits:
    """1.4 Concealed kong 暗槓, each (LRC/DXB also collect 5 from every player: a side payment row)."""
    return [m.tiles for m in f.concealed_kongs] or None


def _concealed_pungs(r: Reading, f: HandFacts) -> list[Group]:
    memo = r.memo()
    if "concealed_pungs" not in memo:
        open_kong = f.options.get("open_kong_counts_concealed", False)
        memo["concealed_pungs"] = [g for g in r.pungs
                                   if g.hidden or (open_kong and g.kind == "kong" and g.exposed)]
    return memo["concealed_pungs"]


@reading_level(pungs="count", shapes=STANDARD)
def concealed_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.4 Two/three/four/five concealed pungs 暗刻 (``params.count``; tiers supersede each other).

    Concealed kongs count; an exposed kong counts only where the rule set says "1x Open Kong =
    1x Concealed Pong" (option ``open_kong_counts_concealed``); a pung finished by the winning
    discard does not (R-9). Seven pairs + a pung is not read as concealed pungs.
    """
    if r.shape != "standard":
        return None
    found = _concealed_pungs(r, f)
    return [_tiles_of(found)] if len(found) == p["count"] else None


@reading_level(pungs=5, shapes=STANDARD)
def five_concealed_pungs_strict(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.4 DXB: five concealed pungs with no kong and no self-draw."""
    if r.shape != "standard" or f.self_drawn or any(g.kind == "kong" for g in r.pungs):
        return None
    found = _concealed_pungs(r, f)
    return [_tiles_of(found)] if len(found) == 5 else None


# --------------------------------------------------------------------------- how the hand was won


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
    """1.5 Won on the last discard 河底撈魚 (a robbed kong counts as a discard, RULESETS §3.14)."""
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


# --------------------------------------------------------------------------- waits


@reading_level
def single_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Single wait: exactly one tile kind completed the 16 tiles (A-GEN-2).

    ``params.roles`` limits it to the winning tile's role in the reading: ``pair`` (單吊 / Out on
    a pair), ``closed``/``edge`` (間聽 / one-chance chow); empty = any role (LRC True Single Wait,
    allmj Waiting for One). ``params.edge_when`` names an option that must be on for an edge wait
    (12 waiting on 3) to count as closed (taiwan, A-GEN-2).
    """
    if len(f.waits) != 1 or r.shape == "flowers":
        return None
    roles = p.get("roles")
    if roles and r.wait not in roles:
        return None
    if r.wait == "edge" and p.get("edge_when") and not f.options.get(p["edge_when"]):
        return None
    return [(f.hand.winning_tile,)]


@reading_level
def false_single_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 LRC False Single Wait (R-7): the winning tile filled a pair, edge or closed wait in this
    reading, but more than one tile kind would have won. Never on 13/16 orphans."""
    if r.shape in ("thirteen_orphans", "sixteen_orphans", "flowers") or len(f.waits) < 2:
        return None
    return [(f.hand.winning_tile,)] if r.wait in ("pair", "edge", "closed") else None


@reading_level
def two_pair_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Calling by Pairs 對碰: two pairs waiting, the winning tile made one of them a pung."""
    if r.wait != "pung" or r.shape != "standard" or len(f.waits) != 2:
        return None
    return [(f.hand.winning_tile,)]


@reading_level
def good_eyes(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Good Eyes 將眼: the pair is 2, 5 or 8 of a suit. In Nico Nico the *winning tile*
    must be a 2, 5 or 8 (RULESETS §3.8)."""
    if r.shape == "seven_pairs_pung":
        win = f.hand.winning_tile
        return [(win, win)] if win[1] != "z" and win[0] in "258" and r.wait == "pair" else None
    pair = r.pair
    if pair is None or pair.suit == "z" or pair.rank not in (2, 5, 8):
        return None
    return [pair.tiles]


# --------------------------------------------------------------------------- sequences


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
    return [_tiles_of(r.chows)]


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
    hits = [_tiles_of(chows) for chows in _straight_chows(r)
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
    hits = [_tiles_of(chows) for chows in _mixed_straights(r)
            if mode is None or _closed(chows, f, mode)]
    return hits[:1] or None


@reading_level(chows="count")
def identical_chows(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.6 Brother Sheungs 一般高: ``params.count`` identical chows of one suit (one hit per such chow)."""
    if len(r.chows) < p["count"] or len(r.chow_keys) == len(r.chows) and p["count"] > 1:
        return None
    counter = Counter(g.first for g in r.chows)
    hits = [_tiles_of(g for g in r.chows if g.first == first)
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
            hits.append(_tiles_of(chows))
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
    return [_tiles_of(sorted(chows, key=lambda g: g.rank))]


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


# --------------------------------------------------------------------------- pungs


@reading_level(max_chows=0, shapes=STANDARD)
def all_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.7 All pungs 對對胡 (mahjongtime Pung hand, allmj All Pòng): sets are all pungs or kongs."""
    if r.shape != "standard" or r.chows:
        return None
    return [_tiles_of(r.pungs)]


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
    hits = [_tiles_of(run) for run in _pung_runs(r) if len(run) == p["count"]]
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
            hits.append(_tiles_of(found))
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


# --------------------------------------------------------------------------- suits and terminals


@hand_level
def half_flush(f: HandFacts, p: dict) -> Hits:
    """1.8 One suit and honours 混一色. ``params.honour_pair_only`` (allmj A-S3-2 literal reading):
    the honours must be exactly the pair."""
    if len(f.suits) != 1 or not f.has_honours:
        return None
    if p.get("honour_pair_only") and (len(f.honours) != 2 or f.honours[0] != f.honours[1]):
        return None
    return _all(f)


@hand_level
def full_flush(f: HandFacts, p: dict) -> Hits:
    """1.8 One suit only 清一色."""
    return _all(f) if len(f.suits) == 1 and not f.has_honours else None


@hand_level
def two_suits(f: HandFacts, p: dict) -> Hits:
    """1.8 Two suits only, no honours 缺一門 (``params.no_flowers`` for DXB's 15 row, R-16)."""
    if len(f.suits) != 2 or f.has_honours:
        return None
    if p.get("no_flowers") and f.flowers:
        return None
    return _all(f)


@hand_level
def all_five_types(f: HandFacts, p: dict) -> Hits:
    """1.8 All five types 五門齊: characters, dots, bamboo, winds and dragons."""
    has_wind = any(t in WIND_CODES for t in f.honours)
    has_dragon = any(t in DRAGON_CODES for t in f.honours)
    return _all(f) if len(f.suits) == 3 and has_wind and has_dragon else None


@hand_level
def all_simples(f: HandFacts, p: dict) -> Hits:
    """1.8 All simples 斷么: no terminals and no honours."""
    return None if any(is_terminal_or_honour(t) for t in f.tiles) else _all(f)


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
    return _all(f)


@reading_level(honour_pungs=1)
def gem_hand(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.8 Jade / Ruby / Diamond / Sapphire: a pung of ``params.dragon`` plus ``params.suit`` only;
    any other honour disqualifies (R-15)."""
    dragon = p["dragon"]
    if f.suits != frozenset(p["suit"]) or any(t != dragon for t in f.honours):
        return None
    return _all(f) if any(g.tiles[0] == dragon for g in r.pungs) else None


# --------------------------------------------------------------------------- special hands


@reading_level(shapes=("seven_pairs_pung",))
def seven_pairs_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 Seven pairs and a pung (Nico Nico / 嚦咕嚦咕 / 八對半 / 七對). ``params.pung_by_discard``
    false: the winning discard may not finish the pung (allmj R-13 option)."""
    if r.shape != "seven_pairs_pung":
        return None
    if not p.get("pung_by_discard", True) and r.wait == "pung" and not f.self_drawn:
        return None
    return _all(f)


@reading_level(shapes=("seven_pairs_pung",))
def nico_kongs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 Nico Nico + 1 or 2 Kongs: four of a kind standing as two pairs (``params.count``)."""
    if r.shape != "seven_pairs_pung":
        return None
    pairs = Counter(g.first for g in r.groups if g.kind == "pair")
    doubled = [first for first, n in pairs.items() if n == 2]
    if len(doubled) != p["count"]:
        return None
    return [tuple(CODE[i] for i in doubled for _ in range(4))]


@reading_level(shapes=("thirteen_orphans",))
def thirteen_orphans(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 13 Orphans, 16-tile form: each terminal and honour, an orphan pair and one more set."""
    return _all(f) if r.shape == "thirteen_orphans" else None


@reading_level(shapes=("sixteen_orphans",))
def sixteen_orphans(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 LRC 16 Orphans, read as 十六不搭 (A-LRC-10)."""
    return _all(f) if r.shape == "sixteen_orphans" else None


# --------------------------------------------------------------------------- classic (seed 002)


def _classic_class(g: Group) -> str:
    if g.suit == "z":
        return "wind" if g.rank <= 4 else "dragon"
    return "terminal" if g.rank in (1, 9) else "simple"


@reading_level(pungs=1)
def set_points(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002 per-set points: a ``params.kind`` (pung|kong) of ``params.classes`` (simple, terminal,
    wind, dragon), exposed ("retired") or concealed ("on hand", ``params.concealed``)."""
    classes = p["classes"]
    want_hidden = p["concealed"]
    hits = [g.tiles for g in r.pungs
            if (g.kind == "kong") == (p["kind"] == "kong") and _classic_class(g) in classes
            and (g.hidden or False) == want_hidden]
    return hits or None


@reading_level
def scoring_pair(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002: pair of dragons ("primes") or of the player's own wind (``params.round_wind`` adds
    the round wind, S2-2 option)."""
    pair = r.pair
    if pair is None or pair.suit != "z":
        return None
    code = pair.tiles[0]
    if code in DRAGON_CODES or code == f.context.seat_wind:
        return [pair.tiles]
    if p.get("round_wind") and code == f.context.round_wind:
        return [pair.tiles]
    return None


@reading_level(honour_pungs=1)
def own_wind_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002 double: three or four of the player's own wind (``params.round_wind``: also the
    round wind, S2-6 option)."""
    winds = {f.context.seat_wind}
    if p.get("round_wind"):
        winds.add(f.context.round_wind)
    return [g.tiles for g in _wind_pungs(r) if g.tiles[0] in winds] or None
