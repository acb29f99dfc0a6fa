"""The shipped detector (models/detector.onnx) on real images, and its decoding, without mocks."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data

from scoring.errors import InputError
from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.evaluation.detection import (
    detector_predictor,
    evaluate,
    evaluate_manifest,
    load_table_photos,
    match_boxes,
)
from vision.models import MODELS_DIR
from vision.models.detector import (
    OUTLINE_MARGIN,
    TileDetector,
    decode_maps,
    letterbox,
    mean_mirrored_heat,
    mirror_content,
    smooth_axes,
    turned_against_the_rest,
)

TABLE_PHOTOS = shared_data_dir() / "table-photos"
SAMPLES = REPO_ROOT / "datasets" / "samples" / "manifest.jsonl"
# The shipped model's measured figures (models/MODEL_CARD.md; p2: 98.05% / 97.53% on the real
# validation photos, 93.3% / 91.1% on the samples) less a small margin.
REAL_RECALL, REAL_PRECISION = 0.97, 0.96
SAMPLE_RECALL, SAMPLE_PRECISION = 0.92, 0.90
needs_table_photos = needs_shared_data("table-photos", "images")


@pytest.fixture(scope="module")
def detector() -> TileDetector:
    return TileDetector()


@pytest.fixture(scope="module")
def validation_photos():
    return load_table_photos(TABLE_PHOTOS, split="val")


def test_shipped_model_is_small_and_describes_itself(detector: TileDetector) -> None:
    assert (MODELS_DIR / "detector.onnx").stat().st_size < 20 * 1024 * 1024
    assert detector.input_size % 32 == 0
    assert detector.stride == 4
    assert 0.05 < detector.score_threshold < 0.95


@needs_table_photos
def test_finds_the_hand_tiles_of_held_out_real_photos(detector: TileDetector, validation_photos) -> None:
    """Whole photo groups the model never saw: nearly every boxed hand tile found, few extra boxes
    near them (the photos box only the player's row; a found discard is not an extra box)."""
    metrics = evaluate(detector_predictor(detector), validation_photos)
    # The shipped model's measured figures (models/MODEL_CARD.md) less a small margin.
    assert metrics.recall >= REAL_RECALL
    assert metrics.precision >= REAL_PRECISION


def test_reads_the_bundled_sample_photos(detector: TileDetector) -> None:
    """The bundled scenes (held-out tile styles, any camera angle): the hand tiles are found."""
    metrics, flags = evaluate_manifest(detector, SAMPLES)
    assert metrics.images == 6
    assert metrics.recall >= SAMPLE_RECALL
    assert metrics.precision >= SAMPLE_PRECISION
    # Tiles lying across their row are told from their outlines (8 of 9, one false flag when shipped).
    assert flags.sideways_found >= 7 and flags.sideways_false <= 2


def test_the_shipped_model_gives_each_tile_its_face_outline(detector: TileDetector) -> None:
    """A turned rectangle per tile, inside (or on the edge of) its box: what the classifier cuts out."""
    assert detector.gives_outlines
    image = cv2.imread(str(SAMPLES.parent / "hand-overhead.jpg"))
    detections = detector.detect(image)
    assert len(detections) >= 17
    for detection in detections:
        assert detection.quad is not None and len(detection.quad) == 4
        x1, y1, x2, y2 = detection.box
        corners = np.array(detection.quad)
        slack = 0.25 * max(x2 - x1, y2 - y1)
        assert np.all(corners >= [x1 - slack, y1 - slack]) and np.all(corners <= [x2 + slack, y2 + slack])


@needs_table_photos
def test_boxes_are_in_the_pixels_of_the_given_image(detector: TileDetector, validation_photos) -> None:
    """The same photo at 2x and at a 4:3 crop gives the same tiles, in that image's own pixels."""
    truth = validation_photos[0]
    image = cv2.imread(str(truth.path))
    small = np.array([d.box for d in detector.detect(image)])
    big = np.array([d.box for d in detector.detect(cv2.resize(image, None, fx=2, fy=2))])
    tp, _, _ = match_boxes(big / 2, np.ones(len(big)), small, iou_threshold=0.7)
    assert tp >= 0.9 * len(small) and len(small) >= 0.9 * len(truth.boxes)
    for x1, y1, x2, y2 in big:
        assert 0 <= x1 < x2 <= image.shape[1] * 2 and 0 <= y1 < y2 <= image.shape[0] * 2


def test_plain_felt_has_no_tiles(detector: TileDetector) -> None:
    rng = np.random.default_rng(0)
    felt = np.full((960, 1280, 3), (60, 110, 40), np.uint8)
    felt = np.clip(felt + rng.normal(0, 6, felt.shape), 0, 255).astype(np.uint8)
    assert detector.detect(felt) == []


def test_accepts_grey_and_bgra_images(detector: TileDetector) -> None:
    grey = np.full((300, 400), 90, np.uint8)
    bgra = np.full((300, 400, 4), 90, np.uint8)
    assert detector.detect(grey) == [] and detector.detect(bgra) == []


@pytest.mark.parametrize("bad", [np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10, 3), np.float32),
                                 np.zeros((10, 10, 2), np.uint8), "not an image"])
