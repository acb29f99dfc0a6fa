"""Ensembles: a detector ensemble's maps and a classifier ensemble's logits are the mean of its
members', and the runtime reads either as it reads a single model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

torch = pytest.importorskip("torch")

from scripts.ensemble_models import main as ensemble_main  # noqa: E402
from vision.models.classifier import TileClassifier  # noqa: E402
from vision.models.crops import DEFAULT_INPUT_SIZE  # noqa: E402
from vision.models.detector import TileDetector  # noqa: E402
from vision.training.classifier_ensemble import build_classifier_ensemble  # noqa: E402
from vision.training.classifier_model import TileNet  # noqa: E402
from vision.training.classifier_train import TrainConfig, write_labels  # noqa: E402
from vision.training.classifier_train import export_onnx as export_classifier  # noqa: E402
from vision.training.detector_ensemble import build_detector_ensemble  # noqa: E402
from vision.training.detector_export import export_onnx  # noqa: E402
from vision.training.detector_model import MAP_CHANNELS, STRIDE, TileDetectorNet  # noqa: E402
from vision.training.onnx_mean import EnsembleError  # noqa: E402


def _member(path: Path, seed: int, threshold: str, input_size: int = 256) -> Path:
    """A detector of this project's architecture with its own random weights, exported as training does."""
    torch.manual_seed(seed)
    metadata = {"input_size": str(input_size), "stride": str(STRIDE), "score_threshold": threshold,
                "channels": json.dumps(list(MAP_CHANNELS)), "seed": str(seed), "steps": "0"}
    export_onnx(TileDetectorNet(), path, metadata, input_size)
    return path


def _photo() -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.integers(0, 255, (180, 240, 3), dtype=np.uint8)


def test_the_ensembles_maps_are_the_mean_of_its_members(tmp_path: Path) -> None:
    first = _member(tmp_path / "a.onnx", 1, "0.5")
    second = _member(tmp_path / "b.onnx", 2, "0.6")
    output = tmp_path / "ensemble.onnx"
    metadata = build_detector_ensemble([first, second], output)

    maps_a, _ = TileDetector(first).predict_maps(_photo())
    maps_b, _ = TileDetector(second).predict_maps(_photo())
    ensemble = TileDetector(output)
    maps, _ = ensemble.predict_maps(_photo())
    assert not np.allclose(maps_a, maps_b, atol=1e-3)  # the members differ, so the mean is a real test
    np.testing.assert_allclose(maps, (maps_a + maps_b) / 2, atol=1e-5)
    assert ensemble.score_threshold == pytest.approx(0.55) and ensemble.gives_outlines
    members = json.loads(metadata["members"])
    assert [m["seed"] for m in members] == ["1", "2"]
    assert [m["file"] for m in members] == [str(first), str(second)]


def test_an_ensemble_may_replace_one_of_its_members(tmp_path: Path) -> None:
    """``--output models/detector.onnx`` with the shipped model a member: read first, written last."""
    first = _member(tmp_path / "detector.onnx", 1, "0.5")
    single, _ = TileDetector(first).predict_maps(_photo())
    second = _member(tmp_path / "other.onnx", 2, "0.5")
    other, _ = TileDetector(second).predict_maps(_photo())
    build_detector_ensemble([first, second], first)
    maps, _ = TileDetector(first).predict_maps(_photo())
    np.testing.assert_allclose(maps, (single + other) / 2, atol=1e-5)
    # No temp file is left beside the model.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["detector.onnx", "other.onnx"]


