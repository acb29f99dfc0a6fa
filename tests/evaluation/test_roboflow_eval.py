"""Evaluation on roboflow-chinese: matching by centres, the far and close views, the held-out images."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dataset.roboflow import load_roboflow, read_split, roboflow_dir
from vision.evaluation.matching import match_centres
from vision.evaluation.roboflow import (
    VIEW_SIZE,
    band_of,
    close_view,
    evaluation_images,
    far_view,
)


def test_a_tile_matches_a_detection_on_its_centre_but_not_two_halves() -> None:
    truth = np.array([[0, 0, 60, 80], [60, 0, 120, 80]], np.float32)
    loose = np.array([[-10, -10, 70, 90]], np.float32)  # a loose box's tile, found tight
    assert match_centres(np.array([[5, 5, 55, 75]], np.float32), [0.9], loose) == {0: 0}
    halves = np.array([[60, 0, 120, 40], [60, 40, 120, 80]], np.float32)
    assert match_centres(halves, [0.9, 0.8], truth) == {}
    both = np.array([[1, 1, 59, 79], [2, 0, 60, 80], [61, 0, 120, 80]], np.float32)
    assert match_centres(both, [0.5, 0.9, 0.7], truth) == {0: 0, 1: 2}
    tie = np.array([[0, 0, 60, 80], [0, 0, 60, 80]], np.float32)
    assert match_centres(tie, [0.5, 0.9], truth[:1]) == {0: 1}


def test_a_label_shifted_along_its_row_still_matches_its_own_tile() -> None:
    """An augmented copy's labels slide off their tiles along the row (a fifth of a tile here):
    each still takes its own tile, never the neighbour's."""
    tiles = np.array([[0, 60 * i, 80, 60 * i + 60] for i in range(4)], np.float32)  # a row lying across
    shifted = tiles + np.array([0, 14, 0, 14], np.float32)
    assert match_centres(tiles, [1.0] * 4, shifted) == {0: 0, 1: 1, 2: 2, 3: 3}
    assert match_centres(tiles[1:], [1.0] * 3, shifted[:1]) == {}


def test_the_far_and_close_views_keep_the_boxes_on_their_tiles() -> None:
    image = np.full((640, 640, 3), 40, np.uint8)
    boxes = np.array([[100 + 60 * i, 300, 150 + 60 * i, 366] for i in range(6)], np.float32)
    for x1, y1, x2, y2 in boxes.astype(int):
        image[y1:y2, x1:x2] = 230
    codes = [f"{i + 1}m" for i in range(6)]
    far = far_view(image, boxes, codes)
    assert far.image.shape[:2] == (VIEW_SIZE[1], VIEW_SIZE[0])
    for x1, y1, x2, y2 in far.boxes.astype(int):
        assert far.image[(y1 + y2) // 2, (x1 + x2) // 2].mean() > 200
    assert band_of(float(far.boxes[0, 3] - far.boxes[0, 1])) == "<40"
    close = close_view(image, boxes, codes)
    assert close is not None and close.image.shape[:2] == (VIEW_SIZE[1], VIEW_SIZE[0])
    heights = close.boxes[:, 3] - close.boxes[:, 1]
    assert {band_of(float(h)) for h in heights} == {">300"}
    for x1, y1, x2, y2 in close.boxes.astype(int):
        assert close.image[(y1 + y2) // 2, (x1 + x2) // 2].mean() > 200
        assert x1 >= 0 and x2 <= VIEW_SIZE[0]
    assert len(close.codes) + len(close.ignore) <= len(codes)
    assert close_view(image, np.zeros((0, 4), np.float32), []) is None


@pytest.mark.skipif(not (roboflow_dir() / "manifest.jsonl").is_file(),
                    reason="needs ../shared/data/roboflow-chinese")
def test_the_held_out_images_are_one_unmirrored_copy_per_held_out_source() -> None:
    split = read_split()
    images = evaluation_images(load_roboflow(), split)
    assert len({image.source for image in images}) == len(images) > 100
    assert all(split.part(image.source) == "val" and split.unmirrored(image) for image in images)
