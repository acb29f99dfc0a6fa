"""The one protocol of the repairs: a repair looks at the tiles as read (and, for a hand that reads,
at that reading) and proposes :class:`Attempt` s: a changed list of tiles, the test the hand read
from them must pass to be kept, and what is then said of it. A repair reads no hand itself: the
search (``vision.pipeline.looks``) reads each attempt under the photo's budget, keeps the first
that passes and builds the amended result once (:func:`amended`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from scoring.report import ScoreReport
from vision.decode import HandReading
from vision.report.confidence import ConfidenceReport, ScoredAlternative
from vision.types import Layout, TileReading


class HandResult(Protocol):
    """What a repair may look at of a whole reading of the hand (the photo's is
    ``vision.pipeline.PhotoResult``)."""

    readings: list[TileReading]
    layout: Layout | None
    decoded: HandReading | None
    hand: dict[str, Any] | None
    score: ScoreReport | None
    report: ConfidenceReport | None
    warnings: list[str]


#: A reading's own type, handed back as the search's ``read`` made it.
Result = TypeVar("Result", bound=HandResult)

#: A test of the hand read from an attempt's tiles.
Check = Callable[[HandResult], bool]


def always(_: HandResult) -> bool:
    """The test every reading passes."""
    return True


def sees_every_tile(result: HandResult) -> bool:
    """Whether the hand reads with every tile seen (none inferred)."""
    return result.decoded is not None and result.decoded.unseen is None


def more_flowers_than(before: HandResult) -> Check:
    """The test that a reading holds more flowers than ``before``, which reads."""
    held = len((before.hand or {}).get("flowers", []))
    return lambda result: len((result.hand or {}).get("flowers", [])) > held


@dataclass(frozen=True)
class Attempt:
    """Tiles to read the hand from instead, and what keeping that reading means.

    ``keep``: whether the reading counts (the winning tile is the one cut out, no more tiles
    corrected, more flowers held, ...); a reading that fails it is passed over for the next
    attempt. ``warning`` is said of a kept reading when ``warn_if`` holds of it. ``unsure`` makes
    its score not sure (the repair is a guess), with ``note`` in the confidence report.
    ``replaced`` is the reading it replaces, listed as an alternative when the totals differ.
    """

    tiles: tuple[TileReading, ...]
    warning: str
    keep: Check = always
    warn_if: Check = always
    unsure: bool = False
    note: str | None = None
    replaced: ScoredAlternative | None = None


def attempt(tiles: Iterable[TileReading], warning: str, **rest: Any) -> Attempt:
    """An :class:`Attempt` of ``tiles`` (any iterable), the other fields as :class:`Attempt`'s."""
    return Attempt(tuple(tiles), warning, **rest)


def amended(result: Result, chosen: Attempt) -> Result:
    """``result`` (read from ``chosen``'s tiles) with what ``chosen`` says of it: a new value, the
    reading itself unchanged."""
    warnings = [*result.warnings, chosen.warning] if chosen.warn_if(result) else list(result.warnings)
    report = result.report
    if report is not None and (chosen.unsure or chosen.note or chosen.replaced):
        notes = [*report.notes, chosen.note] if chosen.note else list(report.notes)
        alternatives = list(report.alternatives)
        total = None if result.score is None else result.score.total
        if chosen.replaced is not None and total is not None and chosen.replaced.total != total:
            alternatives.append(chosen.replaced)
        report = replace(report, score_stable=report.score_stable and not chosen.unsure, notes=notes,
                         alternatives=alternatives)
    return replace(result, warnings=warnings, report=report)
