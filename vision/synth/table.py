"""Table surfaces drawn procedurally: felt (the automatic tables' green, blue, red), wood, printed cloth.

A texture covers the table plane (``TABLE_EXTENT`` mm square around the hand) at a few mm per
pixel and is warped into the image by the camera's plane homography. A small library of base
textures is made once per process from fixed seeds; each scene tints, flips and shifts one of them,
so a scene's look depends only on its own random generator.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.synth.camera import Camera

TEXTURE_SIZE = 1024
#: The textured area: x in [-1300, 1300], y in [-900, 1700] mm (the hand lies near y = 0).
TABLE_X = (-1300.0, 1300.0)
TABLE_Y = (-900.0, 1700.0)
KINDS = ("felt", "wood", "cloth")
_ROTATIONS = (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
VARIANTS = 6

#: Typical surface colours (BGR) for each kind; a scene jitters them.
#: Automatic tables are mostly green felt; blue, red and grey tables exist.
FELT_COLOURS = ((60, 110, 30), (40, 90, 20), (80, 140, 40), (50, 120, 20), (70, 130, 60), (40, 80, 30),
                (50, 100, 60), (110, 70, 20), (40, 40, 120), (70, 75, 75))
WOOD_COLOURS = ((60, 110, 170), (40, 80, 130), (90, 140, 190), (30, 50, 80))
CLOTH_COLOURS = ((50, 90, 150), (120, 60, 40), (70, 60, 60), (40, 60, 110), (200, 200, 200))


def _smooth_noise(rng: np.random.Generator, size: int, scale: int) -> np.ndarray:
    """Noise in [-1, 1] with features about ``size / scale`` pixels wide."""
    small = rng.standard_normal((scale, scale)).astype(np.float32)
    big = cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)
    return big / (np.abs(big).max() + 1e-6)


@functools.lru_cache(maxsize=len(KINDS) * VARIANTS)
def base_texture(kind: str, variant: int) -> np.ndarray:
    """A luminance pattern (uint8, 128 = the surface colour) for one kind of surface, from a fixed seed."""
    rng = np.random.default_rng(1000 * KINDS.index(kind) + variant)
    size = TEXTURE_SIZE
    if kind == "felt":
        fine = rng.standard_normal((size, size)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
        pattern = 1.0 + 0.05 * fine + 0.04 * _smooth_noise(rng, size, 8) + 0.03 * _smooth_noise(rng, size, 40)
        if variant % 2:  # a woven felt: faint cross-hatch
            ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
            pattern += 0.025 * np.sin(xs * 1.3) * np.sin(ys * 1.3)
    elif kind == "wood":
        ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
        warp = 25.0 * _smooth_noise(rng, size, 6)
        frequency = rng.uniform(0.04, 0.09)
        grain = np.sin((ys + warp) * frequency + 3.0 * _smooth_noise(rng, size, 20))
        white = rng.standard_normal((size, size)).astype(np.float32)
        streaks = cv2.GaussianBlur(white, (0, 0), 12, sigmaY=0.7)
        pattern = 1.0 + 0.1 * grain + 0.25 * streaks + 0.05 * _smooth_noise(rng, size, 10)
        if variant % 3 == 0:  # planks
            plank = int(rng.integers(90, 200))
            pattern[(ys.astype(np.int32) % plank) < 2] *= 0.6
    else:
        ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
        weave = 0.06 * np.sin(xs * 1.6) * np.sin(ys * 1.6)
        period = rng.uniform(40, 140)
        motif = np.sin(xs * 2 * np.pi / period) * np.sin(ys * 2 * np.pi / period + np.sin(xs / period))
        if variant % 2:
            motif = np.sign(motif) * (np.abs(motif) > 0.6)
        pattern = 1.0 + weave + 0.13 * motif + 0.04 * _smooth_noise(rng, size, 12)
    return np.clip(pattern * 128.0, 0, 255).astype(np.uint8)


def table_texture(rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """A tinted BGR uint8 table texture and its kind."""
    kind = KINDS[int(rng.choice(3, p=[0.72, 0.18, 0.1]))]
    pattern = base_texture(kind, int(rng.integers(0, VARIANTS)))
    palette = {"felt": FELT_COLOURS, "wood": WOOD_COLOURS, "cloth": CLOTH_COLOURS}[kind]
    colour = np.array(palette[int(rng.integers(0, len(palette)))], np.float32)
    colour = np.clip(colour * rng.uniform(0.75, 1.25) + rng.normal(0, 10, 3), 5, 250)
    turn = int(rng.integers(0, 4))
    if turn:
        pattern = cv2.rotate(pattern, _ROTATIONS[turn - 1])
    image = cv2.transform(pattern[:, :, None], (colour / 128.0).reshape(3, 1))
    if kind == "cloth" and rng.random() < 0.5:  # a second print colour where the motif is
        second = np.clip(colour * rng.uniform(0.55, 0.8) + rng.normal(0, 20, 3), 5, 250)
        printed = cv2.transform(pattern[:, :, None], (second / 128.0).reshape(3, 1))
        np.copyto(image, printed, where=(pattern > 136)[:, :, None])
    return image, kind


def table_homography(camera: Camera) -> np.ndarray:
    """Homography from texture pixels to (undistorted) image pixels for the plane z = 0."""
    size = TEXTURE_SIZE - 1
    texture_corners = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    world = np.array([[TABLE_X[0], TABLE_Y[1], 0], [TABLE_X[1], TABLE_Y[1], 0],
                      [TABLE_X[1], TABLE_Y[0], 0], [TABLE_X[0], TABLE_Y[0], 0]], np.float64)
    pixels, _ = camera.project(world)
    return cv2.getPerspectiveTransform(texture_corners, pixels.astype(np.float32))


def render_table(camera: Camera, texture: np.ndarray, border_bgr: tuple[int, int, int]) -> np.ndarray:
    """The table as the camera sees it; anything past the textured area is ``border_bgr`` (the floor)."""
    homography = table_homography(camera)
    return cv2.warpPerspective(texture, homography, (camera.width, camera.height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=border_bgr)
