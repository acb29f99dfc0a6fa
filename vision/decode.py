"""Decoding: the most probable *legal* winning hand among the classifier's alternatives.

The classifier reads each tile alone; the game constrains them jointly: at most 4 of a face, each
flower once, exposed groups are chows, pungs or kongs, and the standing tiles with the sets form a
winning hand. The decoder enumerates whole-hand readings in decreasing probability (product of the
calibrated per-tile probabilities) and keeps the first legal one, then a few runners-up for the
confidence report.

Enumeration is exact best-first search over "variables": each standing tile, each exposed group
(whose options are already legal sets, so no search is wasted on illegal melds), each concealed
kong (one face for its 4 tiles) and each flower. Every variable's options are sorted by
probability; the classic successor rule (only increment variables at or after the one last
incremented) visits every combination once, in order, so the first legal reading found is the most
probable one. A budget bounds the work when the photo is hopeless.

One tile may be missing from the photo (``vision.unseen`` says when and why): the hand then gets one
*unseen* tile. It has no detection, so it is no search variable: for each reading of the seen tiles,
every code that completes the hand is tried at the same prior. The search over the seen tiles is
unchanged.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from scoring.errors import InputError
from scoring.shapes import is_standard_complete
from scoring.tiles import BACK, FLOWER_CODES, SET_TILE_CODES, is_suited, next_in_suit, sorted_codes
from vision.budget import Budget, time_limit_reason
from vision.layout import back_mass
from vision.packed_tallies import Limit, pack, unpack
from vision.tile_places import tile_place
from vision.types import HAND_SIZE, DecodedGroup, GroupRole, Layout, LegalReading, TileReading
from vision.unseen import UNSEEN_LOG_PRIOR, UnseenTile, unseen_codes, unseen_tiles

#: Probability given to a code the classifier did not list among its top-k.
FLOOR = 1e-6
#: A legal reading this much less likely than the tiles as read is not believed (a rack of tiles
#: that is no winning hand can always be "corrected" into one by enough unlikely changes).
MIN_LIKELIHOOD_RATIO = 1e-4
#: A legal reading that changes more tiles than this from the classifier's first choice is not
#: believed either, however likely the changes: on 552 answered held-out renders (seeds 900000-,
#: 910000-, 920000-, 930000-, 940000-) one needed 4 (930034, right, but only 0.1% of the legal
#: readings: a guess), none more; the two real table photos of 158 that were still scored needed
#: 4 and 5 (a mid-game row and three discards read as a pung, 18 tai; a row of winds read as
#: bamboos, 42 tai), both at 0% of the legal readings, both no winning hand at all.
MAX_CHANGES = 3
#: Whole-hand readings examined before giving up.
SEARCH_BUDGET = 30_000
#: Legal runners-up kept for the confidence report when at least this probable relative to the best.
ALTERNATIVE_RATIO = 1e-3
MAX_ALTERNATIVES = 8
#: Readings examined after the best one to find runners-up and measure the legal mass.
ALTERNATIVE_BUDGET = 2_000
#: Options per exposed group kept (sorted by probability).
MAX_GROUP_OPTIONS = 60

_INDEX = {code: i for i, code in enumerate(SET_TILE_CODES)}

#: How often (in readings examined) a search looks at the clock for its budget's deadline.
CLOCK_EVERY = 256

@dataclass(frozen=True)
class _Option:
    """One way to read one variable: codes for its tiles (reading index -> code) and a probability."""

    log_p: float
    codes: tuple[tuple[int, str], ...]
    kind: str | None = None  # chow/pung/kong for groups
    face: str | None = None  # concealed kong face
    split: tuple[tuple[int, ...], ...] = ()  # for exposed groups holding several sets


@dataclass(frozen=True)
class _Variable:
    role: GroupRole
    tile_indices: tuple[int, ...]
    options: tuple[_Option, ...]


class UnbelievedReadingError(InputError):
    """The nearest winning hand needs changes too unlikely or too many to believe; ``fixes`` are the
    ``--fix`` (READ, TRUE) pairs that would read it so, for a player or a tool to offer."""

    def __init__(self, message: str, fixes: tuple[tuple[str, str], ...]) -> None:
        super().__init__(message)
        self.fixes = fixes


@dataclass(frozen=True)
class TileChange:
    """A tile whose decoded code differs from the classifier's first choice; ``place`` says where it
    lies in words a player can find (``vision.tile_places``), since ``index`` means nothing to one."""

    index: int
    top1: str
    top1_probability: float
    decoded: str
    decoded_probability: float
    place: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.index, "place": self.place, "from": self.top1, "to": self.decoded,
                "from_confidence": round(self.top1_probability, 4),
                "to_confidence": round(self.decoded_probability, 4)}

    def describe(self, with_probability: bool = False) -> str:
        """``2f -> 7f (flower 2 of 3 from the left)``; with the decoded code's probability first,
        ``2f -> 7f (10%, flower 2 of 3 from the left)``."""
        notes = [f"{self.decoded_probability:.0%}"] if with_probability else []
        notes += [self.place] if self.place else []
        return f"{self.top1} -> {self.decoded}" + (f" ({', '.join(notes)})" if notes else "")


@dataclass
class HandReading:
    """The decoder's answer: the best legal reading, what it changed, and the legal runners-up.

    ``confidence`` is the probability that the best reading is right given that the hand is legal:
    its share of the legal readings within ALTERNATIVE_RATIO of it (if the search had to stop before
    that, unexamined readings count as legal, which makes it a lower bound).
    Per-tile ``codes`` say what each tile shows: ``back`` for the face-down tiles of a concealed kong
    (the kong's face is in the hand). ``winning_known`` is False when the photo does not show the
    winning tile (and no tile is unseen); the hand then names the last standing tile and the pipeline
    scores every choice.

    With an ``unseen`` tile, ``confidence`` stays the best reading's *share* (not divided again by the
    number of completions): every code completing the hand has the same prior, so k completions of
    the best reading are equally probable and each holds at most 1/k of the legal mass; a guess among
    them never comes out as certain, and a tile that alone completes the hand costs nothing.
    ``alternatives`` then hold only readings that differ in a seen tile; the other completions are in
    ``unseen.completions``.
    """

    best: LegalReading
    changes: list[TileChange]
    alternatives: list[LegalReading]
    confidence: float
    winning_index: int | None
    normaliser: float = 1.0
    warnings: list[str] = field(default_factory=list)
    unseen: UnseenTile | None = None

    def share(self, reading: LegalReading) -> float:
        """A legal reading's probability as a share of the legal (and unexamined) readings."""
        return min(1.0, reading.probability / self.normaliser) if self.normaliser > 0 else 0.0

    @property
    def winning_known(self) -> bool:
        """The hand names its winning tile: shown in the photo, or taken to be the unseen tile."""
        return self.winning_index is not None or (self.unseen is not None and self.unseen.winning)

    @property
    def hand(self) -> dict[str, Any]:
        return self.best.hand

    @property
    def codes(self) -> dict[int, str]:
        return self.best.codes

    @property
    def top1_legal(self) -> bool:
        return not self.changes


