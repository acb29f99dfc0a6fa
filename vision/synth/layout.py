"""Where the hand's tiles lie on the table, as seed 000 describes (table coordinates, mm).

The concealed row at y >= 0, set by set, standing towards the player or laid flat; the winning
tile sideways after its set (flat row) or lying sideways on the player's side of it, where the
camera sees it (standing row: laid beyond it, it hides behind the standing faces); exposed
melds, concealed kongs and the flowers in a row in front, the claimed tile in the middle of its
set (sometimes sideways). x = 0 is the middle of the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.synth.bodies import Body, tile_axes
from vision.synth.config import SceneConfig
from vision.synth.hands import HandPlan
from vision.synth.look import TileLook


@dataclass
class PlacedTile:
    """A tile in the scene before projection: where it is, what it shows, what it is in the hand."""

    code: str  # the face printed on it
    centre: np.ndarray
    axes: np.ndarray
    role: str
    group: int | None = None
    rotated: bool = False
    face_down: bool = False
    standing: bool = False


def lay_out_hand(plan: HandPlan, look: TileLook, rng: np.random.Generator, tiles: list[PlacedTile],
                 config: SceneConfig) -> tuple[float, float, float, float]:
    """Place the hand's tiles (concealed row at y >= 0, melds beyond it); return its extent x0, y0, x1, y1."""
    w, h, d = look.width, look.height, look.depth
    gap = float(rng.uniform(0.2, 1.2))
    standing = bool(rng.random() < config.standing_probability)
    row_group = 0

    # The concealed row, set by set; the winning tile comes out of its set and lies sideways.
    sequence: list[tuple[str, int | None]] = []  # (code, set index)
    winning_removed = False
    for set_index, planned in enumerate(plan.concealed_sets):
        for code in planned.tiles:
            if not winning_removed and set_index == plan.winning_set and code == plan.winning_tile:
                winning_removed = True
                continue
            sequence.append((code, set_index))
    loose = list(plan.loose)
    if not plan.concealed_sets and plan.winning_tile in loose:
        loose.remove(plan.winning_tile)
        winning_removed = True
    sequence.extend((code, None) for code in loose)
    set_gap = float(rng.uniform(0.0, 0.25)) * w if rng.random() < 0.4 else 0.0

    x = 0.0
    set_spans: dict[int | None, list[float]] = {}
    previous_set: int | None = -1
    row_depth = d if standing else h
    for position, (code, set_index) in enumerate(sequence):
        if previous_set not in (-1, set_index):
            x += set_gap
        previous_set = set_index
        centre_x = x + w / 2
        if standing:
            centre = np.array([centre_x, d / 2, h / 2])
            axes = tile_axes(True, jitter(rng, 1.5), standing=True)
        else:
            centre = np.array([centre_x, h / 2, d / 2])
            axes = tile_axes(True, jitter(rng, 1.5))
        tiles.append(PlacedTile(code, centre + offset(rng), axes, "concealed", row_group, standing=standing))
        set_spans.setdefault(set_index, []).extend([x, x + w])
        x += w + gap
        if (winning_removed and not standing and set_index == plan.winning_set
                and _last_of_set(sequence, position, set_index)):
            x = _place_sideways_winner(plan, look, rng, tiles, x, gap, row_group)
    if winning_removed and not standing and not any(t.role == "winning" for t in tiles):
        x = _place_sideways_winner(plan, look, rng, tiles, x, gap, row_group)
    row_end = x - gap
    y_start = 0.0
    if winning_removed and standing:
        span = set_spans.get(plan.winning_set) or [row_end - w, row_end]
        centre_x = (min(span) + max(span)) / 2
        yaw = 90.0 if rng.random() < 0.5 else -90.0
        centre = np.array([centre_x, -float(rng.uniform(6, 20)) - w / 2, d / 2])
        tiles.append(PlacedTile(plan.winning_tile, centre, tile_axes(True, yaw + jitter(rng, 3)), "winning",
                                row_group, rotated=True))
        y_start = centre[1] - w / 2

    # Melds, concealed kongs and flowers in front of the row.
    # role, codes, claimed index, which tiles lie face down
    groups: list[tuple[str, list[str], int | None, tuple[bool, ...]]] = []
    for meld in plan.melds:
        if meld.concealed_kong:
            groups.append(("concealed_kong", meld.tiles, None, _kong_faces(rng)))
        else:
            groups.append(("meld", meld.tiles, meld.claimed_index, (False,) * len(meld.tiles)))
    order = list(rng.permutation(len(groups))) if rng.random() < 0.3 else list(range(len(groups)))
    groups = [groups[i] for i in order]
    if plan.flowers:
        flower_group = ("flower", list(plan.flowers), None, (False,) * len(plan.flowers))
        groups.insert(0 if rng.random() < 0.5 else len(groups), flower_group)
    claimed_sideways = bool(rng.random() < config.claimed_sideways_probability)
    y = row_depth + float(rng.uniform(10, 45))
    meld_x0 = float(rng.uniform(-0.1, 0.25)) * max(row_end, w)
    x = meld_x0
    group_id = row_group + 1
    max_width = max(row_end * 1.05, 12 * w)
    row_height = h
    for role, codes, claimed, face_down in groups:
        length = len(codes) * (w + gap) + (h - w if claimed_sideways and claimed is not None else 0)
        if x > meld_x0 and x + length - meld_x0 > max_width:  # wrap to a second row
            x = meld_x0
            y += row_height + float(rng.uniform(8, 25))
        for index, code in enumerate(codes):
            sideways = claimed_sideways and claimed == index
            if sideways:
                yaw = 90.0 if rng.random() < 0.5 else -90.0
                centre = np.array([x + h / 2, y + w / 2, d / 2])
                x += h + gap
            else:
                yaw = 0.0
                centre = np.array([x + w / 2, y + h / 2, d / 2])
                x += w + gap
            axes = tile_axes(not face_down[index], yaw + jitter(rng, 2.0))
            tiles.append(PlacedTile(code, centre + offset(rng), axes, role, group_id, rotated=sideways,
                                    face_down=face_down[index]))
        x += float(rng.uniform(0.3, 1.2)) * w
        group_id += 1
    y_end = y + row_height if groups else row_depth
    x_min = min(0.0, meld_x0)
    x_max = max(row_end, x)
    # Centre the hand on x = 0.
    shift = np.array([-(x_min + x_max) / 2, 0.0, 0.0])
    for tile in tiles:
        tile.centre = tile.centre + shift
    return (x_min + shift[0], y_start, x_max + shift[0], y_end)


