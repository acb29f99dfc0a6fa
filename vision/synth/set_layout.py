"""Render tiles lying face up in rows, seen from above: a set laid out to be learned, or a hand.

For ``taicam sets`` (``vision.sets``): the photo a player takes of a set laid out in order, and a
hand of that set, in a face style of one's choosing (e.g. a recoloured or mirrored art style the
shipped models misread), drawn with the scene renderer's parts (bodies, camera, table).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from vision.synth.bodies import Body, Lighting, bevelled, draw_body, tile_axes
from vision.synth.camera import orbit_camera
from vision.synth.faces import FaceStyle
from vision.synth.table import render_table, table_texture

#: A tile's size in mm (width, height, thickness) and the gaps between tiles and between rows.
TILE_MM = (27.0, 36.0, 20.0)
TILE_GAP_MM = 3.0
ROW_GAP_MM = 14.0
#: The photo spans at least this many tiles across, however few are laid out.
MIN_FRAMED_TILES = 12


def rows_of(codes: Sequence[str], lengths: Sequence[int]) -> list[list[str]]:
    """``codes`` cut into rows of ``lengths`` (the last row takes what is left)."""
    rows, start = [], 0
    for length in lengths:
        if start >= len(codes):
            break
        rows.append(list(codes[start:start + length]))
        start += length
    if start < len(codes):
        rows.append(list(codes[start:]))
    return rows


def render_rows(rows: Sequence[Sequence[str]], style: FaceStyle, rng: np.random.Generator, *,
                upside_down: bool = False, width: int = 1600, height: int = 1200,
                face: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """A BGR photo of ``rows`` of tiles (top row furthest from the camera's bottom edge) lying face
    up; ``upside_down`` turns the camera a half about its axis; ``face`` alters each face image
    (the style's look) before it is drawn."""
    return laid_out(rows, style, rng, upside_down=upside_down, width=width, height=height, face=face)[0]


def laid_out(rows: Sequence[Sequence[str]], style: FaceStyle, rng: np.random.Generator, *,
             upside_down: bool = False, width: int = 1600, height: int = 1200,
             face: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`render_rows`'s photo and each tile's face outline in it (4 x 2 pixels, top-left,
    top-right, bottom-right, bottom-left as the face reads), in the order of ``rows``."""
    w, h, d = TILE_MM
    longest = max(len(row) for row in rows)
    span_x = longest * (w + TILE_GAP_MM)
    span_y = len(rows) * (h + ROW_GAP_MM)
    bodies = []
    for number, row in enumerate(rows):
        y = span_y / 2 - (number + 0.5) * (h + ROW_GAP_MM)
        for position, code in enumerate(row):
            x = -span_x / 2 + (position + 0.5) * (w + TILE_GAP_MM) + float(rng.normal(0, 0.4))
            texture = style.faces[code][0]
            texture = face(texture) if face is not None else texture
            axes = tile_axes(True, float(rng.normal(0, 1.0)))
            bodies.append(Body(np.array([x, y + float(rng.normal(0, 0.4)), d / 2]), axes, (w, h, d),
                               style.ivory_bgr, (60, 120, 60), face=bevelled(texture), layer=0.6, rim=True))
    # Framed as a phone photo of the table: a few tiles do not fill the picture.
    fit = max(span_x / width, span_y / height, MIN_FRAMED_TILES * (w + TILE_GAP_MM) / width) * 1.15
    focal = 1400.0
    distance = focal * fit
    camera = orbit_camera(np.zeros(3), distance, 82.0, -90.0, 180.0 if upside_down else 0.0, focal,
                          width, height)
    texture, _ = table_texture(rng)
    image = render_table(camera, texture, (40, 40, 40))
    elevation = math.radians(60)
    direction = np.array([0.3 * math.cos(elevation), -math.cos(elevation), math.sin(elevation)])
    light = Lighting(direction=direction / np.linalg.norm(direction), ambient=0.65)
    faces = [camera.project(body.side_quad(2, 1))[0] for body in bodies]
    bodies.sort(key=lambda body: -float(camera.to_camera(body.centre[None])[0, 2]))
    for body in bodies:
        draw_body(image, body, camera, light, rng)
    return image, faces
