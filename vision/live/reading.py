"""From voted tile readings to an announced hand, through the photo pipeline's back half.

The live mode reads a hand exactly as ``taicam photo`` does once the tiles are known
(:func:`vision.pipeline.read_readings`: layout, legal decoding, scoring, confidence report), so a
hand scores the same on a photo and on the camera. The only live-specific part is what counts as
"the same result" between two steady moments: the hand and its score, not the boxes.
"""

from __future__ import annotations

import json
from typing import Any

from scoring.errors import InputError
from vision.live.engine import HandOutcome, HandReader
from vision.types import TileReading


def outcome_signature(document: dict[str, Any]) -> str:
    """Two readings a player would call the same: same hand (context included) and same score."""
    return json.dumps({"hand": document.get("hand"), "score": document.get("score")}, sort_keys=True)


def pipeline_hand_reader(
    rules: Any = None, table: Any = None, context: Any = None, source_name: str = ""
) -> HandReader:
    """A :data:`HandReader` bound to one rule set, table and win context.

    The rule set is loaded here, so a bad ``--rules`` fails at start-up rather than being taken
    for "not a hand" at every steady moment.
    """
    from scoring import load_ruleset
    from vision.pipeline import read_readings

    rules = load_ruleset(rules if rules is not None else (getattr(table, "rules", None) or "taiwan"))

    def read(readings: list[TileReading]) -> HandOutcome:
        try:
            result = read_readings(readings, image=source_name, rules=rules, table=table, context=context)
        except InputError as error:
            return HandOutcome(complete=False, document={}, signature="", reason=str(error))
        document = result.to_json()
        return HandOutcome(complete=True, document=document, signature=outcome_signature(document))

    return read