def test_rejects_what_is_not_an_image(detector: TileDetector, bad) -> None:
    with pytest.raises(InputError):
        detector.detect(bad)


def test_missing_or_corrupt_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        TileDetector(tmp_path / "nope.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not onnx")
    with pytest.raises(InputError, match="cannot load"):
        TileDetector(broken)


def test_letterbox_keeps_aspect_and_pads_to_multiples_of_32() -> None:
    image = np.zeros((960, 1280, 3), np.uint8)
    network_image, box = letterbox(image, 512)
    assert network_image.shape == (384, 512, 3)
    assert box.scale == pytest.approx(0.4)
    tall, _ = letterbox(np.zeros((1000, 333, 3), np.uint8), 512)
    assert tall.shape[0] == 512 and tall.shape[1] % 32 == 0 and tall.shape[1] >= 333 * 512 / 1000


def test_decoding_separates_touching_tiles_and_reads_their_boxes() -> None:
    """Two tiles side by side (centres 6 cells apart) give two boxes; a weak bump gives none."""
    maps = np.zeros((7, 32, 32), np.float32)
    maps[3:5] = np.log(6.0)  # 24 px tiles at stride 4
    for x in (10, 16):
        maps[0, 12, x] = 0.9
        maps[0, 12, x - 1] = maps[0, 12, x + 1] = 0.5
    maps[1, 12, 10], maps[2, 12, 10] = 0.5, 0.25
    maps[5, 12, 16] = 0.8  # the second tile lies sideways
    maps[0, 25, 25] = 0.1
    boxes, scores, sideways, face_down, outlines, _ = decode_maps(maps, stride=4, score_threshold=0.3)
    order = np.argsort(boxes[:, 0])
    boxes, sideways = boxes[order], sideways[order]
    assert len(boxes) == 2
    np.testing.assert_allclose(boxes[0], [42 - 12, 49 - 12, 42 + 12, 49 + 12], atol=1e-4)
    assert sideways[0] < 0.5 < sideways[1]
    assert np.all(face_down < 0.5) and np.all(scores > 0.8)
    assert outlines is None, "a model without outline channels gives boxes only"


def test_outline_channels_give_turned_face_rectangles() -> None:
    """A face 24 px wide and 32 px high, its up axis turned 30 degrees, comes back as that rectangle."""
    maps = np.zeros((11, 32, 32), np.float32)
    maps[3:5, 12, 10] = np.log(10.0)
    maps[0, 12, 10] = 0.9
    turn = math.radians(30)
    maps[7, 12, 10], maps[8, 12, 10] = math.cos(2 * turn), math.sin(2 * turn)
    maps[9, 12, 10], maps[10, 12, 10] = np.log(6.0), np.log(8.0)
    peaks = decode_maps(maps, stride=4, score_threshold=0.3)
    assert peaks.outlines is not None and peaks.axis_angles is not None
    corners = peaks.outlines[0]
    top, side = corners[1] - corners[0], corners[0] - corners[3]
    assert np.linalg.norm(top) == pytest.approx(24 * OUTLINE_MARGIN, rel=1e-4)
    assert np.linalg.norm(side) == pytest.approx(32 * OUTLINE_MARGIN, rel=1e-4)
    assert abs(math.atan2(side[1], side[0]) % math.pi - turn) < 1e-4
    np.testing.assert_allclose(corners.mean(axis=0), [40, 48], atol=1e-4)


