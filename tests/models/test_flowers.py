"""The flower model: it says which flower, the main classifier says whether (real models, real crops)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data

from scoring.errors import InputError
from scoring.tiles import FLOWER_CODES, VISION_CODES
from vision.dataset.crops import load_labelled_crops
from vision.models import MODELS_DIR
from vision.models.classifier import TileClassifier
from vision.models.flowers import (
    FLOWER_GATE,
    LOW_FLOWER_GATE,
    SURE_FLOWER_MASS,
    flower_columns,
    gated_rows,
    split_flower_mass,
    trusted_rows,
)
from vision.types import Detection

needs_crops = needs_shared_data("crops-labelled")
COLUMNS = flower_columns(VISION_CODES, "test")


def _rows(*flower_masses: float) -> np.ndarray:
    """Rows over the vision codes: ``mass`` on 1f and the rest on 1m."""
    rows = np.zeros((len(flower_masses), len(VISION_CODES)))
    rows[:, VISION_CODES.index("1f")] = flower_masses
    rows[:, VISION_CODES.index("1m")] = 1 - np.asarray(flower_masses)
    return rows


def test_the_flower_mass_is_shared_out_and_the_rest_kept() -> None:
    probabilities = _rows(0.8, 0.2)
    rows = gated_rows(probabilities, COLUMNS)
    assert rows.tolist() == [0]
    says_8f = np.zeros((1, len(VISION_CODES)))
    says_8f[0, VISION_CODES.index("8f")] = 0.9
    says_8f[0, VISION_CODES.index("3p")] = 0.1  # the flower model's non-flower mass plays no part
    out = split_flower_mass(probabilities, COLUMNS, rows, says_8f, COLUMNS)
    assert out[0, VISION_CODES.index("8f")] == pytest.approx(0.8)
    assert out[0, VISION_CODES.index("1f")] == pytest.approx(0.0)
    assert out[0, VISION_CODES.index("1m")] == pytest.approx(0.2)
    assert np.array_equal(out[1], probabilities[1])
    assert np.allclose(out.sum(axis=1), 1.0)


def test_the_gate_is_half_the_mass() -> None:
    assert gated_rows(_rows(FLOWER_GATE, FLOWER_GATE - 1e-6), COLUMNS).tolist() == [0]


def test_below_the_gate_only_a_flower_the_flower_model_is_sure_of_is_split() -> None:
    probabilities = _rows(0.3, 0.3, LOW_FLOWER_GATE - 1e-6, 0.6)
    rows = gated_rows(probabilities, COLUMNS, LOW_FLOWER_GATE)
    assert rows.tolist() == [0, 1, 3]
    says = np.zeros((3, len(VISION_CODES)))
    says[0, VISION_CODES.index("8f")] = SURE_FLOWER_MASS  # sure it is a flower: trusted
    says[0, VISION_CODES.index("3p")] = 1 - SURE_FLOWER_MASS
    says[1, VISION_CODES.index("8f")] = 0.5  # unsure itself: the main model's reading stands
    says[1, VISION_CODES.index("3p")] = 0.5
    says[2, VISION_CODES.index("8f")] = 0.1  # above the gate the main model says it is a flower
    says[2, VISION_CODES.index("3p")] = 0.9
    assert trusted_rows(probabilities, COLUMNS, rows, says, COLUMNS).tolist() == [True, False, True]


def test_a_label_list_without_every_flower_is_refused() -> None:
    labels = [code for code in VISION_CODES if code != "6f"]
    with pytest.raises(InputError, match="lacks the flower codes 6f"):
        flower_columns(labels, "classifier.labels.json")


def test_the_shipped_flower_model_is_small_and_used_by_default() -> None:
    assert (MODELS_DIR / "flowers.onnx").stat().st_size < 20 * 1024 * 1024
    assert TileClassifier().flower_model is not None
    assert TileClassifier(flower_model=False).flower_model is None


def test_a_named_flower_model_must_exist(tmp_path) -> None:
    with pytest.raises(InputError, match="not found"):
        TileClassifier(flower_model=tmp_path / "flowers.onnx")


@needs_crops
def test_it_reads_the_held_out_real_flowers_and_leaves_the_other_tiles_alone() -> None:
    """Whole physical sets never trained on: every flower and season right with the flower model (the
    main model alone reads set-297's winter as spring), and the other tiles' probabilities unchanged."""
    crops = load_labelled_crops("val")
    images = [cv2.imread(str(crop.path)) for crop in crops]
    codes = [crop.code for crop in crops]
    with_flowers = TileClassifier().probabilities(images)
    alone = TileClassifier(flower_model=False).probabilities(images)
    read = [VISION_CODES[i] for i in with_flowers.argmax(axis=1)]
    flowers = [i for i, code in enumerate(codes) if code in FLOWER_CODES]
    assert len(flowers) == 32
    assert all(read[i] == codes[i] for i in flowers)
    others = [i for i, code in enumerate(codes) if code not in FLOWER_CODES]
    untouched = alone[others][:, COLUMNS].sum(axis=1) < LOW_FLOWER_GATE
    assert np.allclose(with_flowers[others][untouched], alone[others][untouched])


@needs_crops
def test_the_flower_model_alone_reads_held_out_flowers_as_flowers_and_most_other_tiles_not() -> None:
    """``flower_probabilities`` (the second look at tiles the layout left out): the flower model's own
    flower mass, whatever the main model says; None without a flower model."""
    crops = load_labelled_crops("val")
    classifier = TileClassifier()
    rows = []
    for crop in crops:
        image = cv2.imread(str(crop.path))
        height, width = image.shape[:2]
        whole = Detection(box=(0.0, 0.0, float(width), float(height)), score=1.0)
        rows.append(classifier.flower_probabilities(image, [whole])[0])
    masses = np.array([row.sum() for row in rows])
    flowers = [i for i, crop in enumerate(crops) if crop.code in FLOWER_CODES]
    others = [i for i, crop in enumerate(crops) if crop.code not in FLOWER_CODES]
    assert all(FLOWER_CODES[int(np.argmax(rows[i]))] == crops[i].code for i in flowers)
    assert sum(masses[i] >= 0.8 for i in flowers) >= 30  # 31 of 32 when measured (a 1f at 0.6)
    assert not any(masses[i] >= 0.5 for i in others)  # none of the 140 other held-out crops
    assert TileClassifier(flower_model=False).flower_probabilities(image, [whole]) is None
