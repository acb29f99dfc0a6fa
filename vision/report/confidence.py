"""The confidence report: how sure each tile, each group and the hand are, and whether the *score* is.

A player does not care that tile 7 is 80% sure if every plausible reading of it scores the same; they
care when a plausible misreading would change the total. So besides per-tile top-3 and per-group
probabilities, the report scores the decoder's legal runners-up (and, when the photo does not show
the winning tile, every tile that could have won) and lists those whose total differs. When a tile
of the hand is not visible at all, every tile that completes the hand is scored and listed with its
total (:func:`choose_unseen_tile`): the player sees what the guess is worth.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from vision.decode import DecodedGroup, HandReading, LegalReading
from vision.decode.unseen import UnseenTile
from vision.report.tile_places import tile_place
from vision.types import TileReading, hand_json

if TYPE_CHECKING:
    from scoring import Hand, RuleSet, ScoreReport, TableSettings, WinContext

_Choice = TypeVar("_Choice")

#: Runners-up at least this probable (as a share of the legal readings) are scored and reported.
REPORT_SHARE = 0.01
#: The score is called stable when the readings that are not known to give the same total (those
#: that change it, and those too unlikely to be scored or beyond the decoder's list) hold less than
#: this share. Counting only the runners-up that were seen to change the total called hands "sure"
#: when the mass was spread thinly: a concealed kong of four backs has ~34 equally likely faces,
#: the decoder keeps 8, and all 8 scored alike while a dragon face would not.
UNSTABLE_SHARE = 0.05
#: A group of the reported reading that the classifier gives less than this (its tiles' probabilities
#: multiplied) is read against the classifier's word: the legal reading was forced on tiles that look
#: like something else (a TV remote's buttons beside a real hand read as a pung of 1s at 0.23%, the
#: shared table photo 420188206_..._6793508684794312472, "reading 100%"). Such a score is not called
#: sure. On held-out renders sure calls with such a group are wrong far more often than the others,
#: any bound from 0.1% to 1% serves as well, and half a percent catches the remote.
IMPLAUSIBLE_GROUP = 0.005
#: A hand with a tile not in the photo is never called sure, even when every tile that completes it
#: scores alike: the photo hides part of the hand, and a hidden flower changes no tile count, so
#: nothing shows it is missing. On held-out renders such sure calls are wrong far more often than the
#: others (a flower hidden, misread, or found where none is).
HIDDEN_NOTE = ("a tile of the hand is not in the photo, so others may be hidden too (a flower changes "
               "no tile count); the score is not called sure")


#: The one statement of how far to trust a scored photo: the text's first line, the JSON's
#: ``statement`` and the picture's banner all say it, from :attr:`ConfidenceReport.score_stable`
#: alone. The reading's share among the legal readings is not said: a hand forced onto the only legal
#: reading is "100%" of them while its tiles may be misread, and a player reads the figure as "the
#: tiles are right".
SCORE_SURE = "score sure"
SCORE_NOT_SURE = "score NOT sure: check the tiles"


@dataclass(frozen=True)
class ScoredAlternative:
    """A plausible other reading and what it would score."""

    description: str
    share: float | None  # probability share among legal readings; None for winning-tile choices
    total: float | int | None
    valid: bool
    hand: Hand

    def to_json(self) -> dict[str, Any]:
        return {"reading": self.description,
                "probability": None if self.share is None else round(self.share, 4),
                "total": self.total, "valid": self.valid, "hand": hand_json(self.hand)}


@dataclass
class ConfidenceReport:
    """Per-group confidence, hand confidence, and the score-changing alternatives."""

    hand_confidence: float
    groups: list[dict[str, Any]]
    score_stable: bool
    alternatives: list[ScoredAlternative] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def statement(self) -> str:
        """How far to trust the total, in the words every output uses (:data:`SCORE_SURE`)."""
        return SCORE_SURE if self.score_stable else SCORE_NOT_SURE

    def to_json(self) -> dict[str, Any]:
        return {"hand": round(self.hand_confidence, 4), "groups": self.groups,
                "score_stable": self.score_stable, "statement": self.statement,
                "alternatives": [a.to_json() for a in self.alternatives], "notes": self.notes}


def implausible_groups(reading: LegalReading) -> list[DecodedGroup]:
    """The groups of ``reading`` that the classifier gives less than :data:`IMPLAUSIBLE_GROUP`."""
    return [group for group in reading.groups if group.probability < IMPLAUSIBLE_GROUP]


def implausible_note(group: DecodedGroup) -> str:
    """What the report and the warnings say of such a group: which tiles to check, and how unlikely."""
    return (f"the {group.kind or group.role.value} {' '.join(group.codes)} is read against the classifier "
            f"({group.probability:.1%} as a whole): check those tiles")


def tile_alternatives(reading: TileReading, chosen: str, count: int = 3) -> list[dict[str, Any]]:
    """The classifier's top candidates other than ``chosen`` (top-3 in all with the chosen one)."""
    others = [(code, p) for code, p in reading.candidates if code != chosen][: count - 1]
    return [{"code": code, "confidence": round(p, 4)} for code, p in others]