def test_members_that_cannot_be_averaged_are_refused(tmp_path: Path) -> None:
    first = _member(tmp_path / "a.onnx", 1, "0.5")
    wider = _member(tmp_path / "wide.onnx", 2, "0.5", input_size=320)
    with pytest.raises(EnsembleError, match="input size, stride or channels"):
        build_detector_ensemble([first, wider], tmp_path / "out.onnx")
    with pytest.raises(EnsembleError, match="at least two"):
        build_detector_ensemble([first], tmp_path / "out.onnx")
    ensemble = tmp_path / "ensemble.onnx"
    build_detector_ensemble([first, _member(tmp_path / "b.onnx", 3, "0.5")], ensemble)
    with pytest.raises(EnsembleError, match="itself an ensemble"):
        build_detector_ensemble([ensemble, first], tmp_path / "out.onnx")
    stranger = tmp_path / "stranger.onnx"
    proto = onnx.load(str(first))
    del proto.metadata_props[:]
    onnx.save(proto, str(stranger))
    with pytest.raises(EnsembleError, match="not a taicam detector"):
        build_detector_ensemble([first, stranger], tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()


def test_the_script_says_what_is_wrong_in_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    first = _member(tmp_path / "a.onnx", 1, "0.5")
    output = str(tmp_path / "e.onnx")
    assert ensemble_main(["detector", str(first), str(tmp_path / "missing.onnx"), "--output", output]) == 2
    assert capsys.readouterr().err.strip() == f"ensemble_models: no model at {tmp_path / 'missing.onnx'}"
    wider = _member(tmp_path / "wide.onnx", 2, "0.5", input_size=320)
    assert ensemble_main(["detector", str(first), str(wider), "--output", output, "--keep"]) == 2
    assert "differs from" in capsys.readouterr().err
    assert ensemble_main(["detector", str(first), str(wider), "--output", output,
                          "--data-root", str(tmp_path / "nowhere")]) == 2
    assert "no table photos" in capsys.readouterr().err
    assert not (tmp_path / "e.onnx").exists()
    third = _member(tmp_path / "b.onnx", 3, "0.7")
    assert ensemble_main(["detector", str(first), str(third), "--output", output, "--keep"]) == 0
    assert TileDetector(tmp_path / "e.onnx").score_threshold == pytest.approx(0.6)


def _classifier(folder: Path, seed: int, temperature: float) -> Path:
    """A classifier of this project's architecture with its own random weights and label file."""
    torch.manual_seed(seed)
    export_classifier(TileNet(43), folder / "classifier.onnx", DEFAULT_INPUT_SIZE)
    write_labels(folder / "classifier.labels.json", temperature, TrainConfig(seed=seed, steps=1))
    return folder


def _crops() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.integers(0, 255, (70, 50, 3), dtype=np.uint8) for _ in range(5)]


def test_the_classifier_ensembles_logits_are_the_mean_of_its_members(tmp_path: Path) -> None:
    first = _classifier(tmp_path / "a", 1, 0.5)
    second = _classifier(tmp_path / "b", 2, 0.7)
    labels = build_classifier_ensemble([first, second], tmp_path / "ensemble", half_weights=False)
    logits_a = TileClassifier(first / "classifier.onnx", flower_model=False).logits(_crops())
    logits_b = TileClassifier(second / "classifier.onnx", flower_model=False).logits(_crops())
    ensemble = TileClassifier(tmp_path / "ensemble" / "classifier.onnx", flower_model=False)
    assert not np.allclose(logits_a, logits_b, atol=1e-3)
    np.testing.assert_allclose(ensemble.logits(_crops()), (logits_a + logits_b) / 2, atol=1e-4)
    assert ensemble.temperature == pytest.approx(0.6)
    assert [m["seed"] for m in labels["members"]] == [1, 2]
    assert [m["config"]["steps"] for m in labels["members"]] == [1, 1]  # each member's whole recipe
    saved = json.loads((tmp_path / "ensemble" / "classifier.labels.json").read_text(encoding="utf-8"))
    assert saved["labels"] == ensemble.labels and saved["members"] == labels["members"]


