"""Evaluate the shipped models on held-out data: ``python scripts/evaluate.py {classifier,detector,...}``.

The subcommands: classifier, detector, hands, sets.

classifier: top-1 overall / per family (flowers+seasons, backs), top-3, calibration, on
  (a) the real crops of the validation physical sets (``vision.dataset.crops.VALIDATION_SETS``) and
  (b) the table-photo validation photos we labelled (``datasets/real-labels/table-photos.jsonl``,
      split ``val``; crops cut from the true boxes, so the classifier is judged alone).
  (c) ``--synth N`` freshly rendered scenes (the only face-down tiles to test on; synthetic).
  Writes a confusion matrix PNG and a contact sheet of the worst crops per data set to ``--out``.
  ``--model`` takes an ONNX file or a training run's folder; ``--baseline`` (a file, a folder, or
  ``shipped``) evaluates a second model on the same crops and prints both side by side, e.g.
  ``evaluate.py classifier --model /tmp/cls80 --baseline shipped``. Each model's crops are cut and
  scaled at its own input size. Both are read with the shipped flower model (``--flower-model``
  ``none`` or a file to change that).
detector: recall and precision at IoU 0.5 on the table-photo validation photos.
roboflow: the held-out sources of ``roboflow-chinese`` (``datasets/splits/roboflow-chinese.json``):
  detector recall/precision, classifier top-1 (flowers and seasons apart), end-to-end tile accuracy
  through the photo pipeline's own reading, photos with every tile right; per kind of copy, family
  and tile-height band, in each ``--views`` (``vision.evaluation.roboflow``). ``--model`` is the
  detector, ``--classifier`` the classifier (default: the shipped ones).
hands: whole-hand exact-reading rate and score agreement on held-out rendered hands, tile accuracy
  on labelled real photos (``vision.evaluation.hands``; ``hands --help`` for its options).
sets: tile accuracy on held-out physical sets before and after learning each from one view per
  face or one photo (``vision.evaluation.sets``).

``--json`` prints one JSON document on stdout. The numbers go into ``models/MODEL_CARD.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scoring.errors import InputError
from vision.dataset.paths import shared_data_dir

if TYPE_CHECKING:
    from vision.models.classifier import TileClassifier


def evaluate_classifier(args: argparse.Namespace) -> dict[str, object]:
    """One model's report per held-out set, or with ``--baseline`` both models' and their comparison."""
    from vision.models.classifier import DEFAULT_MODEL_NAME, TileClassifier
    from vision.training.classifier_data import REAL_LABELS_MANIFEST, load_eval_crops

    flowers = _flower_model_choice(args.flower_model)
    classifier = TileClassifier(_model_file(args.model, DEFAULT_MODEL_NAME), flower_model=flowers)
    baseline = None
    if args.baseline is not None:
        shipped = args.baseline == "shipped"
        baseline = TileClassifier(None if shipped else _model_file(Path(args.baseline), DEFAULT_MODEL_NAME),
                                  flower_model=flowers)
        if baseline.model_path.resolve() == classifier.model_path.resolve():
            raise InputError(f"--baseline is the evaluated model itself ({baseline.model_path})")
    manifest = args.labels or REAL_LABELS_MANIFEST
    real_sets = load_eval_crops("val", real_labels=manifest, reviewed_only=True)
    results = _classifier_results(classifier, real_sets, args, args.out)
    if baseline is None:
        return results
    baseline_out = args.out / "baseline" if args.out is not None else None
    return {"candidate": results, "baseline": _classifier_results(baseline, real_sets, args, baseline_out)}


def _flower_model_choice(value: str) -> Path | bool:
    """``--flower-model``: ``shipped`` (models/flowers.onnx when there), ``none``, or a file."""
    return {"shipped": True, "none": False}.get(value, Path(value))


def _model_file(path: Path | None, default_name: str) -> Path | None:
    """A model given as a file, or as the folder a training run wrote it to."""
    return path / default_name if path is not None and path.is_dir() else path


def _classifier_results(classifier: TileClassifier, real_sets: dict, args: argparse.Namespace,
                        out: Path | None) -> dict[str, object]:
    from vision.evaluation.classification import (
        ClassificationReport,
        draw_confusion_matrix,
        draw_contact_sheet,
    )
    from vision.training.classifier_data import synthetic_crops

    size = classifier.input_size
    results: dict[str, object] = {"model": str(classifier.model_path), "temperature": classifier.temperature,
                                  "input": f"{size.height}x{size.width}"}
    datasets = dict(real_sets)
    if args.synth > 0:  # outlines are warped at the model's size, so each model gets its own cut
        datasets["synthetic"] = synthetic_crops(args.synth, args.synth_seed, size=size)
    for name, (images, codes) in datasets.items():
        report = ClassificationReport(classifier.labels, codes, classifier.probabilities(images))
        results[name] = report.to_json()
        if out is not None:
            draw_confusion_matrix(report.confusion(), report.labels, out / f"confusion-{name}.png",
                                  title=f"classifier on {name} (val)")
            worst = report.worst(args.worst)
            predicted = report.predicted
            probability = report.probabilities.max(axis=1)
            captions = [f"{codes[i]}>{predicted[i]}\np={probability[i]:.2f}" for i in worst]
            draw_contact_sheet([images[i] for i in worst], captions, out / f"worst-{name}.png")
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


def evaluate_roboflow(args: argparse.Namespace) -> dict[str, object]:
    """The shipped (or given) detector and classifier on the held-out roboflow-chinese sources."""
    from vision.evaluation.roboflow import evaluate_roboflow as run
    from vision.models.classifier import DEFAULT_MODEL_NAME, TileClassifier
    from vision.models.detector import TileDetector
    from vision.pipeline import PhotoPipeline
    from vision.repairs.farther_look import detect_whole_tiles

    detector = TileDetector(args.model)
    classifier = TileClassifier(_model_file(args.classifier, DEFAULT_MODEL_NAME),
                                flower_model=_flower_model_choice(args.flower_model))
    pipeline = PhotoPipeline(detector=detector, classifier=classifier)

    def classify(crops: list) -> list[str]:
        return [candidates[0][0] for candidates in classifier.classify_crops(crops, top_k=1)]

    def read_tiles(image: object) -> list:
        try:
            readings = pipeline.read_tiles(image)  # type: ignore[arg-type]
        except InputError:  # no tiles found: every labelled tile is missed
            return []
        return [(reading.detection.box, reading.code) for reading in readings]

    views = args.views.split(",")

    def detect(image: object) -> list:  # as the photo's first look finds them
        return detect_whole_tiles(detector, image)  # type: ignore[arg-type]

    report = run(detect, classify, read_tiles, views=views, limit=args.limit,
                 log=lambda line: print(line, file=sys.stderr, flush=True))
    return {"detector": str(detector.model_path), "classifier": str(classifier.model_path),
            "views": views, **report.to_json()}


def main(argv: list[str]) -> int:
    if argv[:1] == ["hands"]:
        from vision.evaluation.hands import main as evaluate_hands

        return evaluate_hands(argv[1:])
    if argv[:1] == ["sets"]:
        from vision.evaluation.sets import main as evaluate_sets

        return evaluate_sets(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("classifier", "detector", "roboflow"))
    parser.add_argument("--model", type=Path, default=None,
                        help="ONNX model (default: the shipped one); for the classifier also a run's folder")
    parser.add_argument("--baseline", default=None,
                        help="classifier: a second model (file, folder or 'shipped') to compare with --model")
    parser.add_argument("--flower-model", default="shipped",
                        help="classifier: the flower model read with both models: 'shipped' (default), "
                             "'none', or an ONNX file (vision.models.flowers)")
    parser.add_argument("--labels", type=Path, default=None, help="table-photo label manifest")
    parser.add_argument("--out", type=Path, default=Path("evaluation"),
                        help="folder for the confusion matrix and worst-crop PNGs (default ./evaluation)")
    parser.add_argument("--worst", type=int, default=40, help="crops on the worst-crops contact sheet")
    parser.add_argument("--synth", type=int, default=30,
                        help="also evaluate the classifier on this many freshly rendered scenes (0: none)")
    parser.add_argument("--synth-seed", type=int, default=90210)
    parser.add_argument("--classifier", type=Path, default=None,
                        help="roboflow: the classifier (ONNX file or a run's folder; default shipped)")
    parser.add_argument("--views", default="full,far,close",
                        help="roboflow: the views each held-out image is read in (of full, far, close)")
    parser.add_argument("--limit", type=int, default=None, help="roboflow: only the first N held-out images")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    evaluations = {"classifier": evaluate_classifier, "detector": evaluate_detector,
                   "roboflow": evaluate_roboflow}
    try:
        results = evaluations[args.what](args)
    except InputError as error:
        print(f"evaluate: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results, indent=1))
    elif args.what == "roboflow":
        _print_roboflow(results)
    elif "baseline" in results:
        _print_comparison(results)  # type: ignore[arg-type]
    else:
        _print_human(results)
    return 0


#: The figures of the side-by-side classifier table (JSON key, column heading).
_COMPARED = (("top1", "top-1"), ("top1_suits", "suits"), ("top1_honours", "honours"),
             ("top1_flowers_seasons", "flowers+seasons"), ("top1_back", "backs"), ("top3", "top-3"),
             ("ece", "ECE"), ("nll", "NLL"))


def _print_comparison(results: dict[str, dict[str, object]]) -> None:
    """A Markdown table: one row per held-out set and model (for models/MODEL_CARD.md)."""
    for role in ("baseline", "candidate"):
        model = results[role]
        print(f"{role}: {model['model']} (input {model['input']}, temperature {model['temperature']})")
    print("| held-out set | model | tiles | " + " | ".join(heading for _, heading in _COMPARED) + " |")
    print("|---|---|---|" + "---|" * len(_COMPARED))
    names = [name for name, value in results["candidate"].items() if isinstance(value, dict)]
    for name in names:
        for role in ("baseline", "candidate"):
            report = results[role][name]
            cells = [_cell(key, report.get(key)) for key, _ in _COMPARED]  # type: ignore[union-attr]
            print(f"| {name} | {role} | {report['crops']} | " + " | ".join(cells) + " |")  # type: ignore[index]
    for name in names:
        for role in ("baseline", "candidate"):
            confusions = results[role][name]["top_confusions"]  # type: ignore[index]
            text = ", ".join(f"{row['truth']}>{row['predicted']} x{row['count']}" for row in confusions)
            print(f"{name} {role} confusions: {text}")


def _print_roboflow(results: dict[str, object]) -> None:
    from vision.evaluation.roboflow import print_roboflow_json

    print(f"detector {results['detector']}, classifier {results['classifier']}, views {results['views']}")
    print_roboflow_json(results)


def _cell(key: str, value: object) -> str:
    if value is None:
        return "-"
    if key in ("ece", "nll"):
        return f"{value:.3f}"
    return f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


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
