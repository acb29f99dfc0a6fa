"""A pinhole camera over the table, with radial lens distortion, for rendering scenes in 3D.

World units are millimetres: the table is the plane z = 0, x to the player's right, y from the
player towards the table centre, z up. The camera looks at a target on the table from an
elevation between low oblique and straight overhead; a phone's wide lens adds barrel distortion.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    """Intrinsics ``focal``/``centre`` in pixels, rotation ``rotation`` (world -> camera), ``position``."""

    width: int
    height: int
    focal: float
    rotation: np.ndarray  # 3x3, rows = camera x (right), y (down), z (forward) in world coordinates
    position: np.ndarray  # (3,)
    k1: float = 0.0  # radial distortion (positive = barrel, as phone lenses), applied after rendering

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """World points (n, 3) in camera coordinates (n, 3); z is the depth."""
        return (points - self.position) @ self.rotation.T

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Undistorted pixel coordinates (n, 2) and depths (n,) of world points (n, 3)."""
        cam = self.to_camera(points)
        z = np.maximum(cam[:, 2], 1e-3)
        pixels = np.empty((len(points), 2), np.float64)
        pixels[:, 0] = self.focal * cam[:, 0] / z + self.width / 2.0
        pixels[:, 1] = self.focal * cam[:, 1] / z + self.height / 2.0
        return pixels, cam[:, 2]

    def ray_directions(self, pixels: np.ndarray) -> np.ndarray:
        """World directions of the rays through (undistorted) pixels (n, 2)."""
        cam = np.column_stack([(pixels[:, 0] - self.width / 2.0) / self.focal,
                               (pixels[:, 1] - self.height / 2.0) / self.focal, np.ones(len(pixels))])
        return cam @ self.rotation

    def distort_points(self, pixels: np.ndarray) -> np.ndarray:
        """Where undistorted pixel positions land in the distorted (final) image."""
        if self.k1 == 0.0:
            return pixels
        return distort_points(pixels, self.k1, self.width, self.height)


def look_at(position: np.ndarray, target: np.ndarray, roll_degrees: float = 0.0) -> np.ndarray:
    """Rotation (world -> camera) of a camera at ``position`` looking at ``target``, rolled about its axis."""
    forward = target - position
    forward = forward / np.linalg.norm(forward)
    world_up = np.array([0.0, 0.0, 1.0])
    right = np.cross(forward, world_up)
    if np.linalg.norm(right) < 1e-6:  # straight down: pick the table's y axis as "up" in the image
        right = np.cross(forward, np.array([0.0, 1.0, 0.0]))
    right = right / np.linalg.norm(right)
    down = np.cross(forward, right)
    roll = math.radians(roll_degrees)
    cos_r, sin_r = math.cos(roll), math.sin(roll)
    right, down = cos_r * right + sin_r * down, -sin_r * right + cos_r * down
    return np.stack([right, down, forward])


def orbit_camera(target: np.ndarray, distance: float, elevation_degrees: float, azimuth_degrees: float,
                 roll_degrees: float, focal: float, width: int, height: int, k1: float = 0.0) -> Camera:
    """A camera ``distance`` mm from ``target``; azimuth -90 means from the player's side (negative y)."""
    elevation, azimuth = math.radians(elevation_degrees), math.radians(azimuth_degrees)
    offset = np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                       math.sin(elevation)])
    position = target + distance * offset
    return Camera(width, height, focal, look_at(position, target, roll_degrees), position, k1)


def distort_points(pixels: np.ndarray, k1: float, width: int, height: int) -> np.ndarray:
    """Forward radial distortion of pixel positions (inverse of the remap in :func:`distort_image`).

    The image model is ``p_undistorted = c + (p_d - c) * (1 + k1 * r_d^2)`` with ``r_d`` normalised by
    the half-diagonal; here we solve it for ``p_d`` by fixed-point iteration (converges for |k1| < 0.3).
    """
    centre = np.array([width / 2.0, height / 2.0])
    norm = math.hypot(width / 2.0, height / 2.0)
    undistorted = (pixels - centre) / norm
    distorted = undistorted.copy()
    for _ in range(12):
        r2 = np.sum(distorted**2, axis=1, keepdims=True)
        distorted = undistorted / (1.0 + k1 * r2)
    return distorted * norm + centre


@functools.lru_cache(maxsize=16)
def _distortion_maps(k1: float, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    centre_x, centre_y = width / 2.0, height / 2.0
    norm = math.hypot(centre_x, centre_y)
    xs = (np.arange(width, dtype=np.float32) - centre_x) / norm
    ys = (np.arange(height, dtype=np.float32) - centre_y) / norm
    grid_x, grid_y = np.meshgrid(xs, ys)
    factor = 1.0 + k1 * (grid_x**2 + grid_y**2)
    map_x = (grid_x * factor * norm + centre_x).astype(np.float32)
    map_y = (grid_y * factor * norm + centre_y).astype(np.float32)
    return cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)


def quantise_k1(k1: float) -> float:
    """Distortion strengths are rounded to steps of 0.01 so the remap tables can be cached."""
    return round(k1, 2)


def distort_image(image: np.ndarray, k1: float) -> np.ndarray:
    """Apply barrel (k1 > 0) or pincushion (k1 < 0) distortion to a rendered image."""
    if k1 == 0.0:
        return image
    height, width = image.shape[:2]
    map1, map2 = _distortion_maps(k1, width, height)
    return cv2.remap(image, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
