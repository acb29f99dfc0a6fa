"""The public tile data beside the clone (``../shared/data``, or ``$TAICAM_SHARED_DATA``) that some
tests read: the real photos and crops, and the held-out tile sets the validation renders draw.

A fresh clone has none of it; every test that needs it skips with the one reason below, and runs
where the data is there (CI has it). pytest puts ``tests/`` on the import path
(``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.dataset.paths import shared_data_dir

REASON = "needs ../shared/data (public tile data beside the clone)"


def shared_data_present(*parts: str) -> bool:
    """Whether the shared data folder (or the file or folder ``parts`` inside it) is there."""
    return shared_data_dir().joinpath(*parts).exists()


def require_shared_data(*parts: str) -> Path:
    """The path ``parts`` inside the shared data folder; the calling test skips if it is missing."""
    path = shared_data_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(REASON)
    return path


def needs_shared_data(*parts: str) -> pytest.MarkDecorator:
    """A mark that skips the test when ``parts`` (default: the whole folder) is missing."""
    return pytest.mark.skipif(not shared_data_present(*parts), reason=REASON)
