"""Has anything in the picture changed since the detector last looked?

A still table gives the same detections frame after frame; running the detector on it again only
takes CPU from the display and from the frames that matter. :class:`ChangeGate` compares a small
grey thumbnail of each frame with the one the detector last saw: if almost no pixel changed, the
previous detections are reused. A tile put down, a hand coming in or a change of light changes
far more than the threshold, and the detector runs at least every ``max_age`` seconds anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.types import Detection

THUMBNAIL = (160, 90)


@dataclass(frozen=True)
class GateConfig:
    """``level``: grey levels a thumbnail pixel must change by to count; ``fraction``: share of
    thumbnail pixels that must change (one tile of a laid-out hand is ~0.3% of the picture);
    ``max_age``: seconds after which the detector runs regardless. ``enabled=False`` detects every frame."""

    level: int = 12
    fraction: float = 0.0005
    max_age: float = 0.5
    enabled: bool = True


def thumbnail(image_bgr: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    return cv2.resize(grey, THUMBNAIL, interpolation=cv2.INTER_AREA)


def changed_fraction(a: np.ndarray, b: np.ndarray, level: int) -> float:
    """Share of pixels whose grey value differs by more than ``level``."""
    return float(np.count_nonzero(cv2.absdiff(a, b) > level)) / a.size


class ChangeGate:
    """Remembers the frame the detector last saw and its detections (one per live session)."""

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._seen: np.ndarray | None = None
        self._detections: list[Detection] = []
        self._seen_at = float("-inf")

    def reusable(self, image_bgr: np.ndarray, timestamp: float) -> list[Detection] | None:
        """The last detections if ``image_bgr`` shows the same scene, else None (run the detector)."""
        if not self.config.enabled or self._seen is None or timestamp - self._seen_at >= self.config.max_age:
            return None
        small = thumbnail(image_bgr)
        if small.shape != self._seen.shape:
            return None
        if changed_fraction(small, self._seen, self.config.level) > self.config.fraction:
            return None
        return list(self._detections)

    def remember(self, image_bgr: np.ndarray, timestamp: float, detections: list[Detection]) -> None:
        self._seen = thumbnail(image_bgr)
        self._detections = list(detections)
        self._seen_at = timestamp
