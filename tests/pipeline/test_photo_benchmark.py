"""The ``photo`` benchmark's batch mode: every photo of a folder read once, scored or refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.photo_benchmark import SAMPLE, time_batch


def test_a_batch_times_each_photo_and_counts_the_scored(tmp_path: Path) -> None:
    shutil.copy(SAMPLE, tmp_path / "hand.jpg")
    cv2.imwrite(str(tmp_path / "table.jpg"), np.full((480, 640, 3), 90, np.uint8))  # no tiles: refused
    (tmp_path / "notes.txt").write_text("not a photo")
    batch = time_batch(tmp_path)
    assert batch["photos"] == 2 and batch["scored"] == 1
    assert 0 < batch["median_s"] <= batch["p90_s"] <= batch["slowest_s"] <= batch["total_s"]
