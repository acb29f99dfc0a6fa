"""One labelled image read and judged against its labels: whole hand exact, same total, tiles right,
what the player was told, and why a miss failed. The tiles are read by the pipeline, straight from
the labels (oracle) or by the detector with their true codes, so each stage's loss can be measured."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import InputError
from vision.evaluation.hand_failures import (
    failure_cause,
    judged_tiles,
    label_face,
    misread_crops,
    visibility,
    wrong_tiles,
)
from vision.evaluation.matching import match_centres
from vision.geometry import box_iou
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.tile_fixes import Fix
from vision.types import Detection, TileReading

if TYPE_CHECKING:
    from scoring import RuleSet
    from vision.dataset.manifest import ManifestRecord
    from vision.pipeline import PhotoPipeline, PhotoResult

IOU_THRESHOLD = 0.5
#: A hand is readable when each of its tiles is at least this fraction visible (renders record it).
READABLE_VISIBLE = 0.5


@dataclass
class HandOutcome:
    image: str
    exact: bool
    exact_visible: bool
    score_agrees: bool
    tiles: int
    tiles_correct: int
    error: str | None = None
    # The same count with tiles matched by centres (``vision.evaluation.matching``), not IoU.
    tiles_correct_centres: int = 0
    seconds: float = 0.0
    has_hand: bool = True
    readable: bool = True
    # What the player is told: a score (``answered``) and whether the report calls it sure enough
    # (``score_stable``: no plausible reading, winning tile or hidden tile changes the total).
    answered: bool = False
    called_sure: bool = False
    # Why a hand was not read exactly (``vision.evaluation.hand_failures``), and its tiles read wrong.
    cause: str | None = None
    wrong: list[str] = field(default_factory=list)
    # What the player was warned of, and how many tiles the decoder changed: with ``called_sure``,
    # what a rule about when to call a score sure is measured on.
    warnings: list[str] = field(default_factory=list)
    corrections: int = 0
    # How many misread tiles the player fixed before this reading (``--player-fixes``).
    fixes: int = 0


def match_labels(label_boxes: list[tuple[float, ...]],
                 detection_boxes: list[tuple[float, ...]]) -> dict[int, int]:
    """Greedy one-to-one matching of labels to detections by IoU (>= IOU_THRESHOLD): label -> detection."""
    pairs = sorted(((box_iou(lb, db), i, j) for i, lb in enumerate(label_boxes)
                    for j, db in enumerate(detection_boxes)), reverse=True)
    matched: dict[int, int] = {}
    used: set[int] = set()
    for iou, i, j in pairs:
        if iou < IOU_THRESHOLD:
            break
        if i not in matched and j not in used:
            matched[i] = j
            used.add(j)
    return matched


def oracle_readings(record: ManifestRecord, confidence: float = 0.9,
                    boxes_only: bool = False) -> list[TileReading]:
    """Readings straight from the labels: what a perfect detector and a sure classifier would give.

    ``boxes_only`` leaves out the labelled tile outlines, as a boxes-only detector would.
    """
    readings = []
    for tile in record.tiles:
        quad = None if tile.quad is None or boxes_only else tuple(tuple(p) for p in tile.quad)
        detection = Detection(box=tuple(tile.box), score=1.0, rotated=bool(tile.rotated),
                              face_down=bool(tile.face_down), quad=quad)
        readings.append(sure_reading(detection, tile.code, confidence))
    return readings


def sure_reading(detection: Detection, code: str, confidence: float) -> TileReading:
    """``detection`` read as ``code`` at ``confidence``, the rest on one other code (a back, or a face)."""
    runner_up = "back" if code != "back" else "5z"
    return TileReading(detection, ((code, confidence), (runner_up, 1.0 - confidence)))


def with_true_codes(record: ManifestRecord, readings: list[TileReading],
                    confidence: float = 0.9) -> list[TileReading]:
    """The detector's tiles, each matched to a label read as that label's code at ``confidence``.

    Unmatched detections keep the classifier's reading. This isolates what detection, layout and
    decoding lose from what the classifier loses.
    """
    matches = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    truth_of = {detection: label for label, detection in matches.items()}
    out = []
    for index, reading in enumerate(readings):
        if index in truth_of:
            reading = sure_reading(reading.detection, record.tiles[truth_of[index]].code, confidence)
        out.append(reading)
    return out


def _meld_key(melds: list[dict[str, Any]], hide_concealed_faces: bool) -> list[tuple]:
    def face(meld: dict[str, Any]) -> tuple[str, ...]:
        return () if hide_concealed_faces and meld["concealed"] else tuple(sorted(meld["tiles"]))

    return sorted((m["kind"], m["concealed"], face(m)) for m in melds)


def same_hand(read: dict[str, Any], truth: dict[str, Any], hide_concealed_faces: bool = False) -> bool:
    """Same standing tiles, sets, flowers and winning tile (optionally ignoring concealed-kong faces)."""
    return (sorted(read["concealed"]) == sorted(truth["concealed"])
            and _meld_key(read["melds"], hide_concealed_faces)
            == _meld_key(truth["melds"], hide_concealed_faces)
            and sorted(read.get("flowers", [])) == sorted(truth.get("flowers", []))
            and read["winning_tile"] == truth["winning_tile"])


def _truth_total(truth: dict[str, Any], rules: RuleSet | str) -> int:
    from scoring import hand_from_json, score_hand

    return score_hand(hand_from_json(truth), rules=rules).total


def resolve_image(record: ManifestRecord, base: Path) -> Path:
    """A record's image file: absolute, under the shared data folder (``extra.image_root``), or
    relative to its manifest (public photos are referenced there, never copied into the project)."""
    from vision.dataset.paths import shared_data_dir

    image = Path(record.image)
    if image.is_absolute():
        return image
    if record.extra.get("image_root") == "shared_data":
        return shared_data_dir() / image
    return base / image


def player_names(record: ManifestRecord) -> NamedTiles:
    """What a player who knows the hand would name for it (``--winning-tile``, ``--kong-face``): the
    winning tile, and the face of each concealed kong whose four labelled tiles all lie face-down."""
    truth = record.hand or {}
    backs = Counter(label_face(t) for t in record.tiles if t.code == "back")
    faces = [meld["tiles"][0] for meld in truth.get("melds", [])
             if meld["concealed"] and backs[meld["tiles"][0]] == 4]
    return NamedTiles(kong_faces=tuple(faces), winning_tile=truth.get("winning_tile"))


def evaluate_record(record: ManifestRecord, base: Path, *, pipeline: PhotoPipeline | None,
                    rules: RuleSet | str, oracle: bool,
                    boxes_only: bool = False, true_codes: bool = False,
                    sheet: list[tuple[np.ndarray, str]] | None = None, named_by_player: bool = False,
                    fixed_by_player: bool = False) -> HandOutcome:
    """Read one labelled image and compare with its labels (and its hand, if it has one). A readable
    hand not read exactly adds its misread tiles to ``sheet`` when one is given. ``named_by_player``:
    read as if the player named the winning tile and the faces of kongs of four backs
    (:func:`player_names`). ``fixed_by_player``: a hand not read exactly is read again with every
    tile the player was shown wrong fixed (``--fix``, :func:`player_fixes`), and judged on that."""
    from vision.imageio import PhotoSource
    from vision.pipeline import read_readings

    image = str(resolve_image(record, base))
    truth = record.hand
    context = dict(truth.get("context", {})) if truth else {}
    started = time.perf_counter()
    named = player_names(record) if named_by_player and truth else NOTHING_NAMED
    if oracle:
        readings = oracle_readings(record, boxes_only=boxes_only)
        result, readings, error = _attempt(lambda: read_readings(readings, image=image, rules=rules,
                                                                 context=context), readings)
    elif true_codes:
        tiles: list[TileReading] = []  # kept for the tile counts when the hand does not read

        def read_true_codes() -> PhotoResult:
            tiles.extend(with_true_codes(record, pipeline.read_tiles(PhotoSource(image))))
            return read_readings(tiles, image=image, rules=rules, context=context, infer_unseen=True,
                                 optional=pipeline.faint_tiles(tiles))
        result, readings, error = _attempt(read_true_codes, tiles)
    else:
        result, readings, error = _attempt(lambda: pipeline.read_photo(image, rules=rules, context=context,
                                                                       named=named))
    codes, matches = _shown(record, result, readings)
    fixes: tuple[Fix, ...] = ()
    if fixed_by_player and truth is not None and not (result is not None and same_hand(result.hand, truth)):
        fixes = player_fixes(record, codes, matches)
    if fixes:
        fixed = replace(named, fixes=fixes)
        result, readings, error = _attempt(lambda: pipeline.read_photo(image, rules=rules, context=context,
                                                                       named=fixed))
        codes, matches = _shown(record, result, readings)
    seconds = time.perf_counter() - started
    labelled = judged_tiles(record)
    correct = sum(1 for i in labelled if i in matches and codes[matches[i]] == record.tiles[i].code)
    by_centres = match_centres(np.array([r.detection.box for r in readings], np.float64).reshape(-1, 4),
                               [r.detection.score for r in readings],
                               np.array([t.box for t in record.tiles], np.float64).reshape(-1, 4))
    correct_centres = sum(1 for i in labelled if i in by_centres
                          and codes[by_centres[i]] == record.tiles[i].code)
    exact = exact_visible = agrees = False
    answered = result is not None and result.score is not None
    called_sure = answered and result.report is not None and result.report.score_stable
    if result is not None and truth is not None:
        exact = same_hand(result.hand, truth)
        exact_visible = same_hand(result.hand, truth, hide_concealed_faces=True)
        agrees = result.score is not None and result.score.total == _truth_total(truth, rules)
    readable = is_readable(record)
    cause = failure_cause(record, codes, matches, exact=exact, exact_visible=exact_visible,
                          read_hand=result.hand if result is not None else None)
    if sheet is not None and cause is not None and readable:
        sheet.extend(misread_crops(record, Path(image), codes, matches))
    return HandOutcome(image=image, exact=exact, exact_visible=exact_visible, score_agrees=agrees,
                       tiles=len(labelled), tiles_correct=correct, tiles_correct_centres=correct_centres,
                       error=error, seconds=seconds,
                       has_hand=truth is not None, readable=readable,
                       answered=answered, called_sure=called_sure, cause=cause,
                       wrong=wrong_tiles(record, codes, matches) if cause or truth is None else [],
                       warnings=list(result.warnings) if result is not None else [],
                       corrections=len(result.decoded.changes) if result and result.decoded else 0,
                       fixes=len(fixes))


def _attempt(read: Callable[[], PhotoResult], readings: list[TileReading] | None = None
             ) -> tuple[PhotoResult | None, list[TileReading], str | None]:
    """``read()``'s result, its readings and no error; or no result, the readings a refused photo
    carries (else ``readings``, else none) and the refusal."""
    from vision.pipeline import PhotoReadError

    try:
        result = read()
    except PhotoReadError as failure:
        return None, failure.readings, str(failure)
    except InputError as failure:
        return None, list(readings or []), str(failure)
    return result, result.readings, None


def _shown(record: ManifestRecord, result: PhotoResult | None,
           readings: list[TileReading]) -> tuple[list[str], dict[int, int]]:
    """The code shown for each detection (the hand's where it read, else the classifier's first
    choice) and the label index -> detection index matches."""
    if result is not None:
        codes = [result.code_of(i) for i in range(len(readings))]
    else:
        codes = [r.code for r in readings]
    return codes, match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])


def player_fixes(record: ManifestRecord, codes: list[str], matches: dict[int, int]) -> tuple[Fix, ...]:
    """What a player who knows the hand would fix (``--fix READ=TRUE``): every labelled tile of the
    hand that was found but shown as another code. Tiles not found cannot be fixed this way."""
    return tuple((codes[matches[index]], record.tiles[index].code) for index in judged_tiles(record)
                 if index in matches and codes[matches[index]] != record.tiles[index].code)


def is_readable(record: ManifestRecord) -> bool:
    """Every tile of the hand at least half visible (labels without a ``visible`` field count as seen)."""
    return all(visibility(tile) >= READABLE_VISIBLE for tile in record.tiles if tile.role != "distractor")
