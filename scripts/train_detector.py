"""Train the tile detector from scratch and export ``models/detector.onnx``.

    python scripts/train_detector.py                      # the recipe, from scratch (~78 min, 2 threads)
    python scripts/train_detector.py --steps 50 --output /tmp/det.onnx --synth-scenes 0

The recipe lives in ``vision.training.detector`` (its defaults are the recipe); this script only
parses flags. ``models/MODEL_CARD.md`` says which run the shipped model is and how to rerun it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.training.detector import DetectorTrainConfig, rethreshold, train_detector


def main(argv: list[str] | None = None) -> int:
    defaults = DetectorTrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=defaults.data_root,
                        help="table photos folder (images/ + labels/)")
    parser.add_argument("--output", type=Path, default=defaults.output)
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--synth-scenes", type=int, default=defaults.synth_scenes,
                        help="synthetic scenes to render (0 = real photos only)")
    parser.add_argument("--synth-fraction", type=float, default=defaults.synth_fraction,
                        help="share of each batch drawn from the synthetic scenes")
    parser.add_argument("--sideways-outline-weight", type=float, default=defaults.sideways_outline_weight,
                        help="how much more a sideways tile's outline error counts (1: the same)")
    parser.add_argument("--sideways-heat-weight", type=float, default=defaults.sideways_heat_weight,
                        help="how much more a sideways tile's centre counts in the heatmap loss "
                             "(1: the same)")
    parser.add_argument("--synth-cache", type=Path, default=defaults.synth_cache,
                        help="folder that keeps rendered scenes between runs")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start from the weights a previous run saved beside its model (.pt)")
    parser.add_argument("--rethreshold", action="store_true",
                        help="no training: choose the score threshold of the model at --output again "
                             "(real training photos and training renders) and write it into the model")
    parser.add_argument("--face-down-share", type=float, default=defaults.face_down_share,
                        help="share of rendered draws from scenes with face-down hand tiles")
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate,
                        help="peak learning rate (lower it to train on from --init-from)")
    parser.add_argument("--early-crop-share", type=float, default=defaults.early_crop_share,
                        help="share of the steps trained on smaller crops (--early-crop-size) first")
    parser.add_argument("--early-crop-size", type=int, default=defaults.early_crop_size,
                        help="crop side of the early steps (a multiple of 32)")
    parser.add_argument("--roboflow-fraction", type=float, default=defaults.roboflow_fraction,
                        help="share of each batch from the roboflow-chinese training sources (0: none; "
                             "datasets/splits/roboflow-chinese.json)")
    parser.add_argument("--roboflow-zoom", type=float, nargs=2, default=defaults.roboflow_zoom,
                        metavar=("LOW", "HIGH"), help="scale jitter of their views")
    parser.add_argument("--ignore-detector", type=Path, default=None,
                        help="a detector ONNX whose finds with no label box become ignore regions on the "
                             "roboflow-chinese photos (slow: one detector run per image)")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    args = parser.parse_args(argv)
    if not (args.data_root / "images").is_dir():
        print(f"train_detector: no table photos in {args.data_root}", file=sys.stderr)
        return 2
    if args.roboflow_fraction > 0:
        from vision.dataset.roboflow import SPLIT_PATH, roboflow_dir

        needed = (roboflow_dir() / "manifest.jsonl", SPLIT_PATH)
        missing = [str(path) for path in needed if not path.is_file()]
        if missing:
            print(f"train_detector: --roboflow-fraction needs {', '.join(missing)}", file=sys.stderr)
            return 2
    config = DetectorTrainConfig(data_root=args.data_root, output=args.output, steps=args.steps,
                                 batch_size=args.batch_size, synth_scenes=args.synth_scenes,
                                 synth_fraction=args.synth_fraction,
                                 sideways_outline_weight=args.sideways_outline_weight,
                                 sideways_heat_weight=args.sideways_heat_weight,
                                 synth_cache=args.synth_cache,
                                 face_down_share=args.face_down_share, learning_rate=args.learning_rate,
                                 early_crop_share=args.early_crop_share,
                                 early_crop_size=args.early_crop_size,
                                 roboflow_fraction=args.roboflow_fraction,
                                 roboflow_zoom=tuple(args.roboflow_zoom),
                                 ignore_detector=args.ignore_detector,
                                 seed=args.seed, threads=args.threads,
                                 init_from=args.init_from)
    if args.rethreshold:
        if not args.output.is_file():
            print(f"train_detector: no model at {args.output}", file=sys.stderr)
            return 2
        rethreshold(config, log=lambda line: print(line, flush=True))
        return 0
    result = train_detector(config, log=lambda line: print(line, flush=True))
    print(f"validation: {result.validation}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