def _log(p: float) -> float:
    return math.log(max(p, FLOOR))


def _tile_options(reading: TileReading, index: int, allowed: tuple[str, ...]) -> tuple[_Option, ...]:
    """A standing tile or a flower: its candidates restricted to ``allowed`` (all of them, at the floor,
    if the classifier named none: then only the game's constraints can tell)."""
    allowed_set = set(allowed)
    options = [_Option(_log(p), ((index, code),)) for code, p in reading.candidates if code in allowed_set]
    if not options:
        options = [_Option(_log(FLOOR), ((index, code),)) for code in allowed]
    return tuple(sorted(options, key=lambda o: -o.log_p))


def _set_options(readings: list[TileReading], indices: tuple[int, ...]) -> list[_Option]:
    """Every legal exposed set on these tiles (a chow may lie in any order: the claimed tile sits in
    the middle), with probability."""
    size = len(indices)
    candidates = set()
    for i in indices:
        candidates.update(code for code, _ in readings[i].candidates if code in _INDEX)
    options: list[_Option] = []
    if size in (3, 4):
        kind = "pung" if size == 3 else "kong"
        for code in candidates:
            log_p = sum(_log(readings[i].probability_of(code, FLOOR)) for i in indices)
            options.append(_Option(log_p, tuple((i, code) for i in indices), kind=kind))
    if size == 3:
        starts = {c for c in candidates if is_suited(c)}
        starts |= {s for c in list(starts) for s in (next_in_suit(c, -1), next_in_suit(c, -2)) if s}
        for start in starts:
            run = (start, next_in_suit(start, 1), next_in_suit(start, 2))
            if None in run:
                continue
            for order in set(permutations(run)):
                log_p = sum(_log(readings[i].probability_of(code, FLOOR)) for i, code in zip(indices, order,
                                                                                          strict=True))
                options.append(_Option(log_p, tuple(zip(indices, order, strict=True)), kind="chow"))
    options.sort(key=lambda o: -o.log_p)
    return options[:MAX_GROUP_OPTIONS]


