"""The decoded hand scored: a tile the photo leaves to guess (an unseen tile, a winning tile not
shown, the face of a concealed kong of four backs) is scored for every choice and the lowest total
reported, unless the player named it (``vision.named_tiles``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from vision.decode import HandReading, LegalReading
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.repairs.hidden_kong import (
    choose_hidden_kong_faces,
    give_kong_faces,
    hidden_kong_melds,
    hidden_kong_warning,
)
from vision.report.confidence import (
    ScoredAlternative,
    choose_unseen_tile,
    choose_winning_tile,
    score_reading,
)

if TYPE_CHECKING:
    from scoring import Hand, RuleSet, ScoreReport, TableSettings, WinContext


@dataclass
class ScoredHand:
    """The decoded hand as scored. When the winning tile or an unseen tile is a guess, ``hand`` is the
    choice with the lowest total (``reported`` its reading) and the other choices are alternatives."""

    hand: Hand
    report: ScoreReport
    reported: LegalReading
    winning_alternatives: list[ScoredAlternative] | None = None
    unseen_alternatives: list[ScoredAlternative] | None = None
    kong_alternatives: list[ScoredAlternative] | None = None
    warnings: list[str] = field(default_factory=list)


def score_decoded(decoded: HandReading, ctx: WinContext, rules: RuleSet | str,
                  table: TableSettings | None, named: NamedTiles = NOTHING_NAMED) -> ScoredHand:
    """Score the decoded hand; a tile the photo leaves to guess (unseen, or the winning tile not shown)
    is scored for every choice, since the report must say what the guess is worth, and so is every
    face a concealed kong of four backs may hide (``vision.repairs.hidden_kong``), unless the player named
    it (``named``: ``--winning-tile``, ``--kong-face``; ``vision.named_tiles``)."""
    scored = score_guesses(decoded, ctx, rules, table, named.winning_tile)
    hidden = hidden_kong_melds(decoded.best)
    if not hidden and not named.kong_faces:
        return scored
    hand, left, warnings = give_kong_faces(scored.hand, hidden, list(named.kong_faces))
    faces = [hand.melds[position].tiles[0] for position in hidden if position not in left]
    if faces:
        warnings.insert(0, f"concealed kong(s) of four backs scored as {', '.join(faces)}, as --kong-face "
                           "says")
    alternatives: list[ScoredAlternative] = []
    if left:
        hand, report, alternatives = choose_hidden_kong_faces(hand, left, ctx, rules, table)
        warnings.append(hidden_kong_warning(hand, left, alternatives))
    elif faces:
        report = score_reading(hand, ctx, rules, table)
    else:
        report = scored.report
    return replace(scored, hand=hand, report=report, kong_alternatives=alternatives,
                   warnings=scored.warnings + warnings)


def score_guesses(decoded: HandReading, ctx: WinContext, rules: RuleSet | str,
                  table: TableSettings | None, winning: str | None = None) -> ScoredHand:
    """The decoded hand scored, with an unseen tile or a winning tile not shown chosen (lowest total),
    or with the winning tile the player named (``winning``) where the hand as read holds it."""
    if decoded.unseen is not None:
        completing = [r for r in decoded.unseen.completions if r.unseen == winning]
        if decoded.unseen.winning and completing:
            reported = completing[0]
            return ScoredHand(reported.hand, score_reading(reported.hand, ctx, rules, table), reported,
                               warnings=[f"the winning tile is not visible; scored as {winning}, as "
                                         "--winning-tile says"])
        reported, report, alternatives, warning = choose_unseen_tile(decoded, ctx, rules, table)
        scored = ScoredHand(reported.hand, report, reported, unseen_alternatives=alternatives,
                             warnings=[warning])
        if winning is not None and decoded.unseen.winning:
            return replace(scored, warnings=[*scored.warnings, f"--winning-tile {winning} not used: it does "
                                             "not complete the hand as read"])
        return with_named_winner(scored, winning, ctx, rules, table)
    if decoded.winning_known:
        hand = decoded.hand
        scored = ScoredHand(hand, score_reading(hand, ctx, rules, table), decoded.best)
        return with_named_winner(scored, winning, ctx, rules, table)
    if winning is not None and winning in decoded.hand.concealed:
        hand = replace(decoded.hand, winning_tile=winning)
        return ScoredHand(hand, score_reading(hand, ctx, rules, table), decoded.best,
                           warnings=[f"the photo does not show which tile won; scored with {winning}, as "
                                     "--winning-tile says"])
    hand, report, alternatives = choose_winning_tile(decoded.hand, ctx, rules, table)
    scored = ScoredHand(hand, report, decoded.best, winning_alternatives=alternatives)
    return with_named_winner(scored, winning, ctx, rules, table)


def with_named_winner(scored: ScoredHand, winning: str | None, ctx: WinContext, rules: RuleSet | str,
                       table: TableSettings | None) -> ScoredHand:
    """``scored`` with the winning tile the player named, where it differs from the hand's and the
    hand holds it (the player saw the win; the photo may show the tile lying in the wrong place, or
    read it wrong); a warning either way."""
    shown = scored.hand.winning_tile
    if winning is None or winning == shown:
        return scored
    if winning not in scored.hand.concealed:
        return replace(scored, warnings=[*scored.warnings, f"--winning-tile {winning} not used: the hand as "
                                         f"read holds no {winning}"])
    hand = replace(scored.hand, winning_tile=winning)
    report = score_reading(hand, ctx, rules, table)
    return replace(scored, hand=hand, report=report, winning_alternatives=None,
                   warnings=[*scored.warnings, f"the photo shows {shown} as the winning tile; scored with "
                             f"{winning}, as --winning-tile says"])
