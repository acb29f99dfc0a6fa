"""The decoder's answer for one layout: the most probable legal winning hand, what it changed from
the classifier's first choices, and whether those changes are believable (``decode_hand``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scoring.hand import Hand, WinContext
from vision.decode.budget import Budget, time_limit_reason
from vision.decode.judge import Judge
from vision.decode.options import FLOOR, compositions, search_variables
from vision.decode.refusals import refusal_error
from vision.decode.search import search
from vision.decode.unseen import UnseenTile, unseen_count
from vision.report.tile_places import tile_place
from vision.types import HAND_SIZE, GroupRole, Layout, LegalReading, Refusal, TileReading

if TYPE_CHECKING:
    from scoring import RuleSet, TableSettings

#: A legal reading this much less likely than the tiles as read is not believed (a rack of tiles
#: that is no winning hand can always be "corrected" into one by enough unlikely changes).
MIN_LIKELIHOOD_RATIO = 1e-4
#: A legal reading that changes more tiles than this from the classifier's first choice is not
#: believed either, however likely the changes: held-out renders almost never need more, and the
#: real table photos that did were no winning hand at all (a mid-game row and three discards read
#: as a pung; a row of winds read as bamboos).
MAX_CHANGES = 3
#: Whole-hand readings examined before giving up.
SEARCH_BUDGET = 30_000


@dataclass(frozen=True)
class TileChange:
    """A tile whose decoded code differs from the classifier's first choice; ``place`` says where it
    lies in words a player can find (``vision.report.tile_places``), since ``index`` means nothing to one."""

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
    def hand(self) -> Hand:
        return self.best.hand

    @property
    def codes(self) -> dict[int, str]:
        return self.best.codes

    @property
    def top1_legal(self) -> bool:
        return not self.changes


def expected_standing_tiles(layout: Layout, hand_size: int = HAND_SIZE) -> int:
    """The standing tiles a winning hand of ``hand_size`` tiles (a kong counting as 3) leaves once its
    sets lie on the table: 17 - 3 per set in the 16-tile game, 14 - 3 per set in a 13-tile one."""
    sets = 0
    for group in layout.groups:
        if group.role is GroupRole.CONCEALED_KONG:
            sets += 1
        elif group.role is GroupRole.MELD:
            size = len(group.tile_indices)
            sets += min((len(c) for c in compositions(size)), default=size // 3)
    return hand_size - 3 * sets


def hand_size_of(rules: RuleSet | str) -> int:
    """The tiles of a complete hand under ``rules`` (an id, a path or a ``RuleSet``), a kong as 3."""
    from scoring import load_ruleset

    return load_ruleset(rules).hand_tiles + 1


def _changes(readings: list[TileReading], layout: Layout, best: LegalReading) -> list[TileChange] | Refusal:
    """Seen tiles whose decoded code is not the classifier's first choice; refused when
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
        return _unbelieved("needs changes the classifier finds unlikely", changes)
    if len(changes) > MAX_CHANGES:
        return _unbelieved(f"reads {len(changes)} tiles otherwise than the classifier, too many to trust",
                           changes)
    return changes


def _unbelieved(why: str, changes: list[TileChange]) -> Refusal:
    """The refusal of a reading whose ``changes`` are not believed, naming them and their fixes."""
    listed = ", ".join(c.describe(with_probability=True) for c in changes[:6])
    pairs = tuple((c.top1, c.decoded) for c in changes)
    fixes = " ".join(f"--fix {top1}={decoded}" for top1, decoded in pairs[:6])
    return Refusal(f"not a winning hand as read: the nearest winning hand {why} ({listed}); "
                   f"if the tiles are so, say it: {fixes}", pairs)


#: Start of the layout's warning that no winning tile is shown (``vision.layout.winning.winning_tile``).
_NO_WINNER_SHOWN = "the photo does not show which tile won"


def _warnings(layout: Layout, best: LegalReading, changes: list[TileChange]) -> list[str]:
    """The layout's warnings and the decoder's own. The layout's "every possible winning tile is
    considered" is dropped when the unseen tile is taken as the winning tile (it no longer holds;
    the pipeline says what the unseen tile was read as). A concealed kong of four backs is told of
    once it is scored (``vision.repairs.hidden_kong``), since its warning says what its faces would total."""
    unseen_wins = best.unseen is not None and layout.winning_index is None
    warnings = [w for w in layout.warnings if not (unseen_wins and w.startswith(_NO_WINNER_SHOWN))]
    if changes:
        warnings.append("the first reading was not a legal winning hand; changed "
                        + ", ".join(c.describe() for c in changes))
    return warnings


