"""Readings of a hand: one decomposition plus one place for the winning tile, and the hand's facts.

A *reading* is what a player announces when laying the hand down ("these five sets and this pair,
and the winning tile finished this chow"). The scorer builds every reading (A-GEN-1) and keeps
the best. :class:`HandFacts` holds what does not depend on the reading (suits present, flowers,
the waits of the 16 tiles before the win), computed once per hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from scoring.hand import Hand, Meld, WinContext
from scoring.shapes import (
    CODE,
    INDEX,
    counts_of,
    decompositions,
    winning_tiles,
)
from scoring.tiles import FLOWER_CODES, flower_seat, is_flower, is_season, rank_of


class Group:
    """One set or the pair inside a reading.

    ``hidden``: counts as concealed for concealed-pung counts (a standing pung completed by a
    winning discard does not). ``meld``: laid down during play (exposed sets and
    concealed kongs). ``exposed``: an exposed meld (claimed from a discard).
    """

    __slots__ = ("kind", "first", "tiles", "suit", "rank", "meld", "exposed", "hidden", "winning")

    def __init__(self, kind: str, first: int, tiles: tuple[str, ...], *, meld: bool = False,
                 exposed: bool = False, hidden: bool = True, winning: bool = False) -> None:
        self.kind = kind
        self.first = first
        self.tiles = tiles
        code = CODE[first]
        self.suit = code[1]
        self.rank = int(code[0])
        self.meld = meld
        self.exposed = exposed
        self.hidden = hidden
        self.winning = winning

    def describe(self) -> str:
        body = "".join(str(rank_of(t)) for t in self.tiles) + self.suit
        if self.exposed:
            return f"[{body}]"
        if self.meld:
            return f"({body})"
        return body

    def to_json(self) -> dict:
        return {"kind": self.kind, "tiles": list(self.tiles), "exposed": self.exposed,
                "concealed_kong": self.meld and not self.exposed, "winning": self.winning}


#: How a reading's shape is named to a player.
SHAPE_NAMES = {"standard": "5 sets + a pair", "seven_pairs_pung": "seven pairs + a pung",
               "thirteen_orphans": "13 orphans", "sixteen_orphans": "16 orphans",
               "flowers": "instant win on flowers"}


@dataclass
class Reading:
    """One way to read the hand. ``shape`` is ``standard``, a special shape name or ``flowers``
    (an instant flower win: no groups, the ``flowers`` are the hand)."""

    shape: str
    groups: list[Group]
    wait: str | None  # pair | pung | edge | closed | open | single | flower
    flowers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.pungs: list[Group] = [g for g in self.groups if g.kind == "pung" or g.kind == "kong"]
        self.chows: list[Group] = [g for g in self.groups if g.kind == "chow"]
        pairs = [g for g in self.groups if g.kind == "pair"]
        self.pair: Group | None = pairs[0] if len(pairs) == 1 else None
        self.chow_keys = frozenset((g.suit, g.rank) for g in self.chows)
        self.honour_pungs = sum(1 for g in self.pungs if g.suit == "z")
        self._cache: dict = {}

    def memo(self) -> dict:
        """Scratch space for detectors that share a derived value within one reading."""
        return self._cache

    def describe(self) -> str:
        """The reading as a player would lay it out: ``[..]`` exposed, ``(..)`` concealed kong,
        ``*`` the set the winning tile completed; special shapes are named first."""
        if self.shape == "flowers":
            return f"{SHAPE_NAMES['flowers']}: {' '.join(self.flowers)}"
        parts = []
        for g in self.groups:
            text = g.describe()
            parts.append(text + "*" if g.winning else text)
        label = "" if self.shape == "standard" else f"{SHAPE_NAMES.get(self.shape, self.shape)}: "
        return label + " ".join(parts)

    def to_json(self) -> dict:
        return {"shape": self.shape, "wait": self.wait, "text": self.describe(),
                "groups": [g.to_json() for g in self.groups]}


class HandFacts:
    """What the scorer knows about a hand before choosing a reading."""

    def __init__(self, hand: Hand, context: WinContext, options: dict, special: tuple[str, ...]) -> None:
        self.hand = hand
        self.context = context
        self.options = options
        self.tiles: list[str] = hand.all_set_tiles()
        self.counts = counts_of(self.tiles)
        counts = self.counts
        self.suits = frozenset(suit for suit, low in (("m", 0), ("p", 9), ("s", 18))
                               if any(counts[low:low + 9]))
        self.honours = [CODE[i] for i in range(27, 34) for _ in range(counts[i])]
        self.has_honours = bool(self.honours)
        self.flowers = hand.flowers
        self.seat = rank_of(context.seat_wind) if context.seat_wind else None
        self.self_drawn = bool(context.self_drawn)
        self.exposed_melds = [m for m in hand.melds if not m.concealed]
        self.exposed_kongs = [m for m in hand.melds if m.kind == "kong" and not m.concealed]
        self.concealed_kongs = [m for m in hand.melds if m.kind == "kong" and m.concealed]
        keeps = options.get("exposed_kong_keeps_concealed", False)
        self.concealed_hand = all(m.concealed or (keeps and m.kind == "kong") for m in hand.melds)
        self.no_calls = not self.exposed_melds
        self.flower_win = is_flower(hand.winning_tile)
        self.special = special
        self._waits: list[str] | None = None
        self.fours: list[int] | None = None  # tiles held four times (filled on first use)

    @property
    def waits(self) -> list[str]:
        """Tiles that would have completed the 16 tiles before the win (A-GEN-2)."""
        if self._waits is None:
            if self.flower_win:
                self._waits = []
            else:
                standing = counts_of(self.hand.concealed)
                standing[INDEX[self.hand.winning_tile]] -= 1
                used = list(self.counts)
                used[INDEX[self.hand.winning_tile]] -= 1
                special = self.special if not self.hand.melds else ()
                self._waits = [CODE[i] for i in winning_tiles(standing, used, special)]
        return self._waits

    def seat_flowers(self) -> list[str]:
        if self.seat is None or not self.flowers:
            return []
        return [f for f in self.flowers if _FLOWER_SEAT[f] == self.seat]

    def flower_numbers(self) -> set[int]:
        return {_FLOWER_SEAT[f] for f in self.flowers}

    def full_flower_sets(self) -> list[tuple[str, ...]]:
        """Complete sets of four: all four flowers, all four seasons (either or both)."""
        out: list[tuple[str, ...]] = []
        if len(self.flowers) < 4:
            return out
        flowers = tuple(f for f in self.flowers if not is_season(f))
        seasons = tuple(f for f in self.flowers if is_season(f))
        if len(flowers) == 4:
            out.append(flowers)
        if len(seasons) == 4:
            out.append(seasons)
        return out


_FLOWER_SEAT = {code: flower_seat(code) for code in FLOWER_CODES}
_MELD_GROUPS: dict[Meld, Group] = {}


def _meld_group(meld: Meld) -> Group:
    """The group of a meld (shared between hands: groups are never changed once built)."""
    group = _MELD_GROUPS.get(meld)
    if group is None:
        group = Group(meld.kind, INDEX[meld.tiles[0]], meld.tiles, meld=True, exposed=not meld.concealed,
                      hidden=meld.concealed)
        if len(_MELD_GROUPS) < 4096:
            _MELD_GROUPS[meld] = group
    return group


def _wait_role(kind: str, first: int, win: int) -> str:
    if kind == "pair":
        return "pair"
    if kind == "pung":
        return "pung"
    if kind == "single":
        return "single"
    offset = win - first
    rank = first % 9  # 0-based rank of the chow's first tile
    if offset == 1:
        return "closed"
    if (offset == 0 and rank == 6) or (offset == 2 and rank == 0):
        return "edge"
    return "open"


_GROUP_IDS: dict[tuple[str, int, bool, bool], int] = {}
_GROUP_TABLE: list[Group] = []


def _standing_group_id(kind: str, first: int, hidden: bool, winning: bool) -> int:
    """Groups of standing tiles are immutable once built, so readings share them; cached layouts
    refer to them by number (a tuple of ints is invisible to the garbage collector, a tuple of
    groups would make every full collection walk the whole cache)."""
    key = (kind, first, hidden, winning)
    number = _GROUP_IDS.get(key)
    if number is None:
        number = _GROUP_IDS[key] = len(_GROUP_TABLE)
        _GROUP_TABLE.append(Group(kind, first, _tiles_of(kind, first), hidden=hidden, winning=winning))
    return number


def _tiles_of(kind: str, first: int) -> tuple[str, ...]:
    if kind == "chow":
        return (CODE[first], CODE[first + 1], CODE[first + 2])
    if kind == "pung":
        return (CODE[first],) * 3
    if kind == "pair":
        return (CODE[first],) * 2
    return (CODE[first],)


def enumerate_readings(hand: Hand, facts: HandFacts, shapes: tuple[str, ...],
                       sets_needed: int) -> list[Reading]:
    """Every decomposition x every place the winning tile can sit (A-GEN-1), special shapes too."""
    if facts.flower_win:
        return []
    melds = [_meld_group(m) for m in hand.melds]
    layouts = _standing_layouts(tuple(counts_of(hand.concealed)), INDEX[hand.winning_tile],
                                not facts.self_drawn, () if melds else shapes, sets_needed - len(melds))
    table = _GROUP_TABLE
    return [Reading(shape, melds + [table[n] for n in numbers], wait) for shape, numbers, wait in layouts]


@lru_cache(maxsize=16384)
def _standing_layouts(counts: tuple[int, ...], win: int, discard: bool, shapes: tuple[str, ...],
                      free_sets: int) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    """The standing tiles' part of every reading: (shape, group numbers, wait role). It depends only
    on these arguments (groups are immutable and shared), so it is cached: the photo decoder and a
    hand scored under several rule sets ask for the same layouts again."""
    out = []
    for shape, split in decompositions(counts, shapes):
        if shape == "standard" and len(split) != free_sets + 1:
            continue
        places = []
        seen = set()
        for n, (kind, first) in enumerate(split):
            contains = first <= win <= first + 2 if kind == "chow" else first == win
            if contains and (kind, first) not in seen:
                seen.add((kind, first))
                places.append(n)
        for place in places:
            groups = []
            for n, (kind, first) in enumerate(split):
                winning = n == place
                hidden = not (winning and discard and kind == "pung")
                groups.append(_standing_group_id(kind, first, hidden, winning))
            kind, first = split[place]
            out.append((shape, tuple(groups), _wait_role(kind, first, win)))
    return tuple(out)


def flower_reading(hand: Hand) -> Reading:
    """The reading of an instant flower win: the flowers are the hand (R-6)."""
    return Reading("flowers", [], "flower", flowers=tuple(hand.flowers))
