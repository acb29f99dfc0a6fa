"""From voted tile readings to an announced hand, through the photo pipeline's back half.

The live mode reads a hand exactly as ``taicam photo`` does once the tiles are known
(:func:`vision.pipeline.readings.read_outcome`: layout, legal decoding, scoring, confidence report), so a
hand scores the same on a photo and on the camera. The only live-specific part is what counts as
"the same result" between two steady moments: the hand and its score, not the boxes.
"""

from __future__ import annotations

import json
from typing import Any

from scoring.table import TableSettings
from vision.live.engine import HandOutcome
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.pipeline.setup import Context, HandSetup, Rules
from vision.repairs.stray_flowers import ReadFlowers
from vision.repairs.turned_faces import Classify
from vision.types import Refusal, TileReading


def outcome_signature(document: dict[str, Any]) -> str:
    """Two readings a player would call the same: same hand (context included) and same score."""
    return json.dumps({"hand": document.get("hand"), "score": document.get("score")}, sort_keys=True)


class PipelineHandReader:
    """A :data:`vision.live.engine.HandReader` bound to one rule set, table and win context.

    The rule set is loaded here, so a bad ``--rules`` fails at start-up rather than being taken
    for "not a hand" at every steady moment. ``faint_below`` is the detector's own threshold:
    tiles scored under it were kept only because they continue a row, and, as ``taicam photo``
    does, the hand is read again without them when it does not read with them (a gap between two
    sets can look like a tile). ``named`` holds the tiles the player named that no photo shows
    (``--kong-face``, ``--winning-tile``: ``vision.named_tiles``), taken as ``taicam photo`` takes them.
    """

    def __init__(
        self, rules: Rules = None, table: TableSettings | None = None, context: Context = None,
        source_name: str = "", faint_below: float | None = None, named: NamedTiles = NOTHING_NAMED,
    ) -> None:
        self.setup = HandSetup.of(rules, table, context, named)
        self.ruleset = self.setup.ruleset
        self.source_name = source_name
        self.faint_below = faint_below

    @property
    def rules_id(self) -> str:
        return str(self.ruleset.id)

    def __call__(self, readings: list[TileReading], classify: Classify | None = None,
                 read_flowers: ReadFlowers | None = None) -> HandOutcome:
        """``classify`` and ``read_flowers`` read detections on the frame the readings come from: with
        them the hand is read as ``taicam photo`` reads it (``vision.pipeline.looks``: a sideways
        winning tile the detector did not flag found by its turned face or its two halves joined, a
        tile count that makes no hand mended; a tile flagged sideways in error stood again,
        ``vision.repairs.upright_faces``), and flowers the layout left out or found two as one are read
        again by the flower model (``read_flowers_again``)."""
        from vision.decode.budget import FRAME_BUDGET, Budget
        from vision.pipeline import PhotoResult
        from vision.pipeline.looks import read_flowers_again, read_with_second_looks, stop_at
        from vision.pipeline.readings import read_outcome
        from vision.repairs.upright_faces import with_false_turns_undone

        def read(tiles: list[TileReading]) -> PhotoResult | Refusal:
            faint = ([i for i, r in enumerate(tiles) if r.detection.score < self.faint_below]
                     if self.faint_below is not None else [])
            return read_outcome(tiles, self.setup, image=self.source_name, optional=faint, budget=budget)

        budget = Budget(FRAME_BUDGET)  # a frame that holds no hand must not stall the camera
        if classify is not None:
            readings = with_false_turns_undone(readings, classify)
        result = (read(readings) if classify is None
                  else read_with_second_looks(readings, classify, read, stop=stop_at(budget)))
        if isinstance(result, Refusal):
            return HandOutcome(complete=False, document={}, signature="", reason=result.reason)
        if read_flowers is not None:
            result = read_flowers_again(result, classify, read_flowers, read, stop_at(budget))
        document = result.to_json()
        return HandOutcome(
            complete=True, document=document, signature=outcome_signature(document), result=result
        )

