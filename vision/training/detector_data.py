"""Training data for the tile detector: real table photos, synthetic scenes, augmentation, targets.

Real table photos (``../shared/data/table-photos``) box only the tiles of the player's hand; the
discards in the middle of the table are unboxed, so on those photos a discard is background. The
detector therefore learns "a tile of the hand laid out for the photo", which is also what the
layout stage wants. Synthetic scenes add what the photos lack (sideways and face-down tiles, hands
pushed down flat); their distractor tiles (discards, wall, racks) are background too, so the two
sources agree. Tiles mostly hidden (under a hand, cut by the frame) are *ignore*: no loss either way.

Unknown flags are -1: the real photos say nothing about sideways tiles, so that loss is masked there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.detection import TruthImage, labelled_region_mask
from vision.geometry import outline_edges
from vision.imageio import read_bgr
from vision.models.detector import canonical_up
from vision.training.detector_model import STRIDE

#: Grey used to pad letterboxed images (runtime and training use the same value).
PAD_VALUE = 114


@dataclass
class DetectorSample:
    """One training image with its boxes (pixels) and per-box flags (1, 0, or -1 = unknown)."""

    image: np.ndarray
    boxes: np.ndarray  # (n, 4) float32 x1 y1 x2 y2
    sideways: np.ndarray  # (n,) int8
    face_down: np.ndarray  # (n,) int8
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # (m, 4)
    source: str = ""
    quads: np.ndarray | None = None  # (n, 4, 2) tile outlines when known (synthetic scenes)
    # Only some tiles are boxed (the real table photos box the player's row, not the discards and
    # walls): the heatmap learns "no tile" only near the boxed ones (``detection.LABELLED_REACH``).
    partly_boxed: bool = False
    # False where the boxes are loose around their tiles (an augmented copy turned by any angle):
    # the centres are right, the sizes are not, so only the centre offsets are learned there.
    size_known: bool = True


def samples_from_truth(images: list[TruthImage]) -> list[DetectorSample]:
    """Decode real table photos into samples; their boxes are faces, sideways is unknown."""
    samples = []
    for truth in images:
        image = read_bgr(truth.path)
        n = len(truth.boxes)
        samples.append(DetectorSample(
            image=image, boxes=truth.boxes.astype(np.float32),
            sideways=np.full(n, -1, np.int8), face_down=np.zeros(n, np.int8), source=truth.path.name,
            partly_boxed=True,
        ))
    return samples


#: Synthetic scenes are rendered at 640x480: training views scale every image to a 512 longest side
#: anyway, and rendering a quarter of the pixels is four times faster than the renderer's default.
SYNTH_SIZE = (640, 480)


def render_synthetic_sample(index: int, seed: int, size: tuple[int, int] = SYNTH_SIZE) -> DetectorSample:
    """Scene ``index`` of a seeded series; each scene has its own generator, so any subset can be redone."""
    from vision.synth import SceneConfig, render_scene  # only the training path needs the renderer

    rng = np.random.default_rng([seed, index])
    image, record = render_scene(rng, SceneConfig(width=size[0], height=size[1]))
    boxes, quads, sideways, face_down, ignore = [], [], [], [], []
    for tile in record.tiles:
        box = [float(v) for v in tile.box]
        if tile.role == "distractor":
            continue  # background, as the unboxed discards of the real photos
        if float(tile.extra.get("visible", 1.0)) < 0.5:
            ignore.append(box)
            continue
        boxes.append(box)
        quad = tile.quad if tile.quad is not None else _box_corners(box)
        quads.append([[float(x), float(y)] for x, y in quad])
        sideways.append(1 if tile.rotated else 0)
        face_down.append(1 if tile.face_down else 0)
    return DetectorSample(
        image=image,
        boxes=np.asarray(boxes, np.float32).reshape(-1, 4),
        sideways=np.asarray(sideways, np.int8),
        face_down=np.asarray(face_down, np.int8),
        ignore=np.asarray(ignore, np.float32).reshape(-1, 4),
        source=f"synth-{seed}-{index}",
        quads=np.asarray(quads, np.float32).reshape(-1, 4, 2),
    )


def _box_corners(box: list[float]) -> list[tuple[float, float]]:
    x1, y1, x2, y2 = box
    return [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]


def _save_cached(sample: DetectorSample, image_path: Path, label_path: Path) -> None:
    """PNG (lossless) then its labels; the label file appears last (atomic rename), marking completeness."""
    if not cv2.imwrite(str(image_path), sample.image):
        raise OSError(f"cannot write {image_path}")
    labels = {"boxes": sample.boxes.tolist(), "sideways": sample.sideways.tolist(),
              "face_down": sample.face_down.tolist(), "ignore": sample.ignore.tolist(),
              "source": sample.source, "quads": None if sample.quads is None else sample.quads.tolist()}
    tmp = label_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(labels))
    tmp.replace(label_path)


def _load_cached(image_path: Path, label_path: Path) -> DetectorSample | None:
    if not (label_path.is_file() and image_path.is_file()):
        return None
    image = read_bgr(image_path)
    labels = json.loads(label_path.read_text())
    quads = labels.get("quads")
    return DetectorSample(
        image=image,
        boxes=np.asarray(labels["boxes"], np.float32).reshape(-1, 4),
        sideways=np.asarray(labels["sideways"], np.int8),
        face_down=np.asarray(labels["face_down"], np.int8),
        ignore=np.asarray(labels["ignore"], np.float32).reshape(-1, 4),
        source=labels["source"],
        quads=None if quads is None else np.asarray(quads, np.float32).reshape(-1, 4, 2),
    )


#: Bumped whenever the renderer draws a seed differently, so a run never trains on stale cached
#: scenes. v5: a standing row's winning tile lies on the player's side, where the camera sees it
#: (v4 was a reverted labelling change).
RENDER_VERSION = 5


def synthetic_samples(count: int, seed: int, cache_dir: Path | None = None,
                      indices: range | None = None) -> Iterator[DetectorSample]:
    """Scenes ``0..count-1`` of the series ``seed``; with ``cache_dir`` each is rendered once and reused.

    The cache only saves time (rendering is the slow part of a run): a cached scene is the same
    scene the renderer would produce for that seed and index.
    """
    folder = None
    if cache_dir is not None:
        folder = Path(cache_dir) / f"scenes-v{RENDER_VERSION}-seed{seed}-{SYNTH_SIZE[0]}x{SYNTH_SIZE[1]}"
        folder.mkdir(parents=True, exist_ok=True)
    for index in indices if indices is not None else range(count):
        if folder is None:
            yield render_synthetic_sample(index, seed)
            continue
        image_path, label_path = folder / f"{index:05d}.png", folder / f"{index:05d}.json"
        sample = _load_cached(image_path, label_path)
        if sample is None:
            sample = render_synthetic_sample(index, seed)
            _save_cached(sample, image_path, label_path)
        yield sample


# ----------------------------------------------------------------------------- augmentation


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


# ----------------------------------------------------------------------------- targets


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
