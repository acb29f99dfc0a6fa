"""Drawing the live view: tile boxes with their voted codes, the hand's groups, and the score panel.

Everything is drawn with OpenCV's Hershey fonts, which have no CJK glyphs, so the panel uses the
English item names (the JSON output carries the Chinese ones). Colours say how sure a tile is:
green >= 0.9, amber >= 0.6, red below; grey boxes are tiles not yet seen often enough to count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import intersection_area
from vision.live.engine import HandOutcome, LiveUpdate
from vision.live.stability import DEFAULT_HOLD_SECONDS, TableStatus
from vision.report.confidence import SCORE_SURE
from vision.report.overlay import annotate, confidence_colour

FONT = cv2.FONT_HERSHEY_SIMPLEX
GREEN = confidence_colour(1.0)
AMBER = confidence_colour(0.7)
RED = confidence_colour(0.0)
GREY = (150, 150, 150)
WHITE = (255, 255, 255)
GROUP_COLOURS = (
    (255, 160, 60),
    (200, 90, 255),
    (80, 220, 220),
    (255, 90, 160),
    (120, 255, 120),
    (90, 140, 255),
)


@dataclass(frozen=True)
class PanelInfo:
    """What the panel shows besides the engine's update."""

    rules: str
    processed_fps: float = 0.0
    frozen: bool = False
    source_message: str = ""
    hold_seconds: float = DEFAULT_HOLD_SECONDS


def draw_live(image_bgr: np.ndarray, update: LiveUpdate | None, info: PanelInfo) -> np.ndarray:
    """A copy of ``image_bgr`` with the tiles, the groups of the announced hand and the score panel.

    While the announced hand lies still, the tiles are drawn exactly as ``taicam photo --annotate``
    draws them (codes, groups, winning tile); while the table changes, each tracked tile is drawn
    with its voted code, and tiles not yet confirmed in grey.
    """
    scale = max(0.4, min(image_bgr.shape[:2]) / 720.0)
    outcome = update.announced if update is not None else None
    if (
        update is not None
        and outcome is not None
        and outcome.result is not None
        and _showing(update, outcome)
    ):
        canvas = annotate(image_bgr, outcome.result, max_side=None)
    else:
        canvas = image_bgr.copy()
        if update is not None:
            _draw_tracks(canvas, update, scale)
            if outcome is not None:
                _draw_groups(canvas, outcome, scale)
    _draw_panel(canvas, update, info, scale)
    return canvas


def _showing(update: LiveUpdate, outcome: HandOutcome) -> bool:
    """The announced hand is what the table shows right now (steady, and read from these tiles)."""
    return update.status is TableStatus.STEADY and update.evaluated is outcome


def _draw_tracks(canvas: np.ndarray, update: LiveUpdate, scale: float) -> None:
    confirmed_ids = {track.track_id for track in update.tracker.confirmed_tracks()}
    top_k = update.tracker.config.top_k
    for track in update.tracker.tracks:
        x1, y1, x2, y2 = (int(round(v)) for v in track.detection.box)
        if track.track_id not in confirmed_ids:
            cv2.rectangle(canvas, (x1, y1), (x2, y2), GREY, 1)
            continue
        candidates = track.voted_candidates(top_k)
        confidence = candidates[0][1] if candidates else 0.0
        colour = confidence_colour(confidence)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, max(1, int(2 * scale)))
        label = track.code or "?"
        if track.rotated:
            label += "~"
        _text(canvas, label, (x1, max(12, y1 - int(4 * scale))), max(0.4, 0.5 * scale), colour)


def _draw_groups(canvas: np.ndarray, outcome: HandOutcome, scale: float) -> None:
    """Outline each group of the announced hand (tiles sharing a ``group`` id in the document)."""
    groups: dict[Any, list[list[float]]] = {}
    for tile in outcome.document.get("tiles", []):
        if tile.get("group") is not None and tile.get("box"):
            groups.setdefault(tile["group"], []).append(tile["box"])
    pad = int(6 * scale)
    for number, (group, boxes) in enumerate(sorted(groups.items(), key=lambda item: str(item[0]))):
        array = np.array(boxes, dtype=float)
        x1, y1 = array[:, 0].min() - pad, array[:, 1].min() - pad
        x2, y2 = array[:, 2].max() + pad, array[:, 3].max() + pad
        colour = GROUP_COLOURS[number % len(GROUP_COLOURS)]
        cv2.rectangle(canvas, (int(x1), int(y1)), (int(x2), int(y2)), colour, 1)
        _text(canvas, str(group), (int(x1), int(y2) + int(14 * scale)), max(0.4, 0.45 * scale), colour)


