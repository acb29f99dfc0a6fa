"""The flower-text model: which flower from the printed number and name at the top of the face."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from scoring.errors import InputError
from scoring.tiles import FLOWER_CODES
from vision.dataset.crops import load_labelled_crops
from vision.dataset.paths import shared_data_dir
from vision.models import MODELS_DIR
from vision.models.classifier import TileClassifier
from vision.models.flower_text import FLOWER_TEXT_MODEL_NAME, FlowerTextReader, both_strips, top_strip
from vision.training.classifier_data import CLASS_INDEX, Sample
from vision.training.flower_text import FlowerTextConfig, StripBatches, flower_samples, train_flower_text

needs_crops = pytest.mark.skipif(not (shared_data_dir() / "crops-labelled").is_dir(),
                                 reason="shared labelled crops not available")
SHIPPED = MODELS_DIR / FLOWER_TEXT_MODEL_NAME


def test_the_strips_are_the_top_of_the_face_and_the_top_of_it_turned():
    face = np.zeros((100, 75, 3), np.uint8)
    face[:10] = 255  # a mark at the top
    face[-10:] = 128  # another at the foot
    top, turned = both_strips(face, 0.4)
    assert top.shape == (40, 75, 3) and turned.shape == (40, 75, 3)
    assert top[0, 0, 0] == 255 and turned[0, 0, 0] == 128
    assert top_strip(face, 0.01).shape[0] == 2  # never empty


def test_a_label_file_that_is_not_the_eight_flowers_is_refused(tmp_path):
    model = tmp_path / FLOWER_TEXT_MODEL_NAME
    model.write_bytes(SHIPPED.read_bytes())
    labels = tmp_path / "flower_text.labels.json"
    labels.write_text(json.dumps({"labels": ["1m", "2m"], "input": {"height": 32, "width": 64}}))
    with pytest.raises(InputError, match="eight flower codes"):
        FlowerTextReader(model)
    labels.write_text("{not json")
    with pytest.raises(InputError, match="not a flower-text label file"):
        FlowerTextReader(model)


def test_the_shipped_model_is_small_and_read_beside_the_flower_model():
    assert SHIPPED.stat().st_size < 20 * 1024 * 1024
    assert TileClassifier().flower_text is not None
    assert TileClassifier(flower_text=False).flower_text is None
    assert TileClassifier(flower_model=False).flower_text is None


@needs_crops
def test_it_names_most_held_out_real_flowers_from_their_strips_alone():
    """The 32 flowers of the four held-out physical sets, from the number and name alone."""
    crops = [crop for crop in load_labelled_crops("val") if crop.code in FLOWER_CODES]
    reader = FlowerTextReader(SHIPPED)
    probabilities = reader.probabilities([cv2.imread(str(crop.path)) for crop in crops])
    assert probabilities.shape == (32, 8) and np.allclose(probabilities.sum(axis=1), 1.0)
    right = sum(FLOWER_CODES[int(np.argmax(row))] == crop.code for row, crop in zip(probabilities, crops,
                                                                                  strict=True))
    assert right >= 26


def test_training_draws_top_strips_of_flowers_only_and_runs():
    faces = [Sample(np.full((128, 96, 3), 200, np.uint8), CLASS_INDEX[code], "real-crop")
             for code in ("1f", "5f", "3m")]
    flowers = flower_samples(faces)
    assert [s.label for s in flowers] == [CLASS_INDEX["1f"], CLASS_INDEX["5f"]]
    config = FlowerTextConfig(steps=2, batch_size=4)
    inputs, labels = StripBatches(flowers, config).batch(4)
    assert inputs.shape == (4, 3, 32, 64) and set(labels.tolist()) <= set(range(8))
    result = train_flower_text(config, log=lambda line: None, samples=faces)
    assert result.samples == 2
