"""Scripted table videos for testing and benchmarking the live mode.

A rendered scene (the synth engineer's :func:`vision.synth.render_scene`) gives a whole laid-out
hand and the outline of every tile. From it and a render of the same table without tiles, a
script composes what a camera would see over time: tiles appearing one by one as a player lays
the hand out, the hand left alone, a player's hand (a skin-coloured arm and fingers) sweeping
over the tiles, and a change of light. The script records when each thing happens, so a test can
check *when* the live mode announced what.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.errors import InputError

SKIN_BGR = (120, 160, 215)


@dataclass(frozen=True)
class TableScene:
    """One laid-out hand: the full picture, the same table without tiles, and each tile's outline.

    ``quads`` are four (x, y) corners per tile in pixels of ``full``; ``order`` is the order in which
    a player would put the tiles down (indices into ``quads``).
    """

    full: np.ndarray
    empty: np.ndarray
    quads: tuple[np.ndarray, ...]
    order: tuple[int, ...]
    hand: dict
    codes: tuple[str, ...] = ()
    #: Each tile's whole visible body (0/255 masks); None = the face outline is the whole tile.
    bodies: tuple[np.ndarray, ...] | None = None

    def __post_init__(self) -> None:
        if self.full.shape != self.empty.shape:
            raise InputError("scene and empty table differ in size")
        if sorted(self.order) != list(range(len(self.quads))):
            raise InputError("placement order must name every tile once")


def tile_masks(scene: TableScene, grow: int = 2) -> list[np.ndarray]:
    """A soft 0..1 mask per tile: its body, or its outline grown by ``grow`` pixels (edge and shadow)."""
    height, width = scene.full.shape[:2]
    masks = []
    kernel = np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)
    for index, quad in enumerate(scene.quads):
        if scene.bodies is not None:
            mask = scene.bodies[index]
        else:
            mask = np.zeros((height, width), np.uint8)
            cv2.fillConvexPoly(mask, np.round(np.asarray(quad)).astype(np.int32), 255)
            mask = cv2.dilate(mask, kernel)
        masks.append(cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32) / 255.0)
    return masks


def compose(scene: TableScene, masks: Sequence[np.ndarray], shown: Sequence[int]) -> np.ndarray:
    """The empty table with the tiles ``shown`` (indices) taken from the full picture."""
    if not shown:
        return scene.empty.copy()
    alpha = np.clip(np.sum([masks[i] for i in shown], axis=0), 0.0, 1.0)[..., None]
    blended = scene.empty.astype(np.float32) * (1.0 - alpha) + scene.full.astype(np.float32) * alpha
    return np.clip(blended, 0, 255).astype(np.uint8)


def draw_hand(
    image: np.ndarray, tip: tuple[float, float], size: float, angle_degrees: float = -100.0
) -> np.ndarray:
    """A player's hand reaching to ``tip`` (fingertips) from off-screen, with a soft shadow.

    ``size`` is the palm's length in pixels; the arm runs from the palm out of the picture in the
    direction ``angle_degrees`` (image coordinates, -90 = up; the default comes in from below).
    """
    height, width = image.shape[:2]
    canvas = np.zeros((height, width), np.uint8)
    direction = np.array([math.cos(math.radians(angle_degrees)), math.sin(math.radians(angle_degrees))])
    across = np.array([-direction[1], direction[0]])
    tip_point = np.array(tip, dtype=np.float64)
    palm = tip_point - direction * size * 0.9
    finger_width = max(3, int(size * 0.16))
    for offset in (-0.3, -0.1, 0.1, 0.3):
        length = size * (0.75 if abs(offset) > 0.2 else 0.9)
        base = palm + across * offset * size
        end = base + direction * length
        cv2.line(canvas, _pt(base), _pt(end), 255, finger_width, cv2.LINE_AA)
    thumb_base = palm + across * 0.45 * size
    cv2.line(
        canvas,
        _pt(thumb_base),
        _pt(thumb_base + (direction + across) * 0.35 * size),
        255,
        finger_width,
        cv2.LINE_AA,
    )
    axes = (int(size * 0.5), int(size * 0.45))
    cv2.ellipse(
        canvas, _pt(palm), axes, math.degrees(math.atan2(direction[1], direction[0])), 0, 360, 255, -1
    )
    arm_end = palm - direction * (width + height)
    cv2.line(canvas, _pt(palm), _pt(arm_end), 255, int(size * 0.8), cv2.LINE_AA)
    mask = cv2.GaussianBlur(canvas, (0, 0), max(1.0, size * 0.03)).astype(np.float32) / 255.0
    offset = np.float32([[1, 0, size * 0.1], [0, 1, size * 0.15]])
    shadow = cv2.warpAffine(mask, offset, (width, height))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, size * 0.12))
    out = image.astype(np.float32) * (1.0 - 0.45 * shadow[..., None])
    shading = 0.85 + 0.15 * np.clip(mask, 0, 1)
    skin = np.empty_like(out)
    skin[:] = SKIN_BGR
    skin *= shading[..., None]
    out = out * (1.0 - mask[..., None]) + skin * mask[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def relight(image: np.ndarray, gain: float, warmth: float = 0.0) -> np.ndarray:
    """The picture under another light: overall ``gain`` and a warm (>0) or cool (<0) tint."""
    factors = np.array([gain * (1.0 - warmth), gain, gain * (1.0 + warmth)], np.float32)
    return np.clip(image.astype(np.float32) * factors, 0, 255).astype(np.uint8)


def _pt(point: np.ndarray) -> tuple[int, int]:
    return int(round(float(point[0]))), int(round(float(point[1])))


@dataclass(frozen=True)
class ScriptTimes:
    """When things happen in a scripted video (seconds of media time)."""

    fps: float
    first_tile: float
    last_tile: float
    hand_over: tuple[float, float] | None = None
    light_change: float | None = None
    cleared: float | None = None
    end: float = 0.0
    changes: list[tuple[float, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Script:
    """What the camera sees: an empty table, tiles laid one by one, then disturbances.

    ``tile_interval`` seconds between tiles; ``hold`` seconds of a still, complete hand before the
    hand sweeps over (``sweep`` seconds); ``light_gain``/``light_warmth`` change the light after
    another ``hold``; the video ends ``tail`` seconds later. With ``clear_after``, the tiles are
    swept off the table that many seconds after the light change (and the video runs ``tail`` more).
    """

    fps: float = 10.0
    lead_in: float = 0.5
    tile_interval: float = 0.3
    hold: float = 2.5
    sweep: float = 1.2
    light_gain: float = 0.75
    light_warmth: float = 0.08
    tail: float = 2.5
    clear_after: float | None = None


def script_frames(scene: TableScene, script: Script) -> tuple[Iterator[np.ndarray], ScriptTimes]:
    """The frames of ``script`` over ``scene`` (lazily) and the times of its events."""
    masks = tile_masks(scene)
    count = len(scene.order)
    first_tile = script.lead_in
    last_tile = first_tile + (count - 1) * script.tile_interval
    sweep_start = last_tile + script.hold
    sweep_end = sweep_start + script.sweep
    light_at = sweep_end + script.hold
    cleared = None if script.clear_after is None else light_at + script.clear_after
    end = (cleared if cleared is not None else light_at) + script.tail
    total_frames = int(round(end * script.fps))
    height, width = scene.full.shape[:2]
    xs = [float(np.mean(np.asarray(quad)[:, 0])) for quad in scene.quads]
    ys = [float(np.mean(np.asarray(quad)[:, 1])) for quad in scene.quads]
    tile_height = float(np.median([np.ptp(np.asarray(quad)[:, 1]) for quad in scene.quads]))
    palm = max(2.5 * tile_height, 0.2 * min(width, height))
    times = ScriptTimes(
        fps=script.fps,
        first_tile=first_tile,
        last_tile=last_tile,
        hand_over=(sweep_start, sweep_end),
        light_change=light_at,
        cleared=cleared,
        end=end,
        changes=[(first_tile + i * script.tile_interval, "tile placed") for i in range(count)],
    )

    def frames() -> Iterator[np.ndarray]:
        full_frame = compose(scene, masks, scene.order)
        for index in range(total_frames):
            t = index / script.fps
            if t < last_tile + 1e-9:
                placed = (
                    0
                    if t < first_tile
                    else min(count, int((t - first_tile) / script.tile_interval + 1e-9) + 1)
                )
                image = compose(scene, masks, scene.order[:placed])
            elif cleared is not None and t >= cleared:
                image = scene.empty
            else:
                image = full_frame
            if sweep_start <= t < sweep_end:
                progress = (t - sweep_start) / script.sweep
                x = min(xs) - palm + progress * (max(xs) - min(xs) + 2 * palm)
                y = float(np.mean(ys)) - 0.4 * palm  # fingertips beyond the tiles, fingers over them
                image = draw_hand(image, (x, y), palm)
            if t >= light_at:
                image = relight(image, script.light_gain, script.light_warmth)
            yield image

    return frames(), times


def write_video(path: Path, frames: Iterator[np.ndarray], fps: float) -> int:
    """Write frames to ``path`` (.avi = MJPG, else mp4v); returns the number of frames written."""
    writer: cv2.VideoWriter | None = None
    written = 0
    try:
        for image in frames:
            if writer is None:
                fourcc = cv2.VideoWriter_fourcc(*("MJPG" if path.suffix.lower() == ".avi" else "mp4v"))
                writer = cv2.VideoWriter(str(path), fourcc, fps, (image.shape[1], image.shape[0]))
                if not writer.isOpened():
                    raise InputError(f"cannot write video {path}")
            writer.write(image)
            written += 1
    finally:
        if writer is not None:
            writer.release()
    return written


# ----------------------------------------------------------------------------------- from a render


def hand_region(shape: tuple[int, ...], quads: Sequence[np.ndarray], reach: float) -> np.ndarray:
    """A 0/255 mask of everything within ``reach`` pixels of any tile face (bodies and shadows)."""
    mask = np.zeros(shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(mask, np.round(np.asarray(quad)).astype(np.int32), 255)
    size = max(3, int(2 * reach) | 1)
    return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))


def empty_table(image: np.ndarray, region: np.ndarray, seed: int = 0) -> np.ndarray:
    """The picture with the tiles taken away: the masked region filled from the table around it.

    Inpainting runs at quarter size (the felt is smooth at that scale) and the fine grain of the
    cloth is put back as noise with the table's own strength, so the fill does not look like a
    flat patch to a detector.
    """
    small = cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA)
    small_mask = cv2.resize(region, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    small_mask = cv2.dilate(small_mask, np.ones((3, 3), np.uint8))
    filled = cv2.inpaint(small, small_mask, 5, cv2.INPAINT_TELEA)
    smooth = cv2.resize(filled, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_CUBIC)
    smooth = cv2.GaussianBlur(smooth, (0, 0), 3.0)
    outside = region == 0
    grain = (image.astype(np.float32) - cv2.GaussianBlur(image, (0, 0), 3.0).astype(np.float32))[outside]
    strength = float(grain.std()) if grain.size else 0.0
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, strength, image.shape[:2]).astype(np.float32)[..., None]
    alpha = cv2.GaussianBlur(region, (0, 0), 2.0).astype(np.float32)[..., None] / 255.0
    fill = smooth.astype(np.float32) + noise
    out = image.astype(np.float32) * (1.0 - alpha) + fill * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def tile_bodies(
    image: np.ndarray, empty: np.ndarray, quads: Sequence[np.ndarray], region: np.ndarray
) -> list[np.ndarray]:
    """Each tile's visible body (face, sides, shadow) as a polygon-free mask, for :class:`TableScene`.

    Pixels of the hand region that differ from the empty table belong to the nearest tile face.
    """
    difference = cv2.absdiff(image, empty).max(axis=2)
    foreground = ((difference > 18) & (region > 0)).astype(np.uint8)
    foreground = cv2.morphologyEx(foreground, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    distances = []
    for quad in quads:
        outside = np.full(image.shape[:2], 255, np.uint8)
        cv2.fillConvexPoly(outside, np.round(np.asarray(quad)).astype(np.int32), 0)
        distances.append(cv2.distanceTransform(outside, cv2.DIST_L2, 3))
    nearest = np.argmin(np.stack(distances), axis=0)
    faces = np.zeros(image.shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(faces, np.round(np.asarray(quad)).astype(np.int32), 1)
    owned = np.maximum(foreground, faces)
    return [((nearest == index) & (owned > 0)).astype(np.uint8) * 255 for index in range(len(quads))]


#: The order a player lays a hand out: the standing row, exposed sets, concealed kongs, flowers, and
#: the winning tile last.
_ROLE_ORDER = {"concealed": 0, "meld": 1, "concealed_kong": 2, "flower": 3, "winning": 4}


def scene_from_render(image: np.ndarray, record: Any) -> TableScene:
    """A :class:`TableScene` from a rendered picture and its manifest record (tiles with quads)."""
    tiles = [tile for tile in record.tiles if tile.role in _ROLE_ORDER]
    if not tiles:
        raise InputError("the rendered scene has no hand tiles")
    quads = tuple(
        np.asarray(tile.quad if tile.quad is not None else _box_quad(tile.box), float) for tile in tiles
    )
    size = float(np.median([max(np.ptp(quad[:, 0]), np.ptp(quad[:, 1])) for quad in quads]))
    region = hand_region(image.shape, quads, 1.3 * size)  # bodies and their soft shadows
    empty = empty_table(image, region)
    bodies = tuple(tile_bodies(image, empty, quads, region))
    order = tuple(
        sorted(range(len(tiles)), key=lambda i: (_ROLE_ORDER[tiles[i].role], float(np.mean(quads[i][:, 0]))))
    )
    return TableScene(
        full=image,
        empty=empty,
        quads=quads,
        order=order,
        hand=dict(record.hand or {}),
        codes=tuple(tile.code for tile in tiles),
        bodies=bodies,
    )


def _box_quad(box: Sequence[float]) -> list[list[float]]:
    x1, y1, x2, y2 = box
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def camera_like_config(width: int, height: int) -> Any:
    """Scene settings for a webcam over the table: looking down on the laid-out hand (tiles flat),
    steady, clean picture, no clutter; held-out tile sets only."""
    from vision.synth.scene import SceneConfig

    return SceneConfig(
        width=width,
        height=height,
        split="val",
        standing_probability=0.0,
        elevation_degrees=(70.0, 90.0),
        azimuth_jitter_degrees=5.0,
        any_azimuth_probability=0.0,
        roll_degrees=3.0,
        distractors=False,
        occluder_probability=0.0,
        lens_k1=(0.0, 0.0),
        noise_sigma=(0.0, 2.0),
        defocus_sigma=(0.0, 0.3),
        motion_blur_probability=0.0,
        jpeg_quality=(90, 95),
        hand_fill=(0.75, 0.9),
    )


def render_table_scene(
    seed: int, width: int = 1280, height: int = 720, hand: dict | None = None
) -> TableScene:
    """Render a laid-out winning hand (random unless ``hand`` is given) as a camera would see it."""
    from vision.synth.scene import render_scene

    image, record = render_scene(np.random.default_rng(seed), camera_like_config(width, height), hand=hand)
    return scene_from_render(image, record)
