"""Average several trained tile detectors into one ONNX model.

Detectors trained from scratch with different data or seeds err on different tiles: p1 (older
renders) reads rows seen from above better, p2 (current renders) standing rows and real photos.
Their maps (heatmap, offsets, log sizes, flags, doubled-angle axis, outline and corner
refinements) are all quantities whose mean is meaningful, so the ensemble is their mean
(:func:`vision.training.onnx_mean.mean_of_models`). The runtime (``vision.models.detector``) reads
it as it reads any detector: one file, loaded once, no code path of its own. The members must
share the input size, stride and channel layout.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vision.training.onnx_mean import EnsembleError, mean_of_models, save_model, short_digest

if TYPE_CHECKING:
    from onnx import ModelProto

#: Metadata every member must agree on: what the runtime needs to decode the maps.
SHARED_KEYS = ("input_size", "stride", "channels")
#: Metadata describing how a member was trained, kept per member in the ensemble's ``members``.
MEMBER_KEYS = ("seed", "steps", "synth_scenes", "real_photos", "score_threshold")


def _metadata(proto: ModelProto) -> dict[str, str]:
    return {entry.key: entry.value for entry in proto.metadata_props}


def build_detector_ensemble(members: Sequence[Path], output: Path) -> dict[str, str]:
    """Write to ``output`` one ONNX model whose ``maps`` are the mean of the members' maps.

    Returns the ensemble's metadata. Its ``score_threshold`` is the members' mean, a starting
    point: choose it again by the training rule (``scripts/ensemble_models.py`` does).
    ``output`` may be one of the members; it is written only once the ensemble is complete.
    """
    import onnx

    if len(members) < 2:
        raise EnsembleError("an ensemble needs at least two detectors")
    protos = [onnx.load(str(path)) for path in members]
    metas = [_metadata(proto) for proto in protos]
    for path, meta in zip(members, metas, strict=True):
        missing = [key for key in (*SHARED_KEYS, "score_threshold") if key not in meta]
        if missing:
            raise EnsembleError(f"{path} is not a taicam detector (no {', '.join(missing)} in its metadata)")
        if [key for key in SHARED_KEYS if meta[key] != metas[0][key]]:
            raise EnsembleError(f"{path} differs from {members[0]} in input size, stride or channels")
        if "members" in meta:
            raise EnsembleError(f"{path} is itself an ensemble; list its members instead")
    model = mean_of_models(protos, [str(path) for path in members], "taicam_detector_ensemble")

    thresholds = [float(meta["score_threshold"]) for meta in metas]
    metadata = {key: metas[0][key] for key in SHARED_KEYS}
    metadata["score_threshold"] = f"{sum(thresholds) / len(thresholds):.3f}"
    metadata["members"] = json.dumps([
        {"file": str(path), "sha256": short_digest(path),
         **{key: meta[key] for key in MEMBER_KEYS if key in meta}}
        for path, meta in zip(members, metas, strict=True)])
    metadata["description"] = (f"taicam tile detector: mean of {len(members)} detectors' maps "
                               f"(stride {metadata['stride']})")
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    save_model(model, output)
    return metadata
