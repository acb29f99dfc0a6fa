"""Where the public shared data lives: ``../shared/data`` beside the repo, or ``$TAICAM_SHARED_DATA``.

The shared data is never copied into the project (its README), so code that reads it finds it here.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The bundled sample of rendered scenes (used by tests and demos).
SYNTH_SAMPLE_DIR = REPO_ROOT / "datasets" / "synth-sample"


def shared_data_dir() -> Path:
    """The shared data folder (it may be missing on a machine without it; callers check)."""
    override = os.environ.get("TAICAM_SHARED_DATA")
    return Path(override) if override else (REPO_ROOT.parent / "shared" / "data").resolve()
