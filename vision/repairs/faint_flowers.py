"""Flowers the detector saw only faintly beside a hand that reads without them.

A faint detection beside the hand (a *spare*: ``vision.repairs.row_completion.spare_tiles``) is read only
when the hand is a tile short without it (``vision.pipeline._read_with_spares``). A flower changes
no tile count, so a flower whose heatmap peak stays under the threshold is never asked for: the hand
reads, legal, a flower short, and its total is called sure (a flower in plain view beside the
sets, its peak just under the threshold, the classifier sure of it).
So after such a hand reads, the spares the classifier is sure are flowers, and that lie beside
the hand rather than half over a tile of it (``vision.repairs.row_completion.overlaps_a_tile``: that tile
found twice), are added, and the hand is read again. The new reading is
kept only when it is the same hand with more flowers. A spare may still be a discarded flower (a
fully concealed hand has no sets for its flowers to lie beside), so such a score is not called
sure, and the total without the faint flowers is listed as an alternative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from scoring.errors import InputError
from vision.layout import flower_mass
from vision.repairs.row_completion import overlaps_a_tile
from vision.report.confidence import ScoredAlternative
from vision.types import TileReading

#: The classifier's flower mass from which a spare is taken for a flower.
FAINT_FLOWER_MASS = 0.9
#: The weakest heatmap peak taken for a faint flower: the spares' floor (0.25) lets in table texture
#: that a badly lit face can turn into a flower reading.
FAINT_FLOWER_SCORE = 0.4
#: Why a hand read with a faint flower is not called sure: where the hand is, a discarded flower can
#: lie too (a flower behind a flat row with no sets, read sure from a faint peak).
FAINT_NOTE = ("a flower found only faintly beside the hand was counted; it may be a discard, so the "
              "score is not called sure")


def faint_flowers(readings: Sequence[TileReading], spares: Sequence[int], hand: dict[str, Any]) -> list[int]:
    """The spares (indices into ``readings``) the classifier is sure are flowers the hand does not
    already hold, one per flower, strongest peak first."""
    held = set(hand.get("flowers", []))
    chosen: list[int] = []
    for index in sorted(spares, key=lambda i: -readings[i].detection.score):
        reading = readings[index]
        if reading.detection.score < FAINT_FLOWER_SCORE or flower_mass(reading) < FAINT_FLOWER_MASS:
            continue
        if reading.code in held or not reading.code.endswith("f"):
            continue
        held.add(reading.code)
        chosen.append(index)
    return chosen


def _same_but_flowers(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Same standing tiles, sets and winning tile; ``second`` holds every flower of ``first``."""
    def melds(hand: dict[str, Any]) -> list[tuple[str, tuple[str, ...], bool]]:
        return sorted((m["kind"], tuple(sorted(m["tiles"])), bool(m["concealed"])) for m in hand["melds"])

    return (sorted(first["concealed"]) == sorted(second["concealed"]) and melds(first) == melds(second)
            and first.get("winning_tile") == second.get("winning_tile")
            and set(first.get("flowers", [])) < set(second.get("flowers", [])))


def read_with_faint_flowers(first: Any, readings: Sequence[TileReading], spares: Sequence[int],
                            base: Sequence[TileReading], read: Callable[[list[TileReading]], Any]) -> Any:
    """``first`` (a ``PhotoResult`` read from ``base``, the readings without the spares), or the hand
    read again (``read``) with the faint flowers among ``spares`` (:func:`faint_flowers`) added, when
    that is the same hand with more flowers."""
    if first.hand is None:
        return first
    found = [reading.detection for reading in base]
    apart = [i for i in spares if not overlaps_a_tile(readings[i].detection, found)]
    chosen = faint_flowers(readings, apart, first.hand)
    if not chosen:
        return first
    added = [TileReading(replace(readings[i].detection, spare=False), readings[i].candidates) for i in chosen]
    try:
        again = read([*base, *added])
    except InputError:
        return first
    if again.hand is None or not _same_but_flowers(first.hand, again.hand):
        return first
    codes = ", ".join(reading.code for reading in added)
    again.warnings.append(f"kept {len(added)} faint tile(s) beside the hand read as flowers ({codes}): "
                          "a flower changes no tile count, so check that it is the player's")
    if again.report is not None:
        again.report.score_stable = False
        again.report.notes.append(FAINT_NOTE)
        if first.score is not None and again.score is not None and first.score.total != again.score.total:
            without = ScoredAlternative(f"without the faint flower(s) {codes}", None, first.score.total,
                                        bool(first.score.valid), first.hand)
            again.report.alternatives.append(without)
    return again
