"""The annotated photo: every tile's code, the hand's groups and the total, readable on a phone.

The picture is drawn at most :data:`OUTPUT_SIDE` pixels on its long side (a phone screen shows
about that much; a refusal's reason too long for one line is written in a strip above it), and
every label is sized against the picture, not the tile: a label smaller
than ~2% of the picture's height cannot be read when the photo is shown full-screen on a phone.
Labels alternate above and below the row when the tiles are narrower than their labels.
Colour marks certainty (green sure, amber unsure, red doubtful); a thick outline marks each group;
the winning tile has a thick amber outline and "win" on its label; tiles outside the hand are grey.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.geometry import tile_outline
from vision.imageio import resize_by

OUTPUT_SIDE = 1600
#: Minimum label height as a fraction of the picture's long side.
MIN_LABEL = 0.022
FONT = cv2.FONT_HERSHEY_SIMPLEX

_ROLE_COLOURS = {
    "concealed": (255, 160, 40),
    "meld": (40, 200, 255),
    "concealed_kong": (200, 80, 200),
    "flowers": (80, 200, 80),
}
_GREY = (150, 150, 150)
_WINNING = (0, 190, 255)


def confidence_colour(confidence: float) -> tuple[int, int, int]:
    if confidence >= 0.9:
        return (60, 180, 60)
    if confidence >= 0.6:
        return (0, 170, 240)
    return (40, 40, 230)


def _font(height: int) -> tuple[float, int]:
    """The font scale and stroke thickness of text ``height`` pixels tall (labels and banner alike)."""
    return cv2.getFontScaleFromHeight(FONT, max(6, height), 2), max(1, height // 12)


def _text_box(image: np.ndarray, text: str, origin: tuple[int, int], height: int,
              colour: tuple[int, int, int], anchor_bottom: bool = True) -> None:
    """White text on a filled box of ``colour``; ``origin`` is its bottom-left (or top-left)."""
    scale, thickness = _font(height)
    (width, text_height), baseline = cv2.getTextSize(text, FONT, scale, thickness)
    x, y = origin
    x = int(min(max(0, x), max(0, image.shape[1] - width - 6)))
    top = y - text_height - baseline - 6 if anchor_bottom else y
    top = int(min(max(0, top), max(0, image.shape[0] - text_height - baseline - 6)))
    cv2.rectangle(image, (x, top), (x + width + 6, top + text_height + baseline + 6), colour, -1)
    cv2.putText(image, text, (x + 3, top + text_height + 3), FONT, scale, (255, 255, 255), thickness,
                cv2.LINE_AA)


#: Lines of the banner at most (the longest refusal, the tile count's, takes six); longer ends in "...".
MAX_BANNER_LINES = 6


def wrapped_lines(text: str, max_width: int, height: int, max_lines: int = MAX_BANNER_LINES) -> list[str]:
    """``text`` broken at spaces into lines that each fit ``max_width`` pixels at ``height`` (as
    :func:`_text_box` draws them), at most ``max_lines`` of them: a refusal's reason is the one thing
    a player needs to read on the picture, and one long line ran off its edge."""
    scale, thickness = _font(height)

    def fits(line: str) -> bool:
        return cv2.getTextSize(line, FONT, scale, thickness)[0][0] + 6 <= max_width

    lines: list[str] = []
    for word in text.split():
        if lines and fits(f"{lines[-1]} {word}"):
            lines[-1] = f"{lines[-1]} {word}"
            continue
        while not fits(word) and len(word) > 1:  # a word wider than the picture is cut
            cut = max((n for n in range(1, len(word)) if fits(word[:n])), default=1)
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and not fits(f"{last} ..."):
            last = last.rsplit(" ", 1)[0] if " " in last else last[:-1]
        lines = [*lines[:max_lines - 1], f"{last} ..."]
    return lines


def annotate(image_bgr: np.ndarray, result: Any, max_side: int | None = OUTPUT_SIDE,
             scale: float = 1.0) -> np.ndarray:
    """Draw ``result`` (a :class:`vision.pipeline.PhotoResult`) on the upright photo.

    The drawing is shrunk to ``max_side`` pixels on its long side (None: drawn at the photo's size,
    as the live window wants, whose frame size is fixed by the camera). ``scale`` is the photo's
    size over the full-resolution one the result's boxes are in (a photo decoded already reduced,
    see :meth:`vision.imageio.PhotoSource.image`).
    """
    height, width = image_bgr.shape[:2]
    shrink = 1.0 if max_side is None else min(1.0, max_side / max(height, width))
    canvas = resize_by(image_bgr, shrink)
    factor = shrink * scale
    long_side = max(canvas.shape[:2])
    label_height = max(12, int(long_side * MIN_LABEL))
    line = max(2, long_side // 400)
    groups = result.tile_group()
    winning = result.decoded.winning_index if result.decoded is not None else None
    boxes = [np.array(r.detection.box) * factor for r in result.readings]
    widths = [b[2] - b[0] for b in boxes]
    narrow = bool(widths) and float(np.median(widths)) < label_height * 1.3
    outlines = [tile_outline(r.detection) * factor for r in result.readings]
    for group in result.decoded.best.groups if result.decoded is not None else []:
        points = np.concatenate([outlines[i] for i in group.tile_indices]).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(points)
        pad = line * 3
        corners = cv2.boxPoints(((cx, cy), (w + 2 * pad, h + 2 * pad), angle)).astype(np.int32)
        colour = _ROLE_COLOURS.get(group.role.value, _GREY)
        cv2.polylines(canvas, [corners], True, colour, line * 2, cv2.LINE_AA)
        title = group.kind or group.role.value.replace("_", " ")
        low = corners[np.argmax(corners[:, 1])]
        _text_box(canvas, title, (int(low[0]), int(low[1]) + line), int(label_height * 0.8),
                  colour, anchor_bottom=False)
    order = sorted(range(len(result.readings)), key=lambda i: (boxes[i][0]))
    for rank, index in enumerate(order):
        reading = result.readings[index]
        x1, y1, x2, y2 = (int(v) for v in boxes[index])
        code = result.code_of(index)
        in_hand = index in groups
        colour = confidence_colour(reading.probability_of(code, 0.0)) if in_hand else _GREY
        cv2.polylines(canvas, [outlines[index].astype(np.int32)], True, colour, line, cv2.LINE_AA)
        label = code if code != "back" else "--"
        if index == winning:
            label += " win"
            cv2.polylines(canvas, [outlines[index].astype(np.int32)], True, _WINNING, line * 3, cv2.LINE_AA)
        if narrow and rank % 2:
            _text_box(canvas, label, (x1, y2 + line), label_height, colour, anchor_bottom=False)
        else:
            _text_box(canvas, label, (x1, y1 - line), label_height, _WINNING if index == winning else colour)
    banner_height = int(label_height * 1.5)
    banner_colour = (40, 40, 40) if result.score is not None else (40, 40, 200)
    margin = line * 4
    lines = wrapped_lines(banner(result), canvas.shape[1] - 2 * margin, banner_height,
                          max_lines=1 if max_side is None else MAX_BANNER_LINES)
    if len(lines) > 1:
        # A reason too long for one line goes in a strip above the photo, never over its tiles (the
        # player reads the tiles' labels to fix them); the live window (max_side None) keeps its size.
        step = int(banner_height * 1.45)
        strip = np.full((margin + step * len(lines), canvas.shape[1], 3), 255, np.uint8)
        for number, text in enumerate(lines):
            _text_box(strip, text, (margin, margin // 2 + number * step), banner_height, banner_colour,
                      anchor_bottom=False)
        return np.vstack([strip, canvas])
    _text_box(canvas, lines[0] if lines else "", (margin, margin), banner_height, banner_colour,
              anchor_bottom=False)
    return canvas


def banner(result: Any) -> str:
    """The picture's banner: the total and how far to trust it, in the words of the text and the JSON
    (``ConfidenceReport.statement``), or why the photo was not scored (drawn over as many lines as it
    needs, :func:`wrapped_lines`)."""
    if result.score is None:
        return f"not scored: {result.error or 'no hand'}"
    score = result.score
    if not score.valid:
        return f"{score.rules}: not a valid win"
    trust = "" if result.report is None else f" ({result.report.statement})"
    return f"{score.rules}: {score.total} {score.unit}{trust}"


def write_image(path: str | Path, image_bgr: np.ndarray) -> None:
    """Write an image atomically (temp file + rename): an interrupted run never leaves half a file."""
    path = Path(path)
    extension = path.suffix.lower() or ".png"
    if extension not in (".png", ".jpg", ".jpeg", ".webp", ".bmp"):
        raise InputError(f"--annotate {path}: use a .png, .jpg or .webp file name")
    if not path.parent.exists():
        raise InputError(f"--annotate {path}: folder {path.parent} does not exist")
    ok, data = cv2.imencode(extension, image_bgr)
    if not ok:
        raise InputError(f"cannot encode the annotated image as {extension}")
    atomic_write_bytes(path, data.tobytes())
