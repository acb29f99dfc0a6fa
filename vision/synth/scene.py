"""Compose and render one synthetic table scene with its full ground truth.

The hand is laid out as seed 000 describes: the concealed tiles in a row (standing towards the
player, or laid flat), exposed sets and flowers in front of it (towards the table centre), the
claimed tile in the middle of its set (sometimes turned sideways), the winning tile turned sideways
across the set it completes (inside a flat row, or lying on the player's side of a standing row), concealed
kongs as four face-down tiles. Around it: discards, walls, other players' racks, a tray, coins, a
phone, and hands that may cover tiles.

Everything lives in table coordinates (mm) and is projected by one pinhole camera, so the labels
(face quads, boxes, sideways / face-down flags, visibility) are exact by construction.

The parts: ``look`` (which tile set), ``layout`` (the hand), ``clutter`` (around it), ``framing``
(camera and light), ``bodies``/``occluders``/``table`` (drawing), ``photometric`` (the photo's
finish); this module puts them in order and writes the labels.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from scoring import hand_from_json
from scoring.tiles import BACK
from vision.dataset.manifest import ManifestRecord, TileLabel
from vision.synth import occluders, photometric
from vision.synth.bodies import Body, Lighting, draw_body
from vision.synth.camera import Camera, distort_image
from vision.synth.clutter import add_distractors
from vision.synth.config import SceneConfig
from vision.synth.framing import frame_camera, pick_light
from vision.synth.hands import plan_hand, random_winning_hand
from vision.synth.layout import PlacedTile, lay_out_hand, turn_scene
from vision.synth.look import TileLook, pick_look
from vision.synth.table import render_table, table_texture

__all__ = ["SceneConfig", "render_scene"]


def render_scene(rng: np.random.Generator, config: SceneConfig | None = None,
                 hand: dict[str, Any] | None = None) -> tuple[np.ndarray, ManifestRecord]:
    """Render one scene; return the BGR image and its manifest record (``image`` is a placeholder name).

    ``hand`` (hand JSON) renders that hand instead of a random legal winning hand; it must be
    well-formed (InputError otherwise) but need not be a win, so readers' error paths can be tested.
    """
    config = config or SceneConfig()
    if hand is None:
        hand = random_winning_hand(rng)
    else:
        hand_from_json(hand)  # a malformed or impossible hand is an InputError, not a broken scene
    plan = plan_hand(hand, rng)
    look = pick_look(rng, config)
    tiles: list[PlacedTile] = []
    extras: list[Body] = []
    hand_extent = lay_out_hand(plan, look, rng, tiles, config)
    hand_count = len(tiles)
    if config.distractors:
        add_distractors(hand_extent, look, rng, tiles, extras, hand, config.max_discards)
    turn_scene(rng, tiles, extras)
    camera = frame_camera(rng, config, tiles[:hand_count], look)
    light = pick_light(rng)

    texture, surface = table_texture(rng)
    floor = tuple(int(v) for v in rng.integers(20, 90, 3))
    image = render_table(camera, texture, floor)
    bodies = [_tile_body(tile, look, index + 1, rng) for index, tile in enumerate(tiles)]
    hand_overs = occluders.random_hands(rng, tiles, config.occluder_probability)
    if config.shadows:
        image = _cast_shadows(image, camera, bodies + extras, hand_overs, light, rng)
    visibility = np.zeros((config.height, config.width), np.int16)
    # Trays, phones and coins are low and never under a tile: drawn first, like part of the table
    # (depth-sorting a long tray against short tiles would paint it over tiles it lies beside).
    bodies.sort(key=lambda body: -float(camera.to_camera(body.centre[None])[0, 2]))
    extras.sort(key=lambda body: -float(camera.to_camera(body.centre[None])[0, 2]))
    for body in extras + bodies:
        if not _in_view(body.corners(), camera):
            continue
        if isinstance(body, occluders.Disc):
            body.draw(image, camera, light, visibility)
            continue
        draw_body(image, body, camera, light, rng)
        cv2.fillConvexPoly(visibility, body.footprint_polygon(camera), body.ident or -1)
    for over in hand_overs:
        over.draw(image, camera, light, visibility)

    labels = _labels(tiles, look, camera, visibility, hand_count)
    image, quality = _finish(image, rng, config, camera)
    record = ManifestRecord(
        image="scene.jpg",
        width=config.width,
        height=config.height,
        tiles=labels,
        hand=hand,
        source="synth",
        set_id=look.style.name,
        split=config.split,
        extra={"surface": surface, "camera": _camera_summary(camera), "jpeg_quality": quality,
               "tile_back_bgr": list(look.back_bgr),
               "concealed_standing": bool(tiles and tiles[0].standing)},
    )
    return image, record


def _tile_body(tile: PlacedTile, look: TileLook, ident: int, rng: np.random.Generator) -> Body:
    face = look.face(tile.code, rng)
    return Body(tile.centre, tile.axes, (look.width, look.height, look.depth), look.style.ivory_bgr,
                look.back_bgr, face=face, back=look.back_texture, layer=look.layer, ident=ident, rim=True)


def _cast_shadows(image: np.ndarray, camera: Camera, bodies: list[Any], hand_overs: list[Any],
                  light: Lighting, rng: np.random.Generator) -> np.ndarray:
    """Darken the table where the bodies block the light (soft shadows, drawn at quarter resolution)."""
    small_w, small_h = camera.width // 4, camera.height // 4
    mask = np.zeros((small_h, small_w), np.uint8)
    direction = light.direction / max(light.direction[2], 0.2)
    for body in [*bodies, *hand_overs]:
        corners = body.corners()
        shadow = corners - np.outer(corners[:, 2], direction)
        pixels, depth = camera.project(shadow)
        if depth.min() <= 1:
            continue
        hull = cv2.convexHull(np.round(pixels * 4).astype(np.int32))  # 1/4 scale with 4 fractional bits
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(0.6, 2.5)))
    strength = float(rng.uniform(0.25, 0.55)) * (1.0 - light.ambient * 0.5)
    factor = 255 - (mask.astype(np.float32) * strength).astype(np.uint8)
    factor = cv2.resize(factor, (camera.width, camera.height), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(image, cv2.merge([factor, factor, factor]), scale=1.0 / 255.0)


def _labels(tiles: list[PlacedTile], look: TileLook, camera: Camera, visibility: np.ndarray,
            hand_count: int) -> list[TileLabel]:
    """Face (or back) quads in the final image, boxes, flags, visibility; unseen distractors dropped."""
    counts = np.bincount((visibility.astype(np.int32) + 1).ravel(), minlength=len(tiles) + 2)
    labels: list[TileLabel] = []
    for index, tile in enumerate(tiles):
        body = Body(tile.centre, tile.axes, (look.width, look.height, look.depth), (0, 0, 0), (0, 0, 0))
        front = body.side_quad(2, 1)
        back = body.side_quad(2, -1)
        front_visible = float(tile.axes[:, 2] @ (camera.position - front.mean(axis=0))) > 0
        back_visible = float(-tile.axes[:, 2] @ (camera.position - back.mean(axis=0))) > 0
        if index >= hand_count and not _in_view(front, camera):
            continue
        if front_visible:
            quad3, code, face_down = front, tile.code, False
        elif back_visible:
            quad3, code, face_down = back, BACK, True
        elif index < hand_count:  # a hand tile is always labelled (the framing keeps its face in view)
            quad3, code, face_down = (back, BACK, True) if tile.face_down else (front, tile.code, False)
        else:
            continue
        quad = camera.distort_points(camera.project(quad3)[0])
        full = _box(quad)
        box = (max(full[0], 0.0), max(full[1], 0.0), min(full[2], float(camera.width)),
               min(full[3], float(camera.height)))
        inside = _area(box) / max(_area(full), 1e-6) if box[2] > box[0] and box[3] > box[1] else 0.0
        hull_area = cv2.contourArea(body.footprint_polygon(camera).astype(np.float32))
        visible = float(min(1.0, counts[index + 2] / max(hull_area, 1.0)))
        is_hand = index < hand_count
        if not is_hand and (inside < 0.6 or visible < 0.3 or _area(box) < 30):
            continue
        extra: dict[str, Any] = {"visible": round(visible, 2), "angle": round(_reading_angle(quad), 1)}
        if face_down and tile.code != code:
            extra["face"] = tile.code
        if tile.standing:
            extra["standing"] = True
        labels.append(TileLabel(
            code=code,
            box=box,
            quad=tuple((float(x), float(y)) for x, y in quad),  # type: ignore[arg-type]
            rotated=tile.rotated,
            face_down=face_down,
            group=tile.group if is_hand else None,
            role=tile.role,
            extra=extra,
        ))
    return labels


def _in_view(points: np.ndarray, camera: Camera) -> bool:
    """Is any of ``points`` in front of the camera and inside the (undistorted) image, with a margin?"""
    pixels, depth = camera.project(points)
    if depth.min() <= 1.0:
        return False
    margin = 0.1 * camera.width
    return bool(pixels[:, 0].max() > -margin and pixels[:, 0].min() < camera.width + margin
                and pixels[:, 1].max() > -margin and pixels[:, 1].min() < camera.height + margin)


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    low, high = quad.min(axis=0), quad.max(axis=0)
    return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))


def _area(box: tuple[float, float, float, float]) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _reading_angle(quad: np.ndarray) -> float:
    """Angle (degrees, image coordinates) of the face's up direction; 0 = upright, 90 = top to the right."""
    top = (quad[0] + quad[1]) / 2
    bottom = (quad[2] + quad[3]) / 2
    up = top - bottom
    return math.degrees(math.atan2(up[0], -up[1]))


