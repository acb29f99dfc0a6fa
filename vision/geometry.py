"""Box and outline arithmetic shared by the stages (tracking, evaluation, layout, drawing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.types import Detection


def intersection_area(a: Sequence[float], b: Sequence[float]) -> float:
    """The area two ``(x1, y1, x2, y2)`` boxes share (0.0 when they do not overlap)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def box_area(box: Sequence[float]) -> float:
    """The area of an ``(x1, y1, x2, y2)`` box (0.0 for an empty one)."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``(x1, y1, x2, y2)`` boxes (0.0 when they do not overlap)."""
    inter = intersection_area(a, b)
    if inter == 0.0:
        return 0.0
    union = box_area(a) + box_area(b) - inter
    return inter / union if union > 0 else 0.0


def tile_outline(detection: Detection) -> np.ndarray:
    """The tile's four corners (4x2, float): the detector's quad if it gave one, else the box corners."""
    if detection.quad is not None and len(detection.quad) == 4:
        return np.asarray(detection.quad, dtype=np.float64)
    x1, y1, x2, y2 = detection.box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)


def outline_edges(quad: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
    """An outline's up and across edges (corners top-left, top-right, bottom-right, bottom-left),
    each the mean of its two opposite sides, so a sheared or perspective face keeps its axes."""
    q = np.asarray(quad, np.float64)
    return ((q[0] - q[3]) + (q[1] - q[2])) / 2, ((q[1] - q[0]) + (q[2] - q[3])) / 2


class FaceFrame(NamedTuple):
    """A face outline's own axes: unit ``across`` and ``up`` vectors, its ``width`` and ``height``
    along them, and its ``centre`` (image pixels)."""

    across: np.ndarray
    up: np.ndarray
    width: float
    height: float
    centre: np.ndarray

    @property
    def area(self) -> float:
        """The face's area in its own axes (outlines compared by size: a tile found as two)."""
        return self.width * self.height


def face_frame(quad: Sequence[Sequence[float]]) -> FaceFrame:
    """The frame of an outline (corners top-left, top-right, bottom-right, bottom-left): the stages
    that compare faces (rows, duplicates, split halves) measure gaps and turns in it."""
    q = np.asarray(quad, np.float64)
    up, across = outline_edges(q)
    height, width = float(np.hypot(*up)), float(np.hypot(*across))
    return FaceFrame(across / max(width, 1e-9), up / max(height, 1e-9), width, height, q.mean(axis=0))


def _convex_overlap(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> tuple[float, float, float]:
    """The area two convex outlines share, and each one's area."""
    first, second = np.asarray(a, np.float32), np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(first, second)
    return float(inter), abs(cv2.contourArea(first)), abs(cv2.contourArea(second))


def outline_iou(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    """Intersection over union of two convex outlines (4 corners each, either winding)."""
    inter, first, second = _convex_overlap(a, b)
    union = first + second - inter
    return inter / union if union > 0 and inter > 0 else 0.0


def outline_containment(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> float:
    """The share of the smaller of two convex outlines that lies inside the other (0.0 to 1.0)."""
    inter, first, second = _convex_overlap(a, b)
    smaller = min(first, second)
    return inter / smaller if smaller > 0 and inter > 0 else 0.0


def merged_outline(main: Sequence[Sequence[float]], other: Sequence[Sequence[float]]) -> np.ndarray:
    """The smallest rectangle in ``main``'s own frame (its up and across axes) that holds both outlines.

    For one tile the detector split into two narrow halves, that is the whole face again; for a
    tile found twice, nearly the larger of the two. Corners come back in ``main``'s order.
    """
    corners = np.asarray(main, np.float64)
    up, edge = outline_edges(corners)
    up /= max(float(np.hypot(*up)), 1e-9)
    across = np.array([-up[1], up[0]])
    if float(edge @ across) < 0:
        across = -across
    centre = corners.mean(axis=0)
    points = np.concatenate([corners, np.asarray(other, np.float64)]) - centre
    u, v = points @ across, points @ up
    return centre + np.array([u.min() * across + v.max() * up, u.max() * across + v.max() * up,
                              u.max() * across + v.min() * up, u.min() * across + v.min() * up])


def merged_detection(kept: Detection, weaker: Detection) -> Detection:
    """One detection for a tile found twice or in two halves: the stronger one, its outline grown
    to hold both (:func:`merged_outline`) and its box fitted to that outline. Without outlines the
    stronger detection stays as it is."""
    if kept.quad is None or weaker.quad is None:
        return kept
    quad = merged_outline(kept.quad, weaker.quad)
    low, high = quad.min(axis=0), quad.max(axis=0)
    return replace(kept, box=(float(low[0]), float(low[1]), float(high[0]), float(high[1])),
                   quad=tuple((float(x), float(y)) for x, y in quad))


def stands_upright(detection: Detection) -> bool:
    """Whether a detection is a sure face standing like its row: outlined, not flagged sideways, not
    face down, not a spare. The cuts that put a row back together measure against such tiles."""
    return (detection.quad is not None and not detection.rotated and not detection.face_down
            and not detection.spare)


def frame_rectangle(centre: np.ndarray, frame: FaceFrame, width: float, height: float,
                    score: float = 0.0) -> Detection:
    """A detection whose outline is a ``width`` by ``height`` rectangle in ``frame``'s axes about
    ``centre`` (corners top-left, top-right, bottom-right, bottom-left), its box fitted to it: a tile
    put where a row's geometry says one lies."""
    across, up = frame.across * width / 2, frame.up * height / 2
    corners = np.array([centre - across + up, centre + across + up,
                        centre + across - up, centre - across - up])
    low, high = corners.min(axis=0), corners.max(axis=0)
    return Detection(box=(float(low[0]), float(low[1]), float(high[0]), float(high[1])), score=score,
                     quad=tuple((float(x), float(y)) for x, y in corners))
