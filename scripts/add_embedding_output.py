"""Give an exported tile classifier its ``embedding`` output: ``python scripts/add_embedding_output.py``.

Reads ``models/classifier.onnx`` (or the files given), adds the penultimate features as a second
output (``vision.training.embedding_output``) without retraining, checks on random crops that the
``logits`` output did not move at all and that the embedding has unit length, and replaces the file
atomically. Running it again rebuilds the output the same way, so a model that has it already
comes out byte-identical. ``scripts/train_classifier.py`` and ``scripts/ensemble_models.py``
export with the output already, so this is for models exported before it existed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.models import models_dir
from vision.training.embedding_output import EMBEDDING_OUTPUT, with_embedding_output
from vision.training.onnx_mean import EnsembleError, save_model


def _outputs(model_bytes: bytes, batch: np.ndarray) -> list[np.ndarray]:
    import onnxruntime as ort

    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: batch})


def _check(before: bytes, after: bytes, shape: tuple[int, ...]) -> str | None:
    """Why the new model is wrong, or None: its logits must equal the old ones, its embedding be unit."""
    batch = np.random.default_rng(0).normal(0, 1, (8, *shape)).astype(np.float32)
    old = _outputs(before, batch)[0]
    new_logits, embedding = _outputs(after, batch)
    if not np.array_equal(old, new_logits):
        return f"the logits changed (by up to {np.abs(old - new_logits).max():.2e})"
    norms = np.linalg.norm(embedding, axis=1)
    if not np.allclose(norms, 1.0, atol=1e-4):
        return f"the embedding is not unit length (norms {norms.min():.4f}..{norms.max():.4f})"
    return None


def add_output(path: Path) -> str:
    """Add the output to the model at ``path`` (replaced only when checked); a line saying what was done."""
    import onnx

    before = path.read_bytes()
    model = onnx.load_from_string(before)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    shape = tuple(int(dim.dim_value) for dim in dims[1:])
    with_embedding_output(model)
    after = model.SerializeToString()
    problem = _check(before, after, shape)
    if problem is not None:
        raise EnsembleError(f"{path}: {problem}")
    if after == before:
        return f"{path}: already has its {EMBEDDING_OUTPUT} output (unchanged)"
    save_model(model, path)
    size = _outputs(after, np.zeros((1, *shape), np.float32))[1].shape[1]
    return f"{path}: added {EMBEDDING_OUTPUT} output ({size} values a tile); logits unchanged"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path, nargs="*",
                        help="classifier ONNX files (default: the shipped one)")
    args = parser.parse_args(argv)
    for path in args.models or [models_dir() / "classifier.onnx"]:
        if not path.is_file():
            print(f"add_embedding_output: no model at {path}", file=sys.stderr)
            return 2
        try:
            print(add_output(path))
        except EnsembleError as error:
            print(f"add_embedding_output: {error}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
