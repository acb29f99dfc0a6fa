"""Where live frames come from: a camera index, a video file, a still photo or a stream URL.

:func:`parse_source` turns the user's ``--source`` text into a :class:`VideoSource` (refusing a
missing, empty or oversized file before anything opens it), and :func:`open_capture` opens it with
OpenCV, one line of error for each way that fails.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import IMAGE_SUFFIXES
from vision.imageio import read_header

_URL_PATTERN = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the grabber uses."""

    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name
    def read(self) -> tuple[bool, np.ndarray | None]: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


@dataclass(frozen=True)
class VideoSource:
    """What ``--source`` names: a camera index, a video file, or a stream URL."""

    target: int | str

    @property
    def is_camera(self) -> bool:
        return isinstance(self.target, int)

    @property
    def is_stream(self) -> bool:
        return isinstance(self.target, str) and bool(_URL_PATTERN.match(self.target))

    @property
    def is_file(self) -> bool:
        return not self.is_camera and not self.is_stream

    @property
    def is_live(self) -> bool:
        """Cameras and streams are live: a read failure is a disconnect, not the end of a file."""
        return not self.is_file

    def describe(self) -> str:
        if self.is_camera:
            return f"camera {self.target}"
        if self.is_stream:
            return f"stream {self.target}"
        return f"video file {self.target}"


def parse_source(text: str) -> VideoSource:
    """Turn the ``--source`` argument into a :class:`VideoSource`; a missing file is an InputError."""
    text = text.strip()
    if not text:
        raise InputError("--source is empty: give a camera index (0), a video file or a stream URL")
    if text.isdigit():
        return VideoSource(int(text))
    if _URL_PATTERN.match(text):
        return VideoSource(text)
    path = Path(text).expanduser()
    if not path.exists():
        raise InputError(f"video file not found: {text}")
    if not path.is_file():
        raise InputError(f"not a video file: {text}")
    if path.stat().st_size == 0:
        raise InputError(f"video file is empty (0 bytes): {text}")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        read_header(path)  # a still photo: not an image, or too large, is refused from its header
    return VideoSource(str(path))


def quiet_opencv() -> None:
    """Silence OpenCV's and FFmpeg's console chatter (we report failures ourselves, in one line)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET; read when a capture opens
    with contextlib.suppress(AttributeError):  # older builds lack the logging submodule
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def open_capture(
    source: VideoSource, width: int | None = None, height: int | None = None
) -> cv2.VideoCapture:
    """Open ``source`` with OpenCV; raise InputError if it cannot be opened or yields no frame size."""
    quiet_opencv()
    capture = cv2.VideoCapture(source.target)
    if not capture.isOpened():
        capture.release()
        if source.is_camera:
            raise InputError(
                f"cannot open camera {source.target}: is it connected and not used by another program?"
            )
        if source.is_stream:
            raise InputError(f"cannot open stream {source.target}: check the URL and that it is reachable")
        raise InputError(f"cannot open video file {source.target}: not a video OpenCV can decode")
    if source.is_camera:
        # A one-frame driver buffer keeps the camera from handing us stale frames.
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if width:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    return capture