def score_reading(hand: Hand, context: WinContext, rules: RuleSet | str,
                  table: TableSettings | None) -> ScoreReport:
    """The score report of a decoded hand under the photo's context."""
    from scoring import score_hand

    return score_hand(replace(hand, context=context), rules=rules, table=table)


def _describe(best: LegalReading, other: LegalReading, readings: list[TileReading],
              winning_index: int | None) -> str:
    """How ``other`` differs from ``best``, each tile named by its place in the hand."""
    changed = [f"{best.codes[i]} -> {code} ({tile_place(i, best.groups, readings, winning_index)})"
               for i, code in sorted(other.codes.items()) if best.codes.get(i) != code]
    if best.unseen != other.unseen:
        changed.append(f"unseen tile {other.unseen}")
    if best.hand.winning_tile != other.hand.winning_tile:
        changed.append(f"winning tile {other.hand.winning_tile}")
    return ", ".join(changed) or "same tiles, other grouping"


def _total_key(report: ScoreReport) -> float:
    """A score report's total for sorting: an invalid hand has none and sorts as 0."""
    return report.total if report.total is not None else 0


def lowest_first(scored: list[tuple[_Choice, ScoreReport]]) -> list[tuple[_Choice, ScoreReport]]:
    """Guessed choices with their score reports, the valid ones (all, if none is valid) by total, lowest
    first and the first of equal totals first: a guess reports the lowest, so nobody is overpaid."""
    valid = [item for item in scored if item[1].valid] or scored
    return sorted(valid, key=lambda item: _total_key(item[1]))


def choose_winning_tile(hand: Hand, context: WinContext, rules: RuleSet | str,
                        table: TableSettings | None) -> tuple[Hand, ScoreReport, list[ScoredAlternative]]:
    """When the photo does not show the winning tile, score every standing tile as the winner.

    The reported hand is the *lowest* valid total (nobody is overpaid on a guess); the others become
    alternatives so the player sees what showing the winning tile would change.
    """
    scored = []
    for code in dict.fromkeys(hand.concealed):
        candidate = replace(hand, winning_tile=code)
        report = score_reading(candidate, context, rules, table)
        scored.append((candidate, report))
    ranked = lowest_first(scored)
    chosen_hand, chosen_report = ranked[0]
    alternatives = [ScoredAlternative(f"winning tile {h.winning_tile}", None, r.total, bool(r.valid), h)
                    for h, r in ranked[1:] if r.total != chosen_report.total]
    return chosen_hand, chosen_report, alternatives


def choose_unseen_tile(decoded: HandReading, context: WinContext, rules: RuleSet | str,
                       table: TableSettings | None
                       ) -> tuple[LegalReading, ScoreReport, list[ScoredAlternative], str]:
    """When one tile is not visible, score every tile that completes the hand.

    The completions are equally probable (the photo shows nothing of the tile), so the *lowest* valid
    total is reported, whether the unseen tile is the winning tile or a plain concealed one: nobody is
    overpaid on a guess (as :func:`choose_winning_tile`). Every other completion becomes an
    alternative with its total and share, whatever its total, since it is another hand. Returns the
    reported reading, its score report, the alternatives and the warning that says all this.
    """
    unseen: UnseenTile | None = decoded.unseen
    if unseen is None:
        raise ValueError("choose_unseen_tile needs a decoded hand with an unseen tile")
    scored = [(r, score_reading(r.hand, context, rules, table)) for r in unseen.completions]
    chosen, chosen_report = lowest_first(scored)[0]
    others = sorted(((r, report) for r, report in scored if r is not chosen), key=lambda i: _total_key(i[1]))
    alternatives = [ScoredAlternative(f"unseen tile {r.unseen}", decoded.share(r), report.total,
                                      bool(report.valid), r.hand) for r, report in others]
    return chosen, chosen_report, alternatives, _unseen_warning(chosen, others, unseen.winning)


def _unseen_warning(chosen: LegalReading, others: list[tuple[LegalReading, ScoreReport]],
                    winning: bool) -> str:
    if winning:
        head = ("the winning tile is not visible (hidden or outside the picture, none lies across or apart); "
                f"read as {chosen.unseen}")
    else:
        head = f"one tile is not visible (hidden or outside the picture); read as {chosen.unseen}"
    if not others:
        return f"{head}, the only tile that completes the hand"
    listed = ", ".join(f"{r.unseen} (total {report.total})" for r, report in others)
    return f"{head}, other tiles that complete the hand: {listed}"


@dataclass(frozen=True)
class _RunnersUp:
    """The scored runners-up: those that change the total, and the share of those that do not."""

    changing: list[ScoredAlternative]
    agreeing_share: float


