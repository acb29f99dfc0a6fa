"""Flowers the detector saw only faintly beside a hand that reads without them.

A faint detection beside the hand (a *spare*: ``vision.repairs.row_completion.spare_tiles``) is read only
when the hand is a tile short without it (``vision.pipeline.readings``). A flower changes
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

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from vision.layout import flower_mass
from vision.repairs.attempt import Attempt, HandResult, attempt
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


def faint_flower_attempts(first: HandResult, readings: Sequence[TileReading], spares: Sequence[int],
                          base: Sequence[TileReading]) -> Iterator[Attempt]:
    """For ``first``, the hand read from ``base`` (the readings without the spares): ``base`` with the
    faint flowers among ``spares`` (:func:`faint_flowers`) that lie apart from its tiles added, kept
    when that is the same hand with more flowers. A spare may be a discard, so the score is then
    not sure, and the total without them is listed as an alternative."""
    if first.hand is None:
        return
    before = first.hand
    found = [reading.detection for reading in base]
    apart = [i for i in spares if not overlaps_a_tile(readings[i].detection, found)]
    chosen = faint_flowers(readings, apart, before)
    if not chosen:
        return
    added = [TileReading(replace(readings[i].detection, spare=False), readings[i].candidates) for i in chosen]
    codes = ", ".join(reading.code for reading in added)
    without = (None if first.score is None else
               ScoredAlternative(f"without the faint flower(s) {codes}", None, first.score.total,
                                 bool(first.score.valid), before))
    warning = (f"kept {len(added)} faint tile(s) beside the hand read as flowers ({codes}): a flower "
               "changes no tile count, so check that it is the player's")
    yield attempt([*base, *added], warning,
                  keep=lambda again: again.hand is not None and _same_but_flowers(before, again.hand),
                  unsure=True, note=FAINT_NOTE, replaced=without)
