"""Compose and render one synthetic table scene with its full ground truth.

The hand is laid out as seed 000 describes: the concealed tiles in a row (standing towards the
player, or laid flat), exposed sets and flowers in front of it (towards the table centre), the
claimed tile in the middle of its set (sometimes turned sideways), the winning tile turned sideways
across the set it completes (inside a flat row, or lying in front of a standing row), concealed
kongs as four face-down tiles. Around it: discards, walls, other players' racks, a tray, coins, a
phone, and hands that may cover tiles.

Everything lives in table coordinates (mm) and is projected by one pinhole camera, so the labels
(face quads, boxes, sideways / face-down flags, visibility) are exact by construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from scoring import hand_from_json
from scoring.tiles import BACK, FACE_CODES, is_flower
from vision.dataset.manifest import ManifestRecord, TileLabel
from vision.synth import occluders, photometric
from vision.synth.bodies import Body, Lighting, bevelled, draw_body, tile_axes
from vision.synth.camera import Camera, distort_image, orbit_camera, quantise_k1
from vision.synth.faces import BACK_COLOURS_BGR, FaceStyle, face_styles, fill_missing
from vision.synth.hands import HandPlan, plan_hand, random_winning_hand
from vision.synth.table import render_table, table_texture

#: Highest camera elevation (degrees) for a standing concealed row, whose faces look at the player.
STANDING_MAX_ELEVATION = 58.0


@dataclass
class SceneConfig:
    """What varies between scenes and by how much (defaults: the training distribution)."""

    width: int = 1280
    height: int = 960
    split: str = "train"  # which real crop sets may be used ("val": only the held-out sets)
    standing_probability: float = 0.55  # concealed row standing (else laid flat)
    claimed_sideways_probability: float = 0.3  # claimed tiles of melds turned sideways
    elevation_degrees: tuple[float, float] = (28.0, 90.0)
    azimuth_jitter_degrees: float = 25.0  # around the player's side
    any_azimuth_probability: float = 0.1  # camera from any side of the table
    roll_degrees: float = 8.0
    fov_degrees: tuple[float, float] = (50.0, 72.0)
    hand_fill: tuple[float, float] = (0.55, 0.97)  # hand width as a fraction of the image
    distractors: bool = True
    max_discards: int = 40
    occluder_probability: float = 0.35  # a player's hand over the table
    lens_probability: float = 0.6  # a visibly distorting lens (else an ideal pinhole)
    lens_k1: tuple[float, float] = (-0.02, 0.12)
    noise_sigma: tuple[float, float] = (0.0, 7.0)
    defocus_sigma: tuple[float, float] = (0.0, 1.2)
    motion_blur_probability: float = 0.12
    jpeg_quality: tuple[int, int] = (55, 95)
    grayscale_probability: float = 0.03
    saturation: tuple[float, float] = (0.3, 0.9)  # real table photos are less colourful than renders
    jpeg_in_memory: bool = True  # return the image as the JPEG would show it (writers encode it instead)
    shadows: bool = True
    photometric: bool = True


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


@dataclass
class TileLook:
    """The physical set used in one scene: face textures, body size and colours."""

    style: FaceStyle
    pool: tuple[FaceStyle, ...]
    width: float
    height: float
    depth: float
    back_bgr: tuple[int, int, int]
    back_texture: np.ndarray
    layer: float
    textures: dict[str, np.ndarray] = field(default_factory=dict)

    def face(self, code: str, rng: np.random.Generator) -> np.ndarray:
        if code not in self.textures:  # one texture per face per scene, as in a real set
            self.textures[code] = bevelled(fill_missing(self.style, code, self.pool, rng))
        return self.textures[code]


def render_scene(rng: np.random.Generator, config: SceneConfig | None = None,
                 hand: dict[str, Any] | None = None) -> tuple[np.ndarray, ManifestRecord]:
    """Render one scene; return the BGR image and its manifest record (``image`` is a placeholder name).

    ``hand`` (hand JSON) renders that hand instead of a random legal winning hand; it must be
    well-formed (InputError otherwise) but need not be a win, so readers' error paths can be tested.
    """
    config = config or SceneConfig()
    if hand is None:
        hand = random_winning_hand(rng)
    else:
        hand_from_json(hand)  # a malformed or impossible hand is an InputError, not a broken scene
    plan = plan_hand(hand, rng)
    look = _pick_look(rng, config)
    tiles: list[PlacedTile] = []
    extras: list[Body] = []
    hand_extent = _lay_out_hand(plan, look, rng, tiles, config)
    hand_count = len(tiles)
    if config.distractors:
        _add_distractors(hand_extent, look, rng, tiles, extras, hand)
    _turn_scene(rng, tiles, extras, hand_extent)
    camera = _frame_camera(rng, config, tiles[:hand_count], look)
    light = _pick_light(rng)

    texture, surface = table_texture(rng)
    floor = tuple(int(v) for v in rng.integers(20, 90, 3))
    image = render_table(camera, texture, floor)
    bodies = [_tile_body(tile, look, index + 1, rng) for index, tile in enumerate(tiles)]
    hand_overs = occluders.random_hands(rng, tiles, config.occluder_probability)
    if config.shadows:
        image = _cast_shadows(image, camera, bodies + extras, hand_overs, light, rng)
    visibility = np.zeros((config.height, config.width), np.int16)
    # Trays, phones and coins are low and never under a tile: drawn first, like part of the table
    # (depth-sorting a long tray against short tiles would paint it over tiles it lies beside).
    bodies.sort(key=lambda body: -float(camera.to_camera(body.centre[None])[0, 2]))
    extras.sort(key=lambda body: -float(camera.to_camera(body.centre[None])[0, 2]))
    for body in extras + bodies:
        if not _in_view(body.corners(), camera):
            continue
        if isinstance(body, occluders.Disc):
            body.draw(image, camera, light, visibility)
            continue
        draw_body(image, body, camera, light, rng)
        cv2.fillConvexPoly(visibility, body.footprint_polygon(camera), body.ident or -1)
    for over in hand_overs:
        over.draw(image, camera, light, visibility)

    labels = _labels(tiles, look, camera, visibility, hand_count)
    image, quality = _finish(image, rng, config, camera)
    record = ManifestRecord(
        image="scene.jpg",
        width=config.width,
        height=config.height,
        tiles=labels,
        hand=hand,
        source="synth",
        set_id=look.style.name,
        split=config.split,
        extra={"surface": surface, "camera": _camera_summary(camera), "jpeg_quality": quality,
               "tile_back_bgr": list(look.back_bgr),
               "concealed_standing": bool(tiles and tiles[0].standing)},
    )
    return image, record


def _pick_look(rng: np.random.Generator, config: SceneConfig) -> TileLook:
    pool = face_styles(config.split)
    if not pool:
        pool = face_styles("train")
    real = [s for s in pool if s.name.startswith("crop:")]
    drawn = [s for s in pool if not s.name.startswith("crop:")]
    family = real if real and (not drawn or rng.random() < 0.45) else drawn
    style = family[int(rng.integers(0, len(family)))]
    width = float(rng.uniform(25.0, 30.0))
    back = np.array(BACK_COLOURS_BGR[int(rng.integers(0, len(BACK_COLOURS_BGR)))], np.float32)
    back = np.clip(back * rng.uniform(0.8, 1.15) + rng.normal(0, 8, 3), 0, 255)
    back_bgr = tuple(int(v) for v in back)
    back_texture = np.empty((32, 24, 3), np.uint8)
    back_texture[:] = back_bgr
    back_texture = bevelled(cv2.resize(back_texture, (96, 128)))
    return TileLook(style=style, pool=pool, width=width, height=width * float(rng.uniform(1.28, 1.4)),
                    depth=width * float(rng.uniform(0.66, 0.8)), back_bgr=back_bgr,
                    back_texture=back_texture, layer=float(rng.uniform(0.45, 0.7)))


# --------------------------------------------------------------------------------------------- layout

def _lay_out_hand(plan: HandPlan, look: TileLook, rng: np.random.Generator, tiles: list[PlacedTile],
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
            axes = tile_axes(True, _jitter(rng, 1.5), standing=True)
        else:
            centre = np.array([centre_x, h / 2, d / 2])
            axes = tile_axes(True, _jitter(rng, 1.5))
        tiles.append(PlacedTile(code, centre + _offset(rng), axes, "concealed", row_group, standing=standing))
        set_spans.setdefault(set_index, []).extend([x, x + w])
        x += w + gap
        if (winning_removed and not standing and set_index == plan.winning_set
                and _last_of_set(sequence, position, set_index)):
            x = _place_sideways_winner(plan, look, rng, tiles, x, gap, row_group)
    if winning_removed and not standing and not any(t.role == "winning" for t in tiles):
        x = _place_sideways_winner(plan, look, rng, tiles, x, gap, row_group)
    row_end = x - gap
    lane = 0.0
    if winning_removed and standing:
        span = set_spans.get(plan.winning_set) or [row_end - w, row_end]
        centre_x = (min(span) + max(span)) / 2
        yaw = 90.0 if rng.random() < 0.5 else -90.0
        centre = np.array([centre_x, row_depth + float(rng.uniform(4, 15)) + w / 2, d / 2])
        tiles.append(PlacedTile(plan.winning_tile, centre, tile_axes(True, yaw + _jitter(rng, 3)), "winning",
                                row_group, rotated=True))
        lane = w + 15.0

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
    y = row_depth + lane + float(rng.uniform(10, 45))
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
            axes = tile_axes(not face_down[index], yaw + _jitter(rng, 2.0))
            tiles.append(PlacedTile(code, centre + _offset(rng), axes, role, group_id, rotated=sideways,
                                    face_down=face_down[index]))
        x += float(rng.uniform(0.3, 1.2)) * w
        group_id += 1
    y_end = y + row_height if groups else row_depth + lane
    x_min = min(0.0, meld_x0)
    x_max = max(row_end, x)
    # Centre the hand on x = 0.
    shift = np.array([-(x_min + x_max) / 2, 0.0, 0.0])
    for tile in tiles:
        tile.centre = tile.centre + shift
    return (x_min + shift[0], 0.0, x_max + shift[0], y_end)


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
    tiles.append(PlacedTile(plan.winning_tile, centre, tile_axes(True, yaw + _jitter(rng, 3)), "winning",
                            group, rotated=True))
    return x + extra_gap + h + gap + extra_gap


def _kong_faces(rng: np.random.Generator) -> tuple[bool, ...]:
    """Which tiles of a concealed kong lie face down: all four (as played), or, as it is revealed at
    the end of the hand, the two in the middle or the two at the ends turned up."""
    draw = rng.random()
    if draw < 0.5:
        return (True, True, True, True)
    return (True, False, False, True) if draw < 0.75 else (False, True, True, False)


def _jitter(rng: np.random.Generator, degrees: float) -> float:
    return float(rng.normal(0, degrees / 2))


def _offset(rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.normal(0, 0.4), rng.normal(0, 0.6), 0.0])


# --------------------------------------------------------------------------------------------- distractors

def _add_distractors(extent: tuple[float, float, float, float], look: TileLook, rng: np.random.Generator,
                     tiles: list[PlacedTile], extras: list[Body], hand: dict[str, Any]) -> None:
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
    n_discards = int(rng.integers(0, 71)) if rng.random() < 0.85 else 0
    heaps = [np.array([rng.uniform(-350, 350), rng.uniform(y1 + 80, y1 + 450)])
             for _ in range(int(rng.integers(1, 4)))]
    spread = float(rng.uniform(70, 200))
    room = h * (0.48 if rng.random() < 0.4 else 0.58)  # dense heaps: tiles nearly touching
    for _ in range(n_discards):
        for _attempt in range(10):
            heap = heaps[int(rng.integers(0, len(heaps)))]
            cx, cy = (float(v) for v in heap + rng.normal(0, spread, 2))
            if cy > y1 + 25 and free(cx, cy, room):
                tiles.append(_discard(rng, _draw_code(rng, remaining), cx, cy, look))
                taken.append((cx, cy, room))
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
                        axes = tile_axes(False, yaw - 90.0 + _jitter(rng, 1.5))
                        centre = np.array([point[0], point[1], d / 2 + level * (d + 0.3)])
                        tiles.append(PlacedTile(_draw_code(rng, remaining), centre, axes, "distractor",
                                                face_down=True))
                    taken.append((point[0], point[1], h * 0.6))
                break
    # Other players' racks: tiles standing with their backs to the camera.
    if rng.random() < 0.3:
        length = int(rng.integers(8, 17))
        yaw = float(rng.choice([180.0, 90.0, -90.0])) + _jitter(rng, 8)
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


def _turn_scene(rng: np.random.Generator, tiles: list[PlacedTile], extras: list[Body],
                extent: tuple[float, float, float, float]) -> None:
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


# --------------------------------------------------------------------------------------------- camera, light

def _frame_camera(rng: np.random.Generator, config: SceneConfig, hand_tiles: list[PlacedTile],
                  look: TileLook) -> Camera:
    """A camera that sees the whole hand inside the image with a margin, filling a random fraction."""
    points = np.concatenate([_tile_corners(tile, look) for tile in hand_tiles])
    target = points.mean(axis=0) * np.array([1, 1, 0])
    lo, hi = config.elevation_degrees
    standing = any(tile.standing for tile in hand_tiles)
    if standing:  # a standing row's faces look at the player: seen from the front, never from above
        hi = min(hi, STANDING_MAX_ELEVATION)
        lo = min(lo, hi)
    mode = float(np.clip((lo + hi) / 2 - 5, lo, hi))
    elevation = float(rng.triangular(lo, mode, hi)) if hi > lo else lo
    if rng.random() < config.any_azimuth_probability and not standing:
        azimuth = float(rng.uniform(-180, 180))
    else:
        azimuth = -90.0 + float(np.clip(rng.normal(0, config.azimuth_jitter_degrees / 2),
                                        -config.azimuth_jitter_degrees, config.azimuth_jitter_degrees))
    roll_limit = config.roll_degrees * 2
    roll = float(np.clip(rng.normal(0, config.roll_degrees / 2), -roll_limit, roll_limit))
    fov = math.radians(float(rng.uniform(*config.fov_degrees)))
    focal = config.width / 2 / math.tan(fov / 2)
    fill = float(rng.uniform(*config.hand_fill))
    k1 = quantise_k1(float(rng.uniform(*config.lens_k1))) if rng.random() < config.lens_probability else 0.0
    shift = rng.uniform(-0.5, 0.5, 2)
    margin = 0.04
    distance = 700.0
    size = (config.width, config.height)
    camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
    for _ in range(6):
        camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
        pixels = camera.distort_points(camera.project(points)[0])
        span = max((pixels[:, 0].max() - pixels[:, 0].min()) / config.width,
                   (pixels[:, 1].max() - pixels[:, 1].min()) / config.height)
        distance *= span / fill
        fill = min(fill, 1 - 2 * margin)
        if _horizon_visible(camera):
            elevation = min(hi, elevation + 6)
    # Slide the view so the hand is not always centred, while staying inside the margins; if the
    # hand does not fit even centred, step back until it does.
    for _ in range(16):
        camera = orbit_camera(target, distance, elevation, azimuth, roll, focal, *size, k1)
        for scale in (1.0, 0.5, 0.0):
            pixels = camera.distort_points(camera.project(points)[0])
            room_x = (config.width * (1 - 2 * margin) - (pixels[:, 0].max() - pixels[:, 0].min())) / 2
            room_y = (config.height * (1 - 2 * margin) - (pixels[:, 1].max() - pixels[:, 1].min())) / 2
            offset_px = np.array([max(room_x, 0) * shift[0], max(room_y, 0) * shift[1]]) * scale
            centre_px = (pixels.min(axis=0) + pixels.max(axis=0)) / 2
            desired = np.array([config.width / 2, config.height / 2]) + offset_px
            moved = _pan(camera, desired - centre_px, points)
            if _inside(moved.distort_points(moved.project(points)[0]), config, margin * 0.5):
                return moved
        distance *= 1.12
    return camera


def _pan(camera: Camera, delta_px: np.ndarray, points: np.ndarray) -> Camera:
    """Move the camera parallel to its image plane so ``points`` shift by about ``delta_px``."""
    depth = max(float(camera.to_camera(points)[:, 2].mean()), 1.0)
    right, down = camera.rotation[0], camera.rotation[1]
    position = camera.position - (right * delta_px[0] + down * delta_px[1]) * depth / camera.focal
    return Camera(camera.width, camera.height, camera.focal, camera.rotation, position, camera.k1)


def _inside(pixels: np.ndarray, config: SceneConfig, margin: float) -> bool:
    mx, my = config.width * margin, config.height * margin
    return bool((pixels[:, 0] >= mx).all() and (pixels[:, 0] <= config.width - mx).all()
                and (pixels[:, 1] >= my).all() and (pixels[:, 1] <= config.height - my).all())


def _horizon_visible(camera: Camera) -> bool:
    corners = np.array([[0, 0], [camera.width, 0], [0, camera.height], [camera.width, camera.height]], float)
    return bool((camera.ray_directions(corners)[:, 2] > -0.12).any())


def _pick_light(rng: np.random.Generator) -> Lighting:
    elevation = math.radians(float(rng.uniform(35, 85)))
    azimuth = float(rng.uniform(0, 2 * math.pi))
    direction = np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                          math.sin(elevation)])
    return Lighting(direction=direction, ambient=float(rng.uniform(0.45, 0.75)),
                    gloss=float(rng.uniform(0.0, 0.6)) if rng.random() < 0.6 else 0.0)


# --------------------------------------------------------------------------------------------- rendering

def _tile_corners(tile: PlacedTile, look: TileLook) -> np.ndarray:
    half = np.array([look.width, look.height, look.depth]) / 2
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return tile.centre + (signs * half) @ tile.axes.T


def _tile_body(tile: PlacedTile, look: TileLook, ident: int, rng: np.random.Generator) -> Body:
    face = look.face(tile.code, rng)
    return Body(tile.centre, tile.axes, (look.width, look.height, look.depth), look.style.ivory_bgr,
                look.back_bgr, face=face, back=look.back_texture, layer=look.layer, ident=ident, rim=True)


def _cast_shadows(image: np.ndarray, camera: Camera, bodies: list[Any], hand_overs: list[Any],
                  light: Lighting, rng: np.random.Generator) -> np.ndarray:
    """Darken the table where the bodies block the light (soft shadows, drawn at quarter resolution)."""
    small_w, small_h = camera.width // 4, camera.height // 4
    mask = np.zeros((small_h, small_w), np.uint8)
    direction = light.direction / max(light.direction[2], 0.2)
    for body in [*bodies, *hand_overs]:
        corners = body.corners()
        shadow = corners - np.outer(corners[:, 2], direction)
        pixels, depth = camera.project(shadow)
        if depth.min() <= 1:
            continue
        hull = cv2.convexHull(np.round(pixels * 4).astype(np.int32))  # 1/4 scale with 4 fractional bits
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(0.6, 2.5)))
    strength = float(rng.uniform(0.25, 0.55)) * (1.0 - light.ambient * 0.5)
    factor = 255 - (mask.astype(np.float32) * strength).astype(np.uint8)
    factor = cv2.resize(factor, (camera.width, camera.height), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(image, cv2.merge([factor, factor, factor]), scale=1.0 / 255.0)


def _labels(tiles: list[PlacedTile], look: TileLook, camera: Camera, visibility: np.ndarray,
            hand_count: int) -> list[TileLabel]:
    """Face (or back) quads in the final image, boxes, flags, visibility; unseen distractors dropped."""
    counts = np.bincount((visibility.astype(np.int32) + 1).ravel(), minlength=len(tiles) + 2)
    labels: list[TileLabel] = []
    for index, tile in enumerate(tiles):
        body = Body(tile.centre, tile.axes, (look.width, look.height, look.depth), (0, 0, 0), (0, 0, 0))
        front = body.side_quad(2, 1)
        back = body.side_quad(2, -1)
        front_visible = float(tile.axes[:, 2] @ (camera.position - front.mean(axis=0))) > 0
        back_visible = float(-tile.axes[:, 2] @ (camera.position - back.mean(axis=0))) > 0
        if index >= hand_count and not _in_view(front, camera):
            continue
        if front_visible:
            quad3, code, face_down = front, tile.code, False
        elif back_visible:
            quad3, code, face_down = back, BACK, True
        elif index < hand_count:  # a hand tile is always labelled (the framing keeps its face in view)
            quad3, code, face_down = (back, BACK, True) if tile.face_down else (front, tile.code, False)
        else:
            continue
        quad = camera.distort_points(camera.project(quad3)[0])
        full = _box(quad)
        box = (max(full[0], 0.0), max(full[1], 0.0), min(full[2], float(camera.width)),
               min(full[3], float(camera.height)))
        inside = _area(box) / max(_area(full), 1e-6) if box[2] > box[0] and box[3] > box[1] else 0.0
        hull_area = cv2.contourArea(body.footprint_polygon(camera).astype(np.float32))
        visible = float(min(1.0, counts[index + 2] / max(hull_area, 1.0)))
        is_hand = index < hand_count
        if not is_hand and (inside < 0.6 or visible < 0.3 or _area(box) < 30):
            continue
        extra: dict[str, Any] = {"visible": round(visible, 2), "angle": round(_reading_angle(quad), 1)}
        if face_down and tile.code != code:
            extra["face"] = tile.code
        if tile.standing:
            extra["standing"] = True
        labels.append(TileLabel(
            code=code,
            box=box,
            quad=tuple((float(x), float(y)) for x, y in quad),  # type: ignore[arg-type]
            rotated=tile.rotated,
            face_down=face_down,
            group=tile.group if is_hand else None,
            role=tile.role,
            extra=extra,
        ))
    return labels


def _in_view(points: np.ndarray, camera: Camera) -> bool:
    """Is any of ``points`` in front of the camera and inside the (undistorted) image, with a margin?"""
    pixels, depth = camera.project(points)
    if depth.min() <= 1.0:
        return False
    margin = 0.1 * camera.width
    return bool(pixels[:, 0].max() > -margin and pixels[:, 0].min() < camera.width + margin
                and pixels[:, 1].max() > -margin and pixels[:, 1].min() < camera.height + margin)


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    low, high = quad.min(axis=0), quad.max(axis=0)
    return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))


def _area(box: tuple[float, float, float, float]) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _reading_angle(quad: np.ndarray) -> float:
    """Angle (degrees, image coordinates) of the face's up direction; 0 = upright, 90 = top to the right."""
    top = (quad[0] + quad[1]) / 2
    bottom = (quad[2] + quad[3]) / 2
    up = top - bottom
    return math.degrees(math.atan2(up[0], -up[1]))


