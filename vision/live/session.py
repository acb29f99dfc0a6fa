"""The live loop: capture, inference and display/output, with the keys of the window.

Two arrangements:

* **threaded** (cameras, streams, a file played in real time, or any run with a window): the
  capture thread serves the newest frame, an inference thread processes the newest frame it can
  get (as fast as the CPU allows), and the main thread shows or writes *every* captured frame with
  the latest result drawn on it, so the picture moves at camera rate even when inference is slower.
* **synchronous** (a file in every-frame pacing without a window, the default for
  ``--headless`` on a file): each frame is processed in turn, so the output is the same on any
  machine. Timestamps are media time.

Events (a hand announced, a hand cleared) go to a sink (``vision.live.output``): JSON lines or
human lines on stdout.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.errors import InputError
from vision.live.capture import Frame, FrameGrabber, GrabberStatus, Pace
from vision.live.engine import HandReader, LiveEngine, LiveEvent, LiveUpdate
from vision.live.output import EventSink, event_document, save_snapshot
from vision.live.panel import PanelInfo, draw_live
from vision.live.stability import DEFAULT_HOLD_SECONDS
from vision.live.summary import SessionSummary, rate

WINDOW_NAME = "taicam live"
KEY_HELP = "keys: space freeze, s snapshot, r next rule set, c reset, q quit"


@dataclass
class SessionOptions:
    headless: bool = False
    json_lines: bool = False
    annotate_path: Path | None = None
    snapshot_dir: Path = field(default_factory=Path.cwd)
    #: Stop after this many seconds of source time (None: until the source ends or the user quits).
    max_seconds: float | None = None
    #: With a window, keep the last picture up when a video ends until a key is pressed.
    wait_at_end: bool = True


def use_system_fonts() -> None:
    """Point OpenCV's bundled Qt at the system fonts.

    The opencv-python wheel sets ``QT_QPA_FONTDIR`` to a folder it does not ship, and Qt then warns
    on every window; a folder that exists (the user's own setting included) is left alone.
    """
    current = os.environ.get("QT_QPA_FONTDIR")
    if current and Path(current).is_dir():
        return
    for folder in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts"):
        if Path(folder).is_dir():
            os.environ["QT_QPA_FONTDIR"] = folder
            return


class LiveSession:
    """Runs one live session until the source ends, fails, the user quits, or ``max_seconds``."""

    def __init__(
        self,
        grabber: FrameGrabber,
        engine: LiveEngine,
        *,
        rules_cycle: list[str],
        make_reader: Callable[[str], HandReader],
        sink: EventSink,
        options: SessionOptions,
        hold_seconds: float = DEFAULT_HOLD_SECONDS,
    ) -> None:
        self.grabber = grabber
        self.engine = engine
        self.rules_cycle = rules_cycle
        self.rules = rules_cycle[0]
        self.make_reader = make_reader
        self.sink = sink
        self.options = options
        self.hold_seconds = hold_seconds
        self.summary = SessionSummary(source=grabber.source.describe(), end_reason="")
        self._lock = threading.Lock()  # guards the latest update, the event queue and the counters
        self._engine_lock = threading.Lock()  # the engine is used by one thread at a time
        self._latest: LiveUpdate | None = None
        self._events: deque[dict[str, Any]] = deque()
        self._process_times: deque[float] = deque(maxlen=30)
        self._quit = threading.Event()
        self._writer: cv2.VideoWriter | None = None
        self._inference_error: BaseException | None = None
        self._window_open = False

    # -- public ----------------------------------------------------------------------------------
    def run(self) -> SessionSummary:
        started = time.monotonic()
        synchronous = self.options.headless and self.grabber.pace is Pace.EVERY
        try:
            if synchronous:
                self._run_synchronous()
            else:
                self._run_threaded()
        except KeyboardInterrupt:
            # Ctrl+C is how a headless session on a camera is stopped: finish normally, with the summary.
            self.summary.end_reason = "stopped with Ctrl+C"
        finally:
            self.summary.wall_seconds = time.monotonic() - started
            self.summary.frames_read = self.grabber.stats.frames_read
            self.grabber.stop()
            if self._writer is not None:
                self._writer.release()
            if not self.options.headless:
                cv2.destroyAllWindows()
        if self._inference_error is not None:
            raise self._inference_error
        if not self.summary.end_reason:
            self.summary.end_reason = self._end_reason()
        return self.summary

    def rules_label(self) -> str:
        """The rule set in use, by its id (a rule file's own id, not its path)."""
        return str(getattr(self.engine.read_hand, "rules_id", self.rules))

    def processed_fps(self) -> float:
        """Frames processed per second over the last few (the panel's figure)."""
        with self._lock:
            times = list(self._process_times)
        return rate(len(times), (times[0], times[-1])) if times else 0.0

    # -- the two arrangements --------------------------------------------------------------------
    def _new_frames(self, timeout: float) -> Iterator[Frame]:
        """Every frame the grabber has not handed out yet, until it runs dry or the session quits."""
        last = -1
        while not self._quit.is_set():
            frame = self.grabber.next_frame(last, timeout=timeout)
            if frame is None:
                if self.grabber.finished:
                    return
                continue
            last = frame.index
            yield frame

    def _run_synchronous(self) -> None:
        for frame in self._new_frames(timeout=5.0):
            if self._past_limit(frame):
                self.summary.end_reason = f"stopped after {self.options.max_seconds:g} s as asked"
                return
            self._infer(frame)
            self._flush_events()
            self._present(frame)

    def _run_threaded(self) -> None:
        worker = threading.Thread(target=self._inference_loop, name="taicam-inference", daemon=True)
        worker.start()
        frozen: tuple[Frame, LiveUpdate | None] | None = None
        shown = -1
        try:
            while not self._quit.is_set():
                self._flush_events()
                frame = self.grabber.peek()
                if frame is None or frame.index == shown:
                    if self.grabber.finished and not worker.is_alive():
                        break
                    if not worker.is_alive() and self._inference_error is not None:
                        break
                    frozen = self._handle_keys(frame, frozen, wait_ms=5)
                    if self.options.headless:
                        time.sleep(0.003)
                    continue
                shown = frame.index
                if self._past_limit(frame):
                    self.summary.end_reason = f"stopped after {self.options.max_seconds:g} s as asked"
                    break
                self._present(frame, show=frozen is None)
                frozen = self._handle_keys(frame, frozen, wait_ms=1)
            if (
                self.options.wait_at_end
                and not self.options.headless
                and not self.summary.end_reason
                and shown >= 0
            ):
                self._wait_for_a_key_at_the_end()
        finally:
            self._quit.set()
            worker.join(timeout=10.0)
            self._flush_events()

    def _wait_for_a_key_at_the_end(self) -> None:
        """A video that ended stays on screen, with its last reading, until a key is pressed."""
        frame = self.grabber.peek()
        if frame is None:
            return
        with self._lock:
            update = self._latest
        info = replace(self._panel_info(), source_message=f"{self._end_reason()} - press a key")
        cv2.imshow(WINDOW_NAME, draw_live(frame.image, update, info))
        while cv2.waitKey(100) == -1:
            if cv2.getWindowProperty(WINDOW_NAME, cv2.WND_PROP_VISIBLE) < 1:
                break

    def _inference_loop(self) -> None:
        try:
            for frame in self._new_frames(timeout=0.5):
                self._infer(frame)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            self._inference_error = error
            self._quit.set()

    # -- steps -----------------------------------------------------------------------------------
    def _infer(self, frame: Frame) -> None:
        with self._engine_lock:
            update = self.engine.process(frame.image, frame.timestamp, frame.index)
        self._record(update)

    def _record(self, update: LiveUpdate) -> None:
        with self._lock:
            self._latest = update
            self._process_times.append(time.monotonic())
            self.summary.frames_processed += 1
            self.summary.frames_detected += int(update.detected)
            now = time.monotonic()
            first = self.summary.processed_span[0] if self.summary.frames_processed > 1 else now
            self.summary.processed_span = (first, now)
            self.summary.stage_times.append(update.times)
            if update.read_now:
                tiles = len(update.tracker.confirmed_tracks())
                self.summary.reading_clock.append((update.timestamp, time.monotonic(), tiles))
            if update.event is not None:
                document = event_document(update, self.summary.source)
                self._events.append(document)
                self.summary.event_clock.append(time.monotonic())
                if update.event is LiveEvent.HAND:
                    self.summary.hands_announced += 1

    def _flush_events(self) -> None:
        while True:
            with self._lock:
                if not self._events:
                    return
                document = self._events.popleft()
            self.summary.events.append(document)
            self.sink.emit(document)

    def _panel_info(self) -> PanelInfo:
        message = ""
        if self.grabber.status is GrabberStatus.RECONNECTING:
            message = f"{self.grabber.source.describe()} lost - reconnecting..."
        return PanelInfo(
            rules=self.rules_label(),
            processed_fps=self.processed_fps(),
            source_message=message,
            hold_seconds=self.hold_seconds,
        )

    def _present(self, frame: Frame, frozen: bool = False, show: bool = True) -> np.ndarray | None:
        """Draw ``frame`` with the latest result; write it to the annotated video and (``show``) the window.

        While the picture is frozen, the video keeps recording but the window keeps the frozen frame.
        """
        if self.options.headless and self.options.annotate_path is None:
            return None
        with self._lock:
            update = self._latest
        info = self._panel_info()
        if frozen:
            info = replace(info, frozen=True)
        annotated = draw_live(frame.image, update, info)
        if self.options.annotate_path is not None:
            self._write_annotated(annotated)
        if show and not self.options.headless:
            if not self._window_open:
                use_system_fonts()
                self._window_open = True
            cv2.imshow(WINDOW_NAME, annotated)
        self.summary.frames_shown += 1
        return annotated

    def _write_annotated(self, annotated: np.ndarray) -> None:
        if self._writer is None:
            path = self.options.annotate_path
            assert path is not None
            height, width = annotated.shape[:2]
            fourcc = cv2.VideoWriter_fourcc(*("MJPG" if path.suffix.lower() == ".avi" else "mp4v"))
            self._writer = cv2.VideoWriter(str(path), fourcc, float(self.grabber.fps), (width, height))
            if not self._writer.isOpened():
                raise InputError(f"cannot write the annotated video {path} (use .mp4 or .avi)")
        self._writer.write(annotated)

    def _handle_keys(
        self, frame: Frame | None, frozen: tuple[Frame, LiveUpdate | None] | None, wait_ms: int
    ) -> tuple[Frame, LiveUpdate | None] | None:
        """Read one key press (window mode only) and act on it; returns the new freeze state."""
        if self.options.headless:
            return frozen
        key = cv2.waitKey(wait_ms) & 0xFF
        if self._window_open and cv2.getWindowProperty(WINDOW_NAME, cv2.WND_PROP_VISIBLE) < 1:
            self.summary.end_reason = "window closed by the user"
            self._quit.set()
            return frozen
        if key == 255:
            return frozen
        if key in (ord("q"), 27):
            self.summary.end_reason = "quit by the user"
            self._quit.set()
        elif key == ord(" ") and frame is not None:
            if frozen is None:
                with self._lock:
                    frozen = (frame, self._latest)
                self._present(frame, frozen=True)
            else:
                frozen = None
        elif key == ord("s") and frame is not None:
            shown_frame, update = frozen if frozen is not None else (frame, self._latest)
            annotated = draw_live(shown_frame.image, update, self._panel_info())
            path = save_snapshot(
                self.options.snapshot_dir,
                shown_frame,
                annotated,
                update,
                self.summary.source,
                self.rules_label(),
            )
            print(f"taicam live: snapshot saved to {path}", file=sys.stderr)
        elif key == ord("r"):
            self._next_rules()
        elif key == ord("c"):
            with self._engine_lock, self._lock:
                self.engine.reset()
                self._latest = None
        return frozen

    def _next_rules(self) -> None:
        position = self.rules_cycle.index(self.rules)
        self.rules = self.rules_cycle[(position + 1) % len(self.rules_cycle)]
        reader = self.make_reader(self.rules)
        with self._engine_lock:
            event = self.engine.set_hand_reader(reader)
        with self._lock:
            latest = self._latest
        if event is not None and latest is not None:
            update = LiveUpdate(
                frame_index=latest.frame_index,
                timestamp=latest.timestamp,
                tracker=self.engine.tracker,
                stability=self.engine.stability,
                announced=self.engine.announced,
                evaluated=latest.evaluated,
                event=event,
                times=latest.times,
            )
            self._record(update)
        print(f"taicam live: rule set {self.rules_label()}", file=sys.stderr)

    def _past_limit(self, frame: Frame) -> bool:
        return self.options.max_seconds is not None and frame.timestamp > self.options.max_seconds

    def _end_reason(self) -> str:
        status = self.grabber.status
        if status is GrabberStatus.FAILED:
            self.summary.failed = True
            return self.grabber.message
        if status is GrabberStatus.ENDED:
            return self.grabber.message or "end of stream"
        return "stopped"