def decode_hand(readings: list[TileReading], layout: Layout, rules: RuleSet | str = "taiwan",
                table: TableSettings | None = None, context: WinContext | None = None,
                limit: int = SEARCH_BUDGET, infer_unseen: bool = True, kong_faces: Sequence[str] = (),
                budget: Budget | None = None) -> HandReading:
    """:func:`decode_reading`, its refusal raised as InputError of its kind (``vision.decode.refusals``)."""
    decoded = decode_reading(readings, layout, rules, table, context, limit, infer_unseen, kong_faces, budget)
    if isinstance(decoded, Refusal):
        raise refusal_error(decoded)
    return decoded


def decode_reading(readings: list[TileReading], layout: Layout, rules: RuleSet | str = "taiwan",
                   table: TableSettings | None = None, context: WinContext | None = None,
                   limit: int = SEARCH_BUDGET, infer_unseen: bool = True, kong_faces: Sequence[str] = (),
                   budget: Budget | None = None) -> HandReading | Refusal:
    """The most probable legal winning hand for these readings laid out this way (``kong_faces``: the
    faces the player named for concealed kongs of four backs, :func:`search_variables`). One search examines
    at most ``limit`` readings, and no more than ``budget`` (the photo's, ``vision.decode.budget``) has left,
    before its deadline; the readings it examined are spent from ``budget``.

    When the standing row is one tile short (and ``infer_unseen``), one unseen tile joins the hand
    (``vision.decode.unseen``); it is the winning tile if the layout found none, else a plain concealed tile.
    A :class:`~vision.types.Refusal` when no legal reading exists among the candidates (wrong tile
    count, or a hand that is not a winning hand however its tiles are read), or none was found in
    the budget.
    """
    concealed_group = next(g for g in layout.groups if g.role is GroupRole.CONCEALED)
    standing = len(concealed_group.tile_indices)
    size = hand_size_of(rules)
    count = unseen_count(standing, expected_standing_tiles(layout, size), infer_unseen, size)
    if isinstance(count, Refusal):
        return count
    unseen = count == 1
    variables = search_variables(readings, layout, kong_faces)
    if isinstance(variables, Refusal):
        return variables
    melds_count = sum(1 for g in layout.groups if g.role in (GroupRole.MELD, GroupRole.CONCEALED_KONG))
    judge = Judge(rules, table, melds_count, context or WinContext())
    if budget is not None:
        spent = budget.spent()
        if spent is not None:
            return Refusal("not a winning hand: no legal reading found before the photo's search budget "
                           f"({spent.limits.readings} readings) was spent")
        if budget.expired():
            return Refusal(f"{time_limit_reason(budget)}; the layouts and looks left were not tried")
        limit = budget.allowance(limit)
    found = search(readings, layout, variables, judge, unseen, limit, budget)
    if budget is not None:
        budget.spend(min(found.searched, limit))  # the last one counted may be the one not examined
    best = found.best
    if best is None and found.timed_out:
        return Refusal(f"{time_limit_reason(budget)}; the search stopped after {found.searched} readings "
                       "with no legal winning hand")
    if best is None:
        missing = " with one tile not visible (no tile completes it)" if unseen else ""
        return Refusal(f"not a winning hand{missing}: no reading of these tiles within the classifier's "
                       f"alternatives is a legal winning hand (searched {found.searched - 1} readings); "
                       "--annotate shows each tile as read, --fix READ=TRUE corrects one")
    # Among the legal readings, the best one's share. If the search stopped early, every unexamined
    # reading might be legal too, so the share is taken against that mass as well (a lower bound).
    normaliser = found.legal_mass + (0.0 if found.complete else max(0.0, 1.0 - found.examined_mass))
    confidence = best.probability / normaliser if normaliser > 0 else 0.0
    changes = _changes(readings, layout, best)
    if isinstance(changes, Refusal):
        return changes
    unseen_tile = None
    if unseen:
        unseen_tile = UnseenTile(winning=layout.winning_index is None, completions=(best, *found.completions))
    return HandReading(best=best, changes=changes, alternatives=found.alternatives,
                       confidence=min(1.0, confidence), winning_index=layout.winning_index,
                       normaliser=normaliser, warnings=_warnings(layout, best, changes),
                       unseen=unseen_tile)
