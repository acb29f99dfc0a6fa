"""The tiles as the layout sees them, and the rows they lie in: the row direction, each tile's
extent along and across it, and the runs of touching tiles (steps 1 and 2 of :mod:`vision.layout`);
also the coordinate frame of a row (:class:`Frame`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.geometry import tile_outline
from vision.repairs.outline_views import squaring_angles
from vision.types import Detection, TileReading

#: A mahjong tile's long side over its short side (real sets: 1.3-1.4).
TILE_ASPECT = 1.35
#: Neighbours whose gap is at most this many tile widths touch (same run).
GROUP_GAP = 0.4
#: Of two upright neighbours, one outlined shorter than this fraction of the other along the row is
#: taken as outlined too small, and the gap is measured from the longer one's edge (a middle tile
#: outlined two thirds as long as its neighbours would otherwise split a pung).
SHORT_OUTLINE = 0.8
#: Neighbours along the row may be offset across it by at most this fraction of the tile height.
ROW_BAND = 0.5
#: Probability mass on flower codes above which a tile is taken for a flower when grouping.
FLOWER_MASS = 0.5
#: An outline turned this far (degrees, modulo a quarter turn) against its neighbours' is *askew*:
#: the detector's outline of a sideways tile it did not flag often comes out half turned, a
#: diamond between upright and sideways. On the 200 held-out renders 9 of the 17 unflagged
#: winning tiles were at least this far turned, against 27 of the 2128 standing tiles; from 25
#: degrees two of those winning tiles (24.8 degrees) were not found, from 15 a hand was lost.
ASKEW_DEGREES = 20.0


@dataclass(frozen=True)
class Tile:
    """One tile in the row's terms: ``x`` along the row direction and ``y`` across it (pixels), its
    outline's extents both ways, and what the detector and classifier say it is."""

    index: int
    x: float
    y: float
    along: float  # extent along the row direction, pixels
    across: float  # extent across it, pixels
    rotated: bool
    face_down: bool
    flower: bool
    flower_p: float = 0.0
    back_p: float = 0.0  # the classifier's "back"; ``face_down`` is the detector's flag
    askew: bool = False  # outline turned :data:`ASKEW_DEGREES` or more against its neighbours'

    @property
    def back(self) -> bool:
        """Face-down by the detector's flag, or by the classifier when it is fairly sure."""
        return self.face_down or self.back_p > 0.5

    @property
    def width(self) -> float:
        """The tile's short side here (its width when upright), the local unit of length. A sideways
        tile's long side lies along the row; across it the face is foreshortened by the camera."""
        return self.along / TILE_ASPECT if self.rotated else self.along

    @property
    def lengthwise(self) -> float:
        """How much longer the outline is along the row than across it: larger for a tile lying across."""
        return self.along / max(self.across, 1e-6)

    @property
    def plain(self) -> bool:
        """Could stand in the concealed row: face up, not a flower."""
        return not self.face_down and not self.flower


def flower_mass(reading: TileReading) -> float:
    """How much of the classifier's belief says 'flower or season' (1f..8f)."""
    return sum(p for code, p in reading.candidates if code.endswith("f"))


def looks_like_flower(reading: TileReading) -> bool:
    """Most of the belief says flower, or the best single code is one: a flower read at 0.49 with
    the rest spread over set tiles is still a flower, and grouping it with a set breaks the set."""
    return flower_mass(reading) > FLOWER_MASS or reading.code.endswith("f")


def back_mass(reading: TileReading) -> float:
    """How much says 'face-down tile', combining the detector flag and the classifier."""
    if reading.detection.face_down:
        return 1.0
    return sum(p for code, p in reading.candidates if code == "back")


def _axial(angle: Any) -> Any:
    """An axial angle (a row and its reverse are one direction) brought into [-pi/2, pi/2); arrays too."""
    return (angle + math.pi / 2) % math.pi - math.pi / 2


