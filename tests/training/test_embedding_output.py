"""The classifier's ``embedding`` output: added to any exported classifier without moving its logits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

torch = pytest.importorskip("torch")

from scripts.add_embedding_output import add_output  # noqa: E402
from vision.models import resolve_model_path  # noqa: E402
from vision.models.classifier import TileClassifier  # noqa: E402
from vision.models.crops import DEFAULT_INPUT_SIZE  # noqa: E402
from vision.training.classifier_ensemble import build_classifier_ensemble  # noqa: E402
from vision.training.classifier_model import TileNet  # noqa: E402
from vision.training.classifier_train import TrainConfig, export_onnx, write_labels  # noqa: E402
from vision.training.embedding_output import (  # noqa: E402
    EMBEDDING_OUTPUT,
    with_embedding_output,
    without_embedding_output,
)
from vision.training.onnx_mean import EnsembleError  # noqa: E402


def _classifier(folder: Path, seed: int) -> Path:
    torch.manual_seed(seed)
    export_onnx(TileNet(43), folder / "classifier.onnx", DEFAULT_INPUT_SIZE)
    write_labels(folder / "classifier.labels.json", 0.6, TrainConfig(seed=seed, steps=1))
    return folder


def _crops() -> list[np.ndarray]:
    rng = np.random.default_rng(4)
    return [rng.integers(0, 255, (70, 50, 3), dtype=np.uint8) for _ in range(6)]


def _read(path: Path) -> tuple[np.ndarray, np.ndarray | None]:
    return TileClassifier(path, turned_view=False, flower_model=False).features(_crops())


def test_a_trained_export_has_unit_embeddings_beside_its_logits(tmp_path: Path) -> None:
    folder = _classifier(tmp_path / "a", 1)
    model = onnx.load(str(folder / "classifier.onnx"))
    assert [output.name for output in model.graph.output] == ["logits", EMBEDDING_OUTPUT]
    logits, embeddings = _read(folder / "classifier.onnx")
    assert embeddings is not None and embeddings.shape[0] == 6
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1.0, atol=1e-5)
    stripped = tmp_path / "plain" / "classifier.onnx"
    stripped.parent.mkdir()
    onnx.save(without_embedding_output(model), str(stripped))
    shutil.copy(folder / "classifier.labels.json", stripped.parent)
    plain_logits, none = _read(stripped)
    assert none is None
    np.testing.assert_array_equal(plain_logits, logits)


def test_an_ensembles_embedding_joins_its_members_normalised(tmp_path: Path) -> None:
    first, second = _classifier(tmp_path / "a", 1), _classifier(tmp_path / "b", 2)
    build_classifier_ensemble([first, second], tmp_path / "e", half_weights=False)
    _, a = _read(first / "classifier.onnx")
    _, b = _read(second / "classifier.onnx")
    _, joined = _read(tmp_path / "e" / "classifier.onnx")
    np.testing.assert_allclose(joined, np.concatenate([a, b], axis=1) / np.sqrt(2), atol=1e-5)


def test_the_script_leaves_the_shipped_logits_and_runs_again_unchanged(tmp_path: Path) -> None:
    shipped = resolve_model_path(None, "classifier.onnx")
    copy = tmp_path / "classifier.onnx"
    shutil.copy(shipped, copy)
    shutil.copy(shipped.with_name("classifier.labels.json"), tmp_path)
    plain = without_embedding_output(onnx.load(str(copy)))
    onnx.save(plain, str(copy))
    before = TileClassifier(copy, flower_model=False).logits(_crops())
    assert "added" in add_output(copy)
    after, embeddings = TileClassifier(copy, flower_model=False).features(_crops())
    np.testing.assert_array_equal(before, after)
    members = len(json.loads(shipped.with_name("classifier.labels.json").read_text())["members"])
    assert embeddings is not None and embeddings.shape == (6, 160 * members)  # 160 features a member
    assert "unchanged" in add_output(copy)
    assert copy.read_bytes() == shipped.read_bytes()  # the shipped file is this script's output


def test_a_model_without_a_linear_head_is_refused() -> None:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["crops"], ["logits"])], "not_a_classifier",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["batch", 43])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 43])])
    with pytest.raises(EnsembleError, match="penultimate"):
        with_embedding_output(helper.make_model(graph))
