"""The shipped classifier (models/classifier.onnx) on real tile photos, no mocks.

Real crops come from the validation physical sets (never trained on); detections are built on a
canvas made of those crops, so cropping, rotation and quad warping are checked end to end.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data, require_shared_data

from scoring.errors import InputError
from scoring.tiles import FLOWER_CODES, VISION_CODES
from vision.dataset.crops import load_labelled_crops
from vision.dataset.manifest import image_path, read_manifest
from vision.dataset.paths import REPO_ROOT
from vision.models import MODELS_DIR
from vision.models.classifier import TURNED_VIEW_MARGIN, TileClassifier
from vision.models.crops import InputSize, crop_detection, preprocess_crops
from vision.repairs.outline_views import turned_quad
from vision.types import Detection

needs_crops = needs_shared_data("crops-labelled")


@pytest.fixture(scope="module")
def classifier() -> TileClassifier:
    return TileClassifier()


@pytest.fixture(scope="module")
def validation_crops():
    crops = load_labelled_crops("val")
    return [(cv2.imread(str(crop.path)), crop.code) for crop in crops]


def test_shipped_model_is_small_and_labels_every_vision_code(classifier: TileClassifier) -> None:
    assert (MODELS_DIR / "classifier.onnx").stat().st_size < 20 * 1024 * 1024
    assert classifier.labels == list(VISION_CODES)
    assert 0.2 < classifier.temperature < 5


@needs_crops
def test_reads_held_out_real_sets(classifier: TileClassifier, validation_crops) -> None:
    """Whole physical sets the model never saw: most tiles right, probabilities ranked and summing <= 1."""
    images = [image for image, _ in validation_crops]
    ranked = classifier.classify_crops(images, top_k=5)
    truth = [code for _, code in validation_crops]
    correct = sum(candidates[0][0] == code for candidates, code in zip(ranked, truth, strict=True))
    assert correct / len(images) >= 0.95
    for candidates in ranked:
        assert len(candidates) == 5
        probabilities = [p for _, p in candidates]
        assert probabilities == sorted(probabilities, reverse=True)
        assert 0 < sum(probabilities) <= 1 + 1e-5


@needs_shared_data("table-photos")
def test_reads_the_held_out_table_photos(classifier: TileClassifier) -> None:
    """Real photos of a Taiwanese table, whole photo groups never trained on, cut from the true boxes."""
    from vision.training.classifier_data import REAL_LABELS_MANIFEST, table_photo_crops

    crops = table_photo_crops(REAL_LABELS_MANIFEST, "val", reviewed_only=True)
    assert len(crops) > 400
    ranked = classifier.classify_crops([crop for crop, _ in crops], top_k=3)
    top1 = np.mean([row[0][0] == code for row, (_, code) in zip(ranked, crops, strict=True)])
    top3 = np.mean([code in {c for c, _ in row} for row, (_, code) in zip(ranked, crops, strict=True)])
    assert top1 >= 0.8 and top3 >= 0.85


def test_reads_the_hand_tiles_of_the_bundled_sample_photos(classifier: TileClassifier) -> None:
    """The sample photos' labelled hand tiles, cut by their outlines (sideways and face-down included)."""
    manifest = REPO_ROOT / "datasets" / "samples" / "manifest.jsonl"
    right = total = right_faces = faces = 0
    for record in read_manifest(manifest):
        image = cv2.imread(str(image_path(record, manifest)))
        tiles = [t for t in record.tiles
                 if t.role != "distractor" and float(t.extra.get("visible", 1)) >= 0.8]
        detections = [Detection(box=t.box, score=1.0, rotated=t.rotated, face_down=t.face_down, quad=t.quad)
                      for t in tiles]
        for reading, tile in zip(classifier.classify(image, detections), tiles, strict=True):
            total += 1
            right += reading.code == tile.code
            if tile.code not in FLOWER_CODES:
                faces += 1
                right_faces += reading.code == tile.code
    assert total >= 80
    assert right / total >= 0.93
    assert right_faces / faces >= 0.97


