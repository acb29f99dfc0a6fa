"""Evaluate the shipped models on held-out data: ``python scripts/evaluate.py {classifier,detector,hands}``.

classifier: top-1 overall / per family (flowers+seasons, backs), top-3, calibration, on
  (a) the real crops of the validation physical sets (``vision.dataset.crops.VALIDATION_SETS``) and
  (b) the table-photo validation photos we labelled (``datasets/real-labels/table-photos.jsonl``,
      split ``val``; crops cut from the true boxes, so the classifier is judged alone).
  (c) ``--synth N`` freshly rendered scenes (the only face-down tiles to test on; synthetic).
  Writes a confusion matrix PNG and a contact sheet of the worst crops per data set to ``--out``.
detector: recall and precision at IoU 0.5 on the table-photo validation photos.
hands: whole-hand exact-reading rate and score agreement on held-out rendered hands, tile accuracy
  on labelled real photos (``vision.evaluation.hands``; ``hands --help`` for its options).

``--json`` prints one JSON document on stdout. The numbers go into ``models/MODEL_CARD.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scoring.errors import InputError
from vision.dataset.paths import shared_data_dir


def evaluate_classifier(args: argparse.Namespace) -> dict[str, object]:
    from vision.evaluation.classification import (
        ClassificationReport,
        draw_confusion_matrix,
        draw_contact_sheet,
    )
    from vision.models.classifier import TileClassifier
    from vision.training.classifier_data import REAL_LABELS_MANIFEST, load_eval_crops, synthetic_crops

    classifier = TileClassifier(args.model)
    manifest = args.labels or REAL_LABELS_MANIFEST
    results: dict[str, object] = {"model": str(classifier.model_path), "temperature": classifier.temperature}
    datasets = load_eval_crops("val", real_labels=manifest, reviewed_only=True)
    if args.synth > 0:
        datasets["synthetic"] = synthetic_crops(args.synth, args.synth_seed)
    for name, (images, codes) in datasets.items():
        report = ClassificationReport(classifier.labels, codes, classifier.probabilities(images))
        results[name] = report.to_json()
        if args.out is not None:
            draw_confusion_matrix(report.confusion(), report.labels, args.out / f"confusion-{name}.png",
                                  title=f"classifier on {name} (val)")
            worst = report.worst(args.worst)
            predicted = report.predicted
            probability = report.probabilities.max(axis=1)
            captions = [f"{codes[i]}>{predicted[i]}\np={probability[i]:.2f}" for i in worst]
            draw_contact_sheet([images[i] for i in worst], captions, args.out / f"worst-{name}.png")
    return results


def evaluate_detector(args: argparse.Namespace) -> dict[str, object]:
    """Table-photo val split, plus the bundled samples and ``--synth`` renders (sideways/face-down flags)."""
    from vision.dataset.paths import REPO_ROOT
    from vision.evaluation.detection import detector_report
    from vision.models.detector import TileDetector

    detector = TileDetector(args.model)
    report = detector_report(detector, shared_data_dir() / "table-photos", synthetic_scenes=args.synth,
                             manifests=[REPO_ROOT / "datasets" / "samples" / "manifest.jsonl"])
    return {"model": str(detector.model_path), "score_threshold": detector.score_threshold, **report}


def main(argv: list[str]) -> int:
    if argv[:1] == ["hands"]:
        from vision.evaluation.hands import main as evaluate_hands

        return evaluate_hands(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("classifier", "detector"))
    parser.add_argument("--model", type=Path, default=None, help="ONNX model (default: the shipped one)")
    parser.add_argument("--labels", type=Path, default=None, help="table-photo label manifest")
    parser.add_argument("--out", type=Path, default=Path("evaluation"),
                        help="folder for the confusion matrix and worst-crop PNGs (default ./evaluation)")
    parser.add_argument("--worst", type=int, default=40, help="crops on the worst-crops contact sheet")
    parser.add_argument("--synth", type=int, default=30,
                        help="also evaluate the classifier on this many freshly rendered scenes (0: none)")
    parser.add_argument("--synth-seed", type=int, default=90210)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    try:
        results = evaluate_classifier(args) if args.what == "classifier" else evaluate_detector(args)
    except InputError as error:
        print(f"evaluate: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        _print_human(results)
    return 0


def _print_human(results: dict[str, object]) -> None:
    for name, value in results.items():
        if not isinstance(value, dict):
            print(f"{name}: {value}")
            continue
        print(f"{name}:")
        for key, item in value.items():
            if key in ("top_confusions", "worst_images"):
                item = ", ".join(" ".join(str(v) for v in row.values()) for row in item)  # type: ignore[union-attr]
            print(f"  {key}: {item}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