def _compositions(size: int) -> list[tuple[int, ...]]:
    """Ways to cut a run of ``size`` touching tiles into consecutive sets of 3 or 4."""
    if size == 0:
        return [()]
    out = []
    for part in (3, 4):
        if size >= part:
            out.extend((part,) + rest for rest in _compositions(size - part))
    return out


def _group_options(readings: list[TileReading], indices: tuple[int, ...]) -> tuple[_Option, ...]:
    """Exposed tiles in one touching run: every split into legal sets, best first."""
    splits = _compositions(len(indices))
    if not splits:
        raise InputError(f"{len(indices)} touching tiles in front of the hand cannot be split into sets "
                         "of 3 or 4; leave a gap between the exposed sets")
    options: list[_Option] = []
    for split in splits:
        parts, start = [], 0
        for size in split:
            parts.append(indices[start:start + size])
            start += size
        combos = [_Option(0.0, (), split=())]
        for part in parts:
            part_options = _set_options(readings, part)[:20]
            combos = [_Option(c.log_p + o.log_p, c.codes + o.codes, kind=f"{c.kind or ''},{o.kind}",
                              split=c.split + (part,)) for c in combos for o in part_options]
            combos.sort(key=lambda o: -o.log_p)
            combos = combos[:MAX_GROUP_OPTIONS]
        options.extend(_Option(c.log_p, c.codes, kind=c.kind.strip(","), split=c.split) for c in combos)
    options.sort(key=lambda o: -o.log_p)
    return tuple(options[:MAX_GROUP_OPTIONS])


def _kong_options(readings: list[TileReading], indices: tuple[int, ...]) -> tuple[_Option, ...]:
    """A concealed kong: one face for all four tiles. A back shows nothing, so it fits any face; with
    four backs every face is equally likely and only the other tiles of the hand can narrow it."""
    options = []
    for code in SET_TILE_CODES:
        p = 1.0
        for i in indices:
            p *= min(1.0, readings[i].probability_of(code, FLOOR) + back_mass(readings[i]))
        options.append((p, code))
    total = sum(p for p, _ in options)
    return tuple(_Option(_log(p / total), tuple((i, code) for i in indices), kind="kong", face=code)
                 for p, code in sorted(options, key=lambda item: -item[0]))


def _named_kong(face: str, indices: tuple[int, ...]) -> tuple[_Option, ...]:
    """A concealed kong whose face the player named: that face alone."""
    return (_Option(0.0, tuple((i, face) for i in indices), kind="kong", face=face),)