def panel_lines(update: LiveUpdate | None, info: PanelInfo) -> list[tuple[str, tuple[int, int, int]]]:
    """The panel's text, top to bottom, with colours (separate from drawing so it can be tested)."""
    lines: list[tuple[str, tuple[int, int, int]]] = []
    header = f"rules: {info.rules}   {info.processed_fps:4.1f} fps"
    if info.frozen:
        header += "   FROZEN"
    lines.append((header, WHITE))
    if info.source_message:
        lines.append((info.source_message, RED))
    if update is None:
        lines.append(("waiting for the first frame...", GREY))
        return lines
    status = update.stability.status
    tiles = len(update.tracker.confirmed_tracks())
    if status is TableStatus.EMPTY:
        lines.append(("no tiles on the table", GREY))
    elif status is TableStatus.SETTLING:
        held = update.stability.held_for()
        reason = update.stability.disturbed or "settling"
        lines.append((f"{tiles} tiles - {reason} - hold still {held:.1f}/{info.hold_seconds:.1f} s", AMBER))
    elif update.evaluated is not None and not update.evaluated.complete:
        lines.append((f"{tiles} tiles steady - not a complete hand: {update.evaluated.reason}", AMBER))
    else:
        lines.append((f"{tiles} tiles steady", GREEN))
    outcome = update.announced
    if outcome is None:
        return lines
    document = outcome.document
    statement = document.get("statement")  # the photo's own words: the same as its text and picture
    if isinstance(statement, str):
        lines.append((statement, GREEN if statement == SCORE_SURE else AMBER))
    score = document.get("score") or {}
    if score.get("valid", True):
        lines.append((f"TOTAL {score.get('total', '?')} {score.get('unit', '')}".rstrip(), GREEN))
    else:
        lines.append((f"not a winning hand: {score.get('reason', '')}", RED))
    hand = document.get("hand") or {}
    lines.append(("hand: " + " ".join(hand.get("concealed", [])), WHITE))
    for meld in hand.get("melds", []):
        kind = ("concealed " if meld.get("concealed") else "") + str(meld.get("kind", ""))
        lines.append((f"  {kind}: {' '.join(meld.get('tiles', []))}", WHITE))
    if hand.get("flowers"):
        lines.append(("  flowers: " + " ".join(hand["flowers"]), WHITE))
    if hand.get("winning_tile"):
        lines.append((f"  winning tile: {hand['winning_tile']}", WHITE))
    for item in score.get("items", []):
        lines.append((f"  {item.get('name', item.get('id', '?'))}: {item.get('value', '')}", WHITE))
    for warning in list(document.get("warnings", [])) + list(score.get("warnings", [])):
        lines.append((f"! {warning}", AMBER))
    return lines


def _draw_panel(canvas: np.ndarray, update: LiveUpdate | None, info: PanelInfo, scale: float) -> None:
    """The text panel in the top-right corner, as wide as its longest line (at most 60% of the frame)."""
    size = max(0.42, 0.55 * scale)
    thickness = _thickness(size)
    line_height = cv2.getTextSize("Ag", FONT, size, thickness)[0][1]
    step = int(line_height * 1.9)
    margin = max(6, line_height // 2)
    room = int(canvas.shape[1] * 0.6) - 2 * margin
    lines = [(_fit(text, size, thickness, room), colour) for text, colour in panel_lines(update, info)]
    text_width = max(cv2.getTextSize(text, FONT, size, thickness)[0][0] for text, _ in lines)
    width = min(canvas.shape[1], text_width + 2 * margin)
    height = min(canvas.shape[0], step * len(lines) + margin)
    left, top = _free_corner(canvas.shape, width, height, update)
    region = canvas[top : top + height, left : left + width]
    cv2.addWeighted(region, 0.3, np.zeros_like(region), 0.7, 0, dst=region)
    for row, (text, colour) in enumerate(lines):
        origin = (left + margin, top + step * (row + 1))
        cv2.putText(canvas, text, origin, FONT, size, colour, thickness, cv2.LINE_AA)


def _free_corner(
    shape: tuple[int, ...], width: int, height: int, update: LiveUpdate | None
) -> tuple[int, int]:
    """The corner (top-right first) where a ``width`` x ``height`` panel covers the fewest tiles."""
    frame_height, frame_width = shape[:2]
    corners = [
        (frame_width - width, 0),
        (0, frame_height - height),
        (frame_width - width, frame_height - height),
        (0, 0),
    ]
    boxes = [track.detection.box for track in update.tracker.tracks] if update is not None else []

    def covered(corner: tuple[int, int]) -> float:
        x, y = corner
        return sum(intersection_area((x, y, x + width, y + height), box) for box in boxes)

    return min(corners, key=covered)


def _thickness(size: float) -> int:
    return max(1, int(round(size * 1.6)))


def _fit(text: str, size: float, thickness: int, room: int) -> str:
    """``text``, shortened with "..." until it fits in ``room`` pixels."""
    if cv2.getTextSize(text, FONT, size, thickness)[0][0] <= room:
        return text
    while len(text) > 4 and cv2.getTextSize(text + "...", FONT, size, thickness)[0][0] > room:
        text = text[:-1]
    return text + "..."


def _text(
    canvas: np.ndarray, text: str, origin: tuple[int, int], size: float, colour: tuple[int, int, int]
) -> None:
    """A label on the picture: coloured text on a dark box, readable on any table cloth."""
    thickness = _thickness(size)
    (width, height), baseline = cv2.getTextSize(text, FONT, size, thickness)
    x, y = origin
    cv2.rectangle(canvas, (x - 2, y - height - 3), (x + width + 2, y + baseline), (20, 20, 20), -1)
    cv2.putText(canvas, text, origin, FONT, size, colour, thickness, cv2.LINE_AA)
