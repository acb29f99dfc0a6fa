"""Fixtures for the labelling tool: a folder of real table photos (copied to tmp) and a live server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from label_helpers import RunningServer, real_photos, seed_labels, start_server


@pytest.fixture
def photo_dir(tmp_path: Path) -> Path:
    """Three real table photos (640x640) in ``tmp/photos/images``, unlabelled."""
    folder = tmp_path / "photos"
    (folder / "images").mkdir(parents=True)
    for index, photo in enumerate(real_photos(3)):
        shutil.copy(photo, folder / "images" / f"table{index}.jpg")
    return folder


@pytest.fixture
def server(photo_dir: Path) -> Iterator[RunningServer]:
    seed_labels(photo_dir)
    running = start_server(photo_dir)
    yield running
    running.stop()
