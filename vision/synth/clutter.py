"""What lies around the hand: discards in heaps, walls, other players' racks, a tray, a phone, coins.

Placed in table coordinates outside the hand's area without overlapping each other; faces drawn
from what the hand leaves (at most four of a face, one of each flower).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from scoring.tiles import FACE_CODES, is_flower
from vision.synth import occluders
from vision.synth.bodies import Body, tile_axes
from vision.synth.layout import PlacedTile, jitter
from vision.synth.look import TileLook


def add_distractors(extent: tuple[float, float, float, float], look: TileLook, rng: np.random.Generator,
                    tiles: list[PlacedTile], extras: list[Body], hand: dict[str, Any],
                    max_discards: int = 70) -> None:
    """Discards, walls, other players' racks, a tray in front of the row, a phone and coins."""
    x0, y0, x1, y1 = extent
    w, h, d = look.width, look.height, look.depth
    taken: list[tuple[float, float, float]] = [((x0 + x1) / 2, (y0 + y1) / 2, 0.0)]
    hand_box = (x0 - 25, y0 - 25, x1 + 25, y1 + 25)

    def free(cx: float, cy: float, radius: float) -> bool:
        inside_x = hand_box[0] - radius < cx < hand_box[2] + radius
        if inside_x and hand_box[1] - radius < cy < hand_box[3] + radius:
            return False
        return all(math.hypot(cx - ox, cy - oy) > radius + orad for ox, oy, orad in taken[1:])

    remaining = _remaining_counts(hand)
    # Discards: face up, any angle, in loose heaps in the middle of the table (the "seabed").
    n_discards = int(rng.integers(0, max_discards + 1)) if rng.random() < 0.85 else 0
    heaps = [np.array([rng.uniform(-350, 350), rng.uniform(y1 + 80, y1 + 450)])
             for _ in range(int(rng.integers(1, 4)))]
    spread = float(rng.uniform(70, 200))
    room = h * (0.48 if rng.random() < 0.4 else 0.58)  # dense heaps: tiles nearly touching
    flat_discards: list[PlacedTile] = []
    for _ in range(n_discards):
        if flat_discards and rng.random() < 0.1:  # thrown on top of another discard
            below = flat_discards.pop(int(rng.integers(0, len(flat_discards))))
            tiles.append(_stacked(rng, _draw_code(rng, remaining), below, look))
            continue
        for _attempt in range(10):
            heap = heaps[int(rng.integers(0, len(heaps)))]
            cx, cy = (float(v) for v in heap + rng.normal(0, spread, 2))
            if cy > y1 + 25 and free(cx, cy, room):
                tile = _discard(rng, _draw_code(rng, remaining), cx, cy, look)
                tiles.append(tile)
                taken.append((cx, cy, room))
                if not tile.standing and abs(tile.centre[2] - d / 2) < 1e-6:
                    flat_discards.append(tile)
                break
    # Walls: rows of face-down tiles stacked two high.
    for _ in range(int(rng.choice([0, 1, 1, 2, 2, 3, 4]))):
        length = int(rng.integers(5, 19))
        yaw = float(rng.uniform(0, 360))
        direction = np.array([math.cos(math.radians(yaw)), math.sin(math.radians(yaw))])
        for _attempt in range(10):
            start = np.array([rng.uniform(-700, 700), rng.uniform(y1 + 40, y1 + 900)])
            points = [start + direction * (w + 0.6) * i for i in range(length)]
            if all(free(p[0], p[1], h * 0.6) for p in points):
                for point in points:
                    for level in range(2 if rng.random() < 0.85 else 1):
                        axes = tile_axes(False, yaw - 90.0 + jitter(rng, 1.5))
                        centre = np.array([point[0], point[1], d / 2 + level * (d + 0.3)])
                        tiles.append(PlacedTile(_draw_code(rng, remaining), centre, axes, "distractor",
                                                face_down=True))
                    taken.append((point[0], point[1], h * 0.6))
                break
    # Other players' racks: tiles standing with their backs to the camera.
    if rng.random() < 0.3:
        length = int(rng.integers(8, 17))
        yaw = float(rng.choice([180.0, 90.0, -90.0])) + jitter(rng, 8)
        direction = np.array([math.cos(math.radians(yaw)), math.sin(math.radians(yaw))])
        start = np.array([rng.uniform(-350, 0), rng.uniform(y1 + 450, y1 + 800)])
        points = [start + direction * (w + 0.5) * i for i in range(length)]
        if all(free(p[0], p[1], h * 0.5) for p in points):
            for point in points:
                axes = tile_axes(True, yaw, standing=True)
                centre = np.array([point[0], point[1], h / 2])
                code = _draw_code(rng, remaining)
                tiles.append(PlacedTile(code, centre, axes, "distractor", standing=True))
                taken.append((point[0], point[1], h * 0.5))
    # The player's tray (automatic tables) or the table's wooden edge in front of the row.
    if rng.random() < 0.55:
        extras.append(_tray(rng, x0, x1, y0))
    # A phone and a few coins lying among the discards.
    if rng.random() < 0.2:
        for _attempt in range(10):
            cx, cy = float(rng.uniform(-600, 600)), float(rng.uniform(y1 + 40, y1 + 600))
            if free(cx, cy, 85):
                extras.append(occluders.phone(rng, np.array([cx, cy]), float(rng.uniform(0, 360))))
                taken.append((cx, cy, 85))
                break
    for _ in range(int(rng.choice([0, 0, 0, 2, 4, 6]))):
        cx, cy = float(rng.uniform(-600, 600)), float(rng.uniform(y1 + 20, y1 + 700))
        if free(cx, cy, 14):
            extras.append(occluders.coin(rng, np.array([cx, cy])))
            taken.append((cx, cy, 14))


