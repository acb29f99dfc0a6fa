"""Where the camera stands and where the light comes from.

The camera looks at the hand from the player's side (sometimes any side), from low oblique to
overhead, and is moved back until the whole hand fits the frame with a margin; then slid so the
hand is not always centred.
"""

from __future__ import annotations

import math

import numpy as np

from vision.synth.bodies import Lighting
from vision.synth.camera import Camera, orbit_camera, quantise_k1
from vision.synth.config import STANDING_MAX_ELEVATION, SceneConfig
from vision.synth.layout import PlacedTile, tile_corners
from vision.synth.look import TileLook


def frame_camera(rng: np.random.Generator, config: SceneConfig, hand_tiles: list[PlacedTile],
                 look: TileLook) -> Camera:
    """A camera that sees the whole hand inside the image with a margin, filling a random fraction."""
    points = np.concatenate([tile_corners(tile, look) for tile in hand_tiles])
    target = points.mean(axis=0) * np.array([1, 1, 0])
    lo, hi = config.elevation_degrees
    standing = any(tile.standing for tile in hand_tiles)
    if standing:  # a standing row's faces look at the player: seen from the front, never from above
        hi = min(hi, STANDING_MAX_ELEVATION)
        lo = min(lo, hi)
    mode = float(np.clip((lo + hi) / 2 - 5, lo, hi))
    elevation = float(rng.triangular(lo, mode, hi)) if hi > lo else lo
    if rng.random() < config.any_azimuth_probability and not standing:
        azimuth = float(rng.uniform(-180, 180))
    else:
        azimuth = -90.0 + float(np.clip(rng.normal(0, config.azimuth_jitter_degrees / 2),
                                        -config.azimuth_jitter_degrees, config.azimuth_jitter_degrees))
    roll_limit = config.roll_degrees * 2
    roll = float(np.clip(rng.normal(0, config.roll_degrees / 2), -roll_limit, roll_limit))
    fov = math.radians(float(rng.uniform(*config.fov_degrees)))
    focal = config.width / 2 / math.tan(fov / 2)
    fill = float(rng.uniform(*config.hand_fill))
    k1 = quantise_k1(float(rng.uniform(*config.lens_k1))) if rng.random() < config.lens_probability else 0.0
    shift = rng.uniform(-0.5, 0.5, 2)
    margin = 0.04
    distance = 700.0
    size = (config.width, config.height)
    camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
    for _ in range(6):
        camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
        pixels = camera.distort_points(camera.project(points)[0])
        span = max((pixels[:, 0].max() - pixels[:, 0].min()) / config.width,
                   (pixels[:, 1].max() - pixels[:, 1].min()) / config.height)
        distance *= span / fill
        fill = min(fill, 1 - 2 * margin)
        if _horizon_visible(camera):
            elevation = min(hi, elevation + 6)
    # Slide the view so the hand is not always centred, while staying inside the margins; if the
    # hand does not fit even centred, step back until it does.
    for _ in range(16):
        camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
        for scale in (1.0, 0.5, 0.0):
            pixels = camera.distort_points(camera.project(points)[0])
            room_x = (config.width * (1 - 2 * margin) - (pixels[:, 0].max() - pixels[:, 0].min())) / 2
            room_y = (config.height * (1 - 2 * margin) - (pixels[:, 1].max() - pixels[:, 1].min())) / 2
            offset_px = np.array([max(room_x, 0) * shift[0], max(room_y, 0) * shift[1]]) * scale
            centre_px = (pixels.min(axis=0) + pixels.max(axis=0)) / 2
            desired = np.array([config.width / 2, config.height / 2]) + offset_px
            moved = _pan(camera, desired - centre_px, points)
            if _inside(moved.distort_points(moved.project(points)[0]), config, margin * 0.5):
                return moved
        distance *= 1.12
    return camera


def _pan(camera: Camera, delta_px: np.ndarray, points: np.ndarray) -> Camera:
    """Move the camera parallel to its image plane so ``points`` shift by about ``delta_px``."""
    depth = max(float(camera.to_camera(points)[:, 2].mean()), 1.0)
    right, down = camera.rotation[0], camera.rotation[1]
    position = camera.position - (right * delta_px[0] + down * delta_px[1]) * depth / camera.focal
    return Camera(camera.width, camera.height, camera.focal, camera.rotation, position, camera.k1)


def _inside(pixels: np.ndarray, config: SceneConfig, margin: float) -> bool:
    mx, my = config.width * margin, config.height * margin
    return bool((pixels[:, 0] >= mx).all() and (pixels[:, 0] <= config.width - mx).all()
                and (pixels[:, 1] >= my).all() and (pixels[:, 1] <= config.height - my).all())


def _horizon_visible(camera: Camera) -> bool:
    corners = np.array([[0, 0], [camera.width, 0], [0, camera.height], [camera.width, camera.height]], float)
    return bool((camera.ray_directions(corners)[:, 2] > -0.12).any())


def pick_light(rng: np.random.Generator) -> Lighting:
    elevation = math.radians(float(rng.uniform(35, 85)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    direction = np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                          math.sin(elevation)])
    return Lighting(direction=direction, ambient=float(rng.uniform(0.45, 0.75)),
                    gloss=float(rng.uniform(0.0, 0.6)) if rng.random() < 0.6 else 0.0)
