"""Random views of a stored classifier crop that look like a detector crop of a phone photo:
perspective and crop jitter, upside down, stretched aspect (the table photos are squashed to
640x640), tiny resolution then upscaling, blur, colour casts, grey photos, noise and JPEG, and
optionally a turned cut, a tile askew in its box or a covered part. The stored sources are clean,
and the classifier has to read what the runtime cuts from real photos."""

from __future__ import annotations

import cv2
import numpy as np

from vision.models.crops import DEFAULT_INPUT_SIZE, InputSize

#: The smallest a tile gets in a photo before the crop scales it up (pixels, whatever the model size).
SMALLEST_TILE_PX = 18

_BACKGROUNDS = ((60, 110, 50), (70, 140, 60), (90, 90, 90), (120, 150, 180), (40, 40, 40), (200, 200, 200))


#: Share of views cut along a turned window when outline turns are on (``AugmentedCrops``).
OUTLINE_TURN_SHARE = 0.5
#: How far a tile lies askew inside its box in the askew-box views (degrees, either way; ``augment``):
#: from plainly turned to the diagonal of the table photos' worst case.
ASKEW_BOX_TURN = (15.0, 50.0)
#: The largest share of a view one occluding patch covers (``occlude``): enough to hide a third of
#: a face as a finger, glare or a pasted square does, not so much that the face is gone.
OCCLUSION_MAX_AREA = 0.3