def _variables(readings: list[TileReading], layout: Layout, kong_faces: Sequence[str] = ()
               ) -> list[_Variable]:
    """One variable per standing tile and flower, one per set. A concealed kong of four backs takes the
    next face the player named (``kong_faces``) unless another tile of the hand reads as that face (the
    kong could not hide it: ``vision.hidden_kong.give_kong_faces`` then says so)."""
    variables: list[_Variable] = []
    named: list[str] = []
    if kong_faces:  # (decoding runs many times a photo; most photos name nothing)
        read_faces = {readings[i].code for g in layout.groups if g.role is not GroupRole.CONCEALED_KONG
                      for i in g.tile_indices}
        named = [face for face in kong_faces if face not in read_faces]
    for group in layout.groups:
        if group.role is GroupRole.CONCEALED:
            for i in group.tile_indices:
                variables.append(_Variable(group.role, (i,), _tile_options(readings[i], i, SET_TILE_CODES)))
        elif group.role is GroupRole.FLOWERS:
            for i in group.tile_indices:
                variables.append(_Variable(group.role, (i,), _tile_options(readings[i], i, FLOWER_CODES)))
        elif group.role is GroupRole.CONCEALED_KONG:
            all_backs = all(back_mass(readings[i]) > 0.5 for i in group.tile_indices)
            options = (_named_kong(named.pop(0), group.tile_indices) if all_backs and named
                       else _kong_options(readings, group.tile_indices))
            variables.append(_Variable(group.role, group.tile_indices, options))
        else:
            variables.append(_Variable(group.role, group.tile_indices,
                                       _group_options(readings, group.tile_indices)))
    return variables


def special_shape_possible(counts: list[int] | tuple[int, ...]) -> bool:
    """A cheap, loose screen before the scorer is asked about a special hand (7 pairs + a pung, 13 or 16
    orphans): counts that fail it cannot be one; those that pass go to the scorer, which decides. Loose:
    any 13 distinct faces pass."""
    odd = [c for c in counts if c % 2]
    if sum(1 for c in counts if c >= 3) and len(odd) <= 1:
        return True
    distinct = sum(1 for c in counts if c)
    return distinct >= 13


class _Judge:
    """Is a whole reading a legal winning hand? A fast structural check on the raw choice first
    (most readings fail it), then the scorer on the few that pass."""

    def __init__(self, rules: Any, table: Any, melds_count: int, context: dict[str, Any]) -> None:
        self.rules = rules
        self.table = table
        self.context = context
        self.melds_count = melds_count
        self._scored: dict[str, bool] = {}
        self._legal: dict[tuple[int, int], list[str | None]] = {}

    def legal_unseen_codes(self, tally: _Tally, unseen: bool) -> list[str | None]:
        """The codes of the unseen tile with which a reading is legal: one reading to build per code.
        Without an ``unseen`` tile, ``[None]`` if the reading is legal as it is; ``[]``: not legal.

        Structure only, from the reading's packed tallies (building a reading costs more): at most 4
        of a face, each flower once, and standing tiles that split into sets and a pair (or a special
        shape). Readings that differ only in their exposed sets share their standing tiles, so the
        answer is kept per tally.
        """
        counts, standing, flowers = tally
        if _TWICE.exceeded(flowers) or _OVER_FOUR.exceeded(counts):
            return []
        key = (standing, counts) if unseen else (standing, 0)
        known = self._legal.get(key)
        if known is None:
            standing_counts = unpack(standing, len(SET_TILE_CODES))
            if not unseen:
                special = self.melds_count == 0 and special_shape_possible(standing_counts)
                known = [None] if special or is_standard_complete(standing_counts) else []
            else:
                known = unseen_codes(standing_counts, unpack(counts, len(SET_TILE_CODES)),
                                     special_shapes=self.melds_count == 0)
            self._legal[key] = known
        return known

    def scores(self, reading: LegalReading) -> bool:
        """The scorer's word: is this a valid win under the rules and table? (asked once per hand)"""
        key = reading.key()
        if key not in self._scored:
            from scoring import hand_from_json, score_hand

            hand = hand_from_json({**reading.hand, "context": self.context})
            report = score_hand(hand, rules=self.rules, table=self.table)
            self._scored[key] = bool(report.valid)
        return self._scored[key]


