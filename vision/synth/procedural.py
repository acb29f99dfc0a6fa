"""Procedurally drawn tile sets: every face drawn from parts, in a random but consistent look.

A set picks its ivory, its inks (the classic red/green/blue/black, or a two-ink or one-ink set), a
font for the characters (bundled CJK subsets in ``fonts/``), whether it prints corner indices
(Arabic numerals, E S W N), how dots are drawn (rings, flowers, solid) and how bamboo sticks look.
Dots and bamboo are drawn geometrically in their traditional layouts; characters, honours and the
flower and season names come from the font; flowers and seasons also get a simple painted motif
and their number 1-4 in a corner, as real Taiwanese sets print them.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.tiles import FACE_CODES
from vision.synth.face_style import FACE_SIZE, FaceStyle, loaded_style

FONTS_DIR = Path(__file__).resolve().parent / "fonts"
_SCALE = 2  # draw at twice the face size, then downsample (anti-aliasing)
_NUMERALS = "一二三四五六七八九"
_HONOUR_TEXT = {"1z": "東", "2z": "南", "3z": "西", "4z": "北", "6z": "發", "7z": "中"}
_HONOUR_INDEX = {"1z": "E", "2z": "S", "3z": "W", "4z": "N"}
_FLOWER_TEXT = dict(zip(("1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"), "梅蘭菊竹春夏秋冬", strict=True))

_RED = (40, 40, 200)
_GREEN = (60, 130, 20)
_BLUE = (160, 70, 20)
_BLACK = (30, 30, 30)

#: Dot centres (x, y in 0..1 of the face) for 1..9 dots, the traditional arrangement.
_DOT_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.28), (0.5, 0.72)],
    3: [(0.25, 0.22), (0.5, 0.5), (0.75, 0.78)],
    4: [(0.3, 0.28), (0.7, 0.28), (0.3, 0.72), (0.7, 0.72)],
    5: [(0.28, 0.24), (0.72, 0.24), (0.5, 0.5), (0.28, 0.76), (0.72, 0.76)],
    6: [(0.32, 0.2), (0.68, 0.2), (0.32, 0.5), (0.68, 0.5), (0.32, 0.8), (0.68, 0.8)],
    7: [(0.22, 0.16), (0.5, 0.26), (0.78, 0.36), (0.32, 0.6), (0.68, 0.6), (0.32, 0.84), (0.68, 0.84)],
    8: [(0.32, 0.14), (0.68, 0.14), (0.32, 0.38), (0.68, 0.38), (0.32, 0.62), (0.68, 0.62),
        (0.32, 0.86), (0.68, 0.86)],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.22, 0.5, 0.78)],
}
#: Bamboo stick centres for 2..9 (vertical sticks); 1 bamboo is a bird.
_BAMBOO_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0.3), (0.5, 0.7)],
    3: [(0.5, 0.3), (0.32, 0.7), (0.68, 0.7)],
    4: [(0.32, 0.3), (0.68, 0.3), (0.32, 0.7), (0.68, 0.7)],
    5: [(0.25, 0.3), (0.75, 0.3), (0.5, 0.5), (0.25, 0.7), (0.75, 0.7)],
    6: [(x, y) for y in (0.3, 0.7) for x in (0.24, 0.5, 0.76)],
    7: [(0.5, 0.17)] + [(x, y) for y in (0.5, 0.81) for x in (0.24, 0.5, 0.76)],
    8: [(x, y) for y in (0.3, 0.7) for x in (0.2, 0.4, 0.6, 0.8)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.24, 0.5, 0.76)],
}


@functools.lru_cache(maxsize=16)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS_DIR / name), size)


def available_fonts() -> list[str]:
    return sorted(p.name for p in FONTS_DIR.glob("*.ttf"))


class SetLook:
    """The random choices that make one set look like one set."""

    def __init__(self, rng: np.random.Generator) -> None:
        red = rng.uniform(228, 250)
        warmth = rng.uniform(0, 8) if rng.random() < 0.3 else rng.uniform(8, 38)  # white .. cream sets
        self.ivory = (int(red - warmth), int(red - warmth * 0.35), int(red))
        jitter = rng.normal(0, 18, (4, 3))
        palette = [np.clip(np.array(c) + j, 0, 255) for c, j in zip((_RED, _GREEN, _BLUE, _BLACK), jitter,
                                                                    strict=True)]
        self.red, self.green, self.blue, self.black = (tuple(int(v) for v in c) for c in palette)
        mode = rng.random()
        if mode < 0.12:  # one ink for everything
            ink = self.black if rng.random() < 0.5 else self.blue
            self.red = self.green = self.blue = self.black = ink
        elif mode < 0.25:  # two inks
            self.blue = self.black
        fonts = available_fonts()
        self.font = fonts[int(rng.integers(0, len(fonts)))] if fonts else ""
        self.corner_index = bool(rng.random() < 0.45)
        self.index_colour = self.red if rng.random() < 0.5 else self.black
        self.dot_style = int(rng.integers(0, 3))
        self.bamboo_width = float(rng.uniform(0.1, 0.14))
        self.glyph_scale = float(rng.uniform(0.85, 1.05))


def procedural_style(rng: np.random.Generator, name: str) -> FaceStyle:
    """Draw all 42 faces of one random-looking set."""
    look = SetLook(rng)
    faces = {code: [draw_face(code, look, rng)] for code in FACE_CODES}
    return loaded_style(name, "train", faces, look.ivory)


def random_face(code: str, rng: np.random.Generator, picture: np.ndarray | None = None,
                varied_numbers: bool = False) -> np.ndarray:
    """``code`` drawn in a fresh random set's look (training data that never repeats a set).

    ``picture`` (BGR, flowers and seasons only) replaces the painted plant, ``varied_numbers`` prints
    a flower's number in varied glyphs and places: see :func:`draw_face`.
    """
    return draw_face(code, SetLook(rng), rng, picture, varied_numbers)


def draw_face(code: str, look: SetLook, rng: np.random.Generator,
              picture: np.ndarray | None = None, varied_numbers: bool = False) -> np.ndarray:
    """One face of a set with ``look``. A flower or season shows ``picture`` where given (the
    picture part of a real flower tile, of any face), else a painted plant; its name and number
    are drawn above it either way: the number in one plain glyph in the top corner, or, with
    ``varied_numbers``, as :func:`draw_flower_number` prints it."""
    w, h = FACE_SIZE[0] * _SCALE, FACE_SIZE[1] * _SCALE
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = look.ivory
    suit, rank = code[1], int(code[0])
    if suit == "p":
        _draw_dots(canvas, rank, look)
    elif suit == "s":
        _draw_bamboo(canvas, rank, look, rng)
    elif suit == "m":
        canvas = _draw_text(canvas, [(_NUMERALS[rank - 1], look.black if look.corner_index else look.blue,
                                      0.28, 0.36), ("萬", look.red, 0.7, 0.46)], look)
    elif suit == "z":
        if code == "5z":
            _draw_white_dragon(canvas, look)
        else:
            wind_ink = look.black if rng.random() < 0.7 else look.blue
            colour = {"6z": look.green, "7z": look.red}.get(code, wind_ink)
            canvas = _draw_text(canvas, [(_HONOUR_TEXT[code], colour, 0.52, 0.62)], look)
    else:
        if picture is not None:
            _paste_picture(canvas, picture)
        else:
            _draw_flower_motif(canvas, look, rng)
        # Sets print the number left and the name right, or the other way round (set-297 does both:
        # flowers one way, seasons the other), in any ink: only the two together name the face.
        number_left = bool(rng.random() < 0.5)
        name_colour = (look.black, look.blue, look.red, look.green)[int(rng.integers(0, 4))]
        canvas = _draw_text(canvas, [(_FLOWER_TEXT[code], name_colour, 0.2, 0.22)], look,
                            x=0.72 if number_left else 0.28)
    if look.corner_index and suit in "mps":
        canvas = _draw_index(canvas, str(rank), look.index_colour)
    elif look.corner_index and code in _HONOUR_INDEX:
        canvas = _draw_index(canvas, _HONOUR_INDEX[code], look.index_colour)
    if suit == "f":
        number_colour = look.red if rng.random() < 0.6 else (look.black, look.blue)[int(rng.integers(0, 2))]
        number = (rank - 1) % 4 + 1
        if varied_numbers:
            canvas = draw_flower_number(canvas, number, number_colour, number_left, rng)
        else:
            canvas = _draw_index(canvas, str(number), number_colour, left=number_left)
    return cv2.resize(canvas, FACE_SIZE, interpolation=cv2.INTER_AREA)


def _draw_text(canvas: np.ndarray, parts: list[tuple[str, tuple[int, int, int], float, float]],
               look: SetLook, x: float = 0.5) -> np.ndarray:
    """Draw (text, colour, centre-y fraction, height fraction) glyphs centred at ``x``."""
    if not look.font:
        return canvas
    h, w = canvas.shape[:2]
    image = Image.fromarray(canvas[:, :, ::-1])
    draw = ImageDraw.Draw(image)
    for text, colour, cy, size in parts:
        font = _font(look.font, max(8, int(h * size * look.glyph_scale)))
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        px = w * x - (left + right) / 2
        py = h * cy - (top + bottom) / 2
        draw.text((px, py), text, font=font, fill=(colour[2], colour[1], colour[0]))
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])


def _draw_index(canvas: np.ndarray, text: str, colour: tuple[int, int, int],
                left: bool = False) -> np.ndarray:
    h, w = canvas.shape[:2]
    scale = h / 220.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    x = int(w * 0.06) if left else int(w * 0.94) - tw
    cv2.putText(canvas, text, (x, int(h * 0.04) + th), cv2.FONT_HERSHEY_DUPLEX, scale, colour, 2 * _SCALE,
                cv2.LINE_AA)
    return canvas


#: OpenCV's stroke fonts a varied flower number may be drawn in (besides the TrueType fonts).
_STROKE_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                 cv2.FONT_HERSHEY_TRIPLEX)
#: Share of varied flower numbers printed as a Chinese numeral (一..四), as some sets print them.
CHINESE_NUMBER_SHARE = 0.25


def draw_flower_number(canvas: np.ndarray, number: int, colour: tuple[int, int, int], left: bool,
                        rng: np.random.Generator) -> np.ndarray:
    """A flower's number as real sets print it: an Arabic digit in a stroke or TrueType font, or a
    Chinese numeral, of any weight, 12-21% of the face high, in the top corner or lower beside the
    name. The two held-out sets that print it small in a corner (set-297's and set-183's 1 read as 4)
    were the flower model's commonest misreads with the single plain glyph of :func:`_draw_index`."""
    h, w = canvas.shape[:2]
    height = h * float(rng.uniform(0.12, 0.21))
    top = h * float(rng.uniform(0.02, 0.12))
    margin = w * float(rng.uniform(0.04, 0.12))
    fonts = available_fonts()
    chinese = bool(fonts) and rng.random() < CHINESE_NUMBER_SHARE
    if chinese or (bool(fonts) and rng.random() < 0.5):
        text = _NUMERALS[number - 1] if chinese else str(number)
        image = Image.fromarray(canvas[:, :, ::-1])
        draw = ImageDraw.Draw(image)
        font = _font(fonts[int(rng.integers(0, len(fonts)))], max(8, int(height)))
        left_px, top_px, right_px, bottom_px = draw.textbbox((0, 0), text, font=font)
        x = margin - left_px if left else w - margin - right_px
        draw.text((x, top - top_px), text, font=font, fill=(colour[2], colour[1], colour[0]))
        return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])
    font = _STROKE_FONTS[int(rng.integers(0, len(_STROKE_FONTS)))]
    thickness = int(rng.integers(1, 4)) * _SCALE
    (text_w, text_h), _ = cv2.getTextSize(str(number), font, 1.0, thickness)
    scale = height / max(text_h, 1)
    text_w = int(text_w * scale)
    x = int(margin) if left else int(w - margin) - text_w
    cv2.putText(canvas, str(number), (x, int(top + height)), font, scale, colour, thickness, cv2.LINE_AA)
    return canvas


