"""Average several trained tile detectors into one ONNX model.

Detectors trained from scratch with different data or seeds err on different tiles: p1 (old
renders) reads rows seen from above better, p2 (current renders) standing rows and real photos.
Their maps (heatmap, offsets, log sizes, flags, doubled-angle axis, outline and corner
refinements) are all quantities whose mean is meaningful, so the ensemble is the members' graphs
side by side on one input with an ONNX ``Mean`` over their outputs. The runtime
(``vision.models.detector``) reads it as it reads any detector: one file, one session, no code
path of its own. The members must share the input size, stride and channel layout.

Needs ``onnx`` (the training extra); the runtime never imports this module.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

#: Metadata every member must agree on: what the runtime needs to decode the maps.
SHARED_KEYS = ("input_size", "stride", "channels")
#: Metadata describing how a member was trained, kept per member in the ensemble's ``members``.
MEMBER_KEYS = ("seed", "steps", "synth_scenes", "real_photos", "score_threshold")


class EnsembleError(ValueError):
    """The members cannot be averaged (different layouts, or not detectors of this project)."""


def _metadata(proto) -> dict[str, str]:
    return {entry.key: entry.value for entry in proto.metadata_props}


def build_detector_ensemble(members: Sequence[Path], output: Path) -> dict[str, str]:
    """Write to ``output`` one ONNX model whose ``maps`` are the mean of the members' maps.

    Returns the ensemble's metadata. Its ``score_threshold`` is the members' mean, a starting
    point: choose it again by the training rule (``scripts/train_detector.py --rethreshold``).
    ``output`` may be one of the members; it is written only once the ensemble is complete.
    """
    import onnx
    from onnx import compose, helper

    if len(members) < 2:
        raise EnsembleError("an ensemble needs at least two detectors")
    protos = [onnx.load(str(path)) for path in members]
    metas = [_metadata(proto) for proto in protos]
    first = protos[0].graph
    for path, proto, meta in zip(members, protos, metas, strict=True):
        missing = [key for key in (*SHARED_KEYS, "score_threshold") if key not in meta]
        if missing:
            raise EnsembleError(f"{path} is not a taicam detector (no {', '.join(missing)} in its metadata)")
        if [key for key in SHARED_KEYS if meta[key] != metas[0][key]]:
            raise EnsembleError(f"{path} differs from {members[0]} in input size, stride or channels")
        if "members" in meta:
            raise EnsembleError(f"{path} is itself an ensemble; list its members instead")
        graph = proto.graph
        if len(graph.input) != 1 or len(graph.output) != 1:
            raise EnsembleError(f"{path} has {len(graph.input)} inputs and {len(graph.output)} outputs, "
                                "expected 1 and 1")
        if (graph.input[0].name, graph.output[0].name) != (first.input[0].name, first.output[0].name):
            raise EnsembleError(f"{path} names its input or output differently from {members[0]}")
        if proto.opset_import != protos[0].opset_import:
            raise EnsembleError(f"{path} uses another ONNX opset than {members[0]}")

    nodes, initializers, value_info, outputs = [], [], [], []
    for index, proto in enumerate(protos):
        # Every name inside a member gets its own prefix; the shared image input keeps its name.
        renamed = compose.add_prefix(proto, prefix=f"member{index}_", rename_inputs=False)
        nodes.extend(renamed.graph.node)
        initializers.extend(renamed.graph.initializer)
        value_info.extend(renamed.graph.value_info)
        outputs.append(renamed.graph.output[0].name)
    mean = helper.make_node("Mean", outputs, [first.output[0].name], name="ensemble_mean")
    graph = helper.make_graph([*nodes, mean], "taicam_detector_ensemble", list(first.input),
                              list(first.output), initializer=initializers, value_info=value_info)
    model = helper.make_model(graph, opset_imports=list(protos[0].opset_import))
    model.ir_version = protos[0].ir_version

    thresholds = [float(meta["score_threshold"]) for meta in metas]
    metadata = {key: metas[0][key] for key in SHARED_KEYS}
    metadata["score_threshold"] = f"{sum(thresholds) / len(thresholds):.3f}"
    metadata["members"] = json.dumps([
        {"file": Path(path).name, "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16],
         **{key: meta[key] for key in MEMBER_KEYS if key in meta}}
        for path, meta in zip(members, metas, strict=True)])
    metadata["description"] = (f"taicam tile detector: mean of {len(members)} detectors' maps "
                               f"(stride {metadata['stride']})")
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)

    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_suffix(".tmp.onnx")
    onnx.save(model, str(tmp))
    tmp.replace(output)
    return metadata