def _scored_runners_up(decoded: HandReading, best_total: int | None, context: WinContext,
                       rules: RuleSet | str, table: TableSettings | None, reported: LegalReading,
                       readings: list[TileReading], winning_tile: str | None = None) -> _RunnersUp:
    """The decoder's legal runners-up that are plausible (REPORT_SHARE) and score another total than the
    reported reading, described by how they differ from it, and the share of those that score the
    same. Each is scored with the winning tile the player named (``winning_tile``) where it holds
    one; else, with the winning tile not shown, at its lowest winning-tile choice, as the reported
    hand is."""
    changing = []
    agreeing = 0.0
    for other in decoded.alternatives:
        share = decoded.share(other)
        if share < REPORT_SHARE:
            continue
        hand = other.hand
        if winning_tile is not None and winning_tile in hand.concealed:
            hand = replace(hand, winning_tile=winning_tile)
            report = score_reading(hand, context, rules, table)
        elif not decoded.winning_known:
            hand, report, _ = choose_winning_tile(hand, context, rules, table)
        else:
            report = score_reading(hand, context, rules, table)
        if report.total != best_total:
            description = _describe(reported, other, readings, decoded.winning_index)
            changing.append(ScoredAlternative(description, share, report.total, bool(report.valid), hand))
        else:
            agreeing += share
    return _RunnersUp(changing, agreeing)


def build_report(readings: list[TileReading], decoded: HandReading, best_total: int | None,
                 context: WinContext, rules: RuleSet | str, table: TableSettings | None,
                 winning_alternatives: list[ScoredAlternative] | None = None,
                 unseen_alternatives: list[ScoredAlternative] | None = None,
                 reported: LegalReading | None = None, set_aside: int = 0,
                 maybe_flowers: int = 0, kong_alternatives: list[ScoredAlternative] | None = None,
                 winning_tile: str | None = None) -> ConfidenceReport:
    """Score the plausible runners-up and collect everything the confidence report shows.

    ``unseen_alternatives`` are the other completions of an unseen tile (:func:`choose_unseen_tile`)
    and ``reported`` the completion reported, when it is not ``decoded.best``. ``set_aside`` counts
    the tiles among the sets that the layout left out (``Layout.set_aside``): with any, the score is
    not called stable (on 550 held-out renders, such hands' "sure" totals were wrong 1 time in 3).
    ``maybe_flowers`` counts the tiles left out beside the hand that may be flowers
    (``vision.repairs.stray_flowers.maybe_flowers``): with any, the score is not called stable either.
    ``kong_alternatives`` are the other totals of a concealed kong of four backs
    (``vision.repairs.hidden_kong``): with any, neither; nor with a tile inferred (:data:`HIDDEN_NOTE`).
    ``winning_tile`` is the one the player named
    (``--winning-tile``): the runners-up are scored with it too.
    """
    groups = []
    for number, group in enumerate(decoded.best.groups):
        groups.append({"group": number, "role": group.role.value, "kind": group.kind,
                       "tiles": list(group.codes), "confidence": round(group.probability, 4)})
    completions = list(unseen_alternatives or [])
    reported = reported or decoded.best
    runners_up = _scored_runners_up(decoded, best_total, context, rules, table, reported, readings,
                                    winning_tile)
    kong_alternatives = list(kong_alternatives or [])
    alternatives = list(winning_alternatives or []) + completions + kong_alternatives + runners_up.changing
    # Unstable when the winning tile or an unseen tile is a guess that changes the total (the winning
    # tile's alternatives are only those with another total), or when the readings known to give the
    # reported total hold, together, less than all but UNSTABLE_SHARE: the rest may change it (many
    # unlikely readings can add up to a likely other total).
    same_total = (decoded.share(reported) + runners_up.agreeing_share
                  + sum(a.share or 0.0 for a in completions if a.total == best_total))
    winner_guessed = bool(winning_alternatives)
    unseen_guessed = any(a.total != best_total for a in completions)
    hidden = decoded.unseen is not None
    notes: list[str] = []
    if not decoded.winning_known and winning_alternatives:
        notes.append("the winning tile is not shown; the lowest total is reported")
    if completions:
        notes.append(f"one tile is not visible and {len(completions) + 1} tiles complete the hand; "
                     "the lowest total is reported")
    if decoded.changes:
        notes.append(f"{len(decoded.changes)} tile(s) changed from the first reading to make a legal hand")
    if set_aside:
        notes.append(f"{set_aside} tile(s) among the sets fit no set and were left out; a set may be missing")
    if maybe_flowers:
        notes.append(f"{maybe_flowers} tile(s) left out beside the hand may be flowers; the total would "
                     "lack them")
    if hidden:
        notes.append(HIDDEN_NOTE)
    implausible = implausible_groups(decoded.best)
    notes.extend(implausible_note(group) for group in implausible)
    if kong_alternatives:
        notes.append("a concealed kong shows four backs and its face changes the total; the lowest total "
                     "is reported")
    return ConfidenceReport(hand_confidence=decoded.confidence, groups=groups,
                            score_stable=not (winner_guessed or unseen_guessed or hidden or set_aside
                                              or maybe_flowers or kong_alternatives or implausible
                                              or same_total < 1.0 - UNSTABLE_SHARE),
                            alternatives=alternatives, notes=notes)
