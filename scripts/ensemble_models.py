"""Average trained models into one ONNX model (an ensemble) and calibrate it.

    python scripts/ensemble_models.py detector runs/p1/detector.onnx runs/p2/detector.onnx \\
        --output models/detector.onnx
    python scripts/ensemble_models.py classifier runs/c1 runs/c2 --out models

Each member is one run of ``scripts/train_detector.py`` or ``scripts/train_classifier.py``. A
detector ensemble's maps are the mean of its members' (``vision.training.detector_ensemble``); its
score threshold is then chosen by the training rule on the real training photos and training
renders. A classifier ensemble's logits are the mean of its members'
(``vision.training.classifier_ensemble``); its temperature is then fitted on the calibration
crops. A classifier member may itself be an ensemble (``models``): its members are cut out of it
and each counts as one, so a new run joins the shipped ones with equal weight without their run
folders (``python scripts/ensemble_models.py classifier models runs/c4 --out DIR``). ``--keep``
skips the second step. A classifier ensemble stores its weights in half precision
(half the file, the same float32 arithmetic) unless ``--full-weights``. ``models/MODEL_CARD.md``
says what the shipped models are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.training.onnx_mean import EnsembleError


def _detector(args: argparse.Namespace) -> int:
    from vision.training.detector import DetectorTrainConfig, rethreshold
    from vision.training.detector_ensemble import build_detector_ensemble

    missing = [str(path) for path in args.members if not path.is_file()]
    if missing:
        print(f"ensemble_models: no model at {', '.join(missing)}", file=sys.stderr)
        return 2
    if not args.keep and not (args.data_root / "images").is_dir():
        print(f"ensemble_models: no table photos in {args.data_root} to choose the threshold on "
              "(give --data-root, or --keep)", file=sys.stderr)
        return 2
    metadata = build_detector_ensemble(args.members, args.output)
    print(f"{args.output}: mean of {len(args.members)} detectors, threshold {metadata['score_threshold']}")
    if not args.keep:
        config = DetectorTrainConfig(data_root=args.data_root, output=args.output, threads=args.threads)
        rethreshold(config, log=lambda line: print(line, flush=True))
    return 0


def _classifier(args: argparse.Namespace) -> int:
    from vision.training.classifier_ensemble import build_classifier_ensemble

    missing = [str(path) for path in args.members if not path.is_dir()]
    if missing:
        print(f"ensemble_models: no folder {', '.join(missing)}", file=sys.stderr)
        return 2
    labels = build_classifier_ensemble(args.members, args.out, args.stem, half_weights=not args.full_weights)
    print(f"{args.out / (args.stem + '.onnx')}: mean of {len(labels['members'])} classifiers' logits, "
          f"temperature {labels['temperature']}")
    if not args.keep:
        from vision.training.classifier_train import recalibrate_folder

        temperature, count, path = recalibrate_folder(args.out, args.stem)
        print(f"temperature {temperature:.3f} on {count} calibration crops -> {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from vision.training.detector import DetectorTrainConfig

    defaults = DetectorTrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    detector = kinds.add_parser("detector", help="average detectors' maps")
    detector.add_argument("members", type=Path, nargs="+", help="trained detector ONNX files")
    detector.add_argument("--output", type=Path, default=defaults.output)
    detector.add_argument("--data-root", type=Path, default=defaults.data_root,
                          help="table photos folder (images/ + labels/), for choosing the threshold")
    detector.add_argument("--threads", type=int, default=defaults.threads)
    classifier = kinds.add_parser("classifier", help="average classifiers' logits")
    classifier.add_argument("members", type=Path, nargs="+",
                            help="folders each holding <stem>.onnx and <stem>.labels.json "
                                 "(an ensemble's counts as its members)")
    classifier.add_argument("--out", type=Path, default=Path("models"))
    classifier.add_argument("--stem", default="classifier", help="classifier or flowers")
    classifier.add_argument("--full-weights", action="store_true",
                            help="store the weights as float32 (by default float16, half the file; "
                                 "computed in float32 either way)")
    for sub in (detector, classifier):
        sub.add_argument("--keep", action="store_true",
                         help="keep the members' mean threshold or temperature instead of fitting it again")
    args = parser.parse_args(argv)
    try:
        return _detector(args) if args.kind == "detector" else _classifier(args)
    except EnsembleError as error:
        print(f"ensemble_models: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
