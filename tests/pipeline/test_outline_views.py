"""Second cuts for tiles whose outline is turned against their neighbours' (vision.repairs.outline_views)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.repairs.outline_views import SQUARING_DEGREES, second_outlines, squaring_angles, turned_quad
from vision.types import Detection


def _tile(x: float, y: float, degrees: float, width: float = 30.0, height: float = 40.0) -> Detection:
    """A face of ``width`` x ``height`` centred at (x, y), its up axis turned ``degrees`` from the image's."""
    corners = np.array([[-width / 2, -height / 2], [width / 2, -height / 2],
                        [width / 2, height / 2], [-width / 2, height / 2]])
    quad = turned_quad(tuple(map(tuple, (corners + (x, y)).tolist())), degrees)
    points = np.asarray(quad)
    box = (*points.min(axis=0), *points.max(axis=0))
    return Detection(box=tuple(float(v) for v in box), score=0.9, angle=-90.0 + degrees, quad=quad)


def _row(angles: list[float]) -> list[Detection]:
    return [_tile(40.0 + 34.0 * index, 100.0, degrees) for index, degrees in enumerate(angles)]


def test_a_tile_cut_at_a_slant_in_a_row_gets_a_cut_along_the_row() -> None:
    row = _row([0, 1, -1, 28, 0, 1])
    turns = squaring_angles(row)
    assert turns[3] == pytest.approx(28, abs=3)
    outlines = second_outlines(row)
    assert [index for index, quad in enumerate(outlines) if quad is not None] == [3]
    squared = np.asarray(outlines[3])
    up = squared[0] - squared[3]  # corner 3 (bottom-left) to corner 0 (top-left): the face's up
    assert abs(math.degrees(math.atan2(up[0], -up[1]))) < 4  # straight up the image, as the row's
    assert np.allclose(squared.mean(axis=0), np.asarray(row[3].quad).mean(axis=0))


def test_a_tile_lying_across_its_row_is_square_and_keeps_one_cut() -> None:
    row = _row([0, 0, 90, 0, 0])
    assert np.abs(squaring_angles(row)).max() < 1
    assert second_outlines(row) == [None] * 5


def test_the_neighbours_of_a_slanted_tile_stay_square() -> None:
    """A slanted tile pulls its neighbours' common axis a little; they must not be re-cut for it."""
    row = _row([0, 0, 0, 40, 0, 0, 0])
    turns = np.abs(squaring_angles(row))
    assert turns[3] > 30
    assert np.delete(turns, 3).max() < SQUARING_DEGREES


def test_lone_tiles_and_boxes_only_detections_get_no_second_cut() -> None:
    assert second_outlines([]) == []
    assert second_outlines([_tile(50, 50, 30)]) == [None]
    boxes = [Detection(box=(i * 30.0, 0.0, i * 30.0 + 28, 40.0), score=0.9, angle=float(i * 20))
             for i in range(4)]
    assert second_outlines(boxes) == [None] * 4


def test_turned_quad_keeps_the_centre_and_the_corner_order() -> None:
    quad = ((0.0, 0.0), (30.0, 0.0), (30.0, 40.0), (0.0, 40.0))
    turned = np.asarray(turned_quad(quad, 90.0))
    assert np.allclose(turned.mean(axis=0), (15, 20))
    assert np.allclose(turned[0], (35, 5))  # top-left went to the top-right: a quarter turn clockwise