def _finish(image: np.ndarray, rng: np.random.Generator, config: SceneConfig,
            camera: Camera) -> tuple[np.ndarray, int]:
    """Lens distortion, light, blur, noise and JPEG compression."""
    image = distort_image(image, camera.k1)
    quality = 95
    if not config.photometric:
        return image, quality
    gain = photometric.light_gain_map(rng, config.width, config.height, strength=float(rng.uniform(0.3, 1.0)))
    image = photometric.apply_gain(image, gain)
    image = photometric.saturation(image, float(rng.uniform(*config.saturation)))
    defocus = float(rng.uniform(*config.defocus_sigma)) if rng.random() < 0.5 else 0.0
    motion = float(rng.integers(3, 10)) if rng.random() < config.motion_blur_probability else 0.0
    image = photometric.blur(image, rng, defocus, motion)
    image = photometric.sensor_noise(image, rng, float(rng.uniform(*config.noise_sigma)))
    if rng.random() < config.grayscale_probability:  # some real datasets hold grey photos
        image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    quality = int(rng.integers(config.jpeg_quality[0], config.jpeg_quality[1] + 1))
    if config.jpeg_in_memory:
        image = photometric.jpeg_round_trip(image, quality)
    return image, quality


def _camera_summary(camera: Camera) -> dict[str, float]:
    """Camera pose for analysis (elevation in degrees, distance to the table centre in mm, k1)."""
    forward = camera.rotation[2]
    elevation = math.degrees(math.asin(max(-1.0, min(1.0, -forward[2]))))
    return {"elevation": round(elevation, 1), "height_mm": round(float(camera.position[2]), 1),
            "focal_px": round(camera.focal, 1), "k1": camera.k1}