def _canvas_with_tiles(tiles: list[np.ndarray]) -> tuple[np.ndarray, list[Detection]]:
    """Felt-green canvas: tile 0 upright, tile 1 lying sideways, tile 2 rotated 30 degrees (with a quad)."""
    canvas = np.full((400, 700, 3), (60, 110, 50), np.uint8)
    upright = cv2.resize(tiles[0], (90, 120))
    canvas[40:160, 40:130] = upright
    sideways = cv2.rotate(cv2.resize(tiles[1], (90, 120)), cv2.ROTATE_90_COUNTERCLOCKWISE)
    canvas[60:150, 200:320] = sideways
    tile = cv2.resize(tiles[2], (90, 120))
    corners = np.array([[0, 0], [90, 0], [90, 120], [0, 120]], np.float32)
    angle = np.deg2rad(30)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    placed = corners @ rotation.T + np.array([500, 150], np.float32)
    matrix = cv2.getPerspectiveTransform(corners, placed.astype(np.float32))
    warped = cv2.warpPerspective(tile, matrix, (700, 400))
    mask = cv2.warpPerspective(np.full((120, 90), 255, np.uint8), matrix, (700, 400)) > 0
    canvas[mask] = warped[mask]
    detections = [
        Detection(box=(40, 40, 130, 160), score=0.9),
        Detection(box=(200, 60, 320, 150), score=0.9, rotated=True),
        Detection(box=tuple(float(v) for v in (*placed.min(axis=0), *placed.max(axis=0))), score=0.9,
                  quad=tuple((float(x), float(y)) for x, y in placed)),
    ]
    return canvas, detections


@needs_crops
def test_classify_cuts_upright_sideways_and_quad_tiles(classifier: TileClassifier, validation_crops) -> None:
    by_code = {code: image for image, code in validation_crops}
    codes = ["3m", "7f", "6z"]
    canvas, detections = _canvas_with_tiles([by_code[code] for code in codes])
    readings = classifier.classify(canvas, detections, top_k=3)
    assert [reading.detection for reading in readings] == detections
    assert [reading.code for reading in readings] == codes
    assert all(len(reading.candidates) == 3 for reading in readings)


@needs_crops
def test_a_second_outline_averages_the_two_cuts_logits(classifier: TileClassifier, validation_crops) -> None:
    """A tile given a second cut is read from both (mean logits, then the temperature); the others
    are read as without one."""
    by_code = {code: image for image, code in validation_crops}
    canvas, detections = _canvas_with_tiles([by_code[code] for code in ("3m", "7f", "6z")])
    slanted = turned_quad(detections[2].quad, 25.0)
    readings = classifier.classify(canvas, detections, top_k=43, second_outlines=[None, None, slanted])
    alone = classifier.classify(canvas, detections, top_k=43)
    assert readings[:2] == alone[:2]
    cuts = [crop_detection(canvas, detection, classifier.input_size)
            for detection in (detections[2], replace(detections[2], quad=slanted))]
    mean = classifier.logits(cuts).mean(axis=0, keepdims=True) / classifier.temperature
    expected = np.exp(mean - mean.max()) / np.exp(mean - mean.max()).sum()
    got = dict(readings[2].candidates)
    assert np.allclose([got[code] for code in classifier.labels], expected[0], atol=1e-5)
    assert readings[2].candidates != alone[2].candidates


def test_crop_of_a_sideways_box_is_turned_upright() -> None:
    image = np.zeros((100, 200, 3), np.uint8)
    crop = crop_detection(image, Detection(box=(10, 10, 130, 60), score=1.0))
    assert crop.shape[0] > crop.shape[1]


def test_bad_input_is_an_input_error(classifier: TileClassifier, tmp_path: Path) -> None:
    assert classifier.classify_crops([]) == []
    with pytest.raises(InputError):
        classifier.classify_crops([np.zeros((1, 1, 3), np.uint8)])
    with pytest.raises(InputError):
        crop_detection(np.zeros((50, 50, 3), np.uint8), Detection(box=(80, 80, 120, 120), score=1.0))
    with pytest.raises(InputError, match="not found"):
        TileClassifier(tmp_path / "missing.onnx")
    model = tmp_path / "classifier.onnx"
    shutil.copy(MODELS_DIR / "classifier.onnx", model)
    with pytest.raises(InputError, match="label list"):
        TileClassifier(model)
    (tmp_path / "classifier.labels.json").write_text(json.dumps({"labels": ["1m", "zz"]}))
    with pytest.raises(InputError, match="tile codes"):
        TileClassifier(model)
    (tmp_path / "classifier.labels.json").write_text(json.dumps({"labels": ["1m", "2m"]}))
    with pytest.raises(InputError, match="outputs"):
        TileClassifier(model)
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"not a model")
    shutil.copy(tmp_path / "classifier.labels.json", tmp_path / "corrupt.labels.json")
    with pytest.raises(InputError, match="cannot load"):
        TileClassifier(corrupt)


