"""Face frames: the axes and sizes the stages measure rows, duplicates and split halves in."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import face_frame


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