def _discard(rng: np.random.Generator, code: str, cx: float, cy: float, look: TileLook) -> PlacedTile:
    """A discard: mostly face up at any angle; some leaning on a neighbour, a few standing or face down."""
    h, d = look.height, look.depth
    yaw = float(rng.uniform(0, 360))
    draw = rng.random()
    if draw < 0.05:  # standing on its end, facing anywhere (its back may be what the camera sees)
        return PlacedTile(code, np.array([cx, cy, h / 2]), tile_axes(True, yaw, standing=True), "distractor",
                          standing=True)
    face_up = draw > 0.09
    axes = tile_axes(face_up, yaw)
    centre = np.array([cx, cy, d / 2])
    if rng.random() < 0.15:  # one end resting on another tile
        tilt = math.radians(float(rng.uniform(6, 22)))
        axes = _rotate_about(axes[:, 0], tilt) @ axes
        centre[2] = d / 2 * math.cos(tilt) + h / 2 * math.sin(tilt)
    return PlacedTile(code, centre, axes, "distractor", face_down=not face_up)


def _stacked(rng: np.random.Generator, code: str, below: PlacedTile, look: TileLook) -> PlacedTile:
    """A discard lying flat on top of another one, shifted and turned a little."""
    shift = rng.normal(0, 0.2, 2) * np.array([look.width, look.height])
    centre = below.centre + np.array([shift[0], shift[1], look.depth + 0.2])
    yaw = math.degrees(math.atan2(-below.axes[0, 1], below.axes[1, 1])) + float(rng.normal(0, 25))
    return PlacedTile(code, centre, tile_axes(True, yaw), "distractor")


def _rotate_about(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix about a unit ``axis`` by ``angle`` radians (Rodrigues)."""
    x, y, z = axis / np.linalg.norm(axis)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _tray(rng: np.random.Generator, x0: float, x1: float, y0: float) -> Body:
    """A long tray in front of the concealed row: white or cream plastic, or wood, with a groove on top."""
    plastic = rng.random() < 0.6
    if plastic:
        colour = tuple(int(v) for v in np.clip(np.array([232, 236, 238]) + rng.normal(0, 8, 3), 0, 255))
    else:
        colour = tuple(int(v) for v in np.clip(np.array([90, 150, 200]) * rng.uniform(0.6, 1.1), 0, 255))
    depth, height = float(rng.uniform(80, 200)), float(rng.uniform(4, 11))  # low: the row stays visible
    length = (x1 - x0) + float(rng.uniform(60, 400))
    top = np.empty((64, 256, 3), np.uint8)
    top[:] = colour
    inset = int(rng.uniform(6, 14))
    groove = tuple(int(c * 0.86) for c in colour)
    cv2.rectangle(top, (inset * 2, inset), (255 - inset * 2, 63 - inset), groove, -1, cv2.LINE_AA)
    edge = tuple(int(c * 0.7) for c in colour)
    cv2.rectangle(top, (inset * 2, inset), (255 - inset * 2, 63 - inset), edge, 1, cv2.LINE_AA)
    if not plastic:  # wood grain
        grain = (np.sin(np.arange(256) * rng.uniform(0.2, 0.5)) * 10).astype(np.int16)
        top = np.clip(top.astype(np.int16) + grain[None, :, None], 0, 255).astype(np.uint8)
    top = cv2.GaussianBlur(top, (3, 3), 0)
    centre = np.array([(x0 + x1) / 2, y0 - float(rng.uniform(2, 15)) - depth / 2, height / 2])
    return Body(centre, np.eye(3), (length, depth, height), colour, colour, face=top, layer=1.0, ident=-1)


def _remaining_counts(hand: dict[str, Any]) -> dict[str, int]:
    counts = {code: (1 if is_flower(code) else 4) for code in FACE_CODES}
    used = list(hand.get("concealed", [])) + list(hand.get("flowers", []))
    for meld in hand.get("melds", []):
        used.extend(meld.get("tiles", []))
    for code in used:
        if code in counts:
            counts[code] = max(0, counts[code] - 1)
    return counts


def _draw_code(rng: np.random.Generator, remaining: dict[str, int]) -> str:
    """A face still in the wall (the hand and earlier distractors use up the 4 copies)."""
    codes = [code for code, n in remaining.items() if n > 0]
    if not codes:
        return FACE_CODES[int(rng.integers(0, len(FACE_CODES)))]
    code = codes[int(rng.integers(0, len(codes)))]
    remaining[code] -= 1
    return code
