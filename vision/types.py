"""The plain types passed between the stages of the photo pipeline (``vision/README.md``, "The stages").

image -> detect -> ``list[Detection]`` -> classify -> ``list[TileReading]`` -> layout -> ``Layout``
-> decode -> ``HandReading`` (of ``LegalReading`` s) -> score. Each stage is a pure function of the
previous type, so each can be tested alone and fed from ground truth (synthetic labels) instead of
a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scoring.hand import Hand, hand_to_json

#: Tiles in a complete 16-tile-game hand with its winning tile, a kong counting as 3 (five sets and a
#: pair); a rule set of 13 tiles (four sets and a pair) has 14. Layout, decoding and the missing-tile
#: hints take it from the rule set (``RuleSet.hand_tiles + 1``); this is the default where none is given.
HAND_SIZE = 17


@dataclass(frozen=True)
class Detection:
    """One tile found in the image.

    ``box`` is the axis-aligned box in pixels of the upright (EXIF-applied) image. ``quad`` is the
    tile's outline as four (x, y) corners when the detector knows it (a rotated box), else None.
    ``rotated`` means the tile lies sideways relative to its neighbours (a winning or claimed
    tile); ``face_down`` means its back is up (concealed kong). ``spare`` marks a weak detection
    beside the tiles that is read only if the hand is a tile short without it
    (``vision.repairs.row_completion.spare_tiles``).
    """

    box: tuple[float, float, float, float]
    score: float
    rotated: bool = False
    face_down: bool = False
    angle: float = 0.0
    quad: tuple[tuple[float, float], ...] | None = None
    spare: bool = False

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class TileReading:
    """A detection and what the classifier thinks it shows.

    ``candidates`` are (code, probability) pairs, best first; codes are canonical tile codes
    or ``"back"``. Probabilities are calibrated, so they can be multiplied across tiles.
    """

    detection: Detection
    candidates: tuple[tuple[str, float], ...]

    @property
    def code(self) -> str:
        return self.candidates[0][0]

    @property
    def confidence(self) -> float:
        return self.candidates[0][1]

    def probability_of(self, code: str, floor: float = 1e-6) -> float:
        """Probability the classifier gave ``code`` (``floor`` if it is not among the candidates)."""
        for candidate, probability in self.candidates:
            if candidate == code:
                return max(probability, floor)
        return floor


class GroupRole(StrEnum):
    """What part of a laid-out hand a group of tiles is."""

    CONCEALED = "concealed"
    MELD = "meld"
    CONCEALED_KONG = "concealed_kong"
    FLOWERS = "flowers"


@dataclass(frozen=True)
class TileGroup:
    """Tiles that belong together on the table, as indices into the readings list."""

    role: GroupRole
    tile_indices: tuple[int, ...]


@dataclass
class Layout:
    """How the tiles lie on the table: the hand's groups, the winning tile, and what is not the hand.

    ``winning_index`` is the tile judged to be the winning tile (turned sideways across its set,
    or set apart at the end of the row), or None when the photo does not show it.
    ``ignored`` holds tiles that are not part of the hand (discards, the wall, other racks).
    ``set_aside`` are those of them that lie among the hand's sets but fit none (a misread tile, or
    a discard close by): the hand read without them may be missing a set, so its score is not sure.
    """

    groups: list[TileGroup]
    winning_index: int | None
    ignored: tuple[int, ...] = ()
    warnings: list[str] = field(default_factory=list)
    set_aside: tuple[int, ...] = ()


@dataclass(frozen=True)
class DecodedGroup:
    """One set or part of the decoded hand: its tiles (reading indices), their codes and its role."""

    role: GroupRole
    tile_indices: tuple[int, ...]
    codes: tuple[str, ...]
    kind: str | None
    probability: float


@dataclass(frozen=True)
class LegalReading:
    """One legal whole-hand reading: per-tile codes, the groups, the hand (a ``scoring.Hand``, its
    context left empty: the photo's is added where it is scored), its probability.

    ``unseen`` is the code read for the tile the photo does not show (in ``hand`` only: it has no
    reading index, so it is in neither ``codes`` nor ``groups``), or None when every tile is seen.
    """

    codes: dict[int, str]
    groups: tuple[DecodedGroup, ...]
    hand: Hand
    probability: float
    unseen: str | None = None

    def key(self) -> tuple[object, ...]:
        """What makes two readings the same hand: its tiles, sets (in any order), flowers and winner."""
        hand = self.hand
        return (hand.concealed, tuple(sorted((m.kind, m.tiles, m.concealed) for m in hand.melds)),
                hand.flowers, hand.winning_tile)


@dataclass(frozen=True)
class Refusal:
    """Why a list of tile readings is no hand taicam can read: the value a reading returns instead of
    a result, so the search tries the next look or repair without an exception.

    ``reason`` is the one line a player is shown; ``fixes`` the ``--fix`` (READ, TRUE) pairs that
    would read it (a hand only unlikely corrections make legal); ``surplus`` how many standing
    tiles there are beyond a hand's count (negative when short), or None when the count is not
    what failed.
    """

    reason: str
    fixes: tuple[tuple[str, str], ...] = ()
    surplus: int | None = None

    @property
    def count_failed(self) -> bool:
        """Whether the tiles found are not a hand's count (a tile found as two, or one missed)."""
        return self.surplus is not None


#: A face outline: its corners, top-left first, clockwise on the face as it stands.
Quad = tuple[tuple[float, float], ...]


class Detector(Protocol):
    """What reads tiles' places from an image: the shipped ``vision.models.detector.TileDetector``
    or a stand-in. The photo asks for weak ``spares``; the photo and the live mode for other input
    sizes (``vision.repairs.farther_look``'s probe and farther look, the photo's closer and finer looks)."""

    def detect(self, image_bgr: np.ndarray, *, spares: bool = False,
               input_size: int | None = None) -> list[Detection]: ...


@runtime_checkable
class MirrorViewDetector(Detector, Protocol):
    """A detector that also looks at the mirror image and can give a copy of itself that does not
    (half the cost), for a look that only confirms tiles."""

    def single_view(self) -> Detector: ...


class Classifier(Protocol):
    """What reads tiles' faces: the shipped ``vision.models.classifier.TileClassifier`` or a
    stand-in; ``second_outlines`` are other cuts of some faces, read too and the surer kept."""

    def classify(self, image_bgr: np.ndarray, detections: list[Detection], top_k: int = 5,
                 second_outlines: Sequence[Quad | None] | None = None) -> list[TileReading]: ...

    def flower_probabilities(self, image_bgr: np.ndarray,
                             detections: list[Detection]) -> np.ndarray | None: ...


def hand_json(hand: Hand) -> dict[str, Any]:
    """A decoded hand as hand JSON without its context (the photo's context is reported beside it)."""
    return {key: value for key, value in hand_to_json(hand).items() if key != "context"}
