"""Detector training: targets decode back to their boxes, and one real training step exports a model."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shared_data import needs_shared_data  # noqa: E402

from vision.dataset.paths import shared_data_dir  # noqa: E402
from vision.models.detector import TileDetector, decode_maps, turned_against_the_rest  # noqa: E402
from vision.training.detector import (  # noqa: E402
    DetectorTrainConfig,
    crop_size_at,
    draw_source,
    load_weights,
    train_detector,
)
from vision.training.detector_data import DetectorSample  # noqa: E402
from vision.training.detector_loss import collate, detector_loss  # noqa: E402
from vision.training.detector_model import MAP_CHANNELS, STRIDE, TileDetectorNet  # noqa: E402
from vision.training.detector_targets import encode_targets  # noqa: E402
from vision.training.detector_views import random_view  # noqa: E402

TABLE_PHOTOS = shared_data_dir() / "table-photos"


def _row_of_tiles() -> DetectorSample:
    """A drawn row of 6 touching ivory tiles on green felt, the 3rd sideways, the 5th face-down."""
    image = np.full((300, 400, 3), (40, 110, 30), np.uint8)
    boxes, sideways, face_down = [], [], []
    x = 40
    for i in range(6):
        w, h = (44, 32) if i == 2 else (32, 44)
        y = 150 - h
        colour = (30, 140, 200) if i == 4 else (225, 235, 240)
        image[y:y + h, x:x + w] = colour
        boxes.append((x, y, x + w, y + h))
        sideways.append(int(i == 2))
        face_down.append(int(i == 4))
        x += w
    # Corner 0 is the face's top-left as read: the sideways tile's top edge is its left side.
    upright = [[(x1, y1), (x2, y1), (x2, y2), (x1, y2)] for x1, y1, x2, y2 in boxes]
    quads = np.array([corners[3:] + corners[:3] if turned else corners
                      for corners, turned in zip(upright, sideways, strict=True)], np.float32)
    return DetectorSample(image, np.array(boxes, np.float32), np.array(sideways, np.int8),
                          np.array(face_down, np.int8), quads=quads)


def test_targets_decode_back_to_the_boxes_and_flags() -> None:
    """Encoding then decoding the ideal maps returns every box: touching tiles stay apart."""
    sample = _row_of_tiles()
    size = 400
    targets = encode_targets(sample, size)
    cells = size // STRIDE
    maps = np.zeros((11, cells, cells), np.float32)
    maps[0] = targets.heat
    for k, flat in enumerate(targets.index):
        iy, ix = divmod(int(flat), cells)
        maps[1:5, iy, ix] = targets.regression[k]
        maps[5, iy, ix] = targets.sideways[k]
        maps[6, iy, ix] = targets.face_down[k]
        maps[7:11, iy, ix] = targets.outline[k]
    assert targets.outline_known.all()
    peaks = decode_maps(maps, STRIDE, score_threshold=0.5)
    order = np.argsort(peaks.boxes[:, 0])
    np.testing.assert_allclose(peaks.boxes[order], sample.boxes, atol=1e-3)
    assert list(peaks.sideways[order] > 0.5) == [bool(v) for v in sample.sideways]
    assert list(peaks.face_down[order] > 0.5) == [bool(v) for v in sample.face_down]
    # The outline comes back as the same face (4% larger, the crop margin), either way up.
    assert peaks.outlines is not None and peaks.axis_angles is not None
    for outline, quad in zip(peaks.outlines[order], sample.quads, strict=True):
        centre = quad.mean(axis=0)
        grown = centre + (quad - centre) * 1.04
        error = min(np.abs(np.roll(outline, k, axis=0) - grown).max() for k in (0, 2))
        assert error < 1e-2
    # Only the tile lying across the row is turned against the rest.
    turned = turned_against_the_rest(peaks.axis_angles[order], peaks.scores[order])
    assert list(turned) == [bool(v) for v in sample.sideways]


def _faces_above_their_bodies(sample: DetectorSample) -> DetectorSample:
    """The same tiles with each face a trapezoid in the top of its box, as a camera sees a tile
    lying on the table: the body's side shows below the face, the far edge looks shorter."""
    quads = []
    for (x1, y1, x2, y2), turned in zip(sample.boxes, sample.sideways, strict=True):
        w, h = x2 - x1, y2 - y1
        inset = 0.08 * w
        corners = [(x1 + inset, y1), (x2 - inset, y1), (x2, y1 + 0.78 * h), (x1, y1 + 0.78 * h)]
        quads.append(corners[3:] + corners[:3] if turned else corners)
    return replace(sample, quads=np.array(quads, np.float32))


