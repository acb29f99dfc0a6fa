"""Why a rendered hand was not read exactly: one cause per hand, and the tiles read wrong.

Each session that worked on the hand rate began by writing a throw-away script to sort the failed
hands by cause (twentieth and twenty-first sessions: half the readable failures were one flower
read as another). ``scripts/evaluate.py hands`` now does it: each hand that is not read exactly
gets the first cause of :data:`CAUSES` that applies, the report counts them, and ``--per-hand``
lists each hand's cause and its wrong tiles (``"6f (flower) -> 4f"``, ``"4m (meld) -> not found"``),
so where to work next is read off one run. ``--sheet FILE`` draws the misread tiles of the readable
hands that failed side by side (:func:`misread_crops`), to be looked at, not counted. Which
labelled tiles are judged at all (:func:`judged_tiles`) and how much of each the photo shows
(:func:`visibility`) are defined here once for the whole hand evaluation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dataset.manifest import UNKNOWN_CODE

#: The causes, in the order they are tried: a hand the photo cannot show is that whatever else went
#: wrong; a concealed kong's face cannot be seen by any reader; then the first stage that failed.
HIDDEN = "tiles hidden"
KONG_FACE = "concealed-kong face"
NOT_FOUND = "tile not found"
FLOWER_MISREAD = "flower misread"
WINNING_MISREAD = "winning tile misread"
TILE_MISREAD = "tile misread"
EXTRA_TILE = "tile found where none is"
LAYOUT = "layout or decoding"
CAUSES = (HIDDEN, KONG_FACE, NOT_FOUND, FLOWER_MISREAD, WINNING_MISREAD, TILE_MISREAD, EXTRA_TILE, LAYOUT)
#: A hand tile at least this much visible counts as one the detector should have found.
SEEN_VISIBLE = 0.5


def judged_tiles(record: Any) -> list[int]:
    """Indices of the labelled tiles whose reading is judged: the hand's, of a known face.

    A tile whose face the labeller could not read (``unknown``: 15 of the 552 real validation
    tiles) has no right answer, so it is left out, as the classifier's evaluation and training
    leave it out; counted, it was wrong whatever the pipeline read."""
    return [i for i, t in enumerate(record.tiles) if t.role != "distractor" and t.code != UNKNOWN_CODE]


def visibility(tile: Any) -> float:
    """How much of a labelled tile the photo shows (renders record it; other labels count as seen)."""
    return float(tile.extra.get("visible", 1.0))


def wrong_tiles(record: Any, codes: list[str], matches: dict[int, int]) -> list[str]:
    """The record's judged tiles (:func:`judged_tiles`) not found or read as another code, as
    ``"<true code> (<role>) -> <read code or 'not found'>"``, in label order; then each detection
    that matches no labelled tile, as ``"no tile -> <read code>"``."""
    out = []
    for index in judged_tiles(record):
        tile = record.tiles[index]
        if index not in matches:
            if visibility(tile) >= SEEN_VISIBLE:
                out.append(f"{tile.code} ({tile.role}) -> not found")
        elif codes[matches[index]] != tile.code:
            out.append(f"{tile.code} ({tile.role}) -> {codes[matches[index]]}")
    return out + [f"no tile -> {codes[index]}" for index in _unlabelled(codes, matches)]


def _unlabelled(codes: list[str], matches: dict[int, int]) -> list[int]:
    """Detections (indices into ``codes``) matched to no labelled tile, hand or not: a tile found
    twice, half a tile, or a shadow."""
    labelled = set(matches.values())
    return [index for index in range(len(codes)) if index not in labelled]


def failure_cause(record: Any, codes: list[str], matches: dict[int, int], *, exact: bool,
                  exact_visible: bool, readable: bool) -> str | None:
    """The first of :data:`CAUSES` that explains why the hand of ``record`` was not read exactly
    (``codes``: the code read for each detection; ``matches``: label index -> detection index);
    None for a hand read exactly or a record without a hand."""
    if exact or record.hand is None:
        return None
    if not readable:
        return HIDDEN
    if exact_visible:
        return KONG_FACE
    judged = [(index, record.tiles[index]) for index in judged_tiles(record)]
    if any(index not in matches and visibility(tile) >= SEEN_VISIBLE for index, tile in judged):
        return NOT_FOUND
    misread = [tile for index, tile in judged if index in matches and codes[matches[index]] != tile.code]
    if misread and all(tile.role == "flower" for tile in misread):
        return FLOWER_MISREAD
    if any(tile.role == "winning" for tile in misread):
        return WINNING_MISREAD
    if misread:
        return TILE_MISREAD
    if _unlabelled(codes, matches):
        return EXTRA_TILE
    return LAYOUT


def misread_crops(record: Any, image: Path, codes: list[str], matches: dict[int, int]
                  ) -> list[tuple[np.ndarray, str]]:
    """The record's hand tiles found but read as another code, each cut from ``image`` by its
    labelled box, with a caption ``"<image>\n<true>><read>"``; none if the image cannot be read."""
    picture = cv2.imread(str(image))
    if picture is None:
        return []
    height, width = picture.shape[:2]
    out = []
    for index in judged_tiles(record):
        tile = record.tiles[index]
        if index not in matches:
            continue
        read = codes[matches[index]]
        if read == tile.code:
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in tile.box)
        x1, y1, x2, y2 = max(0, x1), max(0, y1), min(width, x2), min(height, y2)
        if x2 - x1 >= 2 and y2 - y1 >= 2:
            out.append((picture[y1:y2, x1:x2].copy(), f"{Path(image).stem}\n{tile.code}>{read}"))
    return out
