"""The whole-hand figures over one manifest (exact-hand and right-total rates over all and readable
hands, how often a score given or called sure is right, time, failure causes) and the per-hand files
two runs are compared on: rates alone hide the hands a change gained and lost."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import InputError
from vision.evaluation.hand_failures import CAUSES
from vision.evaluation.hand_outcome import HandOutcome


@dataclass
class HandsReport:
    """Aggregates over one manifest."""

    name: str
    outcomes: list[HandOutcome] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        outcomes = self.outcomes
        hands = [o for o in outcomes if o.has_hand]
        readable = [o for o in hands if o.readable]

        def rate(values: list[bool]) -> float | None:
            """The share of hands with the property (None when the manifest holds no hands)."""
            return round(float(np.mean(values)), 4) if values else None

        times = [o.seconds for o in outcomes]

        def seconds(percentile: float) -> float | None:
            """A percentile of the time each photo took (None for an empty manifest)."""
            return round(float(np.percentile(times, percentile)), 3) if times else None

        tiles = sum(o.tiles for o in outcomes)
        answered = [o for o in hands if o.answered]
        sure = [o for o in answered if o.called_sure]
        errors = Counter((o.error or "").split(":")[0].split(" (")[0] for o in outcomes if o.error)
        causes = Counter(o.cause for o in hands if o.cause is not None)
        return {
            "name": self.name,
            "images": len(outcomes),
            "hands": len(hands),
            "exact_hand_rate": rate([o.exact for o in hands]),
            "exact_hand_rate_visible": rate([o.exact_visible for o in hands]),
            "score_agreement": rate([o.score_agrees for o in hands]),
            "readable_hands": len(readable),
            "exact_hand_rate_readable": rate([o.exact_visible for o in readable]),
            "score_agreement_readable": rate([o.score_agrees for o in readable]),
            # Honesty: how often a score given, and a score called sure, is the right total.
            "answered_rate": rate([o.answered for o in hands]),
            "score_right_when_answered": rate([o.score_agrees for o in answered]),
            "called_sure_rate": rate([o.called_sure for o in hands]),
            "score_right_when_called_sure": rate([o.score_agrees for o in sure]),
            "tile_accuracy": round(sum(o.tiles_correct for o in outcomes) / tiles, 4) if tiles else None,
            # Matched by centres, as the roboflow-chinese evaluation matches: a slanted tile's
            # detection box holds its body too, its label box only its face.
            "tile_accuracy_centres": (round(sum(o.tiles_correct_centres for o in outcomes) / tiles, 4)
                                      if tiles else None),
            "tiles": tiles,
            "failed_images": sum(1 for o in outcomes if o.error),
            "errors": dict(errors.most_common(8)),
            "failure_causes": {cause: causes[cause] for cause in CAUSES if causes[cause]},
            "median_seconds": seconds(50),
            # The slow tail is what a player waits for on a photo that does not read at first look.
            "p90_seconds": seconds(90),
            "max_seconds": seconds(100),
            # With --player-fixes: hands the player fixed tiles of, and the fixes given in all.
            "hands_fixed": sum(1 for o in hands if o.fixes),
            "fixes_given": sum(o.fixes for o in hands),
        }


def per_hand(reports: list[HandsReport]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each report's outcome per image (``--per-hand``): what two runs are compared on."""
    return {report.name: {Path(o.image).name: {"exact": o.exact, "exact_visible": o.exact_visible,
                                                "score_agrees": o.score_agrees, "answered": o.answered,
                                                "called_sure": o.called_sure,
                                                "tiles_correct": o.tiles_correct,
                                                "tiles_correct_centres": o.tiles_correct_centres,
                                                "tiles": o.tiles,
                                                "readable": o.readable, "error": o.error,
                                                "cause": o.cause, "wrong": o.wrong,
                                                "warnings": o.warnings, "corrections": o.corrections,
                                                "fixes": o.fixes, "seconds": round(o.seconds, 3)}
                          for o in report.outcomes}
            for report in reports}


def read_per_hand(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """A ``--per-hand`` file written earlier (InputError if it is not one)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not a per-hand file ({error.__class__.__name__})") from None
    valid = isinstance(document, dict) and all(
        isinstance(images, dict) and all(isinstance(o, dict) and "exact" in o for o in images.values())
        for images in document.values())
    if not valid:
        raise InputError(f"{path}: not a per-hand file (expected {{manifest: {{image: {{exact: ...}}}}}})")
    return document


def compare_hands(before: dict[str, dict[str, dict[str, Any]]], after: dict[str, dict[str, dict[str, Any]]]
                  ) -> dict[str, dict[str, list[str]]]:
    """Per manifest present in both runs: the images read exactly now and not before (``gained``),
    and the other way round (``lost``); the same for the right total (``totals_gained``,
    ``totals_lost``), which a file written before the total was kept lacks. Two runs with the same
    rates can differ in many hands."""
    out = {}
    for name, images in after.items():
        earlier = before.get(name)
        if earlier is None:
            continue
        common = sorted(set(images) & set(earlier))
        changes = {"gained": [i for i in common if images[i]["exact"] and not earlier[i]["exact"]],
                   "lost": [i for i in common if earlier[i]["exact"] and not images[i]["exact"]]}
        if all("score_agrees" in images[i] and "score_agrees" in earlier[i] for i in common):
            changes["totals_gained"] = [i for i in common
                                        if images[i]["score_agrees"] and not earlier[i]["score_agrees"]]
            changes["totals_lost"] = [i for i in common
                                      if earlier[i]["score_agrees"] and not images[i]["score_agrees"]]
        out[name] = changes
    return out