def _finish(image: np.ndarray, rng: np.random.Generator, config: SceneConfig,
            camera: Camera) -> tuple[np.ndarray, int]:
    """Lens distortion, light, blur, noise and JPEG compression."""
    image = distort_image(image, camera.k1)
    quality = 95
    if not config.photometric:
        return image, quality
    gain = photometric.light_gain_map(rng, config.width, config.height, strength=float(rng.uniform(0.3, 1.0)))
    image = photometric.apply_gain(image, gain)
    image = photometric.saturation(image, float(rng.uniform(*config.saturation)))
    defocus = float(rng.uniform(*config.defocus_sigma)) if rng.random() < 0.5 else 0.0
    motion = float(rng.integers(3, 10)) if rng.random() < config.motion_blur_probability else 0.0
    image = photometric.blur(image, rng, defocus, motion)
    image = photometric.sensor_noise(image, rng, float(rng.uniform(*config.noise_sigma)))
    if rng.random() < config.grayscale_probability:  # some real datasets hold grey photos
        image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    quality = int(rng.integers(config.jpeg_quality[0], config.jpeg_quality[1] + 1))
    if config.jpeg_in_memory:
        image = photometric.jpeg_round_trip(image, quality)
    return image, quality


def _camera_summary(camera: Camera) -> dict[str, float]:
    """Camera pose for analysis (elevation in degrees, distance to the table centre in mm, k1)."""
    forward = camera.rotation[2]
    elevation = math.degrees(math.asin(max(-1.0, min(1.0, -forward[2]))))
    return {"elevation": round(elevation, 1), "height_mm": round(float(camera.position[2]), 1),
            "focal_px": round(camera.focal, 1), "k1": camera.k1}