def _build(readings: list[TileReading], layout: Layout, variables: list[_Variable], choice: tuple[int, ...],
           log_p: float, unseen: str | None = None) -> LegalReading:
    """The reading for one choice; an ``unseen`` code joins the standing tiles (and is the winning tile
    when the layout found none)."""
    codes: dict[int, str] = {}
    groups: list[DecodedGroup] = []
    concealed: list[str] = []
    flowers: list[str] = []
    melds: list[dict[str, Any]] = []
    concealed_indices: list[int] = []
    flower_indices: list[int] = []
    concealed_p = flower_p = 1.0
    for variable, option_index in zip(variables, choice, strict=True):
        option = variable.options[option_index]
        p = math.exp(option.log_p)
        for i, code in option.codes:
            codes[i] = code
        if variable.role is GroupRole.CONCEALED:
            concealed.append(option.codes[0][1])
            concealed_indices.append(variable.tile_indices[0])
            concealed_p *= p
        elif variable.role is GroupRole.FLOWERS:
            flowers.append(option.codes[0][1])
            flower_indices.append(variable.tile_indices[0])
            flower_p *= p
        elif variable.role is GroupRole.CONCEALED_KONG:
            face = option.face or option.codes[0][1]
            melds.append({"kind": "kong", "tiles": [face] * 4, "concealed": True})
            shown = tuple(BACK if back_mass(readings[i]) > 0.5 else face for i in variable.tile_indices)
            codes.update(zip(variable.tile_indices, shown, strict=True))
            groups.append(DecodedGroup(GroupRole.CONCEALED_KONG, variable.tile_indices, shown, "kong", p))
        else:
            kinds = (option.kind or "").split(",")
            by_index = dict(option.codes)
            for kind, part in zip(kinds, option.split, strict=True):
                part_codes = tuple(by_index[i] for i in part)
                melds.append({"kind": kind, "tiles": sorted_codes(list(part_codes)), "concealed": False})
                part_p = math.exp(sum(_log(readings[i].probability_of(by_index[i], FLOOR)) for i in part))
                groups.append(DecodedGroup(GroupRole.MELD, part, part_codes, kind, part_p))
    groups.insert(0, DecodedGroup(GroupRole.CONCEALED, tuple(concealed_indices),
                                  tuple(codes[i] for i in concealed_indices), None, concealed_p))
    if flower_indices:
        groups.append(DecodedGroup(GroupRole.FLOWERS, tuple(flower_indices),
                                   tuple(codes[i] for i in flower_indices), None, flower_p))
    for i in layout.ignored:
        codes.setdefault(i, readings[i].code)
    if layout.winning_index is not None:
        winning_tile = codes[layout.winning_index]
    else:
        winning_tile = unseen if unseen is not None else codes[concealed_indices[-1]]
    if unseen is not None:
        concealed.append(unseen)
    hand = {"concealed": sorted_codes(concealed), "melds": melds, "flowers": sorted_codes(flowers),
            "winning_tile": winning_tile}
    return LegalReading(codes=codes, groups=tuple(groups), hand=hand, probability=math.exp(log_p),
                        unseen=unseen)


#: A reading's face counts over the whole hand, over the standing tiles, and its flowers, packed
#: (``vision.packed_tallies``).
_Tally = tuple[int, int, int]
_OVER_FOUR = Limit(4, len(SET_TILE_CODES))
_TWICE = Limit(1, len(FLOWER_CODES))