def _last_of_set(sequence: list[tuple[str, int | None]], row_index: int, set_index: int | None) -> bool:
    """Is position ``row_index`` of the row the last tile of its set? (Winning tiles are not counted.)"""
    return row_index + 1 >= len(sequence) or sequence[row_index + 1][1] != set_index


def _place_sideways_winner(plan: HandPlan, look: TileLook, rng: np.random.Generator, tiles: list[PlacedTile],
                           x: float, gap: float, group: int) -> float:
    """The winning tile turned sideways inside a flat row, right after the set it completes."""
    w, h, d = look.width, look.height, look.depth
    yaw = 90.0 if rng.random() < 0.5 else -90.0
    extra_gap = float(rng.uniform(0.5, 4.0))
    centre = np.array([x + extra_gap + h / 2, h / 2 + float(rng.uniform(-0.15, 0.15)) * w, d / 2])
    tiles.append(PlacedTile(plan.winning_tile, centre, tile_axes(True, yaw + jitter(rng, 3)), "winning",
                            group, rotated=True))
    return x + extra_gap + h + gap + extra_gap


def _kong_faces(rng: np.random.Generator) -> tuple[bool, ...]:
    """Which tiles of a concealed kong lie face down: all four (as played), or, as it is revealed at
    the end of the hand, the two in the middle or the two at the ends turned up."""
    draw = rng.random()
    if draw < 0.5:
        return (True, True, True, True)
    return (True, False, False, True) if draw < 0.75 else (False, True, True, False)


def jitter(rng: np.random.Generator, degrees: float) -> float:
    return float(rng.normal(0, degrees / 2))


def offset(rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.normal(0, 0.4), rng.normal(0, 0.6), 0.0])


def turn_scene(rng: np.random.Generator, tiles: list[PlacedTile], extras: list) -> None:
    """Turn the whole arrangement a little on the table, so the hand is not aligned with the texture."""
    angle = math.radians(float(rng.normal(0, 6)))
    rotation = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0],
                         [0, 0, 1]])
    for tile in tiles:
        tile.centre = rotation @ tile.centre
        tile.axes = rotation @ tile.axes
    for body in extras:
        body.centre = rotation @ body.centre
        if isinstance(body, Body):
            body.axes = rotation @ body.axes


def tile_corners(tile: PlacedTile, look: TileLook) -> np.ndarray:
    """The 8 corners (world mm) of a placed tile's body."""
    half = np.array([look.width, look.height, look.depth]) / 2
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return tile.centre + (signs * half) @ tile.axes.T
