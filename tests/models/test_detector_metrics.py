"""Detection metrics and the held-out table-photo split."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_data import require_shared_data

from vision.dataset.paths import shared_data_dir
from vision.evaluation.detection import (
    ADDED_BOXES,
    DetectionMetrics,
    add_partly_boxed,
    box_iou,
    load_table_photos,
    match_boxes,
    read_added_boxes,
    read_yolo_boxes,
    table_photo_group,
    table_photo_split,
)

TABLE_PHOTOS = shared_data_dir() / "table-photos"


def test_iou_of_identical_disjoint_and_half_overlapping_boxes() -> None:
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [20, 20, 30, 30], [5, 0, 15, 10]])
    np.testing.assert_allclose(box_iou(a, b), [[1.0, 0.0, 50 / 150]])


def test_a_partly_boxed_photo_judges_only_detections_near_its_boxed_row() -> None:
    """An unboxed discard far from the row is not a false positive; a box on the rack beside it is."""
    row = np.array([[100, 200, 130, 240], [130, 200, 160, 240]], np.float32)
    detections = np.array([
        [100, 200, 130, 240],  # a boxed tile: hit
        [160, 245, 190, 270],  # the rack just below the row's end: judged, a false positive
        [120, 20, 150, 60],  # a discard well above the row: not judged
    ], np.float32)
    metrics = DetectionMetrics()
    add_partly_boxed(metrics, "photo", detections, np.array([0.9, 0.8, 0.7]), row)
    assert (metrics.true_positives, metrics.false_positives, metrics.false_negatives) == (1, 1, 1)
    assert metrics.unjudged == 1
    assert metrics.to_json()["unjudged_detections"] == 1


def test_matching_counts_each_truth_box_once_best_score_first() -> None:
    truth = np.array([[0, 0, 10, 10], [12, 0, 22, 10]])
    pred = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [12, 0, 22, 10], [50, 50, 60, 60]])
    assert match_boxes(pred, [0.9, 0.8, 0.7, 0.6], truth) == (2, 2, 0)
    assert match_boxes(np.zeros((0, 4)), [], truth) == (0, 0, 2)
    assert match_boxes(pred[:1], [0.5], np.zeros((0, 4))) == (0, 1, 0)
    # IoU below 0.5 is a miss: a box shifted by half a tile finds nothing.
    assert match_boxes(np.array([[5, 0, 15, 10]]), [1.0], truth[:1]) == (0, 1, 1)


def test_metrics_rates() -> None:
    metrics = DetectionMetrics()
    metrics.add("a.jpg", 18, 1, 0)
    metrics.add("b.jpg", 16, 0, 1)
    assert metrics.recall == pytest.approx(34 / 35)
    assert metrics.precision == pytest.approx(34 / 35)
    assert metrics.to_json()["worst_images"][0]["image"] in {"a.jpg", "b.jpg"}


def test_near_duplicate_exports_share_a_group_and_a_split() -> None:
    a = "420604730_1122558559103061_8091814458238141475_n_jpg.rf.a641ff3a2d24e2f3459fbef0b57f0e7f.jpg"
    b = "420604730_1122558559103061_8091814458238141475_n_jpg.rf.0123456789abcdef0123456789abcdef.jpg"
    assert table_photo_group(a) == table_photo_group(b) == "420604730_1122558559103061_8091814458238141475_n"
    assert table_photo_split(a) == table_photo_split(b)
    splits = {table_photo_split(f"{n}_photo_jpg.rf.x.jpg") for n in range(200)}
    assert splits == {"train", "val"}


def test_yolo_labels_become_pixel_boxes(tmp_path: Path) -> None:
    label = tmp_path / "x.txt"
    label.write_text("17 0.5 0.25 0.1 0.2\n\n3 0.1 0.1 0.2 0.2 extra\n")
    boxes = read_yolo_boxes(label, width=640, height=480)
    np.testing.assert_allclose(boxes, [[288, 72, 352, 168], [0, 0, 128, 96]], atol=1e-3)


def test_added_boxes_are_new_tiles_of_existing_photos() -> None:
    """Each box we added names a shipped photo, lies inside it and is not an upstream box again."""
    added = read_added_boxes(ADDED_BOXES)
    assert sum(len(b) for b in added.values()) >= 20
    require_shared_data("table-photos")
    for name, boxes in added.items():
        label = TABLE_PHOTOS / "labels" / (Path(name).stem + ".txt")
        assert (TABLE_PHOTOS / "images" / name).is_file() and label.is_file(), name
        assert (boxes[:, :2] >= 0).all() and (boxes[:, 2:] <= 640).all()
        assert (boxes[:, 2:] > boxes[:, :2]).all()
        upstream = read_yolo_boxes(label, 640, 640)
        assert box_iou(boxes, upstream).max() < 0.3, name


def test_table_photos_load_with_our_added_boxes_unless_asked_for_upstream_only() -> None:
    require_shared_data("table-photos")
    added = read_added_boxes(ADDED_BOXES)
    with_ours = {t.path.name: len(t.boxes) for t in load_table_photos(TABLE_PHOTOS, split="val")}
    upstream = {t.path.name: len(t.boxes)
                for t in load_table_photos(TABLE_PHOTOS, split="val", added_boxes=None)}
    assert with_ours.keys() == upstream.keys()
    extra = {name: with_ours[name] - upstream[name] for name in with_ours
             if with_ours[name] != upstream[name]}
    assert extra == {name: len(added[name]) for name in added if name in with_ours}
    assert sum(extra.values()) == 12


def test_a_malformed_added_boxes_line_names_its_file_and_line(tmp_path: Path) -> None:
    manifest = tmp_path / "added.jsonl"
    manifest.write_text('{"image": "a.jpg", "boxes": [[0, 0, 10, 10]]}\n{"image": "b.jpg"}\n')
    with pytest.raises(ValueError, match="added.jsonl:2"):
        read_added_boxes(manifest)