def _option_tally(role: GroupRole, option: _Option) -> _Tally:
    """What one option adds to a reading's tallies."""
    if role is GroupRole.CONCEALED:
        face = pack([_INDEX[option.codes[0][1]]])
        return face, face, 0
    if role is GroupRole.FLOWERS:
        return 0, 0, pack([FLOWER_CODES.index(option.codes[0][1])])
    if role is GroupRole.CONCEALED_KONG:
        return pack([_INDEX[option.face or option.codes[0][1]]], weight=4), 0, 0
    return pack(_INDEX[code] for _, code in option.codes), 0, 0


def _best_first(variables: list[_Variable]):
    """Yield (log_p, choice, tally) over all combinations of variable options, most probable first.
    Each combination is pushed by one whose option at ``last`` is one lower, with that one's tally:
    its own is made when it is popped (most pushed combinations never are), by swapping that
    variable's share."""
    n = len(variables)
    shares = [[_option_tally(v.role, o) for o in v.options] for v in variables]
    start = (0,) * n
    first = tuple(sum(share[0][part] for share in shares) for part in range(3))
    heap = [(-sum(v.options[0].log_p for v in variables), start, -1, first)]
    while heap:
        negative, choice, last, tally = heapq.heappop(heap)
        if last >= 0:
            k = choice[last]
            (c0, s0, f0), (c1, s1, f1) = shares[last][k - 1], shares[last][k]
            tally = (tally[0] - c0 + c1, tally[1] - s0 + s1, tally[2] - f0 + f1)
        yield -negative, choice, tally
        for j in range(max(last, 0), n):
            options = variables[j].options
            k = choice[j]
            if k + 1 < len(options):
                step = options[k].log_p - options[k + 1].log_p
                heapq.heappush(heap, (negative + step, choice[:j] + (k + 1,) + choice[j + 1:], j, tally))


