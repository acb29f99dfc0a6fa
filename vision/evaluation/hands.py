"""Whole-hand evaluation: does taicam read the *hand* (and its score) right, not just the tiles?

Two kinds of held-out data, both as manifests (``vision.dataset.manifest``):

* rendered hands with known truth (``hand`` in each record, tiles with ``role``/``group``): the
  exact whole-hand reading rate (standing tiles, sets, concealed kongs, flowers and winning tile
  all right) and score agreement (same total as the true hand under the same rules and context);
* labelled real photos: tile accuracy (each labelled tile matched to a detection at IoU 0.5; a
  missed tile counts as wrong), since the public table photos show racks, not laid-out wins; and
  the same matched by centres (``tile_accuracy_centres``, ``vision.evaluation.matching``), where
  a tile at a slant is boxed by its face in the labels and by its body too in the detections.

A concealed kong lying as four backs hides its face from any camera; such hands are reported
both strictly and "up to hidden faces" so the number says what it measures. Rendered scenes also
hide tiles (a hand over the table, a tile lying behind a standing row, the frame's edge): a hand
with a tile less than half visible (``hand_outcome.READABLE_VISIBLE``) cannot be read from the
photo alone, so the rates are given over all hands and over the *readable* ones (every hand tile
at least half visible), which is what the photo can be held to.

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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scoring.errors import InputError
from vision.evaluation.hand_outcome import evaluate_record
from vision.evaluation.hands_report import HandsReport, compare_hands, per_hand, read_per_hand

if TYPE_CHECKING:
    from scoring import RuleSet
    from vision.pipeline import PhotoPipeline


def evaluate_manifest(path: Path, *, pipeline: PhotoPipeline | None = None, rules: RuleSet | str = "taiwan",
                      oracle: bool = False, boxes_only: bool = False, true_codes: bool = False,
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
#: The same framing saved small (a messaging app's copy, a screenshot): the hand across a quarter to a
#: half of 1280x960, tiles 23-83 pixels long (median 47; 9-33 at the 512 input), and no more pixels
#: to look closer at.
FAR_SMALL = {**FAR, "width": 1280, "height": 960}


def render_heldout(out_dir: Path, count: int, seed: int, overhead: bool = False, far: bool = False,
                   far_small: bool = False) -> Path:
    """Render ``count`` held-out scenes (validation tile sets only) into ``out_dir``; return the manifest.
    ``overhead``: the easy camera (:data:`OVERHEAD`); ``far``: the hand far off in a big photo
    (:data:`FAR`); ``far_small``: the same photo saved small (:data:`FAR_SMALL`)."""
    import cv2

    from vision.dataset.manifest import write_manifest
    from vision.synth.scene import SceneConfig, render_scene

    out_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for index in range(count):
        try:
            framing = FAR_SMALL if far_small else FAR if far else {}
            config = SceneConfig(split="val", **(OVERHEAD if overhead else {}), **framing)
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
    parser.add_argument("--far-small", action="store_true",
                        help="the same framing in a 1280x960 photo: no more pixels to look closer at "
                             "(FAR_SMALL)")
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
        manifests.append(render_heldout(args.out, args.render, args.seed, args.overhead, args.far,
                                        args.far_small))
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
