"""Solid things on the table, drawn in 3D by the painter's algorithm: tiles, trays, phones, coins.

A tile is a box with rounded-looking edges: its face (the printed texture), its back (the set's
colour) and four sides split into the ivory face layer and the coloured back layer, as real
Taiwanese tiles are made. Each visible side is shaded by the light (Lambert + ambient); the face
and back are textures warped into the image with one small perspective warp each, limited to the
tile's bounding box, which is what makes 100+ tiles per 1280x960 scene cheap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.camera import Camera
from vision.synth.faces import FACE_SIZE

_BOX_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], np.float64)


def _corner(x: int, y: int, z: int) -> int:
    """Index into ``_BOX_SIGNS`` of the corner on the (x, y, z) = (+-right, +-up, +-normal) side."""
    return (x > 0) * 4 + (y > 0) * 2 + (z > 0)


#: For each side (axis, sign), its corners in the order of :meth:`Body.side_quad`.
_SIDE_CORNERS: dict[tuple[int, int], list[int]] = {
    (2, 1): [_corner(-1, 1, 1), _corner(1, 1, 1), _corner(1, -1, 1), _corner(-1, -1, 1)],
    (2, -1): [_corner(1, 1, -1), _corner(-1, 1, -1), _corner(-1, -1, -1), _corner(1, -1, -1)],
    **{(0, s): [_corner(s, 1, 1), _corner(s, 1, -1), _corner(s, -1, -1), _corner(s, -1, 1)] for s in (1, -1)},
    **{(1, s): [_corner(1, s, 1), _corner(1, s, -1), _corner(-1, s, -1), _corner(-1, s, 1)] for s in (1, -1)},
}


@dataclass
class Lighting:
    """A directional light: ``direction`` points from the table towards the light."""

    direction: np.ndarray
    ambient: float = 0.55
    gloss: float = 0.0  # strength of specular highlights on tile faces

    def shade(self, normal: np.ndarray) -> float:
        return self.ambient + (1.0 - self.ambient) * max(0.0, float(normal @ self.direction))


@dataclass
class Body:
    """An oriented box: ``axes`` columns are (right, up, normal) unit vectors; ``size`` = (w, h, d) mm.

    For a tile, +normal is the face side, +up the top of the printed face. ``face`` and ``back`` are
    textures (BGR) for the +normal and -normal sides (None = plain ``colour_front``/``colour_back``).
    ``layer`` (0..1) is the fraction of the thickness, from the face, in ``colour_front``.
    """

    centre: np.ndarray
    axes: np.ndarray
    size: tuple[float, float, float]
    colour_front: tuple[int, int, int]
    colour_back: tuple[int, int, int]
    face: np.ndarray | None = None
    back: np.ndarray | None = None
    layer: float = 1.0
    ident: int = 0  # id in the visibility buffer (0 = not tracked, -1 = occluder)
    rim: bool = False  # a light rounded edge around the face and back (tiles)

    def corners(self) -> np.ndarray:
        half = np.array(self.size) / 2.0
        return self.centre + (_BOX_SIGNS * half) @ self.axes.T

    def side_quad(self, axis: int, sign: int) -> np.ndarray:
        """The 4 corners of the side whose outward normal is ``sign * axes[:, axis]``, in reading order.

        For the face (axis 2, +1) the order is top-left, top-right, bottom-right, bottom-left of the face
        as it is read; for the back (axis 2, -1) it is mirrored so it is clockwise seen from behind.
        """
        half = np.array(self.size) / 2.0
        right, up, normal = (self.axes[:, i] * half[i] for i in range(3))
        centre = self.centre + sign * (right, up, normal)[axis]
        if axis == 2:
            r = right if sign > 0 else -right
            return np.array([centre - r + up, centre + r + up, centre + r - up, centre - r - up])
        if axis == 0:
            return np.array([centre + up + normal, centre + up - normal, centre - up - normal,
                             centre - up + normal])
        return np.array([centre + right + normal, centre + right - normal, centre - right - normal,
                         centre - right + normal])

    def footprint_polygon(self, camera: Camera) -> np.ndarray:
        """Convex hull of the projected corners (pixels, int32), for the visibility buffer."""
        pixels, _ = camera.project(self.corners())
        return cv2.convexHull(np.round(pixels).astype(np.int32))


@functools.lru_cache(maxsize=4)
def bevel_mask(width: int = FACE_SIZE[0], height: int = FACE_SIZE[1]) -> np.ndarray:
    """Multiplier (h, w, 1) that darkens a face's rim and rounds its corners, like a real tile's bevel."""
    mask = np.zeros((height, width), np.float32)
    radius = int(min(width, height) * 0.14)
    inset = 2
    cv2.rectangle(mask, (inset + radius, inset), (width - 1 - inset - radius, height - 1 - inset), 1.0, -1)
    cv2.rectangle(mask, (inset, inset + radius), (width - 1 - inset, height - 1 - inset - radius), 1.0, -1)
    for cx, cy in ((inset + radius, inset + radius), (width - 1 - inset - radius, inset + radius),
                   (inset + radius, height - 1 - inset - radius),
                   (width - 1 - inset - radius, height - 1 - inset - radius)):
        cv2.circle(mask, (cx, cy), radius, 1.0, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.6)
    return (0.72 + 0.28 * mask)[:, :, None]


@functools.lru_cache(maxsize=8)
def highlight_blobs(count: int = 6) -> tuple[np.ndarray, ...]:
    """Soft elliptical highlights (h, w, 3 uint8) at different places on a face, for glossy tiles."""
    width, height = FACE_SIZE
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    blobs = []
    rng = np.random.default_rng(77)
    for _ in range(count):
        cx, cy = rng.uniform(0.2, 0.8) * width, rng.uniform(0.15, 0.85) * height
        sx, sy = rng.uniform(0.15, 0.45) * width, rng.uniform(0.1, 0.3) * height
        blob = 255.0 * np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2))
        blobs.append(cv2.merge([blob.astype(np.uint8)] * 3))
    return tuple(blobs)


def bevelled(texture: np.ndarray) -> np.ndarray:
    """A face texture with its rim darkened and corners rounded (done once per texture per scene)."""
    mask = bevel_mask(texture.shape[1], texture.shape[0])
    return (texture.astype(np.float32) * mask).astype(np.uint8)


def shade_texture(texture: np.ndarray, shade: float, highlight: np.ndarray | None = None,
                  strength: float = 0.0) -> np.ndarray:
    """Texture times the light, plus an optional specular highlight (saturating uint8 arithmetic)."""
    shaded = cv2.convertScaleAbs(texture, alpha=shade)
    if highlight is not None and strength > 0.01:
        if highlight.shape != shaded.shape:
            highlight = cv2.resize(highlight, (shaded.shape[1], shaded.shape[0]))
        shaded = cv2.addWeighted(shaded, 1.0, highlight, strength, 0.0)
    return shaded


def warp_quad(canvas: np.ndarray, texture: np.ndarray, quad: np.ndarray) -> None:
    """Paint ``texture`` onto the image quad ``quad`` (4x2: texture corners TL TR BR BL), in place."""
    height, width = canvas.shape[:2]
    x0 = max(int(np.floor(quad[:, 0].min())) - 1, 0)
    y0 = max(int(np.floor(quad[:, 1].min())) - 1, 0)
    x1 = min(int(np.ceil(quad[:, 0].max())) + 2, width)
    y1 = min(int(np.ceil(quad[:, 1].max())) + 2, height)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    th, tw = texture.shape[:2]
    source = np.array([[0, 0], [tw - 1, 0], [tw - 1, th - 1], [0, th - 1]], np.float32)
    target = (quad - np.array([x0, y0])).astype(np.float32)
    homography = cv2.getPerspectiveTransform(source, target)
    roi = canvas[y0:y1, x0:x1]
    cv2.warpPerspective(texture, homography, (x1 - x0, y1 - y0), dst=roi, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)


def draw_body(canvas: np.ndarray, body: Body, camera: Camera, light: Lighting,
              rng: np.random.Generator) -> None:
    """Draw the visible sides of ``body`` (back-face culled), textures included.

    The 8 corners are projected once; each side takes its 4 corners in :func:`Body.side_quad`'s order.
    """
    corners = body.corners()
    all_pixels, all_depth = camera.project(corners)
    for axis in range(3):
        for sign in (1, -1):
            normal = sign * body.axes[:, axis]
            index = _SIDE_CORNERS[(axis, sign)]
            quad3 = corners[index]
            if float(normal @ (camera.position - quad3.mean(axis=0))) <= 0:
                continue
            pixels, depth = all_pixels[index], all_depth[index]
            if depth.min() <= 1.0:
                continue
            shade = light.shade(normal)
            if axis == 2:
                texture = body.face if sign > 0 else body.back
                if texture is not None:
                    strength = 0.0
                    highlight = None
                    if light.gloss > 0:
                        view = camera.position - quad3.mean(axis=0)
                        view /= np.linalg.norm(view)
                        reflected = 2 * float(normal @ light.direction) * normal - light.direction
                        strength = light.gloss * max(0.0, float(reflected @ view)) ** 12
                        blobs = highlight_blobs()
                        highlight = blobs[int(rng.integers(0, len(blobs)))]
                    warp_quad(canvas, shade_texture(texture, shade, highlight, strength), pixels)
                    if body.rim:
                        _rim(canvas, pixels, body.colour_front if sign > 0 else body.colour_back, shade)
                    continue
                colour = body.colour_front if sign > 0 else body.colour_back
                _fill(canvas, pixels, colour, shade)
                continue
            if body.layer >= 1.0 or body.layer <= 0.0:
                colour = body.colour_front if body.layer >= 1.0 else body.colour_back
                _fill(canvas, pixels, colour, shade)
                continue
            # Quad order for sides: corners 0 and 3 are on the face (+normal) side.
            front_edge = pixels[[0, 3]]
            back_edge = pixels[[1, 2]]
            split = front_edge + (back_edge - front_edge) * body.layer
            _fill(canvas, np.array([pixels[0], split[0], split[1], pixels[3]]), body.colour_front,
                  shade)
            _fill(canvas, np.array([split[0], pixels[1], pixels[2], split[1]]), body.colour_back,
                  shade)


def _rim(canvas: np.ndarray, pixels: np.ndarray, colour: tuple[int, int, int], shade: float) -> None:
    """The rounded edge of a tile catching the light: a thin bright outline around a large enough face."""
    perimeter = float(np.linalg.norm(np.roll(pixels, 1, axis=0) - pixels, axis=1).sum())
    if perimeter < 90:
        return
    bright = tuple(float(min(255.0, c * shade * 1.18 + 12)) for c in colour)
    points = np.round(pixels * 16).astype(np.int32)
    cv2.polylines(canvas, [points], True, bright, 1 if perimeter < 400 else 2, cv2.LINE_AA, shift=4)


def _fill(canvas: np.ndarray, pixels: np.ndarray, colour: tuple[int, int, int], shade: float) -> None:
    shaded = tuple(float(min(255.0, c * shade)) for c in colour)
    points = np.round(pixels * 16).astype(np.int32)
    cv2.fillConvexPoly(canvas, points, shaded, cv2.LINE_AA, shift=4)


def tile_axes(face_up: bool, yaw_degrees: float, standing: bool = False) -> np.ndarray:
    """Axes (right, up, normal) of a tile lying on the table or standing on its end.

    Lying: the face looks up (``face_up``) or down; the face's top points along yaw (0 = away from the
    player, +y). Standing: the face looks towards the player (yaw 0) with its top pointing up.
    """
    yaw = np.radians(yaw_degrees)
    forward = np.array([-np.sin(yaw), np.cos(yaw), 0.0])  # +y rotated by yaw (counter-clockwise)
    side = np.array([np.cos(yaw), np.sin(yaw), 0.0])
    z = np.array([0.0, 0.0, 1.0])
    if standing:
        return np.column_stack([side, z, -forward])
    if face_up:
        return np.column_stack([side, forward, z])
    return np.column_stack([-side, forward, -z])
