"""Average trained tile detectors into one ONNX model and choose its score threshold.

    python scripts/ensemble_detector.py runs/p1/detector.onnx runs/p2/detector.onnx \
        --output models/detector.onnx

Each member is one run of ``scripts/train_detector.py``; the ensemble's maps are the mean of the
members' (``vision.training.detector_ensemble``). The threshold is then chosen by the training
rule on the real training photos and training renders (``--keep-threshold`` skips that and keeps
the members' mean). ``models/MODEL_CARD.md`` says which members the shipped model has.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.training.detector import DetectorTrainConfig, rethreshold
from vision.training.detector_ensemble import EnsembleError, build_detector_ensemble


def main(argv: list[str] | None = None) -> int:
    defaults = DetectorTrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="trained detector ONNX files")
    parser.add_argument("--output", type=Path, default=defaults.output)
    parser.add_argument("--keep-threshold", action="store_true",
                        help="keep the members' mean threshold instead of choosing it again")
    parser.add_argument("--data-root", type=Path, default=defaults.data_root,
                        help="table photos folder (images/ + labels/), for choosing the threshold")
    parser.add_argument("--threads", type=int, default=defaults.threads)
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.members if not path.is_file()]
    if missing:
        print(f"ensemble_detector: no model at {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        metadata = build_detector_ensemble(args.members, args.output)
    except EnsembleError as error:
        print(f"ensemble_detector: {error}", file=sys.stderr)
        return 2
    print(f"{args.output}: mean of {len(args.members)} detectors, threshold {metadata['score_threshold']}")
    if not args.keep_threshold:
        config = DetectorTrainConfig(data_root=args.data_root, output=args.output, threads=args.threads)
        rethreshold(config, log=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
