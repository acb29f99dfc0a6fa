"""Things that are not tiles: a phone, coins, and players' hands reaching over the table.

They hide parts of tiles (partial occlusion, recorded in each tile's ``visible`` fraction) and
teach the detector that a skin-coloured or dark rectangle is not a tile. Hands are drawn last,
hovering above the table; phones and coins lie on it and are drawn before the tiles (they are
never under one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.bodies import Body, Lighting
from vision.synth.camera import Camera

SKIN_BGR = ((120, 150, 200), (90, 125, 175), (70, 100, 150), (140, 170, 215), (60, 85, 120))
SLEEVE_BGR = ((40, 40, 40), (120, 80, 40), (60, 60, 140), (200, 200, 200), (50, 90, 50), (30, 30, 90))


def phone(rng: np.random.Generator, position: np.ndarray, yaw_degrees: float) -> Body:
    """A phone lying on the table: a thin dark box with a screen (dark or lit) on top."""
    yaw = math.radians(yaw_degrees)
    axes = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    screen = np.zeros((128, 64, 3), np.uint8)
    if rng.random() < 0.5:
        top, bottom = rng.integers(30, 230, 3), rng.integers(10, 200, 3)
        for row in range(128):
            screen[row] = top + (bottom - top) * row / 127
    else:
        screen[:] = (25, 25, 25)
    body_colour = tuple(int(v) for v in rng.integers(20, 200, 3)) if rng.random() < 0.4 else (30, 30, 32)
    thickness = float(rng.uniform(7, 10))
    centre = np.array([position[0], position[1], thickness / 2])
    return Body(centre, axes, (float(rng.uniform(68, 78)), float(rng.uniform(140, 162)), thickness),
                body_colour, body_colour, face=screen, back=None, layer=1.0, ident=-1)


@dataclass
class Disc:
    """A coin: a short cylinder lying on the table."""

    centre: np.ndarray
    radius: float
    thickness: float
    colour: tuple[int, int, int]

    def _rims(self) -> tuple[np.ndarray, np.ndarray]:
        angles = np.linspace(0, 2 * np.pi, 20, endpoint=False)
        ring = np.column_stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)]) * self.radius
        base = np.array([self.centre[0], self.centre[1], 0.0])
        return base + ring + [0, 0, self.thickness], base + ring

    def corners(self) -> np.ndarray:
        top, bottom = self._rims()
        return np.concatenate([top, bottom])

    def draw(self, canvas: np.ndarray, camera: Camera, light: Lighting, visibility: np.ndarray) -> None:
        top, bottom = self._rims()
        top_px, _ = camera.project(top)
        all_px, _ = camera.project(np.concatenate([top, bottom]))
        hull = cv2.convexHull(np.round(all_px * 16).astype(np.int32))
        dark = tuple(c * 0.6 for c in self.colour)
        cv2.fillConvexPoly(canvas, hull, dark, cv2.LINE_AA, shift=4)
        shade = light.shade(np.array([0.0, 0.0, 1.0]))
        cv2.fillConvexPoly(canvas, np.round(top_px * 16).astype(np.int32), tuple(min(255, c * shade) for c in
                                                                                  self.colour),
                           cv2.LINE_AA, shift=4)
        inner = camera.project(top * 0.0 + (top - top.mean(axis=0)) * 0.7 + top.mean(axis=0))[0]
        cv2.polylines(canvas, [np.round(inner).astype(np.int32)], True, dark, 1, cv2.LINE_AA)
        cv2.fillConvexPoly(visibility, cv2.convexHull(np.round(all_px).astype(np.int32)), -1)


def coin(rng: np.random.Generator, position: np.ndarray) -> Disc:
    gold = rng.random() < 0.5
    colour = (60, 170, 210) if gold else (180, 180, 185)
    radius, thickness = float(rng.uniform(10, 14)), float(rng.uniform(1.5, 2.5))
    return Disc(np.array([position[0], position[1], 1.0]), radius, thickness,
                tuple(int(c + rng.normal(0, 10)) for c in colour))


@dataclass
class HandOver:
    """A player's hand and forearm hovering over the table (palm, four fingers, thumb, sleeve)."""

    parts: list[np.ndarray]  # world polygons (n, 3), drawn in order
    colours: list[tuple[int, int, int]]
    centre: np.ndarray

    def corners(self) -> np.ndarray:
        return np.concatenate(self.parts)

    def draw(self, canvas: np.ndarray, camera: Camera, light: Lighting, visibility: np.ndarray) -> None:
        """Fill the parts on a layer, then shade it rounder towards the middle and soften its edge."""
        projected = []
        for part, colour in zip(self.parts, self.colours, strict=True):
            pixels, depth = camera.project(part)
            if depth.min() > 1:
                projected.append((pixels, colour))
        if not projected:
            return
        points = np.concatenate([p for p, _ in projected])
        height, width = canvas.shape[:2]
        x0, y0 = (max(0, int(v) - 4) for v in points.min(axis=0))
        x1 = min(width, int(points[:, 0].max()) + 5)
        y1 = min(height, int(points[:, 1].max()) + 5)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return
        layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for pixels, colour in projected:
            local = np.round((pixels - [x0, y0]) * 16).astype(np.int32)
            hull = cv2.convexHull(local)
            cv2.fillConvexPoly(layer, hull, colour, cv2.LINE_AA, shift=4)
            cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
            cv2.fillConvexPoly(visibility, cv2.convexHull(np.round(pixels).astype(np.int32)), -1)
        # Rounder in the middle: a blur of the mask, computed at a quarter of the size (hands are big).
        size = max(x1 - x0, y1 - y0)
        quarter = (max(1, (x1 - x0) // 4), max(1, (y1 - y0) // 4))
        small = cv2.resize(mask, quarter, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), max(1.0, size / 100))
        rounding = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        brightness = light.shade(np.array([0.0, 0.0, 1.0]))
        shade = cv2.convertScaleAbs(rounding, alpha=0.45 * brightness, beta=0.62 * brightness * 255)
        shaded = cv2.multiply(layer, cv2.merge([shade, shade, shade]), scale=1.0 / 255.0)
        alpha = cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32) / 255.0
        roi = canvas[y0:y1, x0:x1]
        canvas[y0:y1, x0:x1] = cv2.blendLinear(shaded, roi, alpha, 1.0 - alpha)


