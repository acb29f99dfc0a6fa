"""What one photo read gives: ``PhotoResult`` (the ``photo --json`` document), the refusal of a
photo whose tiles make no hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring.errors import InputError
from scoring.report import ScoreReport
from vision.decode import HandReading
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.report.confidence import ConfidenceReport, tile_alternatives
from vision.types import Layout, TileReading


@dataclass
class PhotoResult:
    """Everything taicam knows about one photo; ``to_json`` is the ``photo --json`` document.

    ``error`` is set (and ``score`` may be None) when the photo could not be read into a legal hand;
    the tiles found so far are still reported.
    """

    image: str
    readings: list[TileReading] = field(default_factory=list)
    layout: Layout | None = None
    decoded: HandReading | None = None
    hand: dict[str, Any] | None = None
    score: ScoreReport | None = None
    report: ConfidenceReport | None = None
    warnings: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    named: NamedTiles = NOTHING_NAMED  # what the player named that no photo shows
    suggested_fixes: tuple[tuple[str, str], ...] = ()  # for a refused photo: the --fix pairs that read it

    def tile_group(self) -> dict[int, int]:
        """Reading index -> group number (position in the decoded groups)."""
        if self.decoded is None:
            return {}
        groups = self.decoded.best.groups
        return {i: number for number, group in enumerate(groups) for i in group.tile_indices}

    def code_of(self, index: int) -> str:
        if self.decoded is not None and index in self.decoded.codes:
            return self.decoded.codes[index]
        return self.readings[index].code

    def to_json(self) -> dict[str, Any]:
        groups = self.tile_group()
        winning = self.decoded.winning_index if self.decoded is not None else None
        roles = {}
        if self.decoded is not None:
            roles = {i: g.role.value for g in self.decoded.best.groups for i in g.tile_indices}
        tiles = []
        for index, reading in enumerate(self.readings):
            code = self.code_of(index)
            tiles.append({
                "code": code,
                "confidence": round(reading.probability_of(code, 0.0), 4),
                "box": [round(v, 1) for v in reading.detection.box],
                "rotated": reading.detection.rotated,
                "face_down": reading.detection.face_down,
                "alternatives": tile_alternatives(reading, code),
                "group": groups.get(index),
                "role": "winning" if index == winning else roles.get(index, "ignored"),
            })
        document: dict[str, Any] = {
            "image": self.image,
            "tiles": tiles,
            "hand": self.hand,
            "confidence": None if self.decoded is None else round(self.decoded.confidence, 4),
            # How far to trust the total: the same words as the text and the picture.
            "statement": None if self.report is None else self.report.statement,
            "warnings": list(self.warnings),
            "score": None if self.score is None else self.score.to_json(),
        }
        if self.report is not None:
            document["confidence_report"] = self.report.to_json()
        if self.decoded is not None:
            document["changes"] = [c.to_json() for c in self.decoded.changes]
        document["assumed"] = list(self.assumed)
        if self.error is not None:
            document["error"] = self.error
        if self.suggested_fixes:
            document["suggested_fixes"] = [f"{read}={true}" for read, true in self.suggested_fixes]
        return document


class PhotoReadError(InputError):
    """A photo whose tiles were found but do not make a hand; carries the readings for batch output."""

    def __init__(self, message: str, readings: list[TileReading],
                 suggested_fixes: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.readings = readings
        #: The ``--fix`` pairs that would read the photo as the nearest winning hand, where the
        #: decoder named them (``vision.decode.UnbelievedReadingError``).
        self.suggested_fixes = suggested_fixes
        #: The stages' seconds up to the refusal (the photo benchmark times refusals too).
        self.timings: dict[str, float] = {}


def failed_result(image: str, error: InputError, readings: list[TileReading] | None = None) -> PhotoResult:
    """The JSON-mode answer for a photo that could not be read: the error, as a warning too, and the
    fixes that would read it where the decoder named them."""
    fixes = getattr(error, "suggested_fixes", None) or getattr(error, "fixes", ())
    return PhotoResult(image=image, readings=readings or [], error=str(error), warnings=[str(error)],
                       suggested_fixes=tuple(fixes))