def _dot_colour(rank: int, index: int, look: SetLook) -> tuple[int, int, int]:
    if rank == 1:
        return look.red
    if rank in (2, 8):
        return look.green if index % 2 == 0 else look.blue
    if rank in (3, 5, 9):
        return (look.blue, look.red, look.green)[index % 3] if rank != 5 or index != 2 else look.red
    if rank == 7:
        return look.green if index < 3 else look.red
    return (look.blue, look.green)[index % 2] if rank in (4, 6) else look.blue


def _draw_dots(canvas: np.ndarray, rank: int, look: SetLook) -> None:
    h, w = canvas.shape[:2]
    radius = {1: 0.36, 2: 0.19, 3: 0.16, 4: 0.17, 5: 0.15, 6: 0.13, 7: 0.11, 8: 0.1, 9: 0.12}[rank] * w
    for index, (fx, fy) in enumerate(_DOT_LAYOUTS[rank]):
        centre = (int(fx * w), int(fy * h))
        colour = _dot_colour(rank, index, look)
        r = int(radius)
        if look.dot_style == 0:  # concentric rings
            cv2.circle(canvas, centre, r, colour, max(2, r // 5), cv2.LINE_AA)
            cv2.circle(canvas, centre, max(2, r // 2), colour, max(2, r // 6), cv2.LINE_AA)
            cv2.circle(canvas, centre, max(1, r // 6), colour, -1, cv2.LINE_AA)
        elif look.dot_style == 1:  # solid disc with a light centre
            cv2.circle(canvas, centre, r, colour, -1, cv2.LINE_AA)
            cv2.circle(canvas, centre, max(2, r // 2), look.ivory, max(1, r // 8), cv2.LINE_AA)
        else:  # petals around a centre
            for angle in np.linspace(0, 2 * np.pi, 8, endpoint=False):
                petal = (int(centre[0] + 0.6 * r * np.cos(angle)), int(centre[1] + 0.6 * r * np.sin(angle)))
                cv2.circle(canvas, petal, max(2, int(r * 0.35)), colour, -1, cv2.LINE_AA)
            cv2.circle(canvas, centre, max(2, int(r * 0.3)), look.ivory, -1, cv2.LINE_AA)
        if rank == 1:
            cv2.circle(canvas, centre, int(r * 1.12), look.green, max(2, r // 10), cv2.LINE_AA)


def _draw_bamboo(canvas: np.ndarray, rank: int, look: SetLook, rng: np.random.Generator) -> None:
    h, w = canvas.shape[:2]
    if rank == 1:
        _draw_bird(canvas, look)
        return
    stick_h = (0.27 if rank in (7, 9) else 0.34) * h
    stick_w = look.bamboo_width * w
    for index, (fx, fy) in enumerate(_BAMBOO_LAYOUTS[rank]):
        colour = look.red if (rank in (5, 7, 9) and index in (2, 0)) or (rank == 1) else look.green
        if rank == 9 and index % 3 == 1:
            colour = look.blue
        cx, cy = fx * w, fy * h
        x1, x2 = int(cx - stick_w / 2), int(cx + stick_w / 2)
        y1, y2 = int(cy - stick_h / 2), int(cy + stick_h / 2)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, -1, cv2.LINE_AA)
        for node_y in (y1, (y1 + y2) // 2, y2):
            node = (int(stick_w * 0.75), max(2, int(stick_w * 0.22)))
            cv2.ellipse(canvas, (int(cx), node_y), node, 0, 0, 360, colour, -1, cv2.LINE_AA)
        cv2.line(canvas, (int(cx), y1 + 3), (int(cx), y2 - 3), look.ivory, max(1, int(stick_w * 0.15)),
                 cv2.LINE_AA)


def _draw_bird(canvas: np.ndarray, look: SetLook) -> None:
    """A simple standing bird (the 1 of bamboo): body, head, tail, legs."""
    h, w = canvas.shape[:2]
    body_axes = (int(w * 0.26), int(h * 0.14))
    cv2.ellipse(canvas, (int(w * 0.5), int(h * 0.52)), body_axes, -25, 0, 360, look.green, -1, cv2.LINE_AA)
    cv2.circle(canvas, (int(w * 0.7), int(h * 0.33)), int(w * 0.1), look.green, -1, cv2.LINE_AA)
    cv2.circle(canvas, (int(w * 0.73), int(h * 0.31)), int(w * 0.025), look.ivory, -1, cv2.LINE_AA)
    beak = np.array([[w * 0.79, h * 0.32], [w * 0.9, h * 0.35], [w * 0.78, h * 0.37]], np.int32)
    cv2.fillConvexPoly(canvas, beak, look.red, cv2.LINE_AA)
    tail = np.array([[w * 0.3, h * 0.58], [w * 0.08, h * 0.8], [w * 0.2, h * 0.84], [w * 0.38, h * 0.64]],
                    np.int32)
    cv2.fillConvexPoly(canvas, tail, look.red, cv2.LINE_AA)
    for x in (0.45, 0.56):
        cv2.line(canvas, (int(w * x), int(h * 0.64)), (int(w * (x - 0.03)), int(h * 0.82)), look.red, 4,
                 cv2.LINE_AA)


def _draw_white_dragon(canvas: np.ndarray, look: SetLook) -> None:
    h, w = canvas.shape[:2]
    if look.corner_index:  # many Taiwanese sets leave it a plain frame
        cv2.rectangle(canvas, (int(w * 0.16), int(h * 0.14)), (int(w * 0.84), int(h * 0.86)), look.blue,
                      int(w * 0.06), cv2.LINE_AA)
    else:
        cv2.rectangle(canvas, (int(w * 0.14), int(h * 0.12)), (int(w * 0.86), int(h * 0.88)), look.blue,
                      int(w * 0.035), cv2.LINE_AA)
        cv2.rectangle(canvas, (int(w * 0.24), int(h * 0.2)), (int(w * 0.76), int(h * 0.8)), look.blue,
                      int(w * 0.02), cv2.LINE_AA)


#: Where a flower's picture goes on the face (fractions of width and height): below the name and
#: number, which sit in the top third on real sets.
PICTURE_AREA = (0.08, 0.36, 0.92, 0.95)


def _paste_picture(canvas: np.ndarray, picture: np.ndarray) -> None:
    """``picture`` scaled into :data:`PICTURE_AREA` of ``canvas``."""
    h, w = canvas.shape[:2]
    left, right = round(PICTURE_AREA[0] * w), round(PICTURE_AREA[2] * w)
    top, bottom = round(PICTURE_AREA[1] * h), round(PICTURE_AREA[3] * h)
    canvas[top:bottom, left:right] = cv2.resize(picture, (right - left, bottom - top),
                                                interpolation=cv2.INTER_AREA)


def _draw_flower_motif(canvas: np.ndarray, look: SetLook, rng: np.random.Generator) -> None:
    """A small painted plant with random stems, leaves and blossoms, the same for every flower face.

    The picture says nothing about which flower or season it is (real sets draw anything there), so
    a model trained on these must read the number and the name; a motif that depended on the face
    would teach a model the picture instead.
    """
    h, w = canvas.shape[:2]
    base = (int(w * rng.uniform(0.35, 0.65)), int(h * rng.uniform(0.85, 0.93)))
    for _ in range(int(rng.integers(1, 3))):
        top = (int(w * rng.uniform(0.3, 0.7)), int(h * rng.uniform(0.35, 0.55)))
        cv2.line(canvas, base, top, look.green, max(3, w // 40), cv2.LINE_AA)
        for k in range(int(rng.integers(1, 5))):
            t = rng.uniform(0.2, 0.8)
            px = int(base[0] + (top[0] - base[0]) * t)
            py = int(base[1] + (top[1] - base[1]) * t)
            side = 1 if k % 2 else -1
            cv2.ellipse(canvas, (px + side * w // 10, py), (int(w * rng.uniform(0.07, 0.14)), w // 24),
                        side * float(rng.uniform(10, 60)), 0, 360, look.green, -1, cv2.LINE_AA)
        blossom = (look.red, look.blue, look.green, look.black)[int(rng.choice(4, p=(0.55, 0.2, 0.1, 0.15)))]
        for _ in range(int(rng.integers(0, 5))):
            cx = int(top[0] + w * rng.uniform(-0.15, 0.15))
            cy = int(top[1] + h * rng.uniform(-0.1, 0.1))
            r = int(w * rng.uniform(0.06, 0.1))
            for angle in np.linspace(0, 2 * np.pi, int(rng.integers(4, 7)), endpoint=False):
                cv2.circle(canvas, (int(cx + r * 0.8 * np.cos(angle)), int(cy + r * 0.8 * np.sin(angle))),
                           max(2, int(r * 0.6)), blossom, -1, cv2.LINE_AA)
            cv2.circle(canvas, (cx, cy), max(2, int(r * 0.35)), (40, 200, 230), -1, cv2.LINE_AA)
