"""Fixtures for ``taicam serve``: one set of the shipped models for the module, a server per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import RunningServe


@pytest.fixture(scope="session")
def pipeline() -> object:
    from vision.pipeline import PhotoPipeline

    return PhotoPipeline()


@pytest.fixture
def serve(tmp_path: Path, pipeline: object) -> Iterator[RunningServe]:
    running = RunningServe(tmp_path, pipeline)
    yield running
    running.stop()
