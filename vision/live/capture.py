"""Reading frames from a camera, a video file or a stream on a background thread.

The live mode must never fall behind the table: a slow model cannot be allowed to build up a queue
of old frames. :class:`FrameGrabber` therefore keeps exactly one slot, the newest frame, and a
consumer asks for "the newest frame after the one I last had". Two pacing modes:

* ``live`` (cameras, streams, or a file played in real time): the grabber overwrites the slot as
  frames arrive and counts what the consumer never took (``dropped``). A file is paced at its own
  frame rate so it behaves like a camera.
* ``every`` (a file, by default): the grabber waits until the consumer took the previous frame, so
  every frame is processed once and results do not depend on machine speed (tests, batch runs).

A camera or live stream that stops delivering frames is reopened with exponential backoff before
the grabber gives up with a clear message. A file, or a stream that reports its length (a video
served over HTTP), is *finite*: it is paced and timed like a file, and its end is a normal end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from scoring.errors import InputError
from vision.live.sources import Capture, VideoSource, open_capture


@dataclass(frozen=True)
class Frame:
    """One captured frame.

    ``index`` counts frames read from the source (dropped ones included), from 0. ``timestamp`` is
    the frame's time in seconds: media time for a file (index / fps, so results do not depend on
    machine speed), seconds since the grabber started for a live source. ``grabbed_at`` is the
    ``time.monotonic()`` at which it was read, for latency measurements.
    """

    image: np.ndarray
    index: int
    timestamp: float
    grabbed_at: float


class GrabberStatus(StrEnum):
    STARTING = "starting"
    RUNNING = "running"
    RECONNECTING = "reconnecting"
    ENDED = "ended"  # a file reached its end: a clean finish
    FAILED = "failed"  # a live source disconnected and could not be reopened
    STOPPED = "stopped"  # the consumer asked to stop


class Pace(StrEnum):
    LIVE = "live"
    EVERY = "every"


@dataclass(frozen=True)
class ReconnectPolicy:
    """Retry a lost camera or stream after ``first_delay`` seconds, doubling up to ``max_delay``."""

    attempts: int = 5
    first_delay: float = 0.5
    max_delay: float = 8.0

    def delays(self) -> list[float]:
        return [min(self.first_delay * 2**attempt, self.max_delay) for attempt in range(self.attempts)]


@dataclass
class GrabberStats:
    frames_read: int = 0
    frames_taken: int = 0
    reconnects: int = 0

    @property
    def frames_dropped(self) -> int:
        return self.frames_read - self.frames_taken


Opener = Callable[[VideoSource], Capture]


class FrameGrabber:
    """Reads ``source`` on a daemon thread and serves only the newest frame (see module docstring).

    Use as a context manager, or call :meth:`start` / :meth:`stop`. :meth:`start` opens the source
    in the caller's thread so "cannot open" is raised where the user can see it.
    """

    def __init__(
        self,
        source: VideoSource,
        *,
        pace: Pace | None = None,
        reconnect: ReconnectPolicy | None = None,
        opener: Opener | None = None,
        fps_if_unknown: float = 30.0,
    ) -> None:
        self.source = source
        self._requested_pace = pace
        self.pace = pace if pace is not None else (Pace.EVERY if source.is_file else Pace.LIVE)
        #: A file, or a stream that reports a frame count (a video served over HTTP/RTSP): it has an
        #: end, its frames have media timestamps, and it is not reopened when it stops.
        self.finite = source.is_file
        self.frame_count = 0
        self.reconnect = reconnect or ReconnectPolicy()
        self._opener: Opener = opener or open_capture
        self._fps_if_unknown = fps_if_unknown
        self._capture: Capture | None = None
        self._thread: threading.Thread | None = None
        self._condition = threading.Condition()
        self._newest: Frame | None = None
        self._taken_index = -1
        self._stop = threading.Event()
        self.status = GrabberStatus.STARTING
        self.message = ""
        self.stats = GrabberStats()
        self.fps = 0.0
        self.frame_size: tuple[int, int] | None = None
        self._started_at = 0.0
        self._failed_attempts = 0  # reconnect attempts since the last frame that arrived
        self._first: np.ndarray | None = None  # a file's first frame, read by start()

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> FrameGrabber:
        """Open the source; a file's first frame is read here too, so a file that yields none (not a
        video, a photo OpenCV refuses) is an InputError where the user sees it, not "0 frames read"."""
        self._capture = self._opener(self.source)
        if self.source.is_file:
            ok, first = self._capture.read()
            if not ok or first is None:
                self._capture.release()
                self._capture = None
                raise InputError(f"{self.source.describe()}: no frame could be read from it "
                                 "(not a video or image OpenCV can decode)")
            self._first = first
        fps = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 1.0 <= fps <= 240.0 else self._fps_if_unknown
        count = float(self._capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0.0)
        self.frame_count = int(count) if 0 < count < 1e9 else 0
        self.finite = self.source.is_file or (self.source.is_stream and self.frame_count > 0)
        if self._requested_pace is None:
            self.pace = Pace.EVERY if self.finite else Pace.LIVE
        if self.pace is Pace.EVERY and not self.finite:
            self._capture.release()
            raise InputError(
                f"{self.source.describe()} is live: it cannot wait for every frame to be processed"
            )
        self._started_at = time.monotonic()
        self.status = GrabberStatus.RUNNING
        self._thread = threading.Thread(target=self._run, name="taicam-capture", daemon=True)
        self._thread.start()
        return self

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` when capture began (a file played in real time shows frame i at
        ``started_at + i / fps``)."""
        return self._started_at

    def stop(self) -> None:
        self._stop.set()
        with self._condition:
            if self.status in (GrabberStatus.RUNNING, GrabberStatus.RECONNECTING, GrabberStatus.STARTING):
                self.status = GrabberStatus.STOPPED
            self._condition.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def __enter__(self) -> FrameGrabber:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def finished(self) -> bool:
        """True once no more frames will come (end of file, gave up reconnecting, or stopped)."""
        return self.status in (GrabberStatus.ENDED, GrabberStatus.FAILED, GrabberStatus.STOPPED)

    # -- consumer side ---------------------------------------------------------------------------
    def next_frame(self, after: int = -1, timeout: float | None = 1.0) -> Frame | None:
        """The newest frame with ``index > after``; waits up to ``timeout`` seconds for one.

        Returns None on timeout or when the source is finished and nothing newer is left.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._condition:
            while True:
                frame = self._newest
                if frame is not None and frame.index > after:
                    if frame.index > self._taken_index:
                        self._taken_index = frame.index
                        self.stats.frames_taken += 1
                    self._condition.notify_all()
                    return frame
                if self.finished:
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._condition.wait(remaining)

    def peek(self) -> Frame | None:
        """The newest frame without marking it taken (for a display running beside inference)."""
        with self._condition:
            return self._newest

    # -- producer side ---------------------------------------------------------------------------
    def _publish(self, image: np.ndarray, index: int) -> None:
        now = time.monotonic()
        timestamp = index / self.fps if self.finite else now - self._started_at
        frame = Frame(image=image, index=index, timestamp=timestamp, grabbed_at=now)
        with self._condition:
            if self.pace is Pace.EVERY:
                while self._newest is not None and self._taken_index < self._newest.index:
                    if self._stop.is_set():
                        return
                    self._condition.wait(0.1)
            self._newest = frame
            self._failed_attempts = 0
            self.stats.frames_read += 1
            if self.frame_size is None:
                self.frame_size = (image.shape[1], image.shape[0])
            self._condition.notify_all()

    def _finish(self, status: GrabberStatus, message: str) -> None:
        with self._condition:
            if self.status is not GrabberStatus.STOPPED:
                self.status = status
                self.message = message
            self._condition.notify_all()

    def _run(self) -> None:
        index = 0
        realtime_file = self.finite and self.pace is Pace.LIVE
        playback_start = self._started_at
        try:
            while not self._stop.is_set():
                capture = self._capture
                if self._first is not None:
                    ok, image, self._first = True, self._first, None
                else:
                    ok, image = capture.read() if capture is not None else (False, None)
                if not ok or image is None:
                    if self.finite:
                        self._end_of_media(index)
                        return
                    if not self._reconnect():
                        return
                    continue
                if realtime_file:
                    # Play a file at its own frame rate, like a camera would deliver it.
                    delay = playback_start + index / self.fps - time.monotonic()
                    if delay > 0 and self._stop.wait(delay):
                        return
                self._publish(image, index)
                index += 1
        except Exception as error:  # noqa: BLE001 - the consumer reports it, the thread must not die silently
            self._finish(GrabberStatus.FAILED, f"{self.source.describe()}: capture error: {error}")

    def _end_of_media(self, frames: int) -> None:
        """A file or finite stream stopped: its end, or (a stream well short of its length) a break."""
        if self.source.is_stream and self.frame_count and frames < self.frame_count - 2:
            self._finish(
                GrabberStatus.FAILED,
                f"{self.source.describe()} broke off after {frames} of {self.frame_count} frames",
            )
            return
        self._finish(GrabberStatus.ENDED, f"end of {self.source.describe()}")

    def _reconnect(self) -> bool:
        """Reopen a lost live source with backoff; False (and status FAILED) if it never comes back."""
        with self._condition:
            self.status = GrabberStatus.RECONNECTING
            self._condition.notify_all()
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        delays = self.reconnect.delays()
        # A source that reopens but then delivers nothing keeps using up the same attempts.
        while self._failed_attempts < len(delays):
            delay = delays[self._failed_attempts]
            self._failed_attempts += 1
            if self._stop.wait(delay):
                return False
            try:
                self._capture = self._opener(self.source)
            except InputError:
                continue
            self.stats.reconnects += 1
            with self._condition:
                if self.status is GrabberStatus.RECONNECTING:
                    self.status = GrabberStatus.RUNNING
                self._condition.notify_all()
            return True
        self._finish(
            GrabberStatus.FAILED,
            f"{self.source.describe()} disconnected; gave up after {len(delays)} reconnect attempts "
            f"over {sum(delays):.1f} s",
        )
        return False
