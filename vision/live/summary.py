"""How a live session went: frames read, processed and shown, hands announced, and the clocks of
its events and readings. The session prints it when it ends, and the benchmark measures rates and
latencies from it."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from vision.live.engine import StageTimes


@dataclass
class SessionSummary:
    """How a session went; printed on stderr when it ends."""

    source: str
    end_reason: str
    frames_read: int = 0
    frames_processed: int = 0
    frames_shown: int = 0
    frames_detected: int = 0  # frames the detector ran on (a still picture reuses detections)
    hands_announced: int = 0
    wall_seconds: float = 0.0
    failed: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    #: ``time.monotonic()`` at which each event was decided (for latency measurements).
    event_clock: list[float] = field(default_factory=list)
    #: (media time, ``time.monotonic()``, tiles read) of each reading of a steady table (the panel changed).
    reading_clock: list[tuple[float, float, int]] = field(default_factory=list)
    #: Per-stage seconds of the most recent processed frames (for the benchmark).
    stage_times: deque[StageTimes] = field(default_factory=lambda: deque(maxlen=5000))

    #: ``time.monotonic()`` of the first and last processed frames (the rate excludes start-up).
    processed_span: tuple[float, float] = (0.0, 0.0)

    @property
    def processed_fps(self) -> float:
        return rate(self.frames_processed, self.processed_span)

    def describe(self) -> str:
        return (
            f"taicam live: {self.end_reason}; {self.frames_read} frames read, "
            f"{self.frames_processed} processed ({self.processed_fps:.1f} per second), "
            f"{self.hands_announced} hand(s) announced"
        )


def rate(count: int, span: tuple[float, float]) -> float:
    """How many a second: ``count`` events from the first to the last time of ``span`` (0 for fewer
    than two, or no time between them)."""
    first, last = span
    return (count - 1) / (last - first) if count > 1 and last > first else 0.0