def _axes(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors along a row turned ``angle`` and across it."""
    direction = np.array([math.cos(angle), math.sin(angle)])
    return direction, np.array([-direction[1], direction[0]])


def _distances(centres: np.ndarray) -> np.ndarray:
    """Pairwise distances between points, infinite from a point to itself."""
    deltas = centres[:, None, :] - centres[None, :, :]
    distances = np.hypot(deltas[..., 0], deltas[..., 1])
    np.fill_diagonal(distances, np.inf)
    return distances


def _nearest_neighbours(centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of and distance to each point's nearest other point."""
    distances = _distances(centres)
    nearest = distances.argmin(axis=1)
    return nearest, distances[np.arange(len(centres)), nearest]


def estimate_row_direction(centres: np.ndarray, fallback_angle: float = 0.0) -> float:
    """Angle (radians, in [-pi/2, pi/2)) of the rows, from the nearest-neighbour vectors.

    Directions are axial (a vector and its opposite are the same row), so the mean is taken over
    doubled angles; a second pass drops vectors more than 25 degrees off (a tile's neighbour in the
    next row) and averages again.
    """
    if len(centres) < 2:
        return fallback_angle
    nearest, _ = _nearest_neighbours(centres)
    vectors = centres[nearest] - centres
    doubled = 2 * np.arctan2(vectors[:, 1], vectors[:, 0])
    angle = math.atan2(np.sin(doubled).mean(), np.cos(doubled).mean()) / 2
    for _ in range(2):
        off = np.abs(_axial(doubled / 2 - angle))
        keep = off < math.radians(25)
        if keep.sum() >= 2:
            angle = math.atan2(np.sin(doubled[keep]).mean(), np.cos(doubled[keep]).mean()) / 2
    return _axial(angle)


def _extents(corners: np.ndarray, direction: np.ndarray, normal: np.ndarray) -> tuple[float, float]:
    """(extent along, extent across) the row of a tile outline.

    Measured edge by edge (mean of opposite edges, larger pair), not over the whole outline: a
    standing tile seen from the side is a sheared parallelogram whose bounding extent along the row
    is far wider than the tile.
    """
    edges = [corners[(k + 1) % 4] - corners[k] for k in range(4)]
    pairs = [(edges[0], edges[2]), (edges[1], edges[3])]
    along = max((abs(a @ direction) + abs(b @ direction)) / 2 for a, b in pairs)
    across = max((abs(a @ normal) + abs(b @ normal)) / 2 for a, b in pairs)
    return float(along), float(across)


def to_tiles(readings: list[TileReading], angle: float) -> list[Tile]:
    """The readings as tiles of a row turned ``angle``."""
    direction, normal = _axes(angle)
    turns = squaring_angles([reading.detection for reading in readings])
    tiles = []
    for index, reading in enumerate(readings):
        centre = np.array(reading.detection.center)
        along, across = _extents(tile_outline(reading.detection), direction, normal)
        tiles.append(Tile(index, float(centre @ direction), float(centre @ normal), along, across,
                           reading.detection.rotated, bool(reading.detection.face_down),
                           looks_like_flower(reading), flower_mass(reading), back_mass(reading),
                           reading.detection.quad is not None and abs(turns[index]) >= ASKEW_DEGREES))
    return tiles


def _candidate_angles(centres: np.ndarray, peaks: int = 3) -> list[float]:
    """Row-direction candidates: the strongest directions among neighbour vectors (each tile to its
    two nearest), and the direction across each."""
    if len(centres) < 3:
        return [estimate_row_direction(centres)]
    order = np.argsort(_distances(centres), axis=1)[:, :2]
    vectors = np.concatenate([centres[order[:, k]] - centres for k in range(2)])
    angles = np.arctan2(vectors[:, 1], vectors[:, 0]) % math.pi
    histogram, _ = np.histogram(angles, bins=36, range=(0.0, math.pi))
    smooth = histogram + 0.5 * (np.roll(histogram, 1) + np.roll(histogram, -1))
    candidates = [estimate_row_direction(centres)]
    for bin_index in np.argsort(-smooth)[:peaks]:
        in_bin = np.abs(_axial(angles - (bin_index + 0.5) * math.pi / 36))
        close = angles[in_bin < math.pi / 36]
        mean = math.atan2(np.sin(2 * close).mean(), np.cos(2 * close).mean()) / 2 if len(close) else 0.0
        candidates.append(_axial(mean))
    out = []
    for angle in candidates:
        for turned in (angle, (angle + math.pi) % math.pi - math.pi / 2):
            if all(abs(_axial(turned - a)) > math.radians(4) for a in out):
                out.append(turned)
    return out


def readings_row_angle(readings: list[TileReading]) -> float:
    """The row direction: of the candidate directions, the one along which most face-up tiles chain
    into runs of touching tiles. Nearest neighbours alone mislead: seen low over the table, tiles
    are foreshortened and rows of sets lie close behind each other, and discards lie every way."""
    centres = np.array([r.detection.center for r in readings], dtype=np.float64)
    face_up = np.array([back_mass(r) <= 0.5 for r in readings])
    best, best_links = 0.0, -1
    for angle in _candidate_angles(centres[face_up] if face_up.sum() >= 2 else centres):
        runs = touching_runs(to_tiles(readings, angle))
        links = sum(plain_count(run) - 1 for run in runs if plain_count(run) >= 2)
        if links > best_links:
            best, best_links = angle, links
    return best


def row_angle(detections: list[Detection]) -> float:
    """The row direction (radians) from detections alone, before any tile is read."""
    readings = [TileReading(d, (("back" if d.face_down else "?", 1.0),)) for d in detections]
    return readings_row_angle(readings) if len(readings) >= 2 else 0.0


def face_outline(detection: Detection, angle: float) -> tuple[tuple[float, float], ...]:
    """The tile's face as a turned rectangle inside its axis-aligned box, the row turned ``angle``.

    A box around a turned tile also holds table and the tile's sides; the classifier reads the face
    cut out upright. The face's width (along the row) and height solve box = turned face:
    W = w|cos| + h|sin|, H = w|sin| + h|cos|; near 45 degrees that system is singular and the
    tile's usual proportions stand in. Corner 0 is the face's top-left as the row lies.
    """
    if detection.quad is not None:
        return detection.quad
    x1, y1, x2, y2 = detection.box
    width, height = x2 - x1, y2 - y1
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    det = c * c - s * s
    along = across = -1.0
    if abs(det) > 0.35:
        along, across = (width * c - height * s) / det, (height * c - width * s) / det
    if along <= 0 or across <= 0:
        ratio = 1 / TILE_ASPECT if detection.rotated else TILE_ASPECT
        along = width / (c + ratio * s)
        across = along * ratio
    direction, normal = _axes(angle)
    centre = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
    corners = [centre + sign_a * direction * along / 2 + sign_n * normal * across / 2
               for sign_a, sign_n in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return tuple((float(p[0]), float(p[1])) for p in corners)


def touching_runs(tiles: list[Tile]) -> list[list[Tile]]:
    """Chain touching neighbours along the row direction into runs (each sorted along the row).

    The gap allowed is measured against the larger tile of the two, and between two upright tiles of
    clearly different lengths from the longer one's edge: a detector outline that came out small (a
    set's tile outlined short, perhaps flagged sideways) must not split a loosely laid set.
    A tile's neighbour is the one with the shortest step along the row plus across it (and a tile
    with two left neighbours keeps the nearer by that step): a winning tile lying against the front
    of the row is nearer along it than the row's next tile, and took that tile's place.
    """
    right: dict[int, int] = {}
    cost: dict[int, float] = {}  # of the step to the right neighbour: along the row plus across it
    for i, tile in enumerate(tiles):
        best, best_du, best_cost = None, math.inf, math.inf
        for j, other in enumerate(tiles):
            du = other.x - tile.x
            if j == i or du <= 0:
                continue
            dv = abs(other.y - tile.y)
            if dv > ROW_BAND * max(tile.across, other.across):
                continue
            if du + dv < best_cost:
                best, best_du, best_cost = j, du, du + dv
        if best is None:
            continue
        other = tiles[best]
        shorter, longer = sorted((tile.along, other.along))
        if tile.rotated or other.rotated or shorter >= SHORT_OUTLINE * longer:
            gap = best_du - (tile.along + other.along) / 2
        else:
            gap = best_du - longer
        if gap <= GROUP_GAP * max(tile.width, other.width):
            right[i] = best
            cost[i] = best_cost
    left: dict[int, int] = {}
    for i, j in right.items():
        if j not in left or cost[i] < cost[left[j]]:
            left[j] = i
    runs = []
    for i in range(len(tiles)):
        if i in left and right.get(left[i]) == i:
            continue  # not the start of a run
        run = [tiles[i]]
        k = i
        while k in right and left.get(right[k]) == k:
            k = right[k]
            run.append(tiles[k])
        runs.append(run)
    return runs


def plain_count(run: list[Tile]) -> int:
    """How many tiles of the run could stand in the concealed row (:attr:`Tile.plain`)."""
    return sum(1 for t in run if t.plain)


@dataclass
class Frame:
    """Coordinates relative to the concealed row: s along it, t across it, in its own tile units."""

    origin: np.ndarray
    direction: np.ndarray
    normal: np.ndarray
    width: float
    height: float
    start: float
    end: float

    @classmethod
    def of(cls, run: list[Tile]) -> Frame:
        points = np.array([[t.x, t.y] for t in run])
        origin = points.mean(axis=0)
        if len(run) >= 3:
            _, _, vt = np.linalg.svd(points - origin)
            direction = vt[0] if vt[0][0] >= 0 else -vt[0]
        else:
            direction = np.array([1.0, 0.0])
        normal = np.array([-direction[1], direction[0]])
        width = float(np.median([t.width for t in run]))
        height = width * TILE_ASPECT  # not the measured height: a standing row's faces are foreshortened
        along = (points - origin) @ direction
        return cls(origin, direction, normal, width, height, float(along.min()), float(along.max()))

    def along(self, tile: Tile) -> float:
        """Position along the row, in tile widths from its centre."""
        return float((np.array([tile.x, tile.y]) - self.origin) @ self.direction) / self.width

    def position(self, tile: Tile, signed: bool = False) -> tuple[float, float]:
        """(along beyond the row's ends in tile widths (0 inside), across in tile heights)."""
        offset = np.array([tile.x, tile.y]) - self.origin
        s = float(offset @ self.direction)
        beyond = max(self.start - s, s - self.end, 0.0) / self.width
        across = float(offset @ self.normal) / self.height
        return beyond, across if signed else abs(across)
