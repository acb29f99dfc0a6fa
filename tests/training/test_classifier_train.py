"""Classifier training: one real training step end to end (data -> step -> ONNX -> runtime), and its parts."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from scoring.tiles import VISION_CODES  # noqa: E402
from vision.dataset.paths import shared_data_dir  # noqa: E402
from vision.models.classifier import INPUT_HEIGHT, INPUT_WIDTH, TileClassifier  # noqa: E402
from vision.training.classifier_data import (  # noqa: E402
    STORE_HEIGHT,
    STORE_WIDTH,
    AugmentedCrops,
    art_samples,
    augment,
    procedural_back,
)
from vision.training.classifier_train import (  # noqa: E402
    TrainConfig,
    export_onnx,
    fit_temperature,
    train_classifier,
    verify_onnx,
    write_labels,
)

needs_art = pytest.mark.skipif(not (shared_data_dir() / "art").is_dir(),
                               reason="shared tile art not available")


@needs_art
def test_one_training_step_exports_a_model_the_runtime_reads(tmp_path: Path) -> None:
    samples = art_samples(shared_data_dir() / "art")[:24]
    result = train_classifier(TrainConfig(steps=1, batch_size=8), log=lambda _: None, samples=samples,
                              calibrate=False)
    onnx_path = tmp_path / "classifier.onnx"
    export_onnx(result.model, onnx_path)
    crops = [sample.image for sample in samples[:4]]
    assert verify_onnx(result.model, onnx_path, crops) < 1e-4
    assert result.temperature == 1.0
    write_labels(tmp_path / "classifier.labels.json", result.temperature, TrainConfig(steps=1))
    classifier = TileClassifier(onnx_path)
    ranked = classifier.classify_crops(crops, top_k=3)
    assert len(ranked) == 4 and all(len(row) == 3 for row in ranked)
    assert all(code in VISION_CODES for row in ranked for code, _ in row)


def test_temperature_fit_recovers_the_temperature_that_made_the_labels() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 3, size=(4000, 10))
    true_temperature = 2.5
    scaled = logits / true_temperature
    probabilities = np.exp(scaled) / np.exp(scaled).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(10, p=row) for row in probabilities])
    assert math.isclose(fit_temperature(logits.astype(np.float32), labels), true_temperature, rel_tol=0.1)


def test_augmented_batches_have_model_shape_and_every_class() -> None:
    rng = np.random.default_rng(1)
    back = procedural_back(rng)
    assert back.shape == (STORE_HEIGHT, STORE_WIDTH, 3)
    view = augment(back, rng)
    assert view.ndim == 3 and view.shape[2] == 3 and view.shape[0] >= INPUT_HEIGHT
    stream = AugmentedCrops([], seed=3)
    inputs, labels = stream.batch(6)
    assert inputs.shape == (6, 3, INPUT_HEIGHT, INPUT_WIDTH) and inputs.dtype == np.float32
    assert set(labels.tolist()) == {VISION_CODES.index("back")}
