"""Contact sheets: a grid of a dataset's images with every label drawn (outline, code, flags).

Used to eyeball labels and to compare synthetic scenes with real photos side by side. Colours
by role: concealed green, meld orange, concealed kong magenta, flower pink, winning tile red,
distractor grey, unassigned cyan. A sideways tile gets an ``R`` after its code.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.dataset.manifest import ManifestRecord, image_path
from vision.imageio import load_image

ROLE_COLOURS_BGR: dict[str | None, tuple[int, int, int]] = {
    "concealed": (60, 200, 60),
    "meld": (0, 150, 255),
    "concealed_kong": (200, 60, 200),
    "flower": (180, 120, 255),
    "winning": (40, 40, 230),
    "distractor": (150, 150, 150),
    None: (230, 200, 40),
}
MAX_CELLS = 400


def draw_labels(image: np.ndarray, record: ManifestRecord, scale: float = 1.0,
                show_distractors: bool = True) -> np.ndarray:
    """``image`` (already resized by ``scale``) with the record's tiles drawn on it."""
    thickness = 1 if image.shape[1] < 700 else 2
    font_scale = max(0.32, min(0.6, image.shape[1] / 1400))
    for tile in record.tiles:
        if tile.role == "distractor" and not show_distractors:
            continue
        colour = ROLE_COLOURS_BGR.get(tile.role, ROLE_COLOURS_BGR[None])
        if tile.quad is not None:
            points = np.round(np.array(tile.quad) * scale).astype(np.int32)
            cv2.polylines(image, [points], True, colour, thickness, cv2.LINE_AA)
            cv2.circle(image, tuple(int(v) for v in points[0]), thickness + 1, colour, -1, cv2.LINE_AA)
        else:
            x1, y1, x2, y2 = (int(round(v * scale)) for v in tile.box)
            cv2.rectangle(image, (x1, y1), (x2, y2), colour, thickness, cv2.LINE_AA)
        text = tile.code + ("R" if tile.rotated else "")
        if tile.role == "distractor":
            text = ""
        if text:
            x, y = int(tile.box[0] * scale), int(tile.box[1] * scale) - 2
            cv2.putText(image, text, (x, max(y, 10)), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), 3,
                        cv2.LINE_AA)
            cv2.putText(image, text, (x, max(y, 10)), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, 1,
                        cv2.LINE_AA)
    return image


def contact_sheet(records: list[ManifestRecord], anchor: Path, columns: int = 4, cell_width: int = 480,
                  show_distractors: bool = True) -> np.ndarray:
    """One image: ``records`` in a grid, each scaled to ``cell_width`` and annotated."""
    if not records:
        raise InputError("nothing to preview: the dataset has no images")
    if not 1 <= columns <= 32 or not 64 <= cell_width <= 2048:
        raise InputError("--columns must be 1..32 and --cell 64..2048")
    if len(records) > MAX_CELLS:
        raise InputError(f"at most {MAX_CELLS} images on one sheet")
    cells = []
    cell_height = 0
    for record in records:
        path = image_path(record, anchor)
        image = load_image(path)
        scale = cell_width / image.shape[1]
        # Labels are in the pixels of the image as the manifest saw it (width x height).
        label_scale = cell_width / record.width
        size = (cell_width, int(round(image.shape[0] * scale)))
        resized = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        cells.append(draw_labels(resized, record, label_scale, show_distractors))
        cell_height = max(cell_height, resized.shape[0])
    rows = []
    for start in range(0, len(cells), columns):
        chunk = cells[start:start + columns]
        row = [np.pad(c, ((0, cell_height - c.shape[0]), (0, 0), (0, 0))) for c in chunk]
        while len(row) < columns:
            row.append(np.zeros((cell_height, cell_width, 3), np.uint8))
        rows.append(np.hstack([np.pad(c, ((2, 2), (2, 2), (0, 0)), constant_values=255) for c in row]))
    return np.vstack(rows)


def write_png(path: str | os.PathLike[str], image: np.ndarray) -> Path:
    """Write a PNG atomically."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise InputError(f"the preview is a PNG: give a .png path, not {path.name}")
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("PNG encoding failed")
    atomic_write_bytes(path, data.tobytes())
    return path
