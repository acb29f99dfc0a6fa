"""A photo under a strongly coloured lamp is read in grey balanced on the tiles' faces."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from shared_data import needs_shared_data

from vision.dataset.manifest import read_manifest
from vision.evaluation.hand_outcome import match_labels, resolve_image
from vision.imageio import PhotoSource
from vision.pipeline import PhotoPipeline
from vision.repairs.colour_cast import STRONG_CAST, cast_strength, neutralised, paper_colour
from vision.training.classifier_data import REAL_LABELS_MANIFEST

MAGENTA = np.array([0.9, 0.07, 1.0])  # what a magenta lamp leaves of each channel (B, G, R)


def _table_of_faces(light: np.ndarray) -> tuple[np.ndarray, list[list[tuple[float, float]]]]:
    """Six ivory faces with dark ink on a green table, all lit by ``light`` (per-channel factors)."""
    image = np.zeros((200, 420, 3), np.float32)
    image[:] = (60, 110, 50)
    faces = []
    for k in range(6):
        x = 20 + 65 * k
        image[50:130, x:x + 55] = (225, 240, 245)
        image[70:110, x + 20:x + 35] = (40, 40, 150)  # ink
        faces.append([(x, 50), (x + 55, 50), (x + 55, 130), (x, 130)])
    return np.clip(image * light, 0, 255).astype(np.uint8), faces


def test_the_paper_colour_is_the_faces_light_not_their_ink():
    image, faces = _table_of_faces(MAGENTA)
    paper = paper_colour(image, faces)
    np.testing.assert_allclose(paper, np.array([225, 240, 245]) * MAGENTA, atol=2)
    assert cast_strength(paper) > STRONG_CAST
    assert paper_colour(image, []) is None


def test_a_strong_cast_is_read_in_grey_with_white_paper_and_dark_ink():
    image, faces = _table_of_faces(MAGENTA)
    grey = neutralised(image, faces)
    assert grey is not None and grey.shape == image.shape
    assert np.array_equal(grey[..., 0], grey[..., 1]) and np.array_equal(grey[..., 1], grey[..., 2])
    assert grey[55, 25, 0] >= 225  # paper
    assert grey[90, 45, 0] < 120  # ink


def test_white_or_warm_light_is_left_alone():
    for light in (np.ones(3), np.array([0.75, 0.95, 1.0])):  # daylight; a warm lamp on ivory
        image, faces = _table_of_faces(light)
        assert neutralised(image, faces) is None


@needs_shared_data("table-photos")
def test_faces_under_a_magenta_lamp_are_not_read_as_tile_backs():
    """Real validation photo group 420233498 (a magenta-lit table; its third copy is grey): the 1m
    faces of the two colour frames read as coloured tile backs, at up to 1.00, before they were read
    in grey. Now no labelled tile reads as a back, and 11 and 12 of the 14 read right (10 and 11)."""
    pipeline = PhotoPipeline()
    right = []
    for record in read_manifest(REAL_LABELS_MANIFEST):
        if "420233498" not in record.image:
            continue
        path = Path(resolve_image(record, REAL_LABELS_MANIFEST.parent))
        image = cv2.imread(str(path))
        faces = [d.quad for d in pipeline.detector.detect(image)]
        if cast_strength(paper_colour(image, faces)) < STRONG_CAST:
            continue
        readings = pipeline.read_tiles(PhotoSource(path))
        matches = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
        read = {i: readings[j].code for i, j in matches.items()}
        assert "back" not in read.values()
        right.append(sum(read.get(i) == tile.code for i, tile in enumerate(record.tiles)))
    assert sorted(right) == [11, 12]
