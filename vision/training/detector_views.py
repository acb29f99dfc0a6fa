"""Random training views of a detector sample: turns, scale and aspect jitter, flips, a crop around
the tiles and photometric changes, with boxes, ignore regions and outlines carried through. Phones,
cameras, lamps and felts differ a lot, and any camera rotation and distance must work."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.training.detector_data import DetectorSample

#: Grey used to pad letterboxed images (runtime and training use the same value).
PAD_VALUE = 114


def _rot90_boxes(boxes: np.ndarray, k: int, width: int, height: int) -> np.ndarray:
    """Boxes after ``np.rot90(image, k)`` (counter-clockwise quarter turns) of a width x height image."""
    out = boxes.copy()
    for _ in range(k % 4):
        x1, y1, x2, y2 = out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy(), out[:, 3].copy()
        out = np.stack([y1, width - x2, y2, width - x1], axis=1)
        width, height = height, width
    return out


def _rotate_any_angle(sample: DetectorSample, rng: np.random.Generator) -> DetectorSample:
    """Turn the whole image by any angle; boxes are re-fitted to the turned tile outlines.

    Only for samples with outlines (synthetic): a turned axis-aligned box would be too large.
    Rows at 45 degrees are where touching tiles' boxes overlap most, so the decoder must see them.
    """
    assert sample.quads is not None
    height, width = sample.image.shape[:2]
    angle = float(rng.uniform(-180, 180))
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_w, new_h = int(height * sin + width * cos + 0.5), int(height * cos + width * sin + 0.5)
    matrix[0, 2] += new_w / 2 - width / 2
    matrix[1, 2] += new_h / 2 - height / 2
    fill = tuple(int(v) for v in rng.integers(0, 256, 3))
    image = cv2.warpAffine(sample.image, matrix, (new_w, new_h), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=fill)

    def turn(points: np.ndarray) -> np.ndarray:
        flat = points.reshape(-1, 2)
        return (flat @ matrix[:, :2].T + matrix[:, 2]).reshape(points.shape)

    quads = turn(sample.quads.astype(np.float64))
    boxes = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
    corners = np.stack([sample.ignore[:, [0, 1]], sample.ignore[:, [2, 1]], sample.ignore[:, [2, 3]],
                        sample.ignore[:, [0, 3]]], axis=1)
    turned = turn(corners.astype(np.float64))
    ignore = np.concatenate([turned.min(axis=1), turned.max(axis=1)], axis=1).reshape(-1, 4)
    return DetectorSample(image, boxes.astype(np.float32), sample.sideways, sample.face_down,
                          ignore.astype(np.float32), sample.source, quads.astype(np.float32))


def _photometric(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour, light, blur, noise and JPEG changes: phones, lamps and felts differ a lot."""
    img = image
    if rng.random() < 0.8:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(-12, 12)) % 180
        hsv[..., 1] *= rng.uniform(0.6, 1.4)
        hsv[..., 2] *= rng.uniform(0.65, 1.35)
        img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.5:
        alpha = rng.uniform(0.7, 1.3)
        beta = rng.uniform(-25, 25)
        img = cv2.convertScaleAbs(img, alpha=alpha, beta=beta)
    if rng.random() < 0.05:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.25:
        sigma = rng.uniform(0.4, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.25:
        noise = rng.normal(0, rng.uniform(2, 9), img.shape).astype(np.float32)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 90))])
        if ok:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def _rot90_points(points: np.ndarray, k: int, width: int, height: int) -> np.ndarray:
    """Points (..., 2) after ``np.rot90(image, k)`` of a width x height image (see ``_rot90_boxes``)."""
    out = points.copy()
    for _ in range(k % 4):
        out = np.stack([out[..., 1], width - out[..., 0]], axis=-1)
        width, height = height, width
    return out


#: The scale jitter of a training view, around the runtime's scale (longest side -> ``base``).
DEFAULT_ZOOM = (0.6, 1.5)


