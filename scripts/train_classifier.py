"""Train the tile classifier from scratch and export it: ``python scripts/train_classifier.py``.

Writes ``models/classifier.onnx`` and ``models/classifier.labels.json`` (codes, calibration
temperature, recipe). Fixed seed; the shipped model took 35 minutes with ``--threads 2`` on an idle
2-core machine (the default, one thread, suits a shared one). The recipe lives in
``vision.training.classifier_train``; this file only parses options.

``--flower-model`` trains the flower model instead (``models/flowers.onnx`` and its labels; see
``vision.models.flowers``): the same network with a third of its flower draws procedural, under
their own number and name, and every real crop set; 33 minutes with ``--threads 2``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.models import models_dir
from vision.training.classifier_train import (
    TrainConfig,
    calibration_samples,
    export_onnx,
    recalibrate_folder,
    train_classifier,
    verify_onnx,
    write_labels,
)

#: The flower model's share of procedural flower draws (run c3 of the model card).
FLOWER_MODEL_SHARE = 0.35


def main(argv: list[str]) -> int:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=models_dir(), help="folder for the ONNX model and labels")
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--input-height", type=int, default=defaults.input_height,
                        help="crop height the model reads, a multiple of 4 (width is 3/4 of it; "
                             "recorded in the label file)")
    parser.add_argument("--synth-scenes", type=int, default=defaults.synth_scenes,
                        help="rendered training scenes cut into crops (0: real crops, photos and art only)")
    parser.add_argument("--procedural-flower-share", type=float, default=None,
                        help="share of flower and season draws drawn procedurally in fresh random sets "
                             f"(default {defaults.procedural_flower_share}; {FLOWER_MODEL_SHARE} with "
                             "--flower-model)")
    parser.add_argument("--outline-turn", type=float, default=defaults.outline_turn_degrees,
                        help="cut half the training views along a window turned up to this many degrees, "
                             "as along a detector outline turned against its tile "
                             f"(default {defaults.outline_turn_degrees})")
    parser.add_argument("--occlude", type=float, default=defaults.occlusion_share,
                        help="share of the training views with one rectangle of the face covered, as "
                             "a finger, glare or a pasted square hides it "
                             f"(default {defaults.occlusion_share})")
    parser.add_argument("--askew-box", type=float, default=defaults.askew_box_share,
                        help="share of the training views showing the tile turned 15-50 degrees inside "
                             "the axis-aligned box around it, as a box label frames a tile lying askew "
                             f"(default {defaults.askew_box_share})")
    parser.add_argument("--varied-flower-numbers", action="store_true",
                        help="procedural flowers print their number in varied glyphs, sizes and places "
                             "(Chinese numerals among them), not one plain corner digit")
    parser.add_argument("--set-photo-flowers", action="store_true",
                        help="also train on the 48 flowers and seasons of five sets we labelled in the set "
                             "photos (datasets/real-labels/set-photo-flowers.jsonl)")
    parser.add_argument("--crossed-flowers", type=float, default=defaults.crossed_flower_share,
                        help="share of flower and season draws shown as a real tile of that face under the "
                             "picture of another face's real tile, so only the name and number tell "
                             f"(default {defaults.crossed_flower_share})")
    parser.add_argument("--roboflow", action="store_true",
                        help="also train on the crops of the roboflow-chinese training sources "
                             "(datasets/splits/roboflow-chinese.json; mirrored copies left out)")
    parser.add_argument("--flower-model", action="store_true",
                        help="train the flower model (flowers.onnx), on every crop set and, unless "
                             f"given, --procedural-flower-share {FLOWER_MODEL_SHARE}")
    parser.add_argument("--all-crop-sets", action="store_true",
                        help="also train on the crop sets the defaults leave out "
                             f"({', '.join(defaults.exclude_crop_sets)})")
    parser.add_argument("--no-table-photos", action="store_true",
                        help="train without our table-photo labels (the first, pre-annotation model)")
    parser.add_argument("--calibrate-only", action="store_true",
                        help="no training: refit the temperature of the model in --out, rewrite its labels")
    args = parser.parse_args(argv)
    stem = "flowers" if args.flower_model else "classifier"
    if args.calibrate_only:
        return recalibrate(args.out, stem)
    share = args.procedural_flower_share
    if share is None:
        share = FLOWER_MODEL_SHARE if args.flower_model else defaults.procedural_flower_share
    all_sets = args.all_crop_sets or args.flower_model
    config = TrainConfig(steps=args.steps, batch_size=args.batch_size, seed=args.seed, threads=args.threads,
                         include_table_photos=not args.no_table_photos, synth_scenes=args.synth_scenes,
                         input_height=args.input_height, procedural_flower_share=share,
                         outline_turn_degrees=args.outline_turn, occlusion_share=args.occlude,
                         askew_box_share=args.askew_box,
                         varied_flower_numbers=args.varied_flower_numbers,
                         set_photo_flowers=args.set_photo_flowers,
                         crossed_flower_share=args.crossed_flowers, roboflow_crops=args.roboflow,
                         exclude_crop_sets=() if all_sets else defaults.exclude_crop_sets)
    try:
        size = config.input_size
    except ValueError as error:
        parser.error(str(error))
    if args.roboflow:
        from vision.dataset.roboflow import SPLIT_PATH, roboflow_dir

        needed = (roboflow_dir() / "manifest.jsonl", SPLIT_PATH)
        missing = [str(path) for path in needed if not path.is_file()]
        if missing:
            print(f"train_classifier: --roboflow needs {', '.join(missing)}", file=sys.stderr)
            return 2
    result = train_classifier(config, log=lambda line: print(line, flush=True))
    onnx_path = args.out / f"{stem}.onnx"
    export_onnx(result.model, onnx_path, size)
    images, _ = calibration_samples()
    difference = verify_onnx(result.model, onnx_path, images[:64], size)
    print(f"onnxruntime vs torch: max |logit difference| {difference:.2e}", flush=True)
    if difference > 1e-3:
        print("error: the ONNX export does not match the torch model", file=sys.stderr)
        return 1
    write_labels(args.out / f"{stem}.labels.json", result.temperature, config,
                 {"training": {"seconds": round(result.seconds), "sources": result.sources,
                               "calibration_crops": result.calibration_size}})
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB) in {result.seconds / 60:.1f} min")
    return 0


def recalibrate(folder: Path, stem: str = "classifier") -> int:
    temperature, count, labels_path = recalibrate_folder(folder, stem)
    print(f"temperature {temperature:.3f} on {count} calibration crops -> {labels_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
