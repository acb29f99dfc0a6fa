"""Face frames: the axes and sizes the stages measure rows, duplicates and split halves in."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.geometry import face_frame, frame_rectangle, stands_upright
from vision.types import Detection


def test_an_upright_face_has_the_image_axes() -> None:
    frame = face_frame([[10, 20], [40, 20], [40, 60], [10, 60]])
    assert frame.width == pytest.approx(30)
    assert frame.height == pytest.approx(40)
    assert np.allclose(frame.across, [1, 0])
    assert np.allclose(frame.up, [0, -1])
    assert np.allclose(frame.centre, [25, 40])


def test_a_turned_face_keeps_its_own_width_and_height() -> None:
    """A face turned a quarter (corner 0 now bottom-left) is as wide and as tall as before; only
    its axes turn."""
    frame = face_frame([[10, 60], [10, 30], [50, 30], [50, 60]])
    assert frame.width == pytest.approx(30)
    assert frame.height == pytest.approx(40)
    assert np.allclose(frame.across, [0, -1])
    assert np.allclose(frame.up, [-1, 0])


def test_a_sheared_face_takes_the_mean_of_opposite_sides() -> None:
    frame = face_frame([[0, 0], [30, 0], [36, 40], [6, 40]])
    assert frame.width == pytest.approx(30)
    assert frame.height == pytest.approx(np.hypot(6, 40))
    assert float(frame.across @ frame.up) == pytest.approx(0, abs=0.2)


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_a_rectangle_in_a_faces_frame_has_that_frame(turn) -> None:
    corners = [[10, 20], [40, 20], [40, 60], [10, 60]]
    frame = face_frame(corners[turn:] + corners[:turn])
    tile = frame_rectangle(np.array([100.0, 50.0]), frame, 12, 16, score=0.4)
    made = face_frame(tile.quad)
    assert np.allclose(made.centre, [100, 50])
    assert (made.width, made.height) == pytest.approx((12, 16))
    assert np.allclose(made.across, frame.across) and np.allclose(made.up, frame.up)
    xs, ys = [x for x, _ in tile.quad], [y for _, y in tile.quad]
    assert tile.box == pytest.approx((min(xs), min(ys), max(xs), max(ys)))
    assert tile.score == 0.4


def test_only_a_sure_outlined_face_standing_like_its_row_stands_upright() -> None:
    tile = Detection(box=(0, 0, 10, 14), score=0.9, quad=((0, 0), (10, 0), (10, 14), (0, 14)))
    assert stands_upright(tile)
    for other in (replace(tile, rotated=True), replace(tile, face_down=True), replace(tile, spare=True),
                  replace(tile, quad=None)):
        assert not stands_upright(other)
