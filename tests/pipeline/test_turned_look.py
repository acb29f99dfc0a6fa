"""A photo whose rows slant is read turned upright, its readings turned back into the photo."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.imageio import ArraySource, PhotoSource
from vision.pipeline import PhotoPipeline
from vision.repairs.turned_look import TurnedSource, reads_surer, row_slant, turning
from vision.types import Detection, TileReading

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "hand-overhead.jpg"


def _tiles(degrees: float) -> np.ndarray:
    """A grey table with three rows of ivory tiles, turned ``degrees`` (counter-clockwise on screen)."""
    image = np.full((600, 800, 3), 90, np.uint8)
    for row in range(3):
        for k in range(8):
            x, y = 120 + 70 * k, 140 + 120 * row
            cv2.rectangle(image, (x, y), (x + 60, y + 80), (225, 238, 242), -1)
            cv2.line(image, (x + 20, y + 40), (x + 40, y + 40), (40, 40, 160), 3)
    matrix = cv2.getRotationMatrix2D((400, 300), -degrees, 1.0)
    return cv2.warpAffine(image, matrix, (800, 600), borderValue=(90, 90, 90))


@pytest.mark.parametrize("degrees", [0.0, 12.0, 30.0, -25.0, 40.0])
def test_the_slant_is_the_turn_of_the_rows_edges(degrees: float) -> None:
    assert row_slant(_tiles(degrees)) == pytest.approx(degrees, abs=2.0)


def test_a_turned_canvas_holds_all_of_the_photo_and_a_detection_comes_back_to_its_place() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    cv2.rectangle(image, (250, 60), (290, 120), (255, 255, 255), -1)  # one tile, 40x60
    turned_source = TurnedSource(ArraySource(image), 30.0)
    matrix, canvas = turning((400, 300), 30.0)
    assert turned_source.full_size == canvas and canvas[0] > 400 and canvas[1] > 300
    turned, scale = turned_source.image()
    assert scale == 1.0 and (turned.shape[1], turned.shape[0]) == canvas
    assert int(turned.sum() // 255) == pytest.approx(int(image.sum() // 255), rel=0.05)  # nothing cut off
    ys, xs = np.nonzero(turned[..., 0] > 128)
    corners = cv2.boxPoints(cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32)))
    found = Detection(box=(float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())), score=0.9,
                      quad=tuple((float(x), float(y)) for x, y in corners))
    back = turned_source.back(found)
    assert back.box == pytest.approx((250, 60, 290, 120), abs=2.5)
    corner_order = sorted(back.quad, key=lambda p: (round(p[0], -1), round(p[1], -1)))
    np.testing.assert_allclose(corner_order, [(250, 60), (250, 120), (290, 60), (290, 120)], atol=2.5)
    half, half_scale = turned_source.image(max(canvas) // 2)
    assert max(half.shape[:2]) <= max(canvas) // 2 + 1 and half_scale == pytest.approx(0.5, abs=0.01)


def test_the_turned_reading_is_kept_only_where_it_reads_surer() -> None:
    def read(*tops: float) -> list[TileReading]:
        return [TileReading(Detection(box=(0, 0, 1, 1), score=0.9), [("1m", p), ("2m", 1 - p)]) for p in tops]

    assert reads_surer(read(0.95, 0.92, 0.5), read(0.99, 0.6, 0.3))  # more tiles sure, surer
    assert reads_surer(read(0.95, 0.7), read(0.91, 0.3))  # as many sure, surer on average
    assert not reads_surer(read(0.99, 0.95, 0.95, 0.3, 0.3), read(0.99, 0.97))  # pieces: more sure, less sure
    assert not reads_surer(read(0.99), read(0.95, 0.95))  # its surest few alone
    assert not reads_surer(read(0.95, 0.5), read(0.95, 0.5))  # a tie keeps the upright reading
    assert not reads_surer([], read(0.5))


def test_a_hand_photographed_at_a_slant_reads_as_it_does_upright(tmp_path: Path) -> None:
    """The bundled overhead photo turned 30 degrees (read as it is, two of its tiles read wrong): the
    tiles read as in the photo itself, each at the place of the upright reading's tile turned with
    the photo."""
    pipeline = PhotoPipeline()
    upright = pipeline.read_tiles(PhotoSource(SAMPLE))
    photo = cv2.imread(str(SAMPLE))
    height, width = photo.shape[:2]
    matrix, canvas = turning((width, height), 30.0)
    turned_path = tmp_path / "turned.jpg"
    cv2.imwrite(str(turned_path), cv2.warpAffine(photo, matrix, canvas, borderValue=(0, 0, 0)))
    turned = pipeline.read_tiles(PhotoSource(turned_path))
    assert Counter(r.code for r in turned) == Counter(r.code for r in upright)
    expected = {r.code: [] for r in upright}
    for r in upright:
        x, y = r.detection.center
        expected[r.code].append(matrix[:, :2] @ (x, y) + matrix[:, 2])
    side = float(np.median([max(r.detection.width, r.detection.height) for r in upright]))
    for r in turned:
        nearest = min(np.hypot(*(np.array(r.detection.center) - place)) for place in expected[r.code])
        assert nearest < 0.3 * side