def random_view(sample: DetectorSample, rng: np.random.Generator, size: int, base: int,
                zoom: tuple[float, float] = DEFAULT_ZOOM) -> DetectorSample:
    """A random training view ``size`` x ``size`` of ``sample``.

    Synthetic scenes are sometimes turned by any angle first (their tile outlines are known). The
    image is then scaled as the runtime would (longest side -> ``base``), jittered in scale
    (``zoom``, log-uniform: a wider range teaches close-ups and far hands) and aspect (the real
    photos were stretched to squares), turned by a quarter turn now and then (any camera rotation
    must work), flipped, and cropped around the tiles.
    Boxes cut by the crop keep a target only if at least 60% of them is visible; the rest become
    ignore regions so the loss never punishes a half-visible tile either way. Tile outlines, when
    known, go through the same turns, scaling, crop and flip as the boxes.
    """
    if sample.quads is not None and rng.random() < 0.35:
        sample = _rotate_any_angle(sample, rng)
    image, boxes, ignore = sample.image, sample.boxes.copy(), sample.ignore.copy()
    quads = None if sample.quads is None else sample.quads.astype(np.float32).copy()
    sideways, face_down = sample.sideways.copy(), sample.face_down.copy()
    height, width = image.shape[:2]
    k = int(rng.integers(1, 4)) if rng.random() < 0.3 else 0
    if k:
        image = np.ascontiguousarray(np.rot90(image, k))
        boxes = _rot90_boxes(boxes, k, width, height)
        ignore = _rot90_boxes(ignore, k, width, height)
        if quads is not None:
            quads = _rot90_points(quads, k, width, height)
        height, width = image.shape[:2]
    scale = base / max(height, width) * math.exp(rng.uniform(math.log(zoom[0]), math.log(zoom[1])))
    aspect = math.exp(rng.uniform(-0.25, 0.25))
    sx, sy = scale * aspect, scale / aspect
    new_w, new_h = max(8, round(width * sx)), max(8, round(height * sy))
    interp = cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR
    image = cv2.resize(image, (new_w, new_h), interpolation=interp)
    factors = np.array([new_w / width, new_h / height] * 2, np.float32)
    boxes = boxes * factors
    ignore = ignore * factors
    if quads is not None:
        quads = quads * factors[:2]
    # Crop window: usually around a random tile, sometimes anywhere (backgrounds teach precision).
    if len(boxes) and rng.random() < 0.8:
        i = int(rng.integers(len(boxes)))
        cx, cy = (boxes[i, 0] + boxes[i, 2]) / 2, (boxes[i, 1] + boxes[i, 3]) / 2
        x0 = int(cx - rng.uniform(0.1, 0.9) * size)
        y0 = int(cy - rng.uniform(0.1, 0.9) * size)
    else:
        x0 = int(rng.integers(min(0, new_w - size), max(0, new_w - size) + 1))
        y0 = int(rng.integers(min(0, new_h - size), max(0, new_h - size) + 1))
    canvas = np.full((size, size, 3), PAD_VALUE, np.uint8)
    if rng.random() < 0.5:
        canvas[:] = rng.integers(0, 256, 3, dtype=np.uint8)
    sx0, sy0 = max(0, x0), max(0, y0)
    sx1, sy1 = min(new_w, x0 + size), min(new_h, y0 + size)
    if sx1 > sx0 and sy1 > sy0:
        canvas[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = image[sy0:sy1, sx0:sx1]
    offset = np.array([x0, y0, x0, y0], np.float32)
    boxes = boxes - offset
    ignore = ignore - offset
    if quads is not None:
        quads = quads - offset[:2]
    clipped = np.clip(boxes, 0, size)
    area = np.maximum(0, boxes[:, 2] - boxes[:, 0]) * np.maximum(0, boxes[:, 3] - boxes[:, 1])
    visible = np.maximum(0, clipped[:, 2] - clipped[:, 0]) * np.maximum(0, clipped[:, 3] - clipped[:, 1])
    frac = visible / np.maximum(area, 1e-6)
    keep = frac >= 0.6
    partial = (frac > 0) & ~keep
    ignore = np.concatenate([ignore, clipped[partial]], axis=0)
    boxes, sideways, face_down = clipped[keep], sideways[keep], face_down[keep]
    if quads is not None:
        quads = quads[keep]
    if rng.random() < 0.5:
        canvas = np.ascontiguousarray(canvas[:, ::-1])
        boxes = np.stack([size - boxes[:, 2], boxes[:, 1], size - boxes[:, 0], boxes[:, 3]], axis=1)
        ignore = np.stack([size - ignore[:, 2], ignore[:, 1], size - ignore[:, 0], ignore[:, 3]], axis=1)
        if quads is not None:
            quads = np.stack([size - quads[..., 0], quads[..., 1]], axis=-1)
    canvas = _photometric(canvas, rng)
    return DetectorSample(canvas, boxes.astype(np.float32).reshape(-1, 4), sideways, face_down,
                          ignore.astype(np.float32).reshape(-1, 4), sample.source,
                          None if quads is None else quads.astype(np.float32).reshape(-1, 4, 2),
                          sample.partly_boxed, sample.size_known)
