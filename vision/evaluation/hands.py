"""Whole-hand evaluation: does taicam read the *hand* (and its score) right, not just the tiles?

Two kinds of held-out data, both as manifests (``vision.dataset.manifest``):

* rendered hands with known truth (``hand`` in each record, tiles with ``role``/``group``): the
  exact whole-hand reading rate (standing tiles, sets, concealed kongs, flowers and winning tile
  all right) and score agreement (same total as the true hand under the same rules and context);
* labelled real photos: tile accuracy (each labelled tile matched to a detection at IoU 0.5; a
  missed tile counts as wrong), since the public table photos show racks, not laid-out wins.

A concealed kong lying as four backs hides its face from any camera; such hands are reported
both strictly and "up to hidden faces" so the number says what it measures. Rendered scenes also
hide tiles (a hand over the table, a tile lying behind a standing row, the frame's edge): a hand
with a tile less than half visible (:data:`READABLE_VISIBLE`) cannot be read from the photo alone,
so the rates are given over all hands and over the *readable* ones (every hand tile at least half
visible), which is what the photo can be held to.

``oracle`` mode builds readings from the labels themselves (boxes, flags, the true code at a
fixed probability): it isolates layout + decoding from the models; ``--boxes-only`` drops the
labelled outlines, as a boxes-only detector (the one shipped before r6) would give.
``--true-codes`` keeps the detector's tiles but reads each as its label's code: between the two,
it says how much the detector loses and how much the classifier does.

Each hand not read exactly is given a cause (``vision.evaluation.hand_failures``: tiles hidden, a
concealed kong's face, a tile not found, a flower misread, the winning tile misread, another tile
misread, a tile found where none is, layout or decoding); the report counts them
(``failure_causes``) and ``--per-hand`` names each hand's cause and wrong tiles.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import InputError
from vision.evaluation.hand_failures import (
    CAUSES,
    failure_cause,
    judged_tiles,
    label_face,
    misread_crops,
    visibility,
    wrong_tiles,
)
from vision.geometry import box_iou
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.tile_fixes import Fix
from vision.types import Detection, TileReading

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


def oracle_readings(record: Any, confidence: float = 0.9, boxes_only: bool = False) -> list[TileReading]:
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


def with_true_codes(record: Any, readings: list[TileReading], confidence: float = 0.9) -> list[TileReading]:
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


def _truth_total(truth: dict[str, Any], rules: Any) -> Any:
    from scoring import hand_from_json, score_hand

    return score_hand(hand_from_json(truth), rules=rules).total


def resolve_image(record: Any, base: Path) -> Path:
    """A record's image file: absolute, under the shared data folder (``extra.image_root``), or
    relative to its manifest (public photos are referenced there, never copied into the project)."""
    from vision.dataset.paths import shared_data_dir

    image = Path(record.image)
    if image.is_absolute():
        return image
    if record.extra.get("image_root") == "shared_data":
        return shared_data_dir() / image
    return base / image


def player_names(record: Any) -> NamedTiles:
    """What a player who knows the hand would name for it (``--winning-tile``, ``--kong-face``): the
    winning tile, and the face of each concealed kong whose four labelled tiles all lie face-down."""
    truth = record.hand or {}
    backs = Counter(label_face(t) for t in record.tiles if t.code == "back")
    faces = [meld["tiles"][0] for meld in truth.get("melds", [])
             if meld["concealed"] and backs[meld["tiles"][0]] == 4]
    return NamedTiles(kong_faces=tuple(faces), winning_tile=truth.get("winning_tile"))


def evaluate_record(record: Any, base: Path, *, pipeline: Any, rules: Any, oracle: bool,
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

        def read_true_codes() -> Any:
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
                       tiles=len(labelled), tiles_correct=correct, error=error, seconds=seconds,
                       has_hand=truth is not None, readable=readable,
                       answered=answered, called_sure=called_sure, cause=cause,
                       wrong=wrong_tiles(record, codes, matches) if cause or truth is None else [],
                       warnings=list(result.warnings) if result is not None else [],
                       corrections=len(result.decoded.changes) if result and result.decoded else 0,
                       fixes=len(fixes))


def _attempt(read: Any, readings: list[TileReading] | None = None
             ) -> tuple[Any, list[TileReading], str | None]:
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


def _shown(record: Any, result: Any, readings: list[TileReading]) -> tuple[list[str], dict[int, int]]:
    """The code shown for each detection (the hand's where it read, else the classifier's first
    choice) and the label index -> detection index matches."""
    if result is not None:
        codes = [result.code_of(i) for i in range(len(readings))]
    else:
        codes = [r.code for r in readings]
    return codes, match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])


def player_fixes(record: Any, codes: list[str], matches: dict[int, int]) -> tuple[Fix, ...]:
    """What a player who knows the hand would fix (``--fix READ=TRUE``): every labelled tile of the
    hand that was found but shown as another code. Tiles not found cannot be fixed this way."""
    return tuple((codes[matches[index]], record.tiles[index].code) for index in judged_tiles(record)
                 if index in matches and codes[matches[index]] != record.tiles[index].code)


def is_readable(record: Any) -> bool:
    """Every tile of the hand at least half visible (labels without a ``visible`` field count as seen)."""
    return all(visibility(tile) >= READABLE_VISIBLE for tile in record.tiles if tile.role != "distractor")


def evaluate_manifest(path: Path, *, pipeline: Any = None, rules: Any = "taiwan", oracle: bool = False,
                      boxes_only: bool = False, true_codes: bool = False,
                      limit: int | None = None, split: str | None = None,
                      sheet: list[tuple[np.ndarray, str]] | None = None, named_by_player: bool = False,
                      fixed_by_player: bool = False) -> HandsReport:
    """``split`` keeps only the photos of that split of the real table photos (``train`` / ``val``, by
    ``vision.evaluation.detection.table_photo_split``), e.g. the validation part of
    ``datasets/real-labels/table-photos.jsonl``, which the models never trained on."""
    from vision.dataset.manifest import read_manifest
    from vision.evaluation.detection import table_photo_split

    records = read_manifest(path)
    if split is not None:
        records = [r for r in records if table_photo_split(Path(r.image).name) == split]
    records = records[:limit]
    mode = "" if not oracle else " (oracle readings, boxes only)" if boxes_only else " (oracle readings)"
    mode = " (detected tiles, true codes)" if true_codes else mode
    mode += f" ({split} split)" if split is not None else ""
    mode += " (winning tile and kong faces named)" if named_by_player else ""
    mode += " (misread tiles fixed)" if fixed_by_player else ""
    report = HandsReport(name=f"{path}{mode}")
    for record in records:
        outcome = evaluate_record(record, path.parent, pipeline=pipeline, rules=rules, oracle=oracle,
                                  boxes_only=boxes_only, true_codes=true_codes, sheet=sheet,
                                  named_by_player=named_by_player, fixed_by_player=fixed_by_player)
        report.outcomes.append(outcome)
    return report


#: An easy camera: from above, no discards or hands over the table, flat rows, little noise.
OVERHEAD = {"standing_probability": 0.0, "elevation_degrees": (70.0, 90.0), "roll_degrees": 3.0,
            "azimuth_jitter_degrees": 8.0, "any_azimuth_probability": 0.0, "hand_fill": (0.75, 0.92),
            "distractors": False, "occluder_probability": 0.0, "noise_sigma": (0.0, 2.0),
            "defocus_sigma": (0.0, 0.4), "motion_blur_probability": 0.0, "jpeg_quality": (88, 95),
            "lens_k1": (0.0, 0.02)}


#: A phone photo of the whole table: the hand across a quarter to a half of a 2560x1920 frame (the
#: default renders frame it across 55-97% of 1280x960), so its tiles are 15-40 pixels long.
FAR = {"hand_fill": (0.25, 0.5), "width": 2560, "height": 1920}


def render_heldout(out_dir: Path, count: int, seed: int, overhead: bool = False, far: bool = False) -> Path:
    """Render ``count`` held-out scenes (validation tile sets only) into ``out_dir``; return the manifest.
    ``overhead``: the easy camera (:data:`OVERHEAD`); ``far``: the hand far off in a big photo
    (:data:`FAR`)."""
    import cv2

    from vision.dataset.manifest import write_manifest
    from vision.synth.scene import SceneConfig, render_scene

    out_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for index in range(count):
        try:
            config = SceneConfig(split="val", **(OVERHEAD if overhead else {}), **(FAR if far else {}))
            image, record = render_scene(np.random.default_rng(seed + index), config)
        except (ValueError, cv2.error) as error:  # a renderer bug must not stop the evaluation
            print(f"evaluate hands: seed {seed + index} not rendered ({error})", file=sys.stderr)
            continue
        record.image = f"{seed + index}.jpg"
        cv2.imwrite(str(out_dir / record.image), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        records.append(record)
    manifest = out_dir / "manifest.jsonl"
    write_manifest(manifest, records)
    return manifest


#: At most this many misread tiles go on the ``--sheet`` picture.
SHEET_LIMIT = 300
#: Seeds for held-out renders: far from any training seed range (training starts at 0).
HELDOUT_SEED = 900_000


def per_hand(reports: list[HandsReport]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each report's outcome per image (``--per-hand``): what two runs are compared on."""
    return {report.name: {Path(o.image).name: {"exact": o.exact, "exact_visible": o.exact_visible,
                                                "score_agrees": o.score_agrees, "answered": o.answered,
                                                "called_sure": o.called_sure,
                                                "tiles_correct": o.tiles_correct, "tiles": o.tiles,
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


def main(argv: list[str]) -> int:
    """``evaluate.py hands [--synth M] [--render N] [--real M] [--oracle] [--json]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="evaluate.py hands", description=__doc__.split("\n")[0])
    parser.add_argument("--synth", type=Path, help="manifest of rendered hands with known truth")
    parser.add_argument("--render", type=int, default=0,
                        help=f"render N held-out hands (seeds from {HELDOUT_SEED}) into --out and use them")
    parser.add_argument("--out", type=Path, default=Path("runs/heldout-hands"))
    parser.add_argument("--seed", type=int, default=HELDOUT_SEED, help="first render seed")
    parser.add_argument("--overhead", action="store_true", help="render from above, no discards (OVERHEAD)")
    parser.add_argument("--far", action="store_true",
                        help="render the hand far off in a 2560x1920 photo, across a quarter to a half of "
                             "it (FAR)")
    parser.add_argument("--real", type=Path, default=Path(__file__).resolve().parents[2]
                        / "datasets/samples/real/manifest.jsonl", help="manifest of labelled real photos")
    parser.add_argument("--rules", default="taiwan")
    parser.add_argument("--oracle", action="store_true", help="readings from the labels (layout, decoding)")
    parser.add_argument("--boxes-only", action="store_true",
                        help="with --oracle: no labelled tile outlines (what a boxes-only detector gives)")
    parser.add_argument("--true-codes", action="store_true",
                        help="the detector's tiles read as their labelled codes (what detection, layout "
                             "and decoding lose, without the classifier)")
    parser.add_argument("--player-names", action="store_true",
                        help="read each hand as if the player named its winning tile and the faces of its "
                             "kongs of four backs (--winning-tile, --kong-face): what those flags can buy")
    parser.add_argument("--player-fixes", action="store_true",
                        help="read each hand not read exactly again as if the player fixed every tile shown "
                             "wrong (--fix READ=TRUE): what that flag can buy (fixes_given: how many)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--split", choices=("train", "val"),
                        help="read only that split of the --real photos (by the table photos' split rule; "
                             "for datasets/real-labels/table-photos.jsonl)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--per-hand", type=Path, help="also write each image's outcome (exact, right total, "
                        "answered, sure, tiles, error; a miss's cause and wrong tiles) to this JSON file")
    parser.add_argument("--sheet", type=Path, help="also draw the misread tiles of the readable hands "
                        f"not read exactly side by side into this PNG (the first {SHEET_LIMIT})")
    parser.add_argument("--compare", type=Path,
                        help="a --per-hand file of an earlier run: list the hands (and right totals) gained "
                             "and lost since")
    parser.add_argument("--no-deadline", action="store_true", help="no 3 s limit a photo: outcomes that "
                        "do not depend on how busy the machine is (the readings' budget still holds)")
    args = parser.parse_args(argv)
    from vision.dataset.files import atomic_write_text
    from vision.decode.budget import NO_DEADLINE, PHOTO_BUDGET
    from vision.pipeline import PhotoPipeline

    limits = NO_DEADLINE if args.no_deadline else PHOTO_BUDGET
    pipeline = None if args.oracle else PhotoPipeline(photo_budget=limits)
    manifests = []
    if args.render:
        manifests.append(render_heldout(args.out, args.render, args.seed, args.overhead, args.far))
    if args.synth:
        manifests.append(args.synth)
    if args.real and args.real.exists():
        manifests.append(args.real)
    if args.boxes_only and not args.oracle:
        parser.error("--boxes-only goes with --oracle")
    if (args.player_names or args.player_fixes) and (args.oracle or args.true_codes):
        parser.error("--player-names and --player-fixes read photos through the whole pipeline: not with "
                     "--oracle or --true-codes")
    if args.true_codes and args.oracle:
        parser.error("--true-codes and --oracle are two different diagnoses; pick one")
    try:
        before = read_per_hand(args.compare) if args.compare else None
        sheet: list[tuple[np.ndarray, str]] | None = [] if args.sheet else None
        reports = [evaluate_manifest(m, pipeline=pipeline, rules=args.rules, oracle=args.oracle,
                                     boxes_only=args.boxes_only, true_codes=args.true_codes, limit=args.limit,
                                     split=args.split if m == args.real else None, sheet=sheet,
                                     named_by_player=args.player_names, fixed_by_player=args.player_fixes)
                   for m in manifests]
    except InputError as error:  # a missing or malformed manifest, an unknown rule set
        print(f"evaluate.py hands: error: {error}", file=sys.stderr)
        return 2
    documents = [r.to_json() for r in reports]
    if sheet is not None:
        from vision.evaluation.classification import draw_contact_sheet

        shown = sheet[:SHEET_LIMIT] or [(np.full((8, 6, 3), 255, np.uint8), "no misread tiles")]
        draw_contact_sheet([crop for crop, _ in shown], [caption for _, caption in shown], args.sheet)
    outcomes = per_hand(reports)
    if args.per_hand:
        atomic_write_text(args.per_hand, json.dumps(outcomes, indent=1) + "\n")
    if before is not None:
        changes = compare_hands(before, outcomes)
        for document in documents:
            if document["name"] in changes:
                document["compared"] = changes[document["name"]]
    if args.json:
        print(json.dumps(documents, indent=2))
    else:
        for document in documents:
            print(document["name"])
            for key, value in document.items():
                if key != "name":
                    print(f"  {key:<26} {value}")
    return 0
