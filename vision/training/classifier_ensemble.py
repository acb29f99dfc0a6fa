"""Average several trained tile classifiers into one ONNX model and label file.

Classifiers trained from scratch with other seeds see other augmentations in another order and
misread different crops; the mean of their logits is the usual way to read more of them right
(whether it does for a given pair is measured with ``scripts/evaluate.py classifier --model DIR
--baseline shipped``; ``models/MODEL_CARD.md`` says what was tried). The ensemble is one
``classifier.onnx`` whose ``logits`` are the members' mean
(:func:`vision.training.onnx_mean.mean_of_models`) and one ``classifier.labels.json`` in the
runtime's format, so ``vision.models.classifier`` reads it as any classifier; it has the
members' concatenated features as its ``embedding`` output (``vision.training.embedding_output``).
Its temperature starts as the members' mean and must be fitted again on the calibration crops
(``scripts/ensemble_models.py`` does, as ``train_classifier.py --calibrate-only`` would).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vision.dataset.files import atomic_write_text
from vision.training.embedding_output import with_embedding_output, without_embedding_output
from vision.training.onnx_mean import (
    EnsembleError,
    mean_of_models,
    members_of,
    save_model,
    short_digest,
    with_half_weights,
)

if TYPE_CHECKING:
    from onnx import ModelProto


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
    return model, obj


def _member_record(folder: Path, path: Path, obj: dict) -> dict:
    """What the ensemble's label file says of one member: the run folder, the file's digest, and the
    member's whole training recipe, so each can be trained again from the label file."""
    config = obj.get("config") or {}
    return {"folder": str(folder), "sha256": short_digest(path), "seed": config.get("seed"),
            "steps": config.get("steps"), "temperature": obj["temperature"], "config": obj.get("config")}


def _members(folder: Path, stem: str) -> list[tuple[str, ModelProto, dict, dict]]:
    """(name, model, label file, member record) of each member a folder holds: the folder's model, or,
    for an ensemble (its label file lists ``members``), each member cut out of it
    (:func:`vision.training.onnx_mean.members_of`) with its own record, so a new member joins the old
    ones with equal weight."""
    import onnx

    path, obj = _read_member(folder, stem)
    proto = without_embedding_output(onnx.load(str(path)))  # members join on their logits alone
    if "members" not in obj:
        return [(str(path), proto, obj, _member_record(folder, path, obj))]
    records = obj["members"]
    if not isinstance(records, list) or not all(isinstance(r, dict) and "temperature" in r for r in records):
        raise EnsembleError(f"{folder}: its label file's members are not a list of member records")
    parts = members_of(proto, len(records))
    return [(f"{path} member {k}", part, obj, record)
            for k, (part, record) in enumerate(zip(parts, records, strict=True))]


def build_classifier_ensemble(members: Sequence[Path], out_dir: Path, stem: str = "classifier",
                              half_weights: bool = True) -> dict:
    """Write ``out_dir/<stem>.onnx`` (mean of the members' logits) and its label file; return the latter.

    ``half_weights`` (the default) stores the weights in half precision
    (:func:`vision.training.onnx_mean.with_half_weights`): four members take 9.9 MB instead of 19.8.

    ``members`` are folders each holding ``<stem>.onnx`` and ``<stem>.labels.json``, as
    ``scripts/train_classifier.py --out`` writes them, or an ensemble's (``models``), whose members
    each count as one. A member stored in half precision stays so with ``half_weights`` off.
    ``out_dir`` may be one of them (the members are read before anything is written).
    """
    read = [member for folder in members for member in _members(Path(folder), stem)]
    if len(read) < 2:
        raise EnsembleError("an ensemble needs at least two classifiers")
    first = read[0][2]
    for name, _, obj, _ in read:
        if obj["labels"] != first["labels"] or obj.get("input") != first.get("input"):
            raise EnsembleError(f"{name} differs from {read[0][0]} in its labels or input format")
    model = mean_of_models([proto for _, proto, _, _ in read], [name for name, _, _, _ in read],
                           "taicam_classifier_ensemble")
    if half_weights:
        model = with_half_weights(model)
    model = with_embedding_output(model)
    temperatures = [float(record["temperature"]) for _, _, _, record in read]
    labels = {
        "labels": first["labels"],
        "temperature": round(sum(temperatures) / len(temperatures), 4),
        "input": first.get("input"),
        "weights": "float16" if half_weights else "float32",
        "members": [record for _, _, _, record in read],
    }
    out_dir = Path(out_dir)
    save_model(model, out_dir / f"{stem}.onnx")
    atomic_write_text(out_dir / f"{stem}.labels.json", json.dumps(labels, indent=1) + "\n")
    return labels
