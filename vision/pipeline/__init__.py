"""Photo -> scored hand: load, detect, classify, lay out, decode, score, report (``vision/README.md``).

Each stage is a separate module and a pure function of the previous stage's output. Here:
``readings`` is everything after the models (:func:`read_readings`, which the live mode reuses on
voted readings), ``layouts`` the choice of layout to decode, ``scoring`` the decoded hand scored,
``result`` what a photo gives (``PhotoResult``, ``PhotoReadError``), and ``photo`` the models and
the resolution policy (:class:`PhotoPipeline`).
"""

from __future__ import annotations

from vision.pipeline.perception import TOP_K, Perception
from vision.pipeline.photo import (
    CLOSER_LOOKS,
    DETECT_SIDE,
    FINER_DETECTOR_SIZES,
    FINER_LOOK_WARNING,
    MIN_TILE_PIXELS,
    PhotoPipeline,
    read_photo,
)
from vision.pipeline.readings import read_readings
from vision.pipeline.result import PhotoReadError, PhotoResult, failed_result
from vision.pipeline.setup import HandSetup, resolve_ruleset
from vision.types import GroupRole

__all__ = ["CLOSER_LOOKS", "DETECT_SIDE", "FINER_DETECTOR_SIZES", "FINER_LOOK_WARNING", "MIN_TILE_PIXELS",
           "TOP_K", "GroupRole", "HandSetup", "Perception", "PhotoPipeline", "PhotoReadError", "PhotoResult",
           "failed_result", "read_photo", "read_readings", "resolve_ruleset"]