def test_corner_targets_decode_back_to_the_labelled_faces() -> None:
    """A face off its box centre and seen in perspective comes back as that face, not a rectangle."""
    sample = _faces_above_their_bodies(_row_of_tiles())
    size = 400
    targets = encode_targets(sample, size)
    cells = size // STRIDE
    maps = np.zeros((len(MAP_CHANNELS), cells, cells), np.float32)
    maps[0] = targets.heat
    for k, flat in enumerate(targets.index):
        iy, ix = divmod(int(flat), cells)
        maps[1:5, iy, ix] = targets.regression[k]
        maps[7:11, iy, ix] = targets.outline[k]
        maps[11:21, iy, ix] = targets.corners[k]
    assert np.abs(targets.corners).max() > 0.05  # the faces really are off their rectangles
    peaks = decode_maps(maps, STRIDE, score_threshold=0.5)
    assert peaks.outlines is not None
    order = np.argsort(peaks.boxes[:, 0])
    for outline, quad in zip(peaks.outlines[order], sample.quads, strict=True):
        centre = quad.mean(axis=0)
        grown = centre + (quad - centre) * 1.04
        error = min(np.abs(np.roll(outline, k, axis=0) - grown).max() for k in (0, 2))
        assert error < 1e-2


def test_a_mirrored_view_has_the_same_corner_targets() -> None:
    """Corners are matched by where they lie, so the flip augmentation cannot scramble them."""
    sample = _faces_above_their_bodies(_row_of_tiles())
    assert sample.quads is not None
    mirrored_quads = np.stack([400 - sample.quads[..., 0], sample.quads[..., 1]], axis=-1)
    mirrored_boxes = np.stack([400 - sample.boxes[:, 2], sample.boxes[:, 1],
                               400 - sample.boxes[:, 0], sample.boxes[:, 3]], axis=1)
    mirrored = replace(sample, boxes=mirrored_boxes, quads=mirrored_quads)
    plain, flipped = encode_targets(sample, 400).corners, encode_targets(mirrored, 400).corners
    # For a tile standing up the image, mirroring swaps its left and right: x offsets change sign
    # and the corner pairs trade places (a sideways tile's frame turns instead; see the test above).
    upright = sample.sideways == 0
    swap = [0, 1, 4, 5, 2, 3, 8, 9, 6, 7]
    sign = np.array([-1, 1, -1, 1, -1, 1, -1, 1, -1, 1], np.float32)
    np.testing.assert_allclose(flipped[upright], plain[upright][:, swap] * sign, atol=1e-5)


def _r11_shaped(model: TileDetectorNet) -> TileDetectorNet:
    """``model`` with the corner branch r9 and r11 were trained with (32 channels, one depthwise 3x3)."""
    nn = torch.nn
    model.corner_head = nn.Sequential(
        nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, groups=32, bias=False), nn.BatchNorm2d(32), nn.ReLU()),
        nn.Sequential(nn.Conv2d(32, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU()),
        nn.Conv2d(32, 10, 1))
    return model


@pytest.mark.parametrize("old_branch", ["none (r7)", "narrower (r11)"])
def test_a_model_with_another_corner_branch_trains_on(tmp_path: Path, old_branch: str) -> None:
    """Weights without the corner branch, or with r11's narrower one, load whole except that branch,
    which starts fresh at the plain rectangle; any other mismatch fails."""
    torch.manual_seed(0)
    old = _r11_shaped(TileDetectorNet()).eval()
    state = old.state_dict()
    if old_branch.startswith("none"):
        state = {k: v for k, v in state.items() if not k.startswith("corner_head.")}
    torch.save(state, tmp_path / "old.pt")
    new = TileDetectorNet()
    lines: list[str] = []
    load_weights(new, tmp_path / "old.pt", log=lines.append)
    assert "corner branch starts fresh" in lines[0]
    image = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        np.testing.assert_allclose(new.eval()(image)[:, :11].numpy(), old(image)[:, :11].numpy(), atol=1e-6)
        assert float(new(image)[:, 11:].abs().max()) == 0.0
    wrong = dict(state, **{"head.2.weight": state["head.2.weight"][:3]})
    torch.save(wrong, tmp_path / "wrong.pt")
    with pytest.raises(ValueError, match="head.2.weight"):
        load_weights(TileDetectorNet(), tmp_path / "wrong.pt", log=lambda line: None)
    torch.save({k: v for k, v in state.items() if k != "smooth2.0.0.weight"}, tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="smooth2.0.0.weight missing"):
        load_weights(TileDetectorNet(), tmp_path / "missing.pt", log=lambda line: None)