def expected_standing_tiles(layout: Layout, hand_size: int = HAND_SIZE) -> int:
    """The standing tiles a winning hand of ``hand_size`` tiles (a kong counting as 3) leaves once its
    sets lie on the table: 17 - 3 per set in the 16-tile game, 14 - 3 per set in a 13-tile one."""
    sets = 0
    for group in layout.groups:
        if group.role is GroupRole.CONCEALED_KONG:
            sets += 1
        elif group.role is GroupRole.MELD:
            size = len(group.tile_indices)
            sets += min((len(c) for c in _compositions(size)), default=size // 3)
    return hand_size - 3 * sets


def hand_size_of(rules: Any) -> int:
    """The tiles of a complete hand under ``rules`` (an id, a path or a ``RuleSet``), a kong as 3."""
    from scoring import load_ruleset

    return load_ruleset(rules).hand_tiles + 1


@dataclass
class _Found:
    """What the best-first search found: the best legal reading, its equally probable completions
    (other codes for the unseen tile), the other legal runners-up, and the probability mass seen."""

    best: LegalReading | None = None
    best_log_p: float = 0.0
    completions: list[LegalReading] = field(default_factory=list)
    alternatives: list[LegalReading] = field(default_factory=list)
    legal_mass: float = 0.0
    examined_mass: float = 0.0
    searched: int = 0  # readings of the seen tiles taken from the best-first order
    best_at: int = 0  # ``searched`` when the best was found
    complete: bool = True  # every reading within ALTERNATIVE_RATIO of the best was examined
    timed_out: bool = False  # the search stopped at its budget's deadline

    def add(self, reading: LegalReading, log_p: float) -> None:
        self.legal_mass += reading.probability
        if self.best is None:
            self.best, self.best_log_p, self.best_at = reading, log_p, self.searched
        elif self.is_completion(reading):
            self.completions.append(reading)
        elif len(self.alternatives) < MAX_ALTERNATIVES:
            self.alternatives.append(reading)

    def is_completion(self, reading: LegalReading) -> bool:
        """Same seen tiles as the best reading, another code for the unseen tile."""
        if self.best is None or reading.unseen is None or reading.codes != self.best.codes:
            return False
        return reading.unseen not in {self.best.unseen, *(c.unseen for c in self.completions)}


def _search(readings: list[TileReading], layout: Layout, variables: list[_Variable], judge: _Judge,
            unseen: bool, limit: int, budget: Budget | None) -> _Found:
    """Best-first over the seen tiles' options; each choice yields its legal readings (one per code of
    the unseen tile that completes it, at the uniform prior), kept until ALTERNATIVE_RATIO, ``limit``
    readings, or the ``budget``'s deadline (its clock read every CLOCK_EVERY readings)."""
    found = _Found()
    prior = UNSEEN_LOG_PRIOR if unseen else 0.0
    keys: set[str] = set()
    for log_p, choice, tally in _best_first(variables):
        found.searched += 1
        reading_log_p = log_p + prior
        if found.best is not None and reading_log_p < found.best_log_p + math.log(ALTERNATIVE_RATIO):
            break
        stale = found.best is not None and found.searched - found.best_at > ALTERNATIVE_BUDGET
        if found.searched > limit or stale:
            found.complete = False
            break
        if budget is not None and found.searched % CLOCK_EVERY == 0 and budget.expired():
            found.complete, found.timed_out = False, True
            break
        found.examined_mass += math.exp(log_p)
        for code in judge.legal_unseen_codes(tally, unseen):
            reading = _build(readings, layout, variables, choice, reading_log_p, code)
            key = reading.key()
            if key in keys or not judge.scores(reading):
                continue
            keys.add(key)
            found.add(reading, reading_log_p)
    return found


def _changes(readings: list[TileReading], layout: Layout, best: LegalReading) -> list[TileChange]:
    """Seen tiles whose decoded code is not the classifier's first choice; refused (InputError) when
    together they are too unlikely to believe (MIN_LIKELIHOOD_RATIO) or too many (MAX_CHANGES); the
    refusal names the ``--fix`` flags that would read the hand so (``vision.tile_fixes``)."""
    changes = []
    for i, code in sorted(best.codes.items()):
        top1 = readings[i].code
        if i in layout.ignored or code == top1:
            continue
        changes.append(TileChange(i, top1, readings[i].confidence, code,
                                  readings[i].probability_of(code, FLOOR),
                                  tile_place(i, best.groups, readings, layout.winning_index)))
    ratio = math.prod(max(c.decoded_probability, FLOOR) / max(c.top1_probability, FLOOR) for c in changes)
    if ratio < MIN_LIKELIHOOD_RATIO:
        raise _unbelieved("needs changes the classifier finds unlikely", changes)
    if len(changes) > MAX_CHANGES:
        raise _unbelieved(f"reads {len(changes)} tiles otherwise than the classifier, too many to trust",
                          changes)
    return changes


def _unbelieved(why: str, changes: list[TileChange]) -> UnbelievedReadingError:
    """The refusal of a reading whose ``changes`` are not believed, naming them and their fixes."""
    listed = ", ".join(c.describe(with_probability=True) for c in changes[:6])
    pairs = tuple((c.top1, c.decoded) for c in changes)
    fixes = " ".join(f"--fix {top1}={decoded}" for top1, decoded in pairs[:6])
    return UnbelievedReadingError(f"not a winning hand as read: the nearest winning hand {why} ({listed}); "
                                  f"if the tiles are so, say it: {fixes}", pairs)


#: Start of the layout's warning that no winning tile is shown (``vision.layout.winning.winning_tile``).
_NO_WINNER_SHOWN = "the photo does not show which tile won"


def _warnings(layout: Layout, best: LegalReading, changes: list[TileChange]) -> list[str]:
    """The layout's warnings and the decoder's own. The layout's "every possible winning tile is
    considered" is dropped when the unseen tile is taken as the winning tile (it no longer holds;
    the pipeline says what the unseen tile was read as). A concealed kong of four backs is told of
    once it is scored (``vision.hidden_kong``), since its warning says what its faces would total."""
    unseen_wins = best.unseen is not None and layout.winning_index is None
    warnings = [w for w in layout.warnings if not (unseen_wins and w.startswith(_NO_WINNER_SHOWN))]
    if changes:
        warnings.append("the first reading was not a legal winning hand; changed "
                        + ", ".join(c.describe() for c in changes))
    return warnings


def decode_hand(readings: list[TileReading], layout: Layout, rules: Any = "taiwan", table: Any = None,
                context: dict[str, Any] | None = None, limit: int = SEARCH_BUDGET,
                infer_unseen: bool = True, kong_faces: Sequence[str] = (),
                budget: Budget | None = None) -> HandReading:
    """The most probable legal winning hand for these readings laid out this way (``kong_faces``: the
    faces the player named for concealed kongs of four backs, :func:`_variables`). One search examines
    at most ``limit`` readings, and no more than ``budget`` (the photo's, ``vision.budget``) has left,
    before its deadline; the readings it examined are spent from ``budget``.

    When the standing row is one tile short (and ``infer_unseen``), one unseen tile joins the hand
    (``vision.unseen``); it is the winning tile if the layout found none, else a plain concealed tile.
    Raises InputError when no legal reading exists among the candidates (wrong tile count, or a
    hand that is not a winning hand however its tiles are read), or none was found in the budget.
    """
    concealed_group = next(g for g in layout.groups if g.role is GroupRole.CONCEALED)
    standing = len(concealed_group.tile_indices)
    size = hand_size_of(rules)
    unseen = unseen_tiles(standing, expected_standing_tiles(layout, size), infer_unseen, size) == 1
    variables = _variables(readings, layout, kong_faces)
    melds_count = sum(1 for g in layout.groups if g.role in (GroupRole.MELD, GroupRole.CONCEALED_KONG))
    judge = _Judge(rules, table, melds_count, context or {})
    if budget is not None:
        spent = budget.spent()
        if spent is not None:
            raise InputError("not a winning hand: no legal reading found before the photo's search budget "
                             f"({spent.limits.readings} readings) was spent")
        if budget.expired():
            raise InputError(f"{time_limit_reason(budget)}; the layouts and looks left were not tried")
        limit = budget.allowance(limit)
    found = _search(readings, layout, variables, judge, unseen, limit, budget)
    if budget is not None:
        budget.spend(min(found.searched, limit))  # the last one counted may be the one not examined
    best = found.best
    if best is None and found.timed_out:
        raise InputError(f"{time_limit_reason(budget)}; the search stopped after {found.searched} readings "
                         "with no legal winning hand")
    if best is None:
        missing = " with one tile not visible (no tile completes it)" if unseen else ""
        raise InputError(f"not a winning hand{missing}: no reading of these tiles within the classifier's "
                         f"alternatives is a legal winning hand (searched {found.searched - 1} readings); "
                         "--annotate shows each tile as read, --fix READ=TRUE corrects one")
    # Among the legal readings, the best one's share. If the search stopped early, every unexamined
    # reading might be legal too, so the share is taken against that mass as well (a lower bound).
    normaliser = found.legal_mass + (0.0 if found.complete else max(0.0, 1.0 - found.examined_mass))
    confidence = best.probability / normaliser if normaliser > 0 else 0.0
    changes = _changes(readings, layout, best)
    unseen_tile = None
    if unseen:
        unseen_tile = UnseenTile(winning=layout.winning_index is None, completions=(best, *found.completions))
    return HandReading(best=best, changes=changes, alternatives=found.alternatives,
                       confidence=min(1.0, confidence), winning_index=layout.winning_index,
                       normaliser=normaliser, warnings=_warnings(layout, best, changes),
                       unseen=unseen_tile)
