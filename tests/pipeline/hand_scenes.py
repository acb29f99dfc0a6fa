"""Readings made from a known hand laid out as at the table: the layout and decoder tests' input.

Geometry follows seed 000 (concealed row, sets and flowers in a row in front of it, the winning
tile sideways or set apart), then the whole table is turned by ``angle`` and optionally seen in
perspective, so the tests exercise the same row fitting a photo needs. Candidate lists look like a
calibrated classifier's: the truth first with most of the mass, a few look-alikes after it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from scoring.tiles import SET_TILE_CODES
from vision.types import Detection, TileReading

SHORT = 40.0
LONG = 54.0


@dataclass
class SceneTile:
    code: str
    u: float
    v: float
    rotated: bool = False
    face_down: bool = False
    role: str = "concealed"
    group: int = 0


@dataclass
class Scene:
    tiles: list[SceneTile] = field(default_factory=list)
    winning_position: int | None = None  # index in tiles

    def readings(self, *, angle_degrees: float = 0.0, perspective: float = 0.0, jitter: float = 0.0,
                 seed: int = 0, confidence: float = 0.92,
                 misread: dict[int, tuple[str, float]] | None = None) -> list[TileReading]:
        """Tile readings as a detector + classifier would give them for this scene.

        ``misread`` maps a tile position to (code shown first, its probability): the truth then
        comes second. ``perspective`` shrinks rows farther from the camera (0 = none, 0.3 = strong).
        """
        rng = np.random.default_rng(seed)
        angle = math.radians(angle_degrees)
        cos, sin = math.cos(angle), math.sin(angle)
        readings = []
        for position, tile in enumerate(self.tiles):
            depth = 1.0 - perspective * (tile.v / 200.0)
            u = tile.u * depth + rng.normal(0, jitter)
            v = tile.v + rng.normal(0, jitter)
            x, y = 640 + cos * u - sin * v, 480 + sin * u + cos * v
            w, h = (LONG, SHORT) if tile.rotated else (SHORT, LONG)
            w, h = w * depth, h * depth
            corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
            quad = tuple((x + cos * cx - sin * cy, y + sin * cx + cos * cy) for cx, cy in corners)
            xs, ys = [p[0] for p in quad], [p[1] for p in quad]
            detection = Detection(box=(min(xs), min(ys), max(xs), max(ys)), score=0.95, rotated=tile.rotated,
                                  face_down=tile.face_down, angle=angle_degrees, quad=quad)
            truth = "back" if tile.face_down else tile.code
            candidates = _candidates(truth, confidence, (misread or {}).get(position))
            readings.append(TileReading(detection=detection, candidates=candidates))
        return readings

    def truth_codes(self) -> list[str]:
        return ["back" if t.face_down else t.code for t in self.tiles]


def _lookalike(code: str, step: int) -> str:
    index = SET_TILE_CODES.index(code) if code in SET_TILE_CODES else 0
    return SET_TILE_CODES[(index + step) % len(SET_TILE_CODES)]


def _candidates(truth: str, confidence: float,
                misread: tuple[str, float] | None) -> tuple[tuple[str, float], ...]:
    if misread is not None:
        shown, p = misread
        rest = (1.0 - p) * 0.8
        others = [c for c in (_lookalike(truth, 3), _lookalike(truth, 7), _lookalike(truth, 11))
                  if c not in (shown, truth)]
        tail = [(c, (1.0 - p - rest) / len(others)) for c in others]
        return ((shown, p), (truth, rest), *tail)
    others = [c for c in (_lookalike(truth, step) for step in (1, 9, 18, 27)) if c != truth][:4]
    share = (1.0 - confidence) / len(others)
    return ((truth, confidence), *[(c, share) for c in others])


def lay_out(concealed: list[str], melds: list[tuple[str, list[str], bool]], flowers: list[str],
            winning_tile: str | None, *, winning_style: str = "sideways", set_gap: float = 0.7,
            flowers_in_front: bool = True, kong_backs: str = "outer", front: float = 1.25) -> Scene:
    """Lay a hand out the way seed 000 describes (units: pixels before the table is turned).

    ``concealed`` excludes the winning tile; ``winning_style`` is "sideways" (across the end of the
    row), "apart" (upright, set apart at the end) or "none" (mixed into the row, not shown).
    ``kong_backs``: which tiles of a concealed kong lie face-down: "outer", "inner" or "all".
    ``front``: how far the sets lie in front of the row, in tile lengths (centre to centre).
    """
    scene = Scene()
    u = 0.0
    for code in concealed:
        scene.tiles.append(SceneTile(code, u, 0.0))
        u += SHORT
    if winning_tile is not None:
        if winning_style == "sideways":
            across = SceneTile(winning_tile, u - SHORT / 2 + LONG / 2, (LONG - SHORT) / 2, rotated=True)
            scene.tiles.append(across)
        elif winning_style == "apart":
            scene.tiles.append(SceneTile(winning_tile, u + SHORT * set_gap, 0.0))
        else:
            scene.tiles.append(SceneTile(winning_tile, u, 0.0))
        scene.winning_position = len(scene.tiles) - 1
    front = LONG * front
    u = 0.0
    for group_id, (kind, tiles, is_concealed) in enumerate(melds, start=1):
        for k, code in enumerate(tiles):
            face_down = False
            if is_concealed and kind == "kong":
                face_down = {"outer": k in (0, 3), "inner": k in (1, 2), "all": True}[kong_backs]
            scene.tiles.append(SceneTile(code, u, front, face_down=face_down,
                                         role="concealed_kong" if is_concealed else "meld", group=group_id))
            u += SHORT
        u += SHORT * set_gap
    if flowers:
        v = front if flowers_in_front else front + LONG * 1.1
        if not flowers_in_front:
            u = 0.0
        for code in flowers:
            scene.tiles.append(SceneTile(code, u, v, role="flower", group=99))
            u += SHORT
    return scene
