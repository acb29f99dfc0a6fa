"""The annotated photo: every tile's code, the hand's groups and the total, readable on a phone.

The picture is drawn at most :data:`OUTPUT_SIDE` pixels on its long side (a phone screen shows
about that much; a refusal's reason too long for one line is written in a strip above it), and
every label is sized against the picture, not the tile: at least 2.2% of its long side, and at
least :data:`PHONE_TEXT` pixels tall once the picture is shrunk to :data:`PHONE_WIDTH` wide, as a
phone shows it. Each tag goes where :func:`tag_layout` finds room near its tile or group, over no
tile and no other tag (``vision.report.tag_places``), with a leader line when it had to move off.
Colour marks certainty (green sure, amber unsure, red doubtful); a thick outline marks each group;
the winning tile has a thick amber outline and "win" on its label; tiles outside the hand are grey.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.geometry import tile_outline
from vision.imageio import resize_by
from vision.report.tag_places import Box, PlacedTag, place_tags

OUTPUT_SIDE = 1600
#: Minimum label height as a fraction of the picture's long side.
MIN_LABEL = 0.022
#: A phone shows a picture about this many pixels wide in a chat or a browser...
PHONE_WIDTH = 400
#: ...and a tag's text must still be this many pixels tall there to be read.
PHONE_TEXT = 10
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
    # Strokes of a ninth of the height stay a pixel wide when the picture is shown a third as large.
    thickness = max(1, round(height / 9))
    return cv2.getFontScaleFromHeight(FONT, max(6, height), thickness), thickness


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


@dataclass(frozen=True)
class TagLayout:
    """Where :func:`annotate` draws on a canvas: every tile's box (its outline's bounding box), the
    tiles' tags, the groups' name tags and the one-line banner's rectangle (None when the banner goes
    in a strip above the photo). No tag overlaps a tile box, the banner or another tag."""

    label_height: int
    tile_boxes: list[Box]
    tile_tags: list[PlacedTag]
    group_tags: list[PlacedTag]
    banner_lines: list[str]
    banner_height: int
    banner_rect: Box | None

    @property
    def tags(self) -> list[PlacedTag]:
        return self.tile_tags + self.group_tags


def label_height_for(canvas_width: int, canvas_height: int) -> int:
    """A tile tag's text height on a canvas: :data:`MIN_LABEL` of its long side, and never less than
    :data:`PHONE_TEXT` pixels once the picture is shrunk to :data:`PHONE_WIDTH` wide."""
    return max(12, int(max(canvas_width, canvas_height) * MIN_LABEL),
               int(np.ceil(PHONE_TEXT * canvas_width / PHONE_WIDTH)))


def _tag_size(text: str, height: int) -> tuple[int, int]:
    """The rectangle :func:`_draw_tag` fills for ``text`` at ``height`` (text, baseline, padding)."""
    scale, thickness = _font(height)
    (width, text_height), baseline = cv2.getTextSize(text, FONT, scale, thickness)
    return width + 6, text_height + baseline + 6


def tag_layout(canvas_shape: tuple[int, ...], result: Any, factor: float, live: bool = False) -> TagLayout:
    """Place every tag of ``result`` on a canvas of ``canvas_shape`` whose pixels are ``factor`` times
    the result's (full-resolution) boxes: tile tags first, nearest their tiles, then the groups' names
    beside their groups, each clear of every tile box and every tag before it
    (:func:`vision.report.tag_places.place_tags`). ``live``: the banner keeps to one line."""
    height, width = canvas_shape[:2]
    label_height = label_height_for(width, height)
    gap = max(2, int(max(width, height)) // 400) * 2
    outlines = [tile_outline(r.detection) * factor for r in result.readings]
    tile_boxes = [_bounds(outline) for outline in outlines]
    banner_height = int(label_height * 1.5)
    margin = max(2, int(max(width, height)) // 400) * 4
    lines = wrapped_lines(banner(result), width - 2 * margin, banner_height,
                          max_lines=1 if live else MAX_BANNER_LINES)
    banner_rect = None
    if len(lines) <= 1:
        banner_width, banner_box_height = _tag_size(lines[0] if lines else "", banner_height)
        banner_rect = (margin, margin, margin + banner_width, margin + banner_box_height)
    obstacles = tile_boxes + ([banner_rect] if banner_rect is not None else [])
    groups = result.tile_group()
    winning = result.decoded.winning_index if result.decoded is not None else None
    order = sorted(range(len(result.readings)), key=lambda i: (tile_boxes[i][0], tile_boxes[i][1]))
    texts, colours = [], []
    for index in order:
        code = result.code_of(index)
        text = code if code != "back" else "--"
        texts.append(text + " win" if index == winning else text)
        in_hand = index in groups
        colour = confidence_colour(result.readings[index].probability_of(code, 0.0)) if in_hand else _GREY
        colours.append(_WINNING if index == winning else colour)
    tile_tags = place_tags(texts, [_tag_size(t, label_height) for t in texts], [tile_boxes[i] for i in order],
                           colours, obstacles, (width, height), gap)
    titles, anchors, group_colours = [], [], []
    for group in result.decoded.best.groups if result.decoded is not None else []:
        titles.append(group.kind or group.role.value.replace("_", " "))
        anchors.append(_bounds(np.concatenate([outlines[i] for i in group.tile_indices])))
        group_colours.append(_ROLE_COLOURS.get(group.role.value, _GREY))
    group_tags = place_tags(titles, [_tag_size(t, label_height) for t in titles], anchors, group_colours,
                            obstacles + [tag.rect for tag in tile_tags], (width, height), gap, around=True)
    return TagLayout(label_height, tile_boxes, tile_tags, group_tags, lines, banner_height, banner_rect)


def _bounds(points: np.ndarray) -> Box:
    x1, y1 = np.floor(points.min(axis=0))
    x2, y2 = np.ceil(points.max(axis=0))
    return int(x1), int(y1), int(x2), int(y2)


def _draw_leader(image: np.ndarray, tag: PlacedTag, line: int) -> None:
    """A line from a tag set off from what it names to the nearest point of that (drawn under every
    tag, so no line crosses a tag's text)."""
    if not tag.detached:
        return
    x1, y1, x2, y2 = tag.rect
    ax1, ay1, ax2, ay2 = tag.anchor
    start = ((x1 + x2) // 2, y2 if y2 <= ay1 else y1 if y1 >= ay2 else (y1 + y2) // 2)
    end = (int(np.clip(start[0], ax1, ax2)), int(np.clip(start[1], ay1, ay2)))
    cv2.line(image, start, end, tag.colour, line, cv2.LINE_AA)


def _draw_tag(image: np.ndarray, tag: PlacedTag, height: int) -> None:
    """The tag's filled rectangle with its white text."""
    x1, y1, x2, y2 = tag.rect
    scale, thickness = _font(height)
    (_, text_height), _ = cv2.getTextSize(tag.text, FONT, scale, thickness)
    cv2.rectangle(image, (x1, y1), (x2, y2), tag.colour, -1)
    cv2.putText(image, tag.text, (x1 + 3, y1 + text_height + 3), FONT, scale, (255, 255, 255), thickness,
                cv2.LINE_AA)


def annotate(image_bgr: np.ndarray, result: Any, max_side: int | None = OUTPUT_SIDE,
             scale: float = 1.0) -> np.ndarray:
    """Draw ``result`` (a :class:`vision.pipeline.PhotoResult`) on the upright photo.

    The drawing is shrunk to ``max_side`` pixels on its long side (None: drawn at the photo's size,
    as the live window wants, whose frame size is fixed by the camera). ``scale`` is the photo's
    size over the full-resolution one the result's boxes are in (a photo decoded already reduced,
    see :meth:`vision.imageio.PhotoSource.image`). The tags go where :func:`tag_layout` puts them.
    """
    height, width = image_bgr.shape[:2]
    shrink = 1.0 if max_side is None else min(1.0, max_side / max(height, width))
    canvas = resize_by(image_bgr, shrink)
    factor = shrink * scale
    line = max(2, max(canvas.shape[:2]) // 400)
    plan = tag_layout(canvas.shape, result, factor, live=max_side is None)
    groups = result.tile_group()
    winning = result.decoded.winning_index if result.decoded is not None else None
    outlines = [tile_outline(r.detection) * factor for r in result.readings]
    for group in result.decoded.best.groups if result.decoded is not None else []:
        points = np.concatenate([outlines[i] for i in group.tile_indices]).astype(np.float32)
        (cx, cy), (w, h), angle = cv2.minAreaRect(points)
        pad = line * 3
        corners = cv2.boxPoints(((cx, cy), (w + 2 * pad, h + 2 * pad), angle)).astype(np.int32)
        colour = _ROLE_COLOURS.get(group.role.value, _GREY)
        cv2.polylines(canvas, [corners], True, colour, line * 2, cv2.LINE_AA)
    for index, reading in enumerate(result.readings):
        code = result.code_of(index)
        colour = confidence_colour(reading.probability_of(code, 0.0)) if index in groups else _GREY
        cv2.polylines(canvas, [outlines[index].astype(np.int32)], True, colour, line, cv2.LINE_AA)
        if index == winning:
            cv2.polylines(canvas, [outlines[index].astype(np.int32)], True, _WINNING, line * 3, cv2.LINE_AA)
    for tag in plan.tags:
        _draw_leader(canvas, tag, line)
    for tag in plan.tags:
        _draw_tag(canvas, tag, plan.label_height)
    banner_colour = (40, 40, 40) if result.score is not None else (40, 40, 200)
    margin = line * 4
    if plan.banner_rect is None:
        # A reason too long for one line goes in a strip above the photo, never over its tiles (the
        # player reads the tiles' labels to fix them); the live window (max_side None) keeps its size.
        step = int(plan.banner_height * 1.45)
        strip = np.full((margin + step * len(plan.banner_lines), canvas.shape[1], 3), 255, np.uint8)
        for number, text in enumerate(plan.banner_lines):
            _text_box(strip, text, (margin, margin // 2 + number * step), plan.banner_height, banner_colour,
                      anchor_bottom=False)
        return np.vstack([strip, canvas])
    _text_box(canvas, plan.banner_lines[0] if plan.banner_lines else "", (margin, margin), plan.banner_height,
              banner_colour, anchor_bottom=False)
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
