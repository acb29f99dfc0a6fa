"""The review's pure parts: overlap, left-to-right places, and boxes the detector and labels disagree on."""

from __future__ import annotations

import pytest

from vision.dataset.manifest import TileLabel
from vision.label.review import _unmatched, iou, reading_positions


def test_iou() -> None:
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0


def test_reading_positions_count_left_to_right() -> None:
    tiles = [TileLabel(code="1m", box=(x, 0, x + 10, 14)) for x in (50, 10, 30)]
    assert reading_positions(tiles) == [3, 1, 2]


def test_missed_tiles_and_labels_without_a_detection() -> None:
    tiles = [TileLabel(code="1m", box=(0, 0, 10, 14)), TileLabel(code="2m", box=(100, 0, 110, 14))]
    detections = [{"box": [1, 0, 11, 14], "code": "1m", "score": 0.9},
                  {"box": [50, 0, 60, 14], "code": "5p", "score": 0.8}]
    rows = _unmatched(4, "a.jpg", tiles, detections)
    assert [(r["kind"], r["tile"], r["model"], r["label"]) for r in rows] == [
        ("missed", None, "5p", None), ("no detection", 1, None, "2m")]
    assert rows[1]["position"] == 2
