"""Layout: which detected tiles form the hand, and how (concealed row, exposed sets, flowers, winning tile).

How a winning hand lies on the table (seed 000): the concealed tiles stand (or lie) in one row;
exposed sets and flowers lie in front of it, each set a tight run of 3 or 4 tiles with a gap to
the next; a concealed kong lies face-down (revealed at the end, often with two tiles turned up);
a claimed tile sits in the middle of its set, and the winning tile is "placed horizontally across
the completed set" (sideways: inside a flat row, or lying beside a standing row) or set apart
at the end of the row. Around the hand: discards, walls and other racks, which are not the hand.

The camera may be turned any way and see the table in perspective, so nothing here uses image axes
or one global scale:

1. the row direction comes from the vectors between touching face-up neighbours (tiles in a row
   touch; walls of backs are left out so they cannot outvote the hand);
2. each tile's extent along and across the row is measured from its own outline (near tiles are
   bigger than far ones), and touching neighbours along the row are chained into *runs*;
3. the concealed row is the run of standing tiles whose length fits the tile count left by the
   other sets (17 - 3 per set; ``hand_size`` 14 - 3 per set for a 13-tile rule set), else simply
   the longest; sets, kongs and flowers are the runs
   near it; the winning tile is found by the table conventions above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from scoring.errors import InputError
from vision.geometry import tile_outline
from vision.outline_views import squaring_angles
from vision.types import HAND_SIZE, Detection, GroupRole, Layout, TileGroup, TileReading

#: A mahjong tile's long side over its short side (real sets: 1.3-1.4).
TILE_ASPECT = 1.35
#: Neighbours whose gap is at most this many tile widths touch (same run).
GROUP_GAP = 0.4
#: Of two upright neighbours, one outlined shorter than this fraction of the other along the row is
#: taken as outlined too small, and the gap is measured from the longer one's edge (render 900156's
#: middle 4p, 0.67 of its neighbours, split a pung; at 0.8 or 0.9 the held-out figures are the same).
SHORT_OUTLINE = 0.8
#: Neighbours along the row may be offset across it by at most this fraction of the tile height.
ROW_BAND = 0.5
#: Runs at most this many tile heights from the concealed row (across it) belong to the hand (with
#: all five sets laid down, their third row lies up to 4.7 from the pair's standing tile).
HAND_REACH = 5.0
#: Runs in line with the concealed row (across it by at most this many tile heights) ...
COLLINEAR = 0.45
#: ... and at most this many tile widths beyond its end are part of it (gaps between its sets).
ROW_GAP = 1.6
#: A lone upright tile in line with the row joins it when its centre is at most this many widths
#: beyond the row's end (touching, with the detector's box noise); farther, it is set apart.
LONE_JOIN = 1.35
#: The first row of sets lies at most this many tile heights from the concealed row (players leave
#: room between a standing row and the sets in front of it; seen up to 2.6 in held-out renders) ...
FIRST_STEP = 2.8
#: ... and each further row at most this many tile heights beyond the previous one.
ROW_STEP = 2.2
#: ... and at most this many tile widths beyond its ends (along it).
HAND_SPAN = 14.0
#: Runs of three or more whose tiles all look smaller than this share of the concealed row's lie
#: far beyond it on the table (sets in front of the row are nearer the camera and look larger):
#: another player's sets, the far wall. A real photo's far pung of 3s, tiles a third of the row's
#: width, completed a hand one set short (table photo 420479065_..._8997936954384187486, scored 13
#: tai); at 0.6, a far render's set was left out of its hand.
FAR_TILE_SCALE = 0.45
#: ... when they lie more than this many tile heights across the row (a set close behind a standing
#: row shows only slivers of its tiles, as small: render 950006).
FAR_SET_ACROSS = 1.5
#: A run of at least this many face-up tiles away from the hand means a second hand.
LONG_RUN = 8
#: Rows of three or more tiles this many tile heights apart across the concealed row are separate rows ...
LINE_GAP = 0.5
#: ... and a "hand" with this many such rows one behind another is a grid of tiles (:func:`_stacked_rows`).
GRID_LINES = 5
#: A lone sideways tile at most this many tile heights across the concealed row may be its winning
#: tile laid beside it; farther, it is a discard, and the rows of sets do not reach on past it (a real
#: photo's discard lying 2.7 heights off a pair let a chow among the discards complete a hand a set
#: short: table photo 421037392_..._3606502953821611535, scored 16 tai at 69%).
BESIDE_ROW = 2.5
#: Probability mass on flower codes above which a tile is taken for a flower when grouping.
FLOWER_MASS = 0.5
#: How far along a row of sets (tile widths, centre to the nearest end tile's centre) a tile lying in
#: line with it still belongs to it: the winning tile set apart, a flower, a kong's last backs.
SET_END_REACH = 2.2


@dataclass(frozen=True)
class _Tile:
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


def _to_tiles(readings: list[TileReading], angle: float) -> list[_Tile]:
    direction, normal = _axes(angle)
    turns = squaring_angles([reading.detection for reading in readings])
    tiles = []
    for index, reading in enumerate(readings):
        centre = np.array(reading.detection.center)
        along, across = _extents(tile_outline(reading.detection), direction, normal)
        tiles.append(_Tile(index, float(centre @ direction), float(centre @ normal), along, across,
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


def _row_angle(readings: list[TileReading]) -> float:
    """The row direction: of the candidate directions, the one along which most face-up tiles chain
    into runs of touching tiles. Nearest neighbours alone mislead: seen low over the table, tiles
    are foreshortened and rows of sets lie close behind each other, and discards lie every way."""
    centres = np.array([r.detection.center for r in readings], dtype=np.float64)
    face_up = np.array([back_mass(r) <= 0.5 for r in readings])
    best, best_links = 0.0, -1
    for angle in _candidate_angles(centres[face_up] if face_up.sum() >= 2 else centres):
        runs = _runs(_to_tiles(readings, angle))
        links = sum(_plain(run) - 1 for run in runs if _plain(run) >= 2)
        if links > best_links:
            best, best_links = angle, links
    return best


def row_angle(detections: list[Detection]) -> float:
    """The row direction (radians) from detections alone, before any tile is read."""
    readings = [TileReading(d, (("back" if d.face_down else "?", 1.0),)) for d in detections]
    return _row_angle(readings) if len(readings) >= 2 else 0.0


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


def _runs(tiles: list[_Tile]) -> list[list[_Tile]]:
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


#: A tile this much longer (along the row, relative to its height) than its row's tiles lies sideways.
SIDEWAYS_RATIO = 1.45
#: An outline turned this far (degrees, modulo a quarter turn) against its neighbours' is *askew*:
#: the detector's outline of a sideways tile it did not flag often comes out half turned, a
#: diamond between upright and sideways. On the 200 held-out renders 9 of the 17 unflagged
#: winning tiles were at least this far turned, against 27 of the 2128 standing tiles; from 25
#: degrees two of those winning tiles (24.8 degrees) were not found, from 15 a hand was lost.
ASKEW_DEGREES = 20.0


def _looks_sideways(row: list[_Tile]) -> _Tile | None:
    """The one tile of a row whose proportions are turned against its neighbours', if exactly one:
    a sideways tile the detector did not flag."""
    if len(row) < 4:
        return None
    ratios = [t.lengthwise for t in row]
    reference = float(np.median(ratios))
    turned = [t for t, r in zip(row, ratios, strict=True) if r >= SIDEWAYS_RATIO * reference and not t.back]
    return turned[0] if len(turned) == 1 else None


def _plain(run: list[_Tile]) -> int:
    return sum(1 for t in run if t.plain)


def _sets_in(run: list[_Tile]) -> int:
    """How many sets a run of exposed tiles holds (flowers and strays excluded)."""
    return _sets_in_count(sum(1 for t in run if not t.flower))


@dataclass
class _Frame:
    """Coordinates relative to the concealed row: s along it, t across it, in its own tile units."""

    origin: np.ndarray
    direction: np.ndarray
    normal: np.ndarray
    width: float
    height: float
    start: float
    end: float

    @classmethod
    def of(cls, run: list[_Tile]) -> _Frame:
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

    def along(self, tile: _Tile) -> float:
        """Position along the row, in tile widths from its centre."""
        return float((np.array([tile.x, tile.y]) - self.origin) @ self.direction) / self.width

    def position(self, tile: _Tile, signed: bool = False) -> tuple[float, float]:
        """(along beyond the row's ends in tile widths (0 inside), across in tile heights)."""
        offset = np.array([tile.x, tile.y]) - self.origin
        s = float(offset @ self.direction)
        beyond = max(self.start - s, s - self.end, 0.0) / self.width
        across = float(offset @ self.normal) / self.height
        return beyond, across if signed else abs(across)


#: A lone tile is compared with this many of a row's tiles nearest it (:func:`_alike`).
ALIKE_NEIGHBOURS = 3


def _alike(tile: _Tile, row: list[_Tile]) -> bool:
    """Does a lone tile look like it lies the way the row's tiles do (size and turn)? A discard
    thrown on the table lies at any angle, a tile laid in a row of sets lies like its neighbours.
    It is compared with the row's tiles nearest it: perspective shrinks a row along its length
    (held-out render 950080: a flower before a pung, 1.42 times the length of the row's median
    tile, the far end of the row a kong's backs, 1.1 times the pung's)."""
    upright = [t for t in row if not t.rotated] or row
    upright = sorted(upright, key=lambda t: math.hypot(t.x - tile.x, t.y - tile.y))[:ALIKE_NEIGHBOURS]
    across = float(np.median([t.across for t in upright]))
    along = float(np.median([t.along for t in upright]))
    return 0.7 * across <= tile.across <= 1.4 * across and 0.7 * along <= tile.along <= 1.4 * along


def _hand_runs(frame: _Frame, runs: list[list[_Tile]]) -> list[list[_Tile]]:
    """The runs that belong to the hand: rows of sets stepping out from the concealed row.

    On each side of the row, runs are taken in order of distance while each is within ROW_STEP
    tile heights of the last one taken, the first within FIRST_STEP of the row (sets lie in one or
    two rows in front of the hand; discards lie beyond; only a run showing faces is taken beyond
    ROW_STEP, where the wall behind a rack of standing tiles lies). A lone tile counts only if it
    lines up with a taken run of several tiles (a single flower or the winning tile set apart), or
    lies sideways close to the row (the winning tile).
    """
    placed = []
    for run in runs:
        beyond, across = frame.position(run[len(run) // 2], signed=True)
        # A set far off: all its tiles small (one hidden in part is small too, its neighbours are not;
        # a set close behind a standing row shows only slivers, small too, but lies close).
        far_off = (len(run) >= 3 and abs(across) > FAR_SET_ACROSS
                   and max(t.width for t in run) < FAR_TILE_SCALE * frame.width)
        if beyond <= HAND_SPAN and abs(across) <= HAND_REACH and not far_off:
            placed.append((across, run))
    taken: list[tuple[float, list[_Tile]]] = []
    for side in (1.0, -1.0):
        reach = 0.0
        for across, run in sorted((p for p in placed if p[0] * side >= 0), key=lambda p: abs(p[0])):
            if abs(across) - reach > (ROW_STEP if reach else FIRST_STEP):
                break
            if not reach and abs(across) > ROW_STEP and all(t.back for t in run):
                continue  # the wall behind a rack lies there; sets that far must show faces
            taken.append((across, run))
            if _row_like(run) or (len(run) == 1 and run[0].rotated and abs(across) <= BESIDE_ROW):
                reach = abs(across)
    rows = [(a, run) for a, run in taken if _row_like(run)]
    keep = [run for _, run in rows]
    spans = [frame.along(t) for _, run in rows for t in run]
    for across, run in taken:
        if _backs_only(run) == 2 and any(abs(a - across) <= 0.6 and _near_end(run, o, frame)
                                         for a, o in rows):
            keep.append(run)  # two backs at the end of a row of sets: a concealed kong, half found
            continue
        if len(run) != 1:
            continue  # a set (kept above), or two discards touching
        tile = run[0]
        if tile.rotated and abs(across) <= BESIDE_ROW:
            keep.append(run)  # the winning tile lying beside a standing row
            continue
        # In line with the concealed row or a row of sets, and close to its end (not far along it).
        here = frame.along(tile)
        # A sure flower may lie a little further from the sets' end: players set flowers apart.
        reach = FLOWER_APART if tile.flower_p >= SURE_FLOWER else SET_END_REACH
        in_line = (abs(across) <= 0.5 and frame.position(tile)[0] <= 3.0) or any(
            abs(a - across) <= 0.6 and _alike(tile, o) and _near_end([tile], o, frame, reach)
            for a, o in rows)
        # A lone flower starting a second row of sets lines up with the start (or end) of the rows.
        offset = min(abs(here - min(spans)), abs(here - max(spans))) if spans else math.inf
        nearest = min(rows, key=lambda item: abs(item[0] - across)) if rows else None
        within = (tile.flower and nearest is not None and offset <= 0.7
                  and abs(nearest[0] - across) <= 1.1 and _alike(tile, nearest[1]))
        # With no sets laid down, the flowers lie alone in front of the row, within its length.
        alone = tile.flower and not rows and abs(across) <= 3.0 and frame.position(tile)[0] <= 1.0
        within = within or alone
        if in_line or within:
            keep.append(run)
    return keep


def _backs_only(run: list[_Tile]) -> int:
    """How many backs the run holds when, flowers aside, it holds nothing else (else 0)."""
    rest = [t for t in run if not t.flower]
    return len(rest) if rest and all(t.back for t in rest) else 0


def _near_end(run: list[_Tile], row: list[_Tile], frame: _Frame, reach: float = SET_END_REACH) -> bool:
    """Whether ``run`` lies along ``row`` within ``reach`` tile widths of one of its ends."""
    ends = (frame.along(row[0]), frame.along(row[-1]))
    return min(abs(frame.along(t) - end) for t in run for end in ends) <= reach


def _stacked_rows(frame: _Frame, concealed: list[_Tile], near: list[list[_Tile]]) -> int:
    """The most rows of three or more tiles (the concealed row among them) lying one behind another
    over a common stretch of the row.

    A hand lays its sets in one or two rows in front of the standing row, its flowers perhaps in
    another; a whole tile set laid out for a photo (a shop's picture, a set being checked) is a grid
    of such rows, which the layout would otherwise read as a hand of kongs. Rows side by side along
    the table (a row of sets beside the flowers) are not stacked, whatever the row direction."""
    rows = [(frame.position(run[len(run) // 2], signed=True)[1],
             min(frame.along(t) for t in run) - 0.5, max(frame.along(t) for t in run) + 0.5)
            for run in near if len(run) >= 3]
    if len(concealed) >= 3:
        rows.append((0.0, frame.start / frame.width - 0.5, frame.end / frame.width + 0.5))
    most = 0
    for _, low, high in rows:
        probe = (low + high) / 2
        levels = np.sort([level for level, start, end in rows if start <= probe <= end])
        most = max(most, 1 + int(np.sum(np.diff(levels) > LINE_GAP)))
    return most


def _row_like(run: list[_Tile]) -> bool:
    """A run that can be part of the hand in front of the row: a set or more, or flowers together.
    A set with a tile read unsure as a flower counts as the set it is (:func:`_unflower`)."""
    run = _unflower(run)
    flowers = sum(1 for t in run if t.flower)
    rest = len(run) - flowers
    return rest >= 3 or (flowers >= 2 and flowers >= rest)


def _row_with(runs: list[list[_Tile]], start: int) -> list[int]:
    """Run ``start`` and the runs in line with it, a short gap apart: one concealed row split by gaps
    between its sets (a lone upright tile is not taken: it is the winning tile set apart)."""
    members = [start]
    grown = True
    while grown:
        grown = False
        row = [t for k in members for t in runs[k]]
        frame = _Frame.of(row)
        for k, run in enumerate(runs):
            if k in members or not any(t.plain for t in run):
                continue
            ends = [frame.position(t) for t in (run[0], run[-1])]
            # A lone upright tile joins only when it touches the row (centre about one width beyond
            # its end); a clear gap makes it the winning tile set apart.
            reach = ROW_GAP + _facing_excess(frame, row, run) if len(run) > 1 or run[0].rotated else LONE_JOIN
            if all(across <= COLLINEAR for _, across in ends) and min(b for b, _ in ends) <= reach:
                members.append(k)
                grown = True
    return members


def _facing_excess(frame: _Frame, row: list[_Tile], run: list[_Tile]) -> float:
    """How much longer along the row (in tile widths) the two tiles facing each other across the gap
    between ``row`` and ``run`` are than two upright tiles: :data:`ROW_GAP` counts centres, so a
    sideways winning tile or a nearer, larger face at the gap would otherwise widen it (held-out
    renders 900181 and 940076: a concealed row split at its sideways tile, half of it read as sets)."""
    near = min((run[0], run[-1]), key=lambda t: frame.position(t)[0])
    ahead = frame.along(near) > 0
    facing = max(row, key=frame.along) if ahead else min(row, key=frame.along)
    return max(0.0, (near.along + facing.along) / (2 * frame.width) - 1.0)


def _choose_concealed(runs: list[list[_Tile]], hand_size: int = HAND_SIZE) -> list[list[int]]:
    """Concealed-row hypotheses (as run indices), best first: standing tiles whose count fits
    ``hand_size`` - 3 x (sets near them) before those that do not; a row with a sideways tile first."""
    candidates = [i for i, run in enumerate(runs) if _plain(run) >= 2]
    if not candidates:
        raise InputError("no standing tiles found: lay the hand out face up in a row")
    rows: list[list[int]] = []
    for i in sorted(candidates, key=lambda i: (-_plain(runs[i]), -len(runs[i]))):
        if not any(i in row for row in rows):
            rows.append(_row_with(runs, i))

    def standing(row: list[int]) -> int:
        return sum(_plain(runs[k]) for k in row)

    def fits(row: list[int]) -> int:
        """2: the sets near the row make its count exactly; 1: some of them do; 0: no."""
        tiles = [t for k in row for t in runs[k]]
        frame = _Frame.of(tiles)
        others = [run for k, run in enumerate(runs) if k not in row]
        near = _hand_runs(frame, others)
        sets = sum(_sets_in(run) for run in near if not all(t.back for t in run))
        backs = sum(1 for run in near if all(t.back for t in run) and len(run) == 4)
        winning, source = _winning_tile(tiles, frame, near, [])
        # Some runs in front may be discards or wall (four backs): the row fits if some of the sets
        # near it make the count; exactly all of them is better.
        needed = hand_size - standing(row) - int(source is not None)
        if needed < 0 or needed % 3:
            return 0
        return 2 if needed // 3 == sets + backs or needed // 3 == sets else int(needed // 3 <= sets + backs)

    def sideways(row: list[int]) -> bool:
        return any(t.rotated for k in row for t in runs[k])

    score = {id(row): fits(row) for row in rows}
    if not any(score.values()):
        # With every set laid down only the pair's tile stands (the winning tile, its partner, lies
        # across or apart): a lone upright tile is a row when the sets near it make the hand.
        for i, run in enumerate(runs):
            if len(run) == 1 and run[0].plain and not run[0].rotated and not any(i in row for row in rows):
                row = [i]
                if fits(row) == 2:
                    rows.append(row)
                    score[id(row)] = 2
    rows.sort(key=lambda row: (score[id(row)] == 0, not sideways(row), -score[id(row)], -standing(row)))
    return rows


#: A sideways tile is compared with this many upright tiles of its row nearest it
#: (:func:`_longer_than_neighbours`).
LENGTH_NEIGHBOURS = 2


def _longer_than_neighbours(tile: _Tile, row: list[_Tile], frame: _Frame) -> float:
    """How much longer along the row ``tile`` is than the upright tiles nearest it in ``row``: a
    tile lying across shows its long side along the row, about 1.33 times an upright neighbour's.

    Why not the outline's own length against its depth (:attr:`_Tile.lengthwise`): across the row
    a face is foreshortened by the camera and cut short where a neighbour hides it, so a half-hidden
    upright tile at the far end of a flat row can look as long as the tile lying across (held-out
    render 940076: its 1p 1.72, the winning 5p 1.68; along against neighbours 0.89 and 1.15)."""
    upright = sorted((t for t in row if not t.rotated),
                     key=lambda t: abs(frame.along(t) - frame.along(tile)))[:LENGTH_NEIGHBOURS]
    if not upright:
        return tile.lengthwise
    return tile.along / float(np.mean([t.along for t in upright]))


def _winning_tile(concealed: list[_Tile], frame: _Frame, others: list[list[_Tile]],
                  warnings: list[str]) -> tuple[_Tile | None, list[_Tile] | None]:
    """The winning tile and the run it came from (None if it is in the concealed row)."""
    sideways = [t for t in concealed if t.rotated]
    if len(sideways) == 1:
        return sideways[0], None
    if len(sideways) > 1:
        warnings.append(f"{len(sideways)} sideways tiles in the concealed row; the one lying most across "
                        "the row is taken as the winning tile")
        return max(sideways, key=lambda t: _longer_than_neighbours(t, concealed, frame)), None
    lying = _lying_beside(frame, others)
    if lying is not None:
        return lying[0], lying
    apart = []
    for run in others:
        if len(run) != 1 or not run[0].plain or run[0].rotated:
            continue
        beyond, across = frame.position(run[0])
        if across <= 0.5 and 0.0 < beyond <= 3.0:
            apart.append((beyond, run))
    if apart:
        if len(apart) > 1:
            warnings.append("tiles are set apart at both ends of the concealed row; the nearer one is taken "
                            "as the winning tile")
        run = min(apart, key=lambda item: item[0])[1]
        return run[0], run
    askew = [t for t in concealed if t.askew]
    if len(askew) == 1:
        warnings.append("the winning tile was found by its slant in the concealed row, not flagged as "
                        "sideways by the detector")
        return askew[0], None
    turned = _looks_sideways(concealed)
    if turned is not None:
        warnings.append("the winning tile was found by its shape (lying across the row), not flagged by the "
                        "detector")
        return turned, None
    warnings.append("the photo does not show which tile won (no sideways tile, none set apart); "
                    "every possible winning tile is considered")
    return None, None


def _lying_beside(frame: _Frame, others: list[list[_Tile]]) -> list[_Tile] | None:
    """The lone sideways tile lying closest beside the concealed row (within its length and
    BESIDE_ROW tile heights of it), as its run: the winning tile pushed out in front; None if there
    is none."""
    lying = []
    for run in others:
        if len(run) == 1 and run[0].plain and run[0].rotated:
            beyond, across = frame.position(run[0])
            if beyond <= 1.0 and across <= BESIDE_ROW:
                lying.append((across, run))
    return min(lying, key=lambda item: item[0])[1] if lying else None


def _lone_back(run: list[_Tile]) -> int | None:
    """Where the run's one back lies, when the faces on each side of it make whole sets."""
    at = next(k for k, t in enumerate(run) if t.back)
    pieces = [len(run[:at]), len(run[at + 1:])]
    return at if len(run) >= 4 and all(n == 0 or _composable(n) for n in pieces) else None


def _kong_split(run: list[_Tile]) -> tuple[list[_Tile], list[list[_Tile]]] | None:
    """A concealed kong (4 tiles, some face-down) inside a longer run: (kong, the pieces left)."""
    backs = [k for k, t in enumerate(run) if t.back]
    for start in range(max(0, backs[-1] - 3), min(backs[0], len(run) - 4) + 1):
        before, after = run[:start], run[start + 4:]
        if len(before) in (0, 3, 4, 6, 7, 8) and len(after) in (0, 3, 4, 6, 7, 8):
            return run[start:start + 4], [p for p in (before, after) if p]
    return None


#: A tile the classifier calls a flower this surely stays a flower whatever the counts say.
SURE_FLOWER = 0.9
#: How far (tile widths, centre to the nearest end tile's centre) a sure flower in line with a row
#: of sets may lie from it: a held-out render had one 2.5 widths before its chow.
FLOWER_APART = 3.0


def _composable(n: int) -> bool:
    """Can n touching tiles be cut into sets of 3 and 4?"""
    return n >= 3 and n != 5


def _unflower(run: list[_Tile]) -> list[_Tile]:
    """A set whose tiles are partly read as flowers: take back the least flower-like tiles when
    that (and only that) makes the rest a whole number of sets. Misread faces are the classifier's
    problem; a set of two plus a "flower" is not a thing on the table."""
    flagged = sorted((t for t in run if t.flower and t.flower_p < SURE_FLOWER), key=lambda t: t.flower_p)
    rest = sum(1 for t in run if not t.flower)
    if not flagged or rest == 0 or _composable(rest):
        return run
    for k in range(1, len(flagged) + 1):
        if _composable(rest + k):
            taken = {t.index for t in flagged[:k]}
            return [replace(t, flower=False) if t.index in taken else t for t in run]
    return run


def _reflower(run: list[_Tile]) -> list[_Tile]:
    """A group of flowers with a few tiles misread as set tiles: those are flowers too (a flower
    group is laid apart; two or three set tiles touching it cannot be a set)."""
    flowers = sum(1 for t in run if t.flower)
    rest = [t for t in run if not t.flower]
    if flowers >= 2 and flowers >= len(rest) and not _composable(len(rest)) and not any(t.back for t in rest):
        return [replace(t, flower=True) for t in run]
    return run


def _flower_log_likelihood(run: list[_Tile]) -> float:
    """How well a run's flower/set split agrees with the classifier's flower mass on each tile."""
    return sum(math.log(max(t.flower_p if t.flower else 1.0 - t.flower_p, 1e-3)) for t in run)


def _settle_flowers(run: list[_Tile]) -> list[_Tile]:
    """Which tiles of a run are flowers, where the readings leave the rest no whole number of sets.

    Two mends: :func:`_unflower` takes the least flower-like tiles back into the sets, then
    :func:`_reflower` may make a flower group whole; or :func:`_reflower` alone. They disagree on a
    row of flowers with one flower misread as a set tile (seven in a row, one read 2p: the first
    made a "set" of 2p and the two least sure flowers) and on a set misread as flowers beside a
    flower. The one asking the classifier to be wrong about less flower mass wins (a tie keeps the
    first, the only mend before the twelfth session).
    """
    taken_back = _reflower(_unflower(run))
    all_flowers = _reflower(run)
    if all_flowers in (run, taken_back):
        return taken_back
    return max((taken_back, all_flowers), key=_flower_log_likelihood)


def _exposed_groups(runs: list[list[_Tile]]) -> tuple[list[TileGroup], list[int]]:
    """Flowers out of every run; the rest are exposed sets or concealed kongs (by their backs)."""
    groups: list[TileGroup] = []
    flowers: list[int] = []
    stray: list[int] = []
    pending = list(runs)
    while pending:
        run = _settle_flowers(pending.pop(0))
        flowers.extend(t.index for t in run if t.flower)
        rest = [t for t in run if not t.flower]
        if not rest:
            continue
        backs = sum(t.back for t in rest)
        if len(rest) < 3 or (backs and len(rest) != 4 and backs == len(rest)):
            stray.extend(t.index for t in rest)
            continue
        lone_back = _lone_back(rest) if backs == 1 else None
        if lone_back is not None:
            # A concealed kong shows two backs or four; one back beside sets of faces is a gap or
            # shadow taken for a tile (a faint detection), so the faces are sets of their own.
            stray.append(rest[lone_back].index)
            pending.extend(piece for piece in (rest[:lone_back], rest[lone_back + 1:]) if piece)
        elif backs and len(rest) == 4:
            groups.append(TileGroup(GroupRole.CONCEALED_KONG, tuple(t.index for t in rest)))
        elif backs:
            split = _kong_split(rest)
            if split is None:
                stray.extend(t.index for t in rest)
                continue
            kong, pieces = split
            groups.append(TileGroup(GroupRole.CONCEALED_KONG, tuple(t.index for t in kong)))
            pending.extend(pieces)
        else:
            groups.append(TileGroup(GroupRole.MELD, tuple(t.index for t in rest)))
    if flowers:
        groups.append(TileGroup(GroupRole.FLOWERS, tuple(flowers)))
    return groups, stray


#: Backs of a concealed kong the detector may miss some of (plain coloured blocks at a group's end).
PARTIAL_KONG_BACKS = (2, 3)


def _partial_kong(groups: list[TileGroup], stray: list[int], near: list[list[_Tile]], standing: int,
                  warnings: list[str], hand_size: int = HAND_SIZE) -> tuple[list[TileGroup], list[int]]:
    """Two or three backs in a run of their own near the hand become a concealed kong when the hand
    is exactly one set short. A concealed kong lies as four backs (or two backs around two faces), and
    the backs are the tiles the detector misses most; a stray run of backs is otherwise a piece of
    wall, so this happens only when the tile count asks for one more set and one such run is there."""
    sets = sum(_sets_of(g) for g in groups)
    if standing != hand_size - 3 * (sets + 1):
        return groups, stray
    loose = set(stray)
    candidates = []
    for run in near:
        indices = [t.index for t in run if not t.flower]
        if _backs_only(run) in PARTIAL_KONG_BACKS and loose.issuperset(indices):
            candidates.append(tuple(indices))
    if len(candidates) != 1:
        return groups, stray
    kong = candidates[0]
    warnings.append(f"a concealed kong was read from {len(kong)} backs; its other {4 - len(kong)} "
                    "were not found in the photo")
    at = next((k for k, g in enumerate(groups) if g.role is GroupRole.FLOWERS), len(groups))
    groups = groups[:at] + [TileGroup(GroupRole.CONCEALED_KONG, kong)] + groups[at:]
    return groups, [i for i in stray if i not in kong]


def _sets_of(group: TileGroup) -> int:
    if group.role is GroupRole.CONCEALED_KONG:
        return 1
    return _sets_in_count(len(group.tile_indices)) if group.role is GroupRole.MELD else 0


def _sets_in_count(n: int) -> int:
    return 0 if n < 3 else max(1, min(n // 3, (n + 3) // 4 if n % 3 else n // 3))


def _doubt(group: TileGroup, tiles: dict[int, _Tile], frame: _Frame) -> float:
    """How little a group looks like a set laid by the player: all backs (a piece of wall), tiles
    lying every which way (discards that happen to touch), far from the row."""
    members = [tiles[i] for i in group.tile_indices]
    doubt = 1.0 if all(t.back for t in members) else 0.0
    for values in ([t.along for t in members], [t.across for t in members]):
        doubt += 4.0 * float(np.std(values) / max(np.mean(values), 1e-6))
    # Far away on the table (the discards' area): smaller than the hand's tiles, farther across.
    size = float(np.mean([t.width for t in members])) / frame.width
    doubt += 4.0 * max(0.0, 0.85 - size)
    return doubt + 1.0 * float(np.mean([frame.position(t)[1] for t in members]))


def _fit_count(groups: list[TileGroup], standing: int, tiles: dict[int, _Tile], frame: _Frame,
               hand_size: int = HAND_SIZE) -> tuple[list[TileGroup], list[int]]:
    """Too many sets for the standing tiles (``hand_size`` - 3 per set): drop the most doubtful groups
    (wall pieces, discards touching) when that makes the count exact."""
    sets = sum(_sets_of(g) for g in groups)
    if standing <= hand_size - 3 * sets or (hand_size - standing) % 3:
        return groups, []
    needed = (hand_size - standing) // 3
    doubtful = sorted((g for g in groups if g.role is not GroupRole.FLOWERS),
                      key=lambda g: -_doubt(g, tiles, frame))
    dropped: list[TileGroup] = []
    for group in doubtful:
        if sets <= needed:
            break
        if sets - _sets_of(group) < needed:
            continue
        dropped.append(group)
        sets -= _sets_of(group)
    if sets != needed:
        return groups, []
    kept = [g for g in groups if not any(g is d for d in dropped)]
    return kept, [i for g in dropped for i in g.tile_indices]


class FaceDownRowError(InputError):
    """The row taken for the concealed one is mostly backs: a Ting hand, or a wall taken for the row."""


def layout_tiles(readings: list[TileReading], hand_size: int = HAND_SIZE) -> Layout:
    """Arrange readings into the hand's groups; see the module docstring for the table conventions.

    Groups hold indices into ``readings``; the concealed group includes the winning tile. A MELD
    group may hold several touching sets (6-8 tiles): the decoder splits it into legal sets.
    Raises InputError when there are no tiles, two hands, or a face-down concealed row.
    ``hand_size``: the tiles of a complete hand under the rule set (:data:`vision.types.HAND_SIZE`).
    """
    return layout_candidates(readings, limit=1, hand_size=hand_size)[0]


def layout_candidates(readings: list[TileReading], limit: int = 3, complete_kongs: bool = False,
                      hand_size: int = HAND_SIZE) -> list[Layout]:
    """Up to ``limit`` layouts, most plausible first, differing in which row is the concealed one.

    Two rows can both fit the tile count (four standing tiles and ten exposed in a row in front of
    them, or the other way round); only the tiles' faces can tell, so the decoder tries them in
    order and keeps the first that reads as a legal winning hand. ``complete_kongs`` reads two or
    three backs as a concealed kong whose other backs were not found, when the hand is one set short
    (:func:`_partial_kong`); a photo may, the camera should not (the player may still be laying it).
    ``hand_size``: the tiles of a complete hand, a kong as 3 (17; 14 under a 13-tile rule set).
    """
    if not readings:
        raise InputError("no tiles found in the photo")
    tiles = _to_tiles(readings, _row_angle(readings))
    runs = _runs(tiles)
    if sum(t.face_down for t in tiles) * 2 > len(tiles) and not any(_plain(r) >= 2 for r in runs):
        raise InputError("the concealed tiles are face-down (Ting?); turn them face up to read the hand")
    rows = _choose_concealed(runs, hand_size)
    layouts: list[Layout] = []
    first_error: InputError | None = None
    considered = limit  # rows looked at: the ``limit`` likeliest, and one more per row of backs
    for row in rows:
        if considered == 0:  # also when ``limit`` layouts are made: each took one look
            break
        considered -= 1
        try:
            layouts.append(_layout_for(readings, runs, row, complete_kongs, hand_size))
        except FaceDownRowError as error:
            # A row of backs (a wall that the tile count fitted better than the hand's row) gives
            # way to the next row; if no row reads, the likeliest row's reason is the one given.
            first_error = first_error or error
            considered += 1
        except InputError:
            if not layouts and first_error is None:
                raise  # the likeliest row's reason (two hands, a grid) stands
            # an unlikely reading of the rows that makes no sense; the first one stands
    if not layouts:
        assert first_error is not None
        raise first_error
    return layouts


def concealed_row_of_sure_tiles(readings: list[TileReading],
                                hand_size: int = HAND_SIZE) -> tuple[list[int], int | None] | None:
    """The concealed row of the most plausible layout of the sure detections (spares left out), as
    indices into ``readings``, and the winning tile's index there (None when the layout names none);
    None when the sure tiles make no layout. For the second looks at a photo (a tile read turned, a
    tile too many), which ask where the row lies before the hand is read again."""
    sure = [i for i, reading in enumerate(readings) if not reading.detection.spare]
    try:
        layout = layout_candidates([readings[i] for i in sure], hand_size=hand_size)[0]
    except InputError:
        return None
    found = concealed_row_in(layout)
    if found is None:
        return None
    row, winning = found
    return [sure[k] for k in row], (None if winning is None else sure[winning])


def concealed_row_in(layout: Layout) -> tuple[list[int], int | None] | None:
    """``layout``'s concealed row and winning tile, as indices into the readings it was laid out
    from; None when it has no concealed row."""
    concealed = next((g for g in layout.groups if g.role is GroupRole.CONCEALED), None)
    if concealed is None:
        return None
    return list(concealed.tile_indices), layout.winning_index


def _layout_for(readings: list[TileReading], runs: list[list[_Tile]], row: list[int],
                complete_kongs: bool = False, hand_size: int = HAND_SIZE) -> Layout:
    concealed = [t for k in row for t in runs[k]]
    frame = _Frame.of(concealed)
    concealed.sort(key=lambda t: float(np.array([t.x, t.y]) @ frame.direction))
    warnings: list[str] = []
    rest = [r for k, r in enumerate(runs) if k not in row]
    near = _hand_runs(frame, rest)
    far = [r for r in rest if not any(r is n for n in near)]
    long_runs = [r for r in far if _plain(r) >= LONG_RUN]
    if long_runs and _plain(concealed) >= LONG_RUN:
        raise InputError(f"the photo seems to show two hands (rows of {_plain(concealed)} and "
                         f"{_plain(long_runs[0])} standing tiles); photograph one hand at a time")
    stacked = _stacked_rows(frame, concealed, near)
    if stacked >= GRID_LINES:
        raise InputError(f"the photo seems to show tiles laid out in a grid ({stacked} rows of three or "
                         "more, one behind another), not one hand; photograph one player's hand as laid "
                         "down at the table")
    winning, source = _winning_tile(concealed, frame, near, warnings)
    standing = sum(1 for t in concealed if not t.flower or t.flower_p < SURE_FLOWER)
    rival = _lying_beside(frame, near) if source is None and winning is not None and winning.rotated else None
    if rival is not None:
        groups, _ = _exposed_groups([r for r in near if r is not rival])
        if standing + 1 == hand_size - 3 * sum(_sets_of(g) for g in groups):
            # The row's sideways tile makes the hand a tile short; with the tile lying beside the row
            # as the winning tile it is whole: the row's tile stands, its sideways flag was wrong.
            warnings.append("a tile lying beside the concealed row was taken as the winning tile, not the "
                            "row's sideways tile (the tile count fits only so)")
            winning, source = rival[0], rival
    if source is not None:
        near = [r for r in near if r is not source]
    groups, stray = _exposed_groups(near)
    by_index = {t.index: t for run in runs for t in run}
    lying = int(source is not None)
    standing += lying
    groups, dropped = _fit_count(groups, standing, by_index, frame, hand_size)
    if complete_kongs:
        groups, stray = _partial_kong(groups, stray, near, standing, warnings, hand_size)
    if stray:
        warnings.append(f"{len(stray)} tile(s) near the hand belong to no set and were ignored")
    if dropped:
        warnings.append(f"{len(dropped)} tile(s) touching in front of the hand were taken for discards or a "
                        "wall, not sets (the tile count fits without them)")
        stray = stray + dropped
    # Flowers never stand in the concealed row; tiles there read as flowers leave it only if the
    # tile count says so (flowers laid in line with the row), else they are misread set tiles.
    sets = sum(_sets_of(g) for g in groups)
    flagged = [t for t in concealed if t.flower]
    loose = flagged if flagged and len(concealed) - len(flagged) + lying == hand_size - 3 * sets else []
    concealed = [t if t.flower and t in loose else replace(t, flower=False) for t in concealed]
    concealed_indices = [t.index for t in concealed if not t.flower]
    loose_flowers = [t.index for t in concealed if t.flower]
    if loose_flowers:
        flower_group = next((g for g in groups if g.role is GroupRole.FLOWERS), None)
        merged = tuple(sorted((flower_group.tile_indices if flower_group else ()) + tuple(loose_flowers)))
        groups = [g for g in groups if g.role is not GroupRole.FLOWERS]
        groups.append(TileGroup(GroupRole.FLOWERS, merged))
    winning_index = winning.index if winning is not None else None
    if winning_index is not None and winning_index not in concealed_indices:
        concealed_indices.append(winning_index)
    face_down = [i for i in concealed_indices if readings[i].detection.face_down]
    if face_down and len(face_down) * 2 > len(concealed_indices):
        raise FaceDownRowError("the concealed tiles are face-down (Ting?); turn them face up to read the "
                               "hand")
    groups.insert(0, TileGroup(GroupRole.CONCEALED, tuple(concealed_indices)))
    ignored_tiles = [t.index for r in far for t in r]
    if ignored_tiles:
        warnings.insert(0, f"{len(ignored_tiles)} tile(s) away from the hand were ignored (discards, walls)")
    ignored = tuple(sorted(ignored_tiles + stray))
    return Layout(groups=groups, winning_index=winning_index, ignored=ignored, warnings=warnings,
                  set_aside=tuple(sorted(stray)))