def test_input_size_comes_from_the_label_file(classifier: TileClassifier, tmp_path: Path) -> None:
    """The shipped file records 64x48; a file without ``input`` (the first models) means 64x48 too."""
    assert classifier.input_size == InputSize(64, 48)
    model = tmp_path / "classifier.onnx"
    shutil.copy(MODELS_DIR / "classifier.onnx", model)
    shipped = json.loads((MODELS_DIR / "classifier.labels.json").read_text(encoding="utf-8"))
    labels_path = tmp_path / "classifier.labels.json"
    labels_path.write_text(json.dumps({"labels": shipped["labels"], "temperature": shipped["temperature"]}))
    older = TileClassifier(model)
    assert older.input_size == InputSize(64, 48)
    crops = [np.full((90, 70, 3), 200, np.uint8), np.full((30, 20, 3), 90, np.uint8)]
    assert np.allclose(older.probabilities(crops), classifier.probabilities(crops), atol=1e-6)
    for bad in ({"height": 64}, {"height": "64", "width": 48}, {"height": 8, "width": 6}, [64, 48]):
        labels_path.write_text(json.dumps({"labels": shipped["labels"], "input": bad}))
        with pytest.raises(InputError, match="'input'"):
            TileClassifier(model)
    labels_path.write_text(json.dumps({"labels": shipped["labels"], "input": {"height": 80, "width": 60}}))
    with pytest.raises(InputError, match="takes 64x48 crops but its label list says 80x60"):
        TileClassifier(model)


def test_preprocessing_and_outline_warps_follow_the_input_size() -> None:
    size = InputSize(80, 60)
    crops = [np.zeros((100, 70, 3), np.uint8), np.zeros((20, 15), np.uint8)]
    assert preprocess_crops(crops, size=size).shape == (2, 3, 80, 60)
    image = np.zeros((300, 300, 3), np.uint8)
    quad = ((50.0, 50.0), (110.0, 60.0), (100.0, 140.0), (40.0, 130.0))
    detection = Detection(box=(40, 50, 110, 140), score=1.0, quad=quad)
    assert crop_detection(image, detection, size).shape == (160, 120, 3)
    assert crop_detection(image, detection).shape == (128, 96, 3)


@needs_crops
def test_turned_view_averages_an_unsure_crop_with_its_half_turn(
        classifier: TileClassifier, validation_crops) -> None:
    """The default reads an unsure crop both ways up and a sure one once; crops already at the
    input size make the turn exact, so the rows can be recomputed from single views."""
    assert classifier.turned_view
    size = classifier.input_size
    crops = [cv2.resize(image, (size.width, size.height), interpolation=cv2.INTER_AREA)
             for image, _ in validation_crops]
    single = TileClassifier(turned_view=False)
    upright = single.logits(crops)
    turned = single.logits([cv2.rotate(crop, cv2.ROTATE_180) for crop in crops])
    top_two = np.sort(upright, axis=1)[:, -2:]
    unsure = top_two[:, 1] - top_two[:, 0] < TURNED_VIEW_MARGIN
    assert 0 < unsure.sum() < len(crops)  # both branches are exercised
    expected = np.where(unsure[:, None], (upright + turned) / 2, upright)
    assert np.allclose(classifier.logits(crops), expected, atol=1e-4)
    assert not np.allclose(turned[unsure], upright[unsure], atol=1e-2)


@needs_crops
def test_turned_view_batches_like_single_crops(classifier: TileClassifier, validation_crops) -> None:
    """More crops than one batch: each crop's logits do not depend on its neighbours."""
    images = [image for image, _ in validation_crops[:70]]
    together = classifier.logits(images)
    assert together.shape == (70, len(classifier.labels))
    assert np.allclose(together[65], classifier.logits([images[65]])[0], atol=1e-4)
    assert classifier.logits([]).shape == (0, len(classifier.labels))


def test_shipped_temperature_is_fitted_for_the_default_views(classifier: TileClassifier) -> None:
    """The label file's temperature is what ``train_classifier.py --calibrate-only`` fits for the
    runtime as shipped (turned view on): changing the views without refitting fails here."""
    pytest.importorskip("torch")
    from vision.training.classifier_train import calibrate_onnx

    require_shared_data("table-photos")
    temperature, count = calibrate_onnx(classifier.model_path)
    assert count > 200
    assert temperature == pytest.approx(classifier.temperature, abs=0.002)