def test_an_ensemble_given_as_a_member_joins_as_its_members_with_equal_weight(tmp_path: Path) -> None:
    """A fourth run joins the shipped three without their run folders: each counts a quarter."""
    runs = (("a", 1, 0.5), ("b", 2, 0.7), ("c", 3, 0.9))
    folders = [_classifier(tmp_path / name, seed, temperature) for name, seed, temperature in runs]
    build_classifier_ensemble(folders[:2], tmp_path / "old")
    labels = build_classifier_ensemble([tmp_path / "old", folders[2]], tmp_path / "new")
    logits = [TileClassifier(f / "classifier.onnx", flower_model=False).logits(_crops()) for f in folders]
    joined = TileClassifier(tmp_path / "new" / "classifier.onnx", flower_model=False)
    scale = max(1.0, float(np.abs(logits[0]).max()))
    np.testing.assert_allclose(joined.logits(_crops()), np.mean(logits, axis=0), atol=5e-3 * scale)
    assert [m["seed"] for m in labels["members"]] == [1, 2, 3]
    assert [m["folder"] for m in labels["members"]] == [str(f) for f in folders]
    assert joined.temperature == pytest.approx(0.7)


def test_the_shipped_classifier_cuts_back_into_its_members() -> None:
    """Each member cut out of the shipped ensemble is a whole model; their mean is its logits."""
    from onnx import load
    from onnxruntime import InferenceSession

    from vision.models import resolve_model_path
    from vision.training.onnx_mean import members_of

    path = resolve_model_path(None, "classifier.onnx")
    records = json.loads(path.with_name("classifier.labels.json").read_text(encoding="utf-8"))["members"]
    crops = np.random.default_rng(5).normal(size=(3, 3, DEFAULT_INPUT_SIZE.height, DEFAULT_INPUT_SIZE.width))
    crops = crops.astype(np.float32)
    shipped = InferenceSession(str(path)).run(None, {"crops": crops})[0]
    parts = members_of(load(str(path)), len(records))
    outputs = [InferenceSession(part.SerializeToString()).run(None, {"crops": crops})[0] for part in parts]
    np.testing.assert_allclose(np.mean(outputs, axis=0), shipped, atol=1e-4)
    assert not np.allclose(outputs[0], outputs[1], atol=1e-2)
    with pytest.raises(EnsembleError, match=f"no member {len(records)}"):
        members_of(load(str(path)), len(records) + 1)


def test_half_weights_halve_the_file_and_keep_the_logits(tmp_path: Path) -> None:
    first = _classifier(tmp_path / "a", 1, 0.5)
    second = _classifier(tmp_path / "b", 2, 0.7)
    build_classifier_ensemble([first, second], tmp_path / "full", half_weights=False)
    labels = build_classifier_ensemble([first, second], tmp_path / "half")
    full_file, half_file = tmp_path / "full" / "classifier.onnx", tmp_path / "half" / "classifier.onnx"
    assert labels["weights"] == "float16"
    assert half_file.stat().st_size < 0.55 * full_file.stat().st_size
    full = TileClassifier(full_file, flower_model=False).logits(_crops())
    half = TileClassifier(half_file, flower_model=False).logits(_crops())
    assert not np.array_equal(full, half)  # the weights really are rounded ...
    np.testing.assert_allclose(half, full, atol=5e-3 * max(1.0, float(np.abs(full).max())))  # ... and little
    assert (half.argmax(axis=1) == full.argmax(axis=1)).all()
    assert ensemble_main(["classifier", str(first), str(second), "--out", str(tmp_path / "script"),
                          "--keep", "--full-weights"]) == 0
    written = json.loads((tmp_path / "script" / "classifier.labels.json").read_text(encoding="utf-8"))
    assert written["weights"] == "float32"


def test_classifiers_that_cannot_be_averaged_are_refused(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    first = _classifier(tmp_path / "a", 1, 0.5)
    other = _classifier(tmp_path / "b", 2, 0.5)
    obj = json.loads((other / "classifier.labels.json").read_text(encoding="utf-8"))
    obj["labels"] = obj["labels"][::-1]
    (other / "classifier.labels.json").write_text(json.dumps(obj), encoding="utf-8")
    with pytest.raises(EnsembleError, match="labels or input format"):
        build_classifier_ensemble([first, other], tmp_path / "out")
    (tmp_path / "empty").mkdir()
    assert ensemble_main(["classifier", str(first), str(tmp_path / "empty"), "--out", str(tmp_path / "out"),
                          "--keep"]) == 2
    assert capsys.readouterr().err.strip().startswith("ensemble_models: ")
    assert not (tmp_path / "out").exists()
