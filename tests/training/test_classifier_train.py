"""Classifier training: one real training step end to end (data -> step -> ONNX -> runtime), and its parts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shared_data import needs_shared_data, require_shared_data  # noqa: E402

from scoring.errors import InputError  # noqa: E402
from scoring.tiles import VISION_CODES  # noqa: E402
from vision.dataset.manifest import read_manifest  # noqa: E402
from vision.dataset.paths import shared_data_dir  # noqa: E402
from vision.models.classifier import TileClassifier  # noqa: E402
from vision.models.crops import DEFAULT_INPUT_SIZE, InputSize  # noqa: E402
from vision.training.classifier_augment import (  # noqa: E402
    ASKEW_BOX_TURN,
    OCCLUSION_MAX_AREA,
    askew_box,
    augment,
    occlude,
)
from vision.training.classifier_batches import (  # noqa: E402
    PICTURE_CROP,
    AugmentedCrops,
    crossed_flower,
    procedural_back,
)
from vision.training.classifier_data import (  # noqa: E402
    CLASS_INDEX,
    REAL_LABELS_MANIFEST,
    Sample,
    art_samples,
    store_size,
    synthetic_samples,
)
from vision.training.classifier_train import (  # noqa: E402
    TrainConfig,
    calibration_samples,
    export_onnx,
    fit_temperature,
    train_classifier,
    verify_onnx,
    write_labels,
)

needs_art = needs_shared_data("art")
STORE = store_size(DEFAULT_INPUT_SIZE)


@needs_art
def test_one_training_step_exports_a_model_the_runtime_reads(tmp_path: Path) -> None:
    samples = art_samples(shared_data_dir() / "art")[:24]
    result = train_classifier(TrainConfig(steps=1, batch_size=8), log=lambda _: None, samples=samples,
                              calibrate=False)
    onnx_path = tmp_path / "classifier.onnx"
    export_onnx(result.model, onnx_path, DEFAULT_INPUT_SIZE)
    crops = [sample.image for sample in samples[:4]]
    assert verify_onnx(result.model, onnx_path, crops, DEFAULT_INPUT_SIZE) < 1e-4
    assert result.temperature == 1.0
    write_labels(tmp_path / "classifier.labels.json", result.temperature, TrainConfig(steps=1))
    classifier = TileClassifier(onnx_path)
    ranked = classifier.classify_crops(crops, top_k=3)
    assert len(ranked) == 4 and all(len(row) == 3 for row in ranked)
    assert all(code in VISION_CODES for row in ranked for code, _ in row)


@needs_art
def test_a_larger_input_is_trained_exported_and_read_at_its_own_size(tmp_path: Path) -> None:
    """--input-height 80: sources stored at 160x120, batches at 80x60, the runtime reads the label file."""
    config = TrainConfig(steps=1, batch_size=4, input_height=80)
    size = config.input_size
    assert size == InputSize(80, 60)
    samples = art_samples(shared_data_dir() / "art", size)[:12]
    assert all(sample.image.shape == (160, 120, 3) for sample in samples)
    inputs, _ = AugmentedCrops(samples, seed=5, size=size).batch(3)
    assert inputs.shape == (3, 3, 80, 60)
    result = train_classifier(config, log=lambda _: None, samples=samples, calibrate=False)
    onnx_path = tmp_path / "classifier.onnx"
    export_onnx(result.model, onnx_path, size)
    crops = [sample.image for sample in samples[:3]]
    assert verify_onnx(result.model, onnx_path, crops, size) < 1e-4
    write_labels(tmp_path / "classifier.labels.json", result.temperature, config)
    recorded = json.loads((tmp_path / "classifier.labels.json").read_text())
    assert recorded["input"]["height"] == 80 and recorded["input"]["width"] == 60
    assert recorded["config"]["input_height"] == 80
    classifier = TileClassifier(onnx_path)
    assert classifier.input_size == size
    assert classifier.logits(crops).shape == (3, len(VISION_CODES))
    # The label file decides the size: claiming 64x48 for this 80x60 graph is refused, not misread.
    write_labels(tmp_path / "classifier.labels.json", result.temperature, TrainConfig(steps=1))
    with pytest.raises(InputError, match="takes 80x60 crops"):
        TileClassifier(onnx_path)


@pytest.mark.parametrize("height", [0, 12, 66, 81])
def test_input_height_must_give_a_whole_3_to_4_crop(height: int) -> None:
    with pytest.raises(ValueError, match="multiple of 4"):
        _ = TrainConfig(input_height=height).input_size


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
    assert back.shape == (STORE.height, STORE.width, 3)
    view = augment(back, rng)
    assert view.ndim == 3 and view.shape[2] == 3 and view.shape[0] >= DEFAULT_INPUT_SIZE.height
    stream = AugmentedCrops([], seed=3)
    inputs, labels = stream.batch(6)
    assert inputs.shape == (6, 3, DEFAULT_INPUT_SIZE.height, DEFAULT_INPUT_SIZE.width)
    assert inputs.dtype == np.float32
    assert set(labels.tolist()) == {VISION_CODES.index("back")}


def test_augmented_views_follow_the_input_size() -> None:
    """Views of a larger model span 1-2 times its input, so nothing is shrunk below it by the warp."""
    size = InputSize(80, 60)
    rng = np.random.default_rng(2)
    back = procedural_back(rng, size)
    assert back.shape == (160, 120, 3)
    heights = [augment(back, rng, size).shape[0] for _ in range(40)]
    assert min(heights) >= 80 and max(heights) <= 160 and max(heights) > 128


def test_synth_crops_are_mixed_into_face_and_back_draws() -> None:
    real = [Sample(np.full((STORE.height, STORE.width, 3), 10, np.uint8), CLASS_INDEX["1m"], "real-crop")]
    synth = [Sample(np.full((STORE.height, STORE.width, 3), 250, np.uint8), CLASS_INDEX["1m"], "synth"),
             Sample(np.full((STORE.height, STORE.width, 3), 251, np.uint8), CLASS_INDEX["back"], "synth")]
    stream = AugmentedCrops(real + synth, seed=4, synth_share=0.5)
    draws = [int(stream._source(CLASS_INDEX["1m"])[0, 0, 0]) for _ in range(400)]
    assert 120 < draws.count(250) < 280 and draws.count(10) == 400 - draws.count(250)
    backs = [int(stream._source(CLASS_INDEX["back"])[0, 0, 0]) == 251 for _ in range(400)]
    assert 120 < sum(backs) < 280  # the rest are procedural backs
    assert stream.classes == sorted({CLASS_INDEX["1m"], CLASS_INDEX["back"]})


@needs_shared_data("crops-labelled")
def test_rendered_training_crops_come_from_training_sets_with_true_codes() -> None:
    samples = synthetic_samples(1, seed=11)
    assert samples and all(sample.source == "synth" for sample in samples)
    assert all(sample.image.shape == (STORE.height, STORE.width, 3) for sample in samples)
    assert all(0 <= sample.label < len(VISION_CODES) for sample in samples)
    assert samples[0].image.std() > 1  # a real rendered tile, not a blank


@pytest.mark.skipif(not REAL_LABELS_MANIFEST.is_file(), reason="table-photo labels not available")
def test_temperature_is_fitted_on_table_photo_calibration_groups_only() -> None:
    records = read_manifest(REAL_LABELS_MANIFEST)
    expected = sum(1 for record in records if record.split == "test"
                   for tile in record.tiles if tile.code in CLASS_INDEX)
    require_shared_data("table-photos")
    images, labels = calibration_samples()
    assert len(images) == len(labels) == expected > 100
    assert {record.split for record in records} >= {"train", "val", "test"}


def test_procedural_flowers_are_mixed_into_flower_draws_only() -> None:
    real = [Sample(np.full((STORE.height, STORE.width, 3), 10, np.uint8), CLASS_INDEX[code], "real-crop")
            for code in ("8f", "1m")]
    stream = AugmentedCrops(real, seed=6, procedural_flower_share=0.5)
    winters = [stream._source(CLASS_INDEX["8f"]) for _ in range(200)]
    drawn = [w for w in winters if not (w == 10).all()]
    assert 60 < len(drawn) < 140
    assert all(w.shape == (STORE.height, STORE.width, 3) for w in drawn)
    # Each drawn winter comes from a fresh set: no two are alike.
    assert len({w.tobytes() for w in drawn}) == len(drawn)
    assert all((stream._source(CLASS_INDEX["1m"]) == 10).all() for _ in range(50))


def test_procedural_flowers_show_the_picture_of_a_real_flower_tile() -> None:
    """The picture under a drawn flower's name comes from a real flower crop (of any face), never
    from another suit's tile or from art."""
    green = np.zeros((STORE.height, STORE.width, 3), np.uint8)
    green[:, :, 1] = 200
    real = [Sample(green, CLASS_INDEX["2f"], "real-crop"),
            Sample(np.full((STORE.height, STORE.width, 3), 10, np.uint8), CLASS_INDEX["1m"], "real-crop"),
            Sample(np.full((STORE.height, STORE.width, 3), 250, np.uint8), CLASS_INDEX["6f"], "art-fluffy")]
    stream = AugmentedCrops(real, seed=7, procedural_flower_share=1.0)
    for _ in range(10):
        winter = stream._source(CLASS_INDEX["8f"]).astype(int)
        middle = winter[STORE.height // 2:STORE.height * 9 // 10, STORE.width // 4:STORE.width * 3 // 4]
        assert np.abs(middle - (0, 200, 0)).max() < 40


def test_varied_flower_numbers_change_the_drawn_flowers_only_when_asked() -> None:
    """Off by default (the shipped members' recipes draw the same faces); on, the same draws print
    their numbers otherwise."""
    real = [Sample(np.full((STORE.height, STORE.width, 3), 10, np.uint8), CLASS_INDEX["8f"], "real-crop")]
    options = ({}, {"varied_flower_numbers": False}, {"varied_flower_numbers": True})
    plain, default, varied = (AugmentedCrops(real, seed=8, procedural_flower_share=1.0, **option)
                              for option in options)
    assert not plain.varied_flower_numbers
    draws = [[stream._source(CLASS_INDEX["8f"]) for _ in range(6)] for stream in (plain, default, varied)]
    assert all(np.array_equal(a, b) for a, b in zip(draws[0], draws[1], strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(draws[0], draws[2], strict=True))


def _flower_like(paper: int, ink: tuple[int, int, int], top_ink: tuple[int, int, int]) -> np.ndarray:
    """A stored crop of plain ``paper`` with a block of ``top_ink`` where the name and number are
    and a block of ``ink`` in the middle of the picture part."""
    image = np.full((STORE.height, STORE.width, 3), paper, np.uint8)
    image[STORE.height // 20:STORE.height // 4, STORE.width // 4:STORE.width * 3 // 4] = top_ink
    image[STORE.height * 3 // 5:STORE.height * 4 // 5, STORE.width // 3:STORE.width * 2 // 3] = ink
    return image


def test_a_crossed_flower_keeps_its_name_and_takes_the_donors_picture_on_its_own_paper() -> None:
    face = _flower_like(230, (0, 0, 200), (200, 0, 0))
    donor = _flower_like(180, (0, 200, 0), (0, 200, 200))
    crossed = crossed_flower(face, donor).astype(int)
    top = int(PICTURE_CROP[1] * STORE.height)
    assert np.array_equal(crossed[:top], face[:top])  # the name and number are the face's
    middle = crossed[STORE.height * 13 // 20:STORE.height * 3 // 4, STORE.width * 2 // 5:STORE.width * 3 // 5]
    assert np.abs(middle - (0, 200 * 230 / 180, 0)).max() < 3  # the donor's ink, on the face's paper scale
    paper = crossed[top + 8:top + 12, STORE.width // 2]
    assert np.abs(paper - 230).max() < 3  # no square of the donor's paper


def test_crossed_flowers_take_upright_real_tiles_of_another_face_and_only_when_asked() -> None:
    """Off by default; on, a winter keeps its own name under a spring's picture, and the askew
    table-photo cuts (whose picture is not where the crop says) neither give nor take one."""
    winter = _flower_like(230, (0, 0, 200), (200, 0, 0))
    spring = _flower_like(230, (0, 200, 0), (0, 200, 200))
    askew = _flower_like(230, (200, 200, 200), (90, 90, 90))
    samples = [Sample(winter, CLASS_INDEX["8f"], "real-crop"), Sample(spring, CLASS_INDEX["5f"], "set-photo"),
               Sample(askew, CLASS_INDEX["6f"], "table-photo")]
    plain = AugmentedCrops(samples, seed=9)
    assert all(np.array_equal(plain._source(CLASS_INDEX["8f"]), winter) for _ in range(20))
    crossed = AugmentedCrops(samples, seed=9, crossed_flower_share=1.0)
    draws = [crossed._source(CLASS_INDEX["8f"]) for _ in range(20)]
    assert all(np.array_equal(draw, crossed_flower(winter, spring)) for draw in draws)
    # A face with no upright tile of its own is drawn as before.
    assert all(np.array_equal(crossed._source(CLASS_INDEX["6f"]), askew) for _ in range(10))


def _stroke_angle(view: np.ndarray) -> float:
    """The angle (degrees from vertical) of the dark stroke in a view, from its pixels' moments."""
    grey = view.astype(np.float32).mean(axis=2)
    dark = grey < (grey.min() + np.median(grey)) / 2
    ys, xs = np.nonzero(dark)
    xs, ys = xs - xs.mean(), ys - ys.mean()
    return float(np.degrees(0.5 * np.arctan2(2 * (xs * ys).mean(), (ys * ys).mean() - (xs * xs).mean())))


def test_outline_turns_cut_some_views_along_a_turned_window_and_are_off_by_default() -> None:
    """A stored crop with one vertical stroke: turned cuts tilt it well past what the perspective
    jitter does; with turns off the views are the shipped recipe's, draw for draw."""
    crop = np.full((STORE.height, STORE.width, 3), 230, np.uint8)
    crop[20:-20, STORE.width // 2 - 3:STORE.width // 2 + 3] = 20

    def tilted(turn: float) -> float:
        rng = np.random.default_rng(5)
        return float(np.mean([abs(_stroke_angle(augment(crop, rng, outline_turn_degrees=turn))) > 20
                              for _ in range(300)]))

    # The jitter and a dark border tilt a few measurements too (10% of these draws).
    assert tilted(0.0) < 0.15
    assert tilted(35.0) > 0.25
    first, second = np.random.default_rng(6), np.random.default_rng(6)
    for _ in range(5):
        assert np.array_equal(augment(crop, first), augment(crop, second, outline_turn_degrees=0.0))


def test_askew_box_is_the_box_around_the_turned_tile() -> None:
    """Unturned it is the tile itself; at 45 degrees a 30x40 tile's box is (30+40)/sqrt(2) square,
    centred where the tile is, and the tile's corners touch its sides."""
    tile = np.array([[10, 20], [40, 20], [40, 60], [10, 60]], np.float32)
    assert np.allclose(askew_box(tile, 0.0), tile, atol=1e-4)
    box = askew_box(tile, math.radians(45))
    sides = np.linalg.norm(np.roll(box, -1, axis=0) - box, axis=1)
    assert np.allclose(sides, 70 / math.sqrt(2), atol=1e-3)
    assert np.allclose(box.mean(axis=0), tile.mean(axis=0), atol=1e-4)
    # In the box's own frame the tile's corners lie on its sides: none outside, each on an edge.
    axis_x, axis_y = (box[1] - box[0]) / sides[0], (box[3] - box[0]) / sides[3]
    local = np.stack([(tile - box[0]) @ axis_x, (tile - box[0]) @ axis_y], axis=1)
    assert local.min() > -1e-3 and local.max() < sides[0] + 1e-3
    assert np.isclose(np.sort(local.ravel())[:2], 0, atol=1e-3).all()


def test_askew_box_views_turn_the_tile_inside_its_box_and_are_off_by_default() -> None:
    """A stored crop with one vertical stroke: every askew-box view tilts it by about the drawn
    turn; with the share at 0 the views are the earlier recipes', draw for draw."""
    crop = np.full((STORE.height, STORE.width, 3), 230, np.uint8)
    crop[20:-20, STORE.width // 2 - 3:STORE.width // 2 + 3] = 20
    rng = np.random.default_rng(9)
    angles = [abs(_stroke_angle(augment(crop, rng, askew_box_share=1.0))) for _ in range(100)]
    # Tilted (the view's aspect stretch and jitter move the measured angle a little off the drawn one).
    assert np.mean([a > ASKEW_BOX_TURN[0] - 7 for a in angles]) > 0.85
    assert max(angles) < ASKEW_BOX_TURN[1] + 15
    first, second = np.random.default_rng(6), np.random.default_rng(6)
    for _ in range(5):
        assert np.array_equal(augment(crop, first), augment(crop, second, askew_box_share=0.0))


def test_occlusion_covers_one_rectangle_of_bounded_size_and_is_off_by_default() -> None:
    """One patch per occluded view, never more than OCCLUSION_MAX_AREA of it, the input untouched;
    with occlusion off the views are the earlier recipes', draw for draw."""
    view = np.full((64, 48, 3), 128, np.uint8)
    rng = np.random.default_rng(3)
    covered = []
    for _ in range(200):
        out = occlude(view, rng)
        changed = np.any(out != view, axis=2)
        ys, xs = np.nonzero(changed)
        if len(ys):  # a grey patch over grey can leave nothing changed
            box_area = (ys.max() - ys.min() + 1) * (xs.max() - xs.min() + 1)
            assert changed.sum() == box_area  # one solid rectangle
        covered.append(changed.mean())
    assert np.all(view == 128)
    assert max(covered) <= OCCLUSION_MAX_AREA + 0.05
    assert np.mean([c > 0.05 for c in covered]) > 0.7

    crop = np.full((STORE.height, STORE.width, 3), 230, np.uint8)
    first, second = np.random.default_rng(6), np.random.default_rng(6)
    for _ in range(5):
        assert np.array_equal(augment(crop, first), augment(crop, second, occlusion_share=0.0))
