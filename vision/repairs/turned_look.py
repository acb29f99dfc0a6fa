"""A photo whose rows lie at a slant, read again turned upright.

Why: the detector learnt tiles standing roughly level; in a photo turned 10-45 degrees (a player
shooting across a corner of the table, an export turned by augmentation) it finds tiles in pieces
or not at all, and the outlines it does find are cut at a slant. The rows' slant is the dominant
direction of the photo's edges (tile sides are its longest straight lines), so the photo is turned
by it on a larger canvas (:class:`TurnedSource`), read as any photo, and the readings turned back.
The pipeline keeps the turned reading only where it reads surer (:func:`reads_surer`). Chosen on
the roboflow-chinese training sources' photos that slant 10 degrees or more (153 photos as
exported, 147 close-ups cut from them): tiles read right 1,915 -> 2,183 and 578 -> 635 against
never turning (always turning: 2,190 and 589; the turned look breaks a close-up's large tiles
into pieces more often).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.imageio import ImageSource
from vision.types import Detection, TileReading

#: Photos whose rows slant at least this much (degrees) are read turned too.
TURN_FROM = 10.0
#: The long side (pixels) the slant is measured at: tile edges survive, fine texture does not.
SLANT_SIDE = 320
#: A tile counts as read sure at this top-1 probability.
SURE = 0.9


def row_slant(image_bgr: np.ndarray) -> float:
    """The photo's dominant edge direction in degrees, in [-45, 45): what turns its rows level
    (``cv2.getRotationMatrix2D``'s sense, counter-clockwise on screen, positive)."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    factor = min(1.0, SLANT_SIDE / max(grey.shape[:2]))
    small = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    across = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    down = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    strength, direction = cv2.cartToPolar(across, down, angleInDegrees=True)
    degree = (direction.ravel() % 90.0).astype(np.int64) % 90  # edges a quarter turn apart agree
    counts = np.bincount(degree, weights=strength.ravel(), minlength=90)
    wrapped = np.concatenate([counts[-2:], counts, counts[:2]])
    smooth = np.convolve(wrapped, np.array([1.0, 2.0, 3.0, 2.0, 1.0]), mode="valid")
    peak = float(np.argmax(smooth)) + 0.5
    return peak - 90.0 if peak >= 45.0 else peak


def turning(size: tuple[int, int], degrees: float) -> tuple[np.ndarray, tuple[int, int]]:
    """The affine matrix (2x3) turning an image of ``size`` (width, height) by ``degrees`` about its
    centre onto a canvas that holds all of it, and that canvas's size."""
    width, height = size
    matrix = cv2.getRotationMatrix2D((width / 2.0, height / 2.0), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    canvas = (int(math.ceil(height * sin + width * cos)), int(math.ceil(height * cos + width * sin)))
    matrix[0, 2] += canvas[0] / 2.0 - width / 2.0
    matrix[1, 2] += canvas[1] / 2.0 - height / 2.0
    return matrix, canvas


class TurnedSource:
    """``source`` turned by ``degrees`` (:func:`turning`), offered like it: coordinates handed out are
    full-resolution pixels of the turned canvas; :meth:`back` returns a detection to ``source``'s."""

    def __init__(self, source: ImageSource, degrees: float) -> None:
        self.source = source
        self.degrees = degrees
        self.matrix, self.full_size = turning(source.full_size, degrees)
        self.inverse = cv2.invertAffineTransform(self.matrix)

    def image(self, max_side: int | None = None) -> tuple[np.ndarray, float]:
        """The turned canvas with its long side at most ``max_side`` (None = full), and its scale;
        turned from the source decoded no larger than that needs (black outside the photo)."""
        longest = max(self.full_size)
        side = None if max_side is None or max_side >= longest else int(max_side)
        decode_side = (None if side is None
                       else max(1, math.floor(side * max(self.source.full_size) / longest)))
        photo, scale = self.source.image(decode_side)
        matrix = self.matrix.copy()
        matrix[:, 2] *= scale
        canvas = (max(1, round(self.full_size[0] * scale)), max(1, round(self.full_size[1] * scale)))
        turned = cv2.warpAffine(photo, matrix, canvas, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        return turned, scale

    def back(self, detection: Detection) -> Detection:
        """``detection`` (turned canvas pixels) in the source's pixels: its outline turned back, its
        box the one around it, its up axis turned back too."""
        x1, y1, x2, y2 = detection.box
        corners = (np.asarray(detection.quad, dtype=np.float64) if detection.quad is not None
                   else np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64))
        moved = corners @ self.inverse[:, :2].T + self.inverse[:, 2]
        low, high = moved.min(axis=0), moved.max(axis=0)
        box = (float(low[0]), float(low[1]), float(high[0]), float(high[1]))
        up = self.inverse[:, :2] @ np.array([math.cos(math.radians(detection.angle)),
                                             math.sin(math.radians(detection.angle))])
        angle = (math.degrees(math.atan2(up[1], up[0])) + 90.0) % 180.0 - 90.0
        quad = None if detection.quad is None else tuple((float(x), float(y)) for x, y in moved)
        return replace(detection, box=box, quad=quad, angle=angle)


def sureness(readings: Sequence[TileReading]) -> tuple[int, float]:
    """How many tiles read with a top-1 probability of :data:`SURE` or more, and the mean top-1
    probability (0 for none)."""
    tops = [reading.candidates[0][1] if reading.candidates else 0.0 for reading in readings]
    return sum(1 for top in tops if top >= SURE), float(np.mean(tops)) if tops else 0.0


def reads_surer(turned: Sequence[TileReading], upright: Sequence[TileReading]) -> bool:
    """Whether the turned look reads at least as many tiles sure as the upright one and is surer on
    average. Both, as a look that breaks tiles into pieces reads more tiles sure, but less sure on
    average; and a look that finds only its surest few is surer on average, with fewer sure."""
    turned_sure, turned_mean = sureness(turned)
    upright_sure, upright_mean = sureness(upright)
    return turned_sure >= upright_sure and turned_mean > upright_mean
