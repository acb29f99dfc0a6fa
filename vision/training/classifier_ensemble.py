"""Average several trained tile classifiers into one ONNX model and label file.

Classifiers trained from scratch with other seeds see other augmentations in another order and
misread different crops; the mean of their logits is the usual way to read more of them right
(whether it does for a given pair is measured with ``scripts/evaluate.py classifier --model DIR
--baseline shipped``; ``models/MODEL_CARD.md`` says what was tried). The ensemble is one
``classifier.onnx`` whose ``logits`` are the members' mean
(:func:`vision.training.onnx_mean.mean_of_models`) and one ``classifier.labels.json`` in the
runtime's format, so ``vision.models.classifier`` reads it as any classifier. Its temperature
starts as the members' mean and must be fitted again on the calibration crops
(``scripts/ensemble_models.py`` does, as ``train_classifier.py --calibrate-only`` would).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from vision.dataset.files import atomic_write_text
from vision.training.onnx_mean import (
    EnsembleError,
    mean_of_models,
    save_model,
    short_digest,
    with_half_weights,
)


def _read_member(folder: Path, stem: str) -> tuple[Path, dict]:
    model, labels = folder / f"{stem}.onnx", folder / f"{stem}.labels.json"
    if not model.is_file() or not labels.is_file():
        raise EnsembleError(f"{folder} holds no {model.name} with its {labels.name}")
    try:
        obj = json.loads(labels.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EnsembleError(f"cannot read {labels}: {error}") from None
    if not isinstance(obj, dict) or "labels" not in obj or "temperature" not in obj:
        raise EnsembleError(f"{labels} is not a taicam label file (no labels or temperature)")
    if "members" in obj:
        raise EnsembleError(f"{folder} is itself an ensemble; list its members instead")
    return model, obj


def build_classifier_ensemble(members: Sequence[Path], out_dir: Path, stem: str = "classifier",
                              half_weights: bool = True) -> dict:
    """Write ``out_dir/<stem>.onnx`` (mean of the members' logits) and its label file; return the latter.

    ``half_weights`` (the default) stores the weights in half precision
    (:func:`vision.training.onnx_mean.with_half_weights`): four members take 9.9 MB instead of 19.8.

    ``members`` are folders each holding ``<stem>.onnx`` and ``<stem>.labels.json``, as
    ``scripts/train_classifier.py --out`` writes them. ``out_dir`` may be one of them (the
    members are read before anything is written).
    """
    import onnx

    if len(members) < 2:
        raise EnsembleError("an ensemble needs at least two classifiers")
    read = [_read_member(Path(folder), stem) for folder in members]
    first = read[0][1]
    for folder, (_, obj) in zip(members, read, strict=True):
        if obj["labels"] != first["labels"] or obj.get("input") != first.get("input"):
            raise EnsembleError(f"{folder} differs from {members[0]} in its labels or input format")
    protos = [onnx.load(str(model)) for model, _ in read]
    model = mean_of_models(protos, [str(model) for model, _ in read], "taicam_classifier_ensemble")
    if half_weights:
        model = with_half_weights(model)
    temperatures = [float(obj["temperature"]) for _, obj in read]
    labels = {
        "labels": first["labels"],
        "temperature": round(sum(temperatures) / len(temperatures), 4),
        "input": first.get("input"),
        "weights": "float16" if half_weights else "float32",
        "members": [{"folder": str(folder), "sha256": short_digest(path),
                     "seed": obj.get("config", {}).get("seed"), "steps": obj.get("config", {}).get("steps"),
                     "temperature": obj["temperature"],
                     # The member's whole training recipe, so each can be trained again from this file.
                     "config": obj.get("config")}
                    for folder, (path, obj) in zip(members, read, strict=True)],
    }
    out_dir = Path(out_dir)
    save_model(model, out_dir / f"{stem}.onnx")
    atomic_write_text(out_dir / f"{stem}.labels.json", json.dumps(labels, indent=1) + "\n")
    return labels
