"""The trained detector as an ONNX file: exported with dynamic height and width, checked against
torch in onnxruntime, and its metadata rewritten in place. The runtime reads only the ONNX model and
its metadata (input size, stride, threshold, channels)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch

from vision.training.detector_model import TileDetectorNet


def set_metadata(path: Path, values: dict[str, str]) -> None:
    """Rewrite entries of an ONNX model's metadata (atomically: the model is never half-written)."""
    import onnx

    proto = onnx.load(str(path))
    kept = [(p.key, p.value) for p in proto.metadata_props if p.key not in values]
    del proto.metadata_props[:]
    for key, value in [*kept, *values.items()]:
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    tmp = path.with_suffix(".tmp.onnx")
    onnx.save(proto, str(tmp))
    tmp.replace(path)


def export_onnx(model: TileDetectorNet, path: Path, metadata: dict[str, str], input_size: int) -> float:
    """Write the model to ONNX (dynamic height/width), add metadata, return max |onnx - torch|."""
    import onnx
    import onnxruntime as ort

    model = copy.deepcopy(model).eval().to(memory_format=torch.contiguous_format)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    example = torch.rand(1, 3, input_size, input_size * 3 // 4 // 32 * 32 or 32)
    torch.onnx.export(
        model, (example,), str(tmp), input_names=["image"], output_names=["maps"],
        dynamic_axes={"image": {2: "height", 3: "width"}, "maps": {2: "rows", 3: "cols"}},
        opset_version=17, dynamo=False,
    )
    proto = onnx.load(str(tmp))
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(tmp))
    session = ort.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
    check = torch.rand(1, 3, input_size, input_size)
    with torch.no_grad():
        expected = model(check).numpy()
    got = session.run(None, {"image": check.numpy()})[0]
    diff = float(np.max(np.abs(expected - got)))
    if diff > 1e-3:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"onnxruntime output differs from torch by {diff}")
    tmp.replace(path)
    return diff
