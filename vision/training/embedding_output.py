"""Expose a tile classifier's penultimate features as a second ONNX output, ``embedding``.

A player's own tile set (``vision.sets``) is read by comparing a tile's features with the
features of that set's tiles seen once; those features are the input of the classifier's last
linear layer. This module finds that tensor in an exported classifier and adds it as an output,
without changing the weights or the first output (``logits``), so the runtime reads both in one
run. For an ensemble (``vision.training.onnx_mean``: member logits joined by ``Mean``) each
member's features are L2-normalised and concatenated, scaled by ``1/sqrt(members)`` so the whole
vector has unit length and a dot product is a cosine similarity.

Needs ``onnx`` (the training extra); the runtime never imports this module.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vision.training.onnx_mean import EnsembleError

if TYPE_CHECKING:
    from onnx import ModelProto

EMBEDDING_OUTPUT = "embedding"
#: Every node and weight this module adds starts with this, so :func:`without_embedding_output` can
#: take them out again.
_PREFIX = "set_embedding_"
_LINEAR_HEADS = ("Gemm", "MatMul")


def _features_of(model: ModelProto) -> list[str]:
    """The tensors feeding the last linear layer of each member (one for a single classifier)."""
    graph = model.graph
    producers = {name: node for node in graph.node for name in node.output}
    logits = graph.output[0].name
    head = producers.get(logits)
    if head is None:
        raise EnsembleError(f"no node computes the output {logits!r}")
    heads = [producers.get(name) for name in head.input] if head.op_type == "Mean" else [head]
    features = []
    for node in heads:
        if node is None or node.op_type not in _LINEAR_HEADS:
            kind = "nothing" if node is None else node.op_type
            raise EnsembleError(f"the logits are not computed by a linear layer (found {kind}); "
                                "cannot tell which tensor is the penultimate layer")
        features.append(node.input[0])
    return features


def has_embedding_output(model: ModelProto) -> bool:
    return any(output.name == EMBEDDING_OUTPUT for output in model.graph.output)


def without_embedding_output(model: ModelProto) -> ModelProto:
    """``model`` (changed in place and returned) with the ``embedding`` output and its nodes removed,
    so that tools expecting one output (``vision.training.onnx_mean.mean_of_models``) can take it."""
    graph = model.graph
    kept_outputs = [output for output in graph.output if output.name != EMBEDDING_OUTPUT]
    kept_nodes = [node for node in graph.node if not node.name.startswith(_PREFIX)]
    kept_weights = [weight for weight in graph.initializer if not weight.name.startswith(_PREFIX)]
    del graph.output[:], graph.node[:], graph.initializer[:]
    graph.output.extend(kept_outputs)
    graph.node.extend(kept_nodes)
    graph.initializer.extend(kept_weights)
    return model


def with_embedding_output(model: ModelProto) -> ModelProto:
    """``model`` (changed in place and returned) with a unit-length ``embedding`` output (batch x D)
    beside its unchanged ``logits``; a model that has one already gets it rebuilt."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    without_embedding_output(model)
    if len(model.graph.output) != 1:
        raise EnsembleError(f"a classifier has one output (logits), this one has {len(model.graph.output)}")
    features = _features_of(model)
    graph = model.graph
    normalised = []
    for index, name in enumerate(features):
        out = f"{_PREFIX}norm{index}"
        graph.node.append(helper.make_node("LpNormalization", [name], [out], axis=1, p=2,
                                           name=f"{_PREFIX}norm{index}"))
        normalised.append(out)
    joined = f"{_PREFIX}joined"
    graph.node.append(helper.make_node("Concat", normalised, [joined], axis=1, name=f"{_PREFIX}concat"))
    scale = numpy_helper.from_array(np.array(1.0 / math.sqrt(len(features)), np.float32), f"{_PREFIX}scale")
    graph.initializer.append(scale)
    graph.node.append(helper.make_node("Mul", [joined, scale.name], [EMBEDDING_OUTPUT],
                                       name=f"{_PREFIX}mul"))
    batch = graph.output[0].type.tensor_type.shape.dim[0]
    batch_dim = batch.dim_param or (batch.dim_value or "batch")
    graph.output.append(helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, [batch_dim, None]))
    return model
