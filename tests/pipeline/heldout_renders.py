"""Held-out renders as ``scripts/evaluate.py hands --render`` makes them, read through the pipeline:
the end-to-end cases the pipeline tests pin by seed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from shared_data import require_shared_data

from vision.decode.budget import NO_DEADLINE
from vision.pipeline import PhotoPipeline, PhotoResult
from vision.synth.scene import SceneConfig, render_scene


def held_out_render(seed: int, folder: Path, framing: dict[str, Any] | None = None) -> tuple[Path, Any]:
    """Render seed ``seed`` (validation tile sets, JPEG quality 92) into ``folder``: its file and record.
    ``framing``: scene settings of another held-out set (``vision.evaluation.hands.FAR_SMALL``). The
    validation sets are real crops of the shared data: without it the calling test skips."""
    require_shared_data("crops-labelled")
    image, record = render_scene(np.random.default_rng(seed), SceneConfig(split="val", **(framing or {})))
    path = folder / f"{seed}.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, record


def read_held_out_render(seed: int, folder: Path, pipeline: PhotoPipeline | None = None
                         ) -> tuple[PhotoResult, Any]:
    """The pipeline's reading of held-out render ``seed`` (with its table context), and its record."""
    path, record = held_out_render(seed, folder)
    pipeline = pipeline or PhotoPipeline(photo_budget=NO_DEADLINE)
    return pipeline.read_photo(path, context=dict(record.hand.get("context", {}))), record