def test_the_shipped_weights_load() -> None:
    """``models/detector.pt`` (r11's branch, or this network's once a model of this shape ships)
    is a valid ``--init-from``."""
    shipped = Path(__file__).resolve().parents[2] / "models" / "detector.pt"
    lines: list[str] = []
    load_weights(TileDetectorNet(), shipped, log=lines.append)
    assert lines and str(shipped) in lines[0]


def test_a_model_of_this_shape_loads_every_tensor(tmp_path: Path) -> None:
    """Same network, trained corner branch: nothing starts fresh, the outputs are the saved model's."""
    torch.manual_seed(1)
    saved = TileDetectorNet().eval()
    with torch.no_grad():
        saved.corner_head[-1].weight.normal_(0, 0.1)
    torch.save(saved.state_dict(), tmp_path / "same.pt")
    loaded = TileDetectorNet()
    lines: list[str] = []
    load_weights(loaded, tmp_path / "same.pt", log=lines.append)
    assert "fresh" not in lines[0]
    image = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        assert float(saved(image)[:, 11:].abs().max()) > 0.0
        np.testing.assert_allclose(loaded.eval()(image).numpy(), saved(image).numpy(), atol=1e-6)


def test_a_partly_boxed_photo_teaches_background_only_near_its_boxes() -> None:
    """The real photos box the player's row only: far from it, an unboxed tile costs nothing."""
    sample = replace(_row_of_tiles(), quads=None, partly_boxed=True)
    targets = encode_targets(sample, 400)
    cells = 400 // STRIDE
    near_row = (150 - 10) // STRIDE, (40 + 60) // STRIDE  # just above the row, over a tile
    far_above = 40 // STRIDE, 200 // STRIDE
    assert targets.heat_weight[near_row] == 1.0
    assert targets.heat_weight[far_above] == 0.0
    for flat in targets.index:  # every tile centre is trained
        assert targets.heat_weight[divmod(int(flat), cells)] == 1.0
    fully_boxed = encode_targets(replace(sample, partly_boxed=False), 400)
    assert fully_boxed.heat_weight.min() == 1.0


def test_scenes_with_face_down_tiles_can_be_drawn_more_often() -> None:
    """With a face-down share, that part of the rendered draws comes from the concealed-kong scenes."""
    kong = replace(_row_of_tiles(), source="kong")
    plain = replace(kong, face_down=np.zeros_like(kong.face_down), source="plain")
    real = replace(plain, source="real")
    synth = [plain] * 9 + [kong]
    config = DetectorTrainConfig(synth_fraction=1.0, face_down_share=0.5)
    rng = np.random.default_rng(0)
    drawn = [draw_source(rng, config, [real], synth, [kong]).source for _ in range(2000)]
    assert 0.5 < drawn.count("kong") / len(drawn) < 0.6  # half the draws, plus 1 in 10 of the rest
    config = DetectorTrainConfig(synth_fraction=0.0, face_down_share=0.5)
    assert {draw_source(rng, config, [real], synth, [kong]).source for _ in range(50)} == {"real"}


def test_views_carry_the_outlines_with_their_boxes() -> None:
    """Every turn, scale, crop and flip moves a tile's outline with its box (real photos have none)."""
    sample = _row_of_tiles()
    rng = np.random.default_rng(5)
    for _ in range(40):
        view = random_view(sample, rng, size=256, base=320)
        assert view.quads is not None and len(view.quads) == len(view.boxes)
        for box, quad in zip(view.boxes, view.quads, strict=True):
            inside = np.clip(quad, 0, 256)
            np.testing.assert_allclose([inside[:, 0].min(), inside[:, 1].min(), inside[:, 0].max(),
                                        inside[:, 1].max()], box, atol=1.0)
    real = DetectorSample(sample.image, sample.boxes, sample.sideways, sample.face_down)
    targets = encode_targets(random_view(real, rng, size=256, base=320), 256)
    assert not targets.outline_known.any()


