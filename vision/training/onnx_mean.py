"""One ONNX model whose output is the mean of several models' outputs on the same input.

Models trained apart (another seed, other data) err on different inputs; averaging their outputs
is the plainest ensemble and needs no runtime code: the members' graphs sit side by side on the
shared input and an ONNX ``Mean`` joins their single outputs. Used for the detector's maps
(``detector_ensemble``) and the classifier's logits (``classifier_ensemble``).

Needs ``onnx`` (the training extra); the runtime never imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnx import ModelProto


class EnsembleError(ValueError):
    """The members cannot be averaged (different inputs or outputs, or not models of this kind)."""


def mean_of_models(protos: Sequence[ModelProto], names: Sequence[str], graph_name: str) -> ModelProto:
    """An ONNX ``ModelProto`` computing the element-wise mean of ``protos``' outputs.

    Each member must have one input and one output, named as the first member's, and the same
    opset; ``names`` (files, for messages) match ``protos``. The result has no metadata.
    """
    from onnx import compose, helper

    if len(protos) < 2:
        raise EnsembleError("an ensemble needs at least two models")
    first = protos[0].graph
    for name, proto in zip(names, protos, strict=True):
        graph = proto.graph
        if len(graph.input) != 1 or len(graph.output) != 1:
            raise EnsembleError(f"{name} has {len(graph.input)} inputs and {len(graph.output)} outputs, "
                                "expected 1 and 1")
        if (graph.input[0].name, graph.output[0].name) != (first.input[0].name, first.output[0].name):
            raise EnsembleError(f"{name} names its input or output differently from {names[0]}")
        if proto.opset_import != protos[0].opset_import:
            raise EnsembleError(f"{name} uses another ONNX opset than {names[0]}")

    nodes, initializers, value_info, outputs = [], [], [], []
    for index, proto in enumerate(protos):
        # Every name inside a member gets its own prefix; the shared input keeps its name.
        renamed = compose.add_prefix(proto, prefix=f"member{index}_", rename_inputs=False)
        nodes.extend(renamed.graph.node)
        initializers.extend(renamed.graph.initializer)
        value_info.extend(renamed.graph.value_info)
        outputs.append(renamed.graph.output[0].name)
    mean = helper.make_node("Mean", outputs, [first.output[0].name], name="ensemble_mean")
    graph = helper.make_graph([*nodes, mean], graph_name, list(first.input), list(first.output),
                              initializer=initializers, value_info=value_info)
    model = helper.make_model(graph, opset_imports=list(protos[0].opset_import))
    model.ir_version = protos[0].ir_version
    return model


def members_of(model: ModelProto, count: int) -> list[ModelProto]:
    """The ``count`` members of an ensemble made by :func:`mean_of_models`, each cut out whole
    (its nodes, weights and output, renamed back to the names the member had before it joined).

    Why: a member's training run folder need not be kept, yet a new member must join the old ones
    with equal weight, not as one half of a mean with the old ensemble. Cut out this way, the
    members' mean is the ensemble's output again (to float rounding)."""
    from onnx import shape_inference, utils

    graph = model.graph
    if len(graph.input) != 1 or not graph.output:
        raise EnsembleError("an ensemble has one input and an output")  # the first: the members' mean
    input_name, output_name = graph.input[0].name, graph.output[0].name
    produced = {name for node in graph.node for name in node.output}
    # The extractor finds each member's output by its inferred shape.
    extractor = utils.Extractor(shape_inference.infer_shapes(model))
    members = []
    for index in range(count):
        prefix = f"member{index}_"
        if f"{prefix}{output_name}" not in produced:
            raise EnsembleError(f"the ensemble has no member {index} (no {prefix}{output_name})")
        part = extractor.extract_model([input_name], [f"{prefix}{output_name}"])

        def unprefixed(name: str, prefix: str = prefix) -> str:
            return name[len(prefix):] if name.startswith(prefix) else name

        for node in part.graph.node:
            node.name = unprefixed(node.name)
            node.input[:] = [unprefixed(name) for name in node.input]
            node.output[:] = [unprefixed(name) for name in node.output]
        for weight in part.graph.initializer:
            weight.name = unprefixed(weight.name)
        part.graph.output[0].name = output_name
        # Shape annotations name the shared input too, which would then be renamed when the part
        # joins another ensemble (``compose.add_prefix``); the runtime needs none of them.
        del part.graph.value_info[:]
        members.append(part)
    return members


#: A float weight of at least this many values is stored in half precision by :func:`with_half_weights`
#: (biases and norms are small: they stay float32, and the file hardly notices them).
HALF_WEIGHT_MIN_VALUES = 1024


def with_half_weights(model: ModelProto, min_values: int = HALF_WEIGHT_MIN_VALUES) -> ModelProto:
    """``model`` (changed in place and returned) with its large float32 weights stored as float16 and
    cast back to float32 by the graph.

    Why: the file halves (an ensemble of four classifiers 19.8 -> 9.9 MB, within the ~20 MB a shipped
    model may take) while the arithmetic does not change: onnxruntime folds each ``Cast`` of a
    constant when it loads the model, so it computes in float32, as fast as before. Only the
    weights' rounding to 11 significant bits moves the outputs (a classifier's logits by under 1e-3).
    """
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    initializers, casts = [], []
    for weight in graph.initializer:
        if weight.data_type != TensorProto.FLOAT or int(np.prod(weight.dims)) < min_values:
            initializers.append(weight)
            continue
        values = numpy_helper.to_array(weight).astype(np.float16)
        half = numpy_helper.from_array(values, f"{weight.name}_float16")
        initializers.append(half)
        casts.append(helper.make_node("Cast", [half.name], [weight.name], to=TensorProto.FLOAT,
                                      name=f"{weight.name}_to_float32"))
    nodes = [*casts, *graph.node]
    del graph.initializer[:], graph.node[:]
    graph.initializer.extend(initializers)
    graph.node.extend(nodes)
    return model


def save_model(model: ModelProto, path: Path) -> None:
    """Check and write ``model``; the file at ``path`` is replaced only once the new one is whole."""
    import onnx

    from vision.dataset.files import atomic_write_bytes

    onnx.checker.check_model(model)
    atomic_write_bytes(Path(path), model.SerializeToString())


def short_digest(path: Path) -> str:
    """The first 16 hex digits of a file's SHA-256: which member file went into an ensemble."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
