"""The detector network's training input and targets for one view: the image tensor, a centre
heatmap with its loss weight, and per-centre box, flag, outline and corner values. They must match
what ``vision.models.detector`` decodes at runtime, channel for channel."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.evaluation.detection import labelled_region_mask
from vision.geometry import outline_edges
from vision.models.detector import canonical_up
from vision.training.detector_data import DetectorSample
from vision.training.detector_model import STRIDE


@dataclass
class DetectorTargets:
    """Dense training targets for one image at stride :data:`STRIDE` (see ``detector_model``)."""

    heat: np.ndarray  # (H, W) float32 Gaussian peaks, 1 at tile centres
    heat_weight: np.ndarray  # (H, W) float32, 0 inside ignore regions
    index: np.ndarray  # (K,) int64 flat cell index of each tile centre
    regression: np.ndarray  # (K, 4) off_x, off_y, log_w, log_h
    sideways: np.ndarray  # (K,) float32 in {0, 1, -1 = unknown}
    face_down: np.ndarray  # (K,) float32
    outline: np.ndarray  # (K, 4) axis_cos, axis_sin, log_face_w, log_face_h (see ``face_outline_target``)
    outline_known: np.ndarray  # (K,) float32, 1 where the tile's outline is labelled (synthetic scenes)
    corners: np.ndarray  # (K, 10) face centre offset and corner offsets (see ``face_corner_target``)
    size_known: np.ndarray | None = None  # (K,) float32, 0 where the box size is loose; None: all 1


def canonical_face_frame(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """A labelled face outline's up and across unit vectors and its width and height (pixels).

    The up axis is the mean of the two side edges (bottom to top). The width is the mean of the
    top and bottom edges measured across that axis, so a sheared face (a standing tile seen from the
    side) keeps the width of its face, not of its slant. Which end of a tile is up cannot be seen
    reliably (and does not matter to the classifier), so the frame is fixed by the image instead:
    up is the end of the axis towards the top of the photo (:func:`vision.models.detector.canonical_up`,
    which the runtime applies to its predicted axis).
    """
    up, across = outline_edges(quad)
    height = max(float(np.hypot(*up)), 1e-3)
    unit = canonical_up((up / height)[None])[0]
    right = np.array([-unit[1], unit[0]])
    width = max(abs(float(across @ right)), 1e-3)
    return unit, right, width, height


def face_outline_target(quad: np.ndarray) -> tuple[float, float, float, float]:
    """A labelled face outline (corners top-left, top-right, bottom-right, bottom-left) as the
    network predicts it: (cos 2a, sin 2a) of its up axis ``a`` (a doubled angle: either end of
    the axis gives the same), and log width / height in cells (:func:`canonical_face_frame`)."""
    unit, _, width, height = canonical_face_frame(quad)
    angle = math.atan2(unit[1], unit[0])
    return (math.cos(2 * angle), math.sin(2 * angle),
            math.log(max(width / STRIDE, 0.25)), math.log(max(height / STRIDE, 0.25)))


def face_corner_target(quad: np.ndarray, box: np.ndarray) -> tuple[float, ...]:
    """How the labelled face differs from the rectangle the outline channels describe, as the
    network's corner channels predict it (``detector_model.CORNER_CHANNELS``).

    The rectangle is centred on the box centre with the face's width and height along its axis.
    The targets are the face centre's offset from the box centre (image x, y), then for each
    rectangle corner (top-left, top-right, bottom-right, bottom-left in :func:`canonical_face_frame`)
    the matching face corner's offset along the across and up axes, all divided by the face height
    so one network serves near and far tiles. Corners are matched by where they lie, not by label
    order, so a mirrored view (flip augmentation) gives the same targets as the tile itself.
    """
    q = np.asarray(quad, np.float64)
    unit, right, width, height = canonical_face_frame(q)
    centre = q.mean(axis=0)
    x1, y1, x2, y2 = (float(v) for v in box)
    offset = (centre - np.array([(x1 + x2) / 2, (y1 + y2) / 2])) / height
    local = np.stack([(q - centre) @ right, (q - centre) @ unit], axis=1)
    by_height = np.argsort(-local[:, 1])
    top = sorted(by_height[:2], key=lambda i: local[i, 0])
    bottom = sorted(by_height[2:], key=lambda i: local[i, 0])
    ordered = local[[top[0], top[1], bottom[1], bottom[0]]]
    rectangle = np.array([[-width, height], [width, height], [width, -height], [-width, -height]]) / 2
    residual = (ordered - rectangle) / height
    return (float(offset[0]), float(offset[1]), *(float(v) for v in residual.reshape(-1)))


def labelled_weight(sample: DetectorSample, cells: int) -> np.ndarray:
    """Heatmap loss weight of a partly boxed photo: 1 near its boxed tiles, 0 elsewhere.

    The real table photos box only the player's row. Punishing the network for finding the
    discards and walls around it taught detector r7 that a tile lying on the table is background
    (it found none of them), though a laid-out winning hand is made of exactly such tiles.
    """
    centres = (np.mgrid[0:cells, 0:cells][::-1].reshape(2, -1).T + 0.5) * STRIDE
    boxed = np.concatenate([sample.boxes.reshape(-1, 4), sample.ignore.reshape(-1, 4)])  # cut tiles too
    near = labelled_region_mask(centres, boxed)
    return near.reshape(cells, cells).astype(np.float32)


def encode_targets(sample: DetectorSample, size: int) -> DetectorTargets:
    """Gaussian centre heatmap (sigma 0.15 x tile size: touching tiles stay separate) + per-centre values."""
    cells = size // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    weight = labelled_weight(sample, cells) if sample.partly_boxed else np.ones((cells, cells), np.float32)
    for x1, y1, x2, y2 in sample.ignore:
        gx1, gy1 = max(0, int(x1 / STRIDE)), max(0, int(y1 / STRIDE))
        gx2, gy2 = min(cells, int(math.ceil(x2 / STRIDE))), min(cells, int(math.ceil(y2 / STRIDE)))
        weight[gy1:gy2, gx1:gx2] = 0.0
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    index, regression, sideways, face_down, outline, outline_known, corners = [], [], [], [], [], [], []
    quads = sample.quads if sample.quads is not None else [None] * len(sample.boxes)
    for (x1, y1, x2, y2), side, down, quad in zip(sample.boxes, sample.sideways, sample.face_down, quads,
                                                 strict=True):
        w, h = (x2 - x1) / STRIDE, (y2 - y1) / STRIDE
        if w < 1.0 or h < 1.0:
            continue
        cx, cy = (x1 + x2) / 2 / STRIDE, (y1 + y2) / 2 / STRIDE
        ix, iy = min(cells - 1, int(cx)), min(cells - 1, int(cy))
        sx, sy = max(0.6, 0.15 * w), max(0.6, 0.15 * h)
        r = int(3 * max(sx, sy)) + 1
        ya, yb, xa, xb = max(0, iy - r), min(cells, iy + r + 1), max(0, ix - r), min(cells, ix + r + 1)
        dx2 = (xs[ya:yb, xa:xb] - ix) ** 2 / (2 * sx * sx)
        g = np.exp(-(dx2 + (ys[ya:yb, xa:xb] - iy) ** 2 / (2 * sy * sy)))
        heat[ya:yb, xa:xb] = np.maximum(heat[ya:yb, xa:xb], g)
        weight[iy, ix] = 1.0
        index.append(iy * cells + ix)
        regression.append((cx - ix, cy - iy, math.log(w), math.log(h)))
        sideways.append(float(side))
        face_down.append(float(down))
        outline.append(face_outline_target(quad) if quad is not None else (0.0, 0.0, 0.0, 0.0))
        outline_known.append(1.0 if quad is not None else 0.0)
        corners.append(face_corner_target(quad, (x1, y1, x2, y2)) if quad is not None else (0.0,) * 10)
    return DetectorTargets(
        heat=heat, heat_weight=weight,
        index=np.asarray(index, np.int64),
        regression=np.asarray(regression, np.float32).reshape(-1, 4),
        sideways=np.asarray(sideways, np.float32),
        face_down=np.asarray(face_down, np.float32),
        outline=np.asarray(outline, np.float32).reshape(-1, 4),
        outline_known=np.asarray(outline_known, np.float32),
        corners=np.asarray(corners, np.float32).reshape(-1, 10),
        size_known=np.full(len(index), 1.0 if sample.size_known else 0.0, np.float32),
    )


def to_tensor_image(image_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (H,W,3) -> RGB float32 (3,H,W) in [0,1], the network's input layout."""
    return np.ascontiguousarray(image_bgr[..., ::-1].transpose(2, 0, 1), dtype=np.float32) / 255.0