def random_hands(rng: np.random.Generator, tiles: list, probability: float) -> list[HandOver]:
    """Zero, one or two hands reaching in from the table's edges (over discards, sometimes over the hand)."""
    if not tiles or rng.random() >= probability:
        return []
    hands = []
    for _ in range(1 if rng.random() < 0.8 else 2):
        target = tiles[int(rng.integers(0, len(tiles)))].centre
        reach = math.radians(float(rng.uniform(0, 360)))
        direction = np.array([math.cos(reach), math.sin(reach), 0.0])  # from the fingers towards the arm
        anchor = target + direction * float(rng.uniform(30, 120))
        hands.append(_hand(rng, anchor, direction))
    return hands


def _hand(rng: np.random.Generator, palm_centre: np.ndarray, arm: np.ndarray) -> HandOver:
    height = float(rng.uniform(25, 70))
    side = np.array([-arm[1], arm[0], 0.0])
    base = np.array([palm_centre[0], palm_centre[1], height])
    skin = SKIN_BGR[int(rng.integers(0, len(SKIN_BGR)))]
    skin = tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in skin)
    darker = tuple(int(c * 0.85) for c in skin)
    sleeve = SLEEVE_BGR[int(rng.integers(0, len(SLEEVE_BGR)))]
    parts: list[np.ndarray] = []
    colours: list[tuple[int, int, int]] = []
    # Sleeve / forearm reaching back to the edge of the table.
    length = float(rng.uniform(250, 500))
    width = float(rng.uniform(70, 95))
    wrist = base + arm * 45
    parts.append(np.array([wrist + side * width / 2, wrist - side * width / 2,
                           wrist + arm * length - side * width / 2 + [0, 0, 40],
                           wrist + arm * length + side * width / 2 + [0, 0, 40]]))
    colours.append(sleeve if rng.random() < 0.7 else skin)
    # Palm: an ellipse about 80 x 90 mm.
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    palm = base + np.outer(np.cos(angles), side) * 42 + np.outer(np.sin(angles), arm) * 48
    parts.append(palm)
    colours.append(skin)
    # Four fingers towards the table centre, spread a little, and a thumb to one side.
    spread = float(rng.uniform(0.05, 0.2))
    curl = float(rng.uniform(0.5, 1.0))
    for k in range(4):
        offset = (k - 1.5) * 19
        angle = (k - 1.5) * spread
        direction = -arm * math.cos(angle) + side * math.sin(angle)
        start = base + side * offset - arm * 35
        end = start + direction * (70 - abs(k - 1.5) * 8) * curl
        finger_side = np.cross(direction, [0, 0, 1]) * 8.5
        parts.append(_capsule(start, end, finger_side))
        colours.append(skin if k % 2 else darker)
    thumb_side = 1 if rng.random() < 0.5 else -1
    thumb_start = base + side * 40 * thumb_side
    thumb_dir = -arm * 0.5 + side * thumb_side * 0.85
    thumb_end = thumb_start + thumb_dir * 55
    thumb_width = np.cross(thumb_dir, [0, 0, 1]) * 10
    parts.append(_capsule(thumb_start, thumb_end, thumb_width))
    colours.append(darker)
    return HandOver(parts, colours, base)


def _capsule(start: np.ndarray, end: np.ndarray, half_width: np.ndarray) -> np.ndarray:
    """A finger: a band from ``start`` to ``end`` with a rounded tip (world points, convex)."""
    direction = end - start
    direction = direction / max(np.linalg.norm(direction), 1e-6)
    radius = float(np.linalg.norm(half_width))
    tip = [end + half_width * math.cos(a) + direction * radius * math.sin(a)
           for a in np.linspace(0, math.pi, 7)]
    return np.array([start - half_width, start + half_width, *tip])
