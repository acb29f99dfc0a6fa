"""Where the shipped ONNX models live and how the runtime opens them.

``MODELS_DIR`` is the repository's ``models/`` folder; set the environment variable
``TAICAM_MODELS`` to point the runtime at another folder (a retrained model, a test fixture).
Every model is opened through :func:`create_session` so thread counts and error messages are the
same everywhere: a missing or corrupt model file is the user's problem to fix (``InputError``),
not a crash.
"""

from __future__ import annotations

import os
from pathlib import Path

import onnxruntime as ort

from scoring.errors import InputError

_REPO_MODELS_DIR = Path(__file__).resolve().parents[2] / "models"


def models_dir() -> Path:
    """The folder the models are read from: ``$TAICAM_MODELS`` if set, else the repo's ``models/``."""
    override = os.environ.get("TAICAM_MODELS")
    return Path(override).expanduser() if override else _REPO_MODELS_DIR


#: The models folder at import time (call :func:`models_dir` to honour a later change of the env).
MODELS_DIR: Path = models_dir()

#: Default intra-op threads: a laptop has few cores and the live mode runs two models per frame.
DEFAULT_THREADS = 2


def resolve_model_path(model_path: Path | str | None, default_name: str) -> Path:
    """``model_path`` if given, else ``default_name`` inside :func:`models_dir`; must exist."""
    path = Path(model_path) if model_path is not None else models_dir() / default_name
    if not path.is_file():
        raise InputError(f"model file not found: {path}")
    return path


def create_session(model_path: Path | str, threads: int | None = None) -> ort.InferenceSession:
    """Open an ONNX model on the CPU with a bounded thread pool.

    ``threads`` defaults to ``$TAICAM_THREADS`` or :data:`DEFAULT_THREADS`. Raises ``InputError``
    if the file is missing or is not a loadable ONNX model.
    """
    path = Path(model_path)
    if not path.is_file():
        raise InputError(f"model file not found: {path}")
    if threads is None:
        threads = int(os.environ.get("TAICAM_THREADS", DEFAULT_THREADS))
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Threads that spin-wait after a run steal the cores from the next model's run (detector, then
    # classifier, then flower model): measured 17 ms against 37 ms to classify a 21-tile hand.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises several private exception types
        raise InputError(f"cannot load model {path}: {error}") from error