def test_random_views_keep_boxes_on_their_tiles() -> None:
    """After scaling, turning (any angle), flipping and cropping, each kept box still sits on a tile."""
    sample = _row_of_tiles()
    rng = np.random.default_rng(3)
    for _ in range(40):
        view = random_view(sample, rng, size=256, base=320)
        assert view.image.shape == (256, 256, 3)
        for x1, y1, x2, y2 in view.boxes.astype(int):
            assert 0 <= x1 < x2 <= 256 and 0 <= y1 < y2 <= 256
            centre = view.image[(y1 + y2) // 2, (x1 + x2) // 2].astype(int)
            assert np.abs(centre - (40, 110, 30)).sum() > 60, "box centre landed on the felt"


def test_loss_falls_when_training_on_one_image() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    sample = _row_of_tiles()
    model = TileDetectorNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    image = np.zeros((256, 256, 3), np.uint8)
    image[:, :] = sample.image[22:278, 40:296]
    shifted = DetectorSample(image, sample.boxes - np.array([40, 22, 40, 22], np.float32),
                             sample.sideways, sample.face_down)
    shifted.boxes = np.clip(shifted.boxes, 0, 256)
    targets = encode_targets(shifted, 256)
    batch = collate([targets], [image])
    losses = []
    for _ in range(15):
        loss, _ = detector_loss(model.raw_maps(batch["image"]), batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    assert losses[-1] < 0.6 * losses[0]


@needs_shared_data("table-photos", "images")
def test_one_training_step_exports_a_model_the_runtime_loads(tmp_path: Path) -> None:
    output = tmp_path / "detector.onnx"
    config = DetectorTrainConfig(data_root=TABLE_PHOTOS, output=output, steps=1, batch_size=2,
                                 crop_size=256, synth_scenes=0, synth_cache=None, eval_every=0,
                                 max_train_images=2)
    result = train_detector(config, log=lambda _line: None)
    assert output.is_file() and result.max_abs_diff_onnx < 1e-3
    report = json.loads(output.with_suffix(".train.json").read_text())
    assert report["score_threshold"] == result.score_threshold
    detector = TileDetector(output)
    assert detector.score_threshold == pytest.approx(result.score_threshold)
    assert isinstance(detector.detect(np.zeros((120, 160, 3), np.uint8)), list)
    # The saved weights start the next run where this one ended (a step at learning rate 0 keeps them).
    weights = output.with_suffix(".pt")
    again = tmp_path / "again.onnx"
    train_detector(replace(config, output=again, init_from=weights, learning_rate=0.0, warmup_steps=0,
                           ema_decay=1.0), log=lambda _line: None)
    first = torch.load(weights, weights_only=True)
    second = torch.load(again.with_suffix(".pt"), weights_only=True)
    for name, tensor in first.items():
        if tensor.dtype.is_floating_point and "running" not in name:
            torch.testing.assert_close(second[name], tensor, msg=name)


def test_synthetic_scenes_are_cached_exactly(tmp_path: Path) -> None:
    """A cached scene is the scene the renderer draws for that seed and index (labels and pixels)."""
    pytest.importorskip("vision.synth")
    from vision.training.detector_data import synthetic_samples

    first = next(synthetic_samples(1, seed=7, cache_dir=tmp_path))
    again = next(synthetic_samples(1, seed=7, cache_dir=tmp_path))
    fresh = next(synthetic_samples(1, seed=7))
    assert len(first.boxes) >= 14, "a hand has at least 16 tiles; a few may be hidden"
    height, width = first.image.shape[:2]
    assert np.all(first.boxes[:, :2] >= -1) and np.all(first.boxes[:, 2] <= width + 1)
    assert np.all(first.boxes[:, 3] <= height + 1)
    for other in (again, fresh):
        np.testing.assert_array_equal(other.image, first.image)
        np.testing.assert_allclose(other.boxes, first.boxes, atol=1e-4)
        np.testing.assert_array_equal(other.sideways, first.sideways)
        np.testing.assert_allclose(other.quads, first.quads, atol=1e-4)


def test_the_threshold_serves_real_photos_and_renders_alike() -> None:
    """Renders score lower than real photos: the chosen threshold is the best for both together."""
    from vision.evaluation.detection import DetectionMetrics
    from vision.training.detector_validation import THRESHOLDS, choose_threshold

    def counts(tp: int, fp: int, fn: int) -> DetectionMetrics:
        return DetectionMetrics(true_positives=tp, false_positives=fp, false_negatives=fn)

    # Real photos: the higher the threshold the fewer false positives; renders lose tiles above 0.4.
    real = {t: counts(95, round(40 * (0.7 - t)) + 2, 5) for t in THRESHOLDS}
    synth = {t: counts(90, 5, 10) if t <= 0.4 else counts(60, 2, 40) for t in THRESHOLDS}
    assert choose_threshold({"real": real}) == 0.7
    assert choose_threshold({"real": real, "synth": synth}) == 0.4


def test_a_models_threshold_is_rewritten_in_place(tmp_path: Path) -> None:
    """``set_metadata`` changes one entry and keeps the rest; the runtime reads the new threshold."""
    from vision.training.detector_export import export_onnx, set_metadata

    path = tmp_path / "detector.onnx"
    metadata = {"input_size": "256", "stride": str(STRIDE), "score_threshold": "0.55",
                "channels": json.dumps(list(MAP_CHANNELS))}
    export_onnx(TileDetectorNet(), path, metadata, 256)
    set_metadata(path, {"score_threshold": "0.45"})
    detector = TileDetector(path)
    assert detector.score_threshold == pytest.approx(0.45) and detector.input_size == 256
    assert detector.gives_outlines


def test_a_sideways_tiles_outline_error_can_count_more() -> None:
    """Weight 1: the outline loss is the plain mean; above 1 the sideways tile's error weighs more."""
    sample = _row_of_tiles()
    targets = encode_targets(sample, 400)
    batch = collate([targets], [np.zeros((400, 400, 3), np.uint8)])
    raw = torch.zeros(1, len(MAP_CHANNELS), 100, 100)
    sideways = int(np.flatnonzero(targets.sideways > 0)[0])
    iy, ix = divmod(int(targets.index[sideways]), 100)
    raw[0, 7:11, iy, ix] = torch.from_numpy(targets.outline[sideways]) + 2.0  # only its outline is off
    outline_errors = np.abs(targets.outline).mean(axis=1)
    outline_errors[sideways] = 2.0
    _, plain = detector_loss(raw, batch)
    _, weighted = detector_loss(raw, batch, sideways_outline_weight=5.0)
    assert plain["outline"] == pytest.approx(outline_errors.mean(), rel=1e-5)
    weights = np.where(np.arange(len(outline_errors)) == sideways, 5.0, 1.0)
    assert weighted["outline"] == pytest.approx(np.average(outline_errors, weights=weights), rel=1e-5)
    assert weighted["outline"] > plain["outline"]


def test_a_sideways_tiles_centre_can_count_more_in_the_heatmap_loss() -> None:
    """With every centre predicted at the same heat, weighting the sideways centre k times adds
    (k - 1) times its share of the positive loss; the upright tiles' centres and the rest are unchanged."""
    sample = _row_of_tiles()
    targets = encode_targets(sample, 400)
    batch = collate([targets], [np.zeros((400, 400, 3), np.uint8)])
    raw = torch.full((1, len(MAP_CHANNELS), 100, 100), -3.0)
    centres = int((targets.heat >= 0.999).sum())
    sideways = int((targets.sideways > 0).sum())
    assert 0 < sideways < centres
    _, plain = detector_loss(raw, batch)
    _, weighted = detector_loss(raw, batch, sideways_heat_weight=4.0)
    p = 1 / (1 + np.exp(3.0))
    per_centre = -np.log(p) * (1 - p) ** 2 / centres
    assert weighted["heat"] - plain["heat"] == pytest.approx(3.0 * sideways * per_centre, rel=1e-4)


def test_the_first_steps_train_on_smaller_crops() -> None:
    config = DetectorTrainConfig(steps=100, crop_size=384, early_crop_size=256, early_crop_share=0.6)
    sizes = [crop_size_at(config, step) for step in range(100)]
    assert sizes[:60] == [256] * 60 and sizes[60:] == [384] * 40
    assert {crop_size_at(replace(config, early_crop_share=0.0), step) for step in range(100)} == {384}
