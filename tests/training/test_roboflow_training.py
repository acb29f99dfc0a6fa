"""Training on roboflow-chinese: unboxed tiles become ignore regions, loose boxes teach no size."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vision.training.detector_data import DetectorSample  # noqa: E402
from vision.training.detector_loss import collate, detector_loss  # noqa: E402
from vision.training.detector_model import MAP_CHANNELS  # noqa: E402
from vision.training.detector_targets import encode_targets  # noqa: E402
from vision.training.roboflow_detector_data import unlabelled_tiles  # noqa: E402


def test_only_confident_finds_away_from_every_label_box_are_ignored() -> None:
    labelled = np.array([[10, 10, 40, 50], [40, 10, 70, 50]], np.float32)
    found = np.array([[11, 11, 41, 49],   # a labelled tile
                      [100, 10, 130, 50],  # an unboxed tile
                      [200, 10, 230, 50],  # an unboxed tile, found weakly
                      [35, 5, 60, 45]], np.float32)  # a shifted find centred on a labelled tile
    kept = unlabelled_tiles(found, np.array([0.9, 0.8, 0.1, 0.5]), labelled)
    assert kept.tolist() == [[100, 10, 130, 50]]
    assert unlabelled_tiles(found, np.array([0.9, 0.8, 0.1, 0.5]), np.zeros((0, 4))).shape == (3, 4)


def _sample(size_known: bool) -> DetectorSample:
    boxes = np.array([[40, 40, 100, 120], [140, 60, 200, 140]], np.float32)
    return DetectorSample(image=np.zeros((256, 256, 3), np.uint8), boxes=boxes,
                          sideways=np.full(2, -1, np.int8), face_down=np.zeros(2, np.int8),
                          size_known=size_known)


def test_a_loose_box_teaches_its_centre_but_not_its_size() -> None:
    tight, loose = _sample(True), _sample(False)
    raw = torch.zeros(1, len(MAP_CHANNELS), 64, 64)
    batch_tight = collate([encode_targets(tight, 256)], [tight.image])
    batch_loose = collate([encode_targets(loose, 256)], [loose.image])
    _, tight_parts = detector_loss(raw, batch_tight)
    _, loose_parts = detector_loss(raw, batch_loose)
    # With all-zero maps the size error is |log w| and |log h| (about 2.8), the offsets about 0.5.
    assert tight_parts["reg"] > 1.2
    assert loose_parts["reg"] < 0.6
    assert tight_parts["heat"] == pytest.approx(loose_parts["heat"])
    unknown_sizes = encode_targets(replace(tight, size_known=False), 256).size_known
    assert unknown_sizes is not None and unknown_sizes.tolist() == [0.0, 0.0]