def occlude(view: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``view`` with one rectangle covered: solid (white, black, grey or any colour) or see-through.

    Why: the real table photos hide parts of faces (fingers, glare, neighbours; their uploaded
    copies also carry pasted white and black squares), and a model that never saw a hidden part
    reads what remains as another face with confidence (a 9p under a pale square read 2z at 0.95).
    """
    height, width = view.shape[:2]
    area = rng.uniform(0.08, OCCLUSION_MAX_AREA) * height * width
    aspect = np.exp(rng.uniform(np.log(0.5), np.log(2.0)))
    patch_h = int(np.clip(np.sqrt(area * aspect), 2, height))
    patch_w = int(np.clip(area / max(patch_h, 1), 2, width))
    top = int(rng.integers(0, height - patch_h + 1))
    left = int(rng.integers(0, width - patch_w + 1))
    kind = rng.random()
    if kind < 0.3:
        colour = np.full(3, 255.0 * rng.uniform(0.85, 1.0))
    elif kind < 0.55:
        colour = np.full(3, 255.0 * rng.uniform(0.0, 0.15))
    elif kind < 0.75:
        colour = np.full(3, rng.uniform(60, 200))
    else:
        colour = rng.uniform(0, 255, size=3)
    opacity = 1.0 if rng.random() < 0.5 else rng.uniform(0.35, 0.8)
    out = view.copy()
    region = out[top:top + patch_h, left:left + patch_w].astype(np.float32)
    out[top:top + patch_h, left:left + patch_w] = np.clip(
        region * (1 - opacity) + colour * opacity, 0, 255).astype(np.uint8)
    return out


def askew_box(corners: np.ndarray, turn: float) -> np.ndarray:
    """The axis-aligned box around the tile ``corners`` (4,2) once the tile is turned ``turn`` radians,
    as corners in the tile's frame: warped to an upright view it shows the tile turned inside its
    box, with the background in the box's corners, as a box label or a box-only detector frames a
    tile lying askew (the table photos' 8f at 45 degrees)."""
    centre = corners.mean(axis=0)
    width = float(np.linalg.norm(corners[1] - corners[0]))
    height = float(np.linalg.norm(corners[3] - corners[0]))
    cos, sin = abs(np.cos(turn)), abs(np.sin(turn))
    half = np.array([width * cos + height * sin, width * sin + height * cos], np.float32) / 2
    box = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * half
    return turned_about(box, -turn, np.zeros(2, np.float32)) + centre


def turned_about(points: np.ndarray, turn: float, centre: np.ndarray) -> np.ndarray:
    """``points`` (n,2) turned ``turn`` radians about ``centre``, as float32 (the views' warp corners)."""
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    return ((points - centre) @ rotation.T + centre).astype(np.float32)


def augment(image: np.ndarray, rng: np.random.Generator, size: InputSize = DEFAULT_INPUT_SIZE,
            outline_turn_degrees: float = 0.0, occlusion_share: float = 0.0,
            askew_box_share: float = 0.0) -> np.ndarray:
    """One random phone-photo-like view of a stored crop, between 1 and 2 times ``size`` (BGR uint8).

    ``outline_turn_degrees``: :data:`OUTLINE_TURN_SHARE` of the views are cut along a window turned
    up to that much about the crop's centre, as the runtime cuts a face along a detector outline
    that came out turned against the tile (20-45 degrees on the sideways and slanted tiles of the
    renders). ``occlusion_share``: that share of the views get one rectangle covered (:func:`occlude`).
    ``askew_box_share``: that share of the views show the tile turned :data:`ASKEW_BOX_TURN` inside
    the axis-aligned box around it (:func:`askew_box`), instead of a turned window.
    0 for any of them draws nothing more from ``rng``, so earlier recipes' views are unchanged."""
    height, width = image.shape[:2]
    background = _BACKGROUNDS[int(rng.integers(len(_BACKGROUNDS)))]
    # Perspective + crop jitter: each corner moves independently; the box may be loose or tight.
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    jitter = rng.uniform(-0.09, 0.09, size=(4, 2)) * np.array([width, height], np.float32)
    jitter += rng.uniform(-0.04, 0.06) * np.array([[-width, -height], [width, -height],
                                                   [width, height], [-width, height]], np.float32)
    source = (corners + jitter).astype(np.float32)
    if askew_box_share > 0 and rng.random() < askew_box_share:
        turn = np.deg2rad(rng.uniform(*ASKEW_BOX_TURN)) * rng.choice((-1.0, 1.0))
        source = (askew_box(corners, turn) + jitter).astype(np.float32)
    elif outline_turn_degrees > 0 and rng.random() < OUTLINE_TURN_SHARE:
        turn = np.deg2rad(rng.uniform(-outline_turn_degrees, outline_turn_degrees))
        source = turned_about(source, turn, source.mean(axis=0))
    if rng.random() < 0.5:  # upside down: the runtime cannot tell which way a sideways tile turns
        source = np.roll(source, 2, axis=0)
    out_h = int(rng.integers(size.height, 2 * size.height + 1))
    out_w = int(round(out_h * size.width / size.height * rng.uniform(0.8, 1.25)))
    target = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    border = cv2.BORDER_REPLICATE if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    view = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=border,
                               borderValue=background)
    if rng.random() < 0.5:  # tiny in the photo, then scaled up by the crop
        # From the smallest photo tiles (a fixed pixel count: photos do not change with the model)
        # up to three quarters of the input height (18-48 px for a 64 px input).
        small_h = int(rng.integers(SMALLEST_TILE_PX, size.height * 3 // 4))
        small_w = max(8, int(small_h * out_w / out_h))
        view = cv2.resize(cv2.resize(view, (small_w, small_h), interpolation=cv2.INTER_AREA), (out_w, out_h),
                          interpolation=cv2.INTER_LINEAR)
    if occlusion_share > 0 and rng.random() < occlusion_share:
        view = occlude(view, rng)
    if rng.random() < 0.3:
        view = cv2.GaussianBlur(view, (0, 0), rng.uniform(0.4, 1.4))
    if rng.random() < 0.25:  # strong colour casts (a magenta-lit table): faces stay faces
        hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = ((hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        view = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    view = view.astype(np.float32)
    view *= rng.uniform(0.85, 1.15, size=3)  # white balance
    view = (view - 128) * rng.uniform(0.6, 1.3) + 128 + rng.uniform(-40, 40)  # contrast, brightness
    if rng.random() < 0.15:
        view[:] = view.mean(axis=2, keepdims=True)
    if rng.random() < 0.3:
        view += rng.normal(0, rng.uniform(2, 10), size=view.shape)
    view = np.clip(view, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, encoded = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        if ok:
            view = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return view