def test_corner_channels_move_the_rectangle_onto_the_face() -> None:
    """The corner refinement is read in the frame whose up points up the image, whichever end of
    the axis the network's doubled angle gives: the face moves up and its top-left corner inwards."""
    maps = np.zeros((21, 32, 32), np.float32)
    maps[0, 12, 10] = 0.9
    maps[3:5, 12, 10] = np.log(10.0)
    maps[7, 12, 10], maps[8, 12, 10] = -1.0, 0.0  # an upright axis (doubled angle: a half turn)
    maps[9, 12, 10], maps[10, 12, 10] = np.log(6.0), np.log(8.0)  # face 24 x 32 px
    maps[12, 12, 10] = -0.25  # face centre 8 px above the box centre
    maps[13, 12, 10] = 0.1  # top-left corner 3.2 px towards the face's right
    peaks = decode_maps(maps, stride=4, score_threshold=0.3)
    assert peaks.outlines is not None
    face_centre = np.array([40.0, 40.0])
    expected = np.array([[-12 + 3.2, -16], [12, -16], [12, 16], [-12, 16]]) * OUTLINE_MARGIN + face_centre
    np.testing.assert_allclose(peaks.outlines[0], expected, atol=1e-3)


def test_a_tile_turned_against_its_row_is_sideways() -> None:
    """Up axes within a few degrees of each other are one row; the one across it lies sideways."""
    angles = np.radians([88.0, -89.0, 91.0 - 180.0, 2.0, 86.0, 89.5])
    turned = turned_against_the_rest(angles, np.ones(len(angles)))
    assert list(turned) == [False, False, False, True, False, False]
    assert not turned_against_the_rest(angles[:2], np.ones(2)).any(), "two tiles make no row"


def test_neighbours_lying_the_same_way_share_their_up_axis() -> None:
    """Noisy axes along a row are pulled together; the tile lying across it and a far tile keep theirs."""
    centres = np.array([[0, 0], [30, 0], [60, 0], [90, 0], [120, 0], [900, 0]], np.float64)
    angles = np.radians([84.0, 96.0, 88.0, 2.0, 92.0, 80.0])
    heights = np.full(6, 40.0)
    smoothed = np.degrees(smooth_axes(centres, angles, heights))
    row = [0, 1, 2, 4]
    spread = lambda values: np.ptp((np.asarray(values) + 45) % 180)  # noqa: E731
    assert spread(smoothed[row]) < spread(np.degrees(angles)[row])
    assert smoothed[3] == pytest.approx(2.0, abs=1e-4)
    assert smoothed[5] == pytest.approx(80.0, abs=1e-4)


def test_the_mirror_view_lines_each_cell_up_with_its_mirror_cell() -> None:
    """Content 50 px wide at stride 4: the mirrored span is widened to 52 px (13 cells), so pixel
    column 0 lands on column 51 and the padding beyond the span stays where it was."""
    image = np.random.default_rng(0).integers(0, 255, (32, 64, 3), dtype=np.uint8)
    mirrored, cells = mirror_content(image, content_width=50, stride=4)
    assert cells == 13
    assert np.array_equal(mirrored[:, 51], image[:, 0])
    assert np.array_equal(mirrored[:, 0], image[:, 51])
    assert np.array_equal(mirrored[:, 52:], image[:, 52:])
    heat = np.zeros((2, 8, 16), np.float32)
    heat[0, 3, 2] = 0.8  # a peak in cell 2 of this view
    heat[1] = 5.0
    other = np.zeros_like(heat)
    other[0, 3, cells - 1 - 2] = 0.4  # the same tile in the mirror view
    other[1] = -5.0
    mean = mean_mirrored_heat(heat, other, cells)
    assert mean[0, 3, 2] == pytest.approx(0.6)
    assert mean[0].sum() == pytest.approx(0.6)
    assert np.array_equal(mean[1], heat[1])  # the other channels are this view's


def test_with_the_mirror_view_a_mirrored_photo_gives_the_mirrored_heatmap(detector: TileDetector) -> None:
    """The real model, a 1280x960 sample (512x384 at the network, whole cells): the averaged heatmap
    of the mirrored photo is the averaged heatmap of the photo, mirrored."""
    image = cv2.imread(str(SAMPLES.parent / "hand-flat-row.jpg"))
    assert image is not None and image.shape[:2] == (960, 1280)
    heat, _ = detector.predict_maps(image)
    heat_of_mirror, _ = detector.predict_maps(np.ascontiguousarray(image[:, ::-1]))
    assert np.allclose(heat[0], heat_of_mirror[0][:, ::-1], atol=1e-4)
    plain = TileDetector(mirror_view=False).predict_maps(image)[0]
    assert not np.allclose(plain[0], heat[0], atol=1e-3)
