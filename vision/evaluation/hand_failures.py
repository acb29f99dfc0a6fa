"""Why a rendered hand was not read exactly: one cause per hand, and the tiles read wrong.

``scripts/evaluate.py hands`` sorts the hands it did not read exactly by cause: each gets the
first cause of :data:`CAUSES` that applies, the report counts them, and ``--per-hand`` lists each
hand's cause and its wrong tiles (``"6f (flower) -> 4f"``, ``"4m (meld) -> not found"``), so where
to work next is read off one run. ``--sheet FILE`` draws the misread tiles of the readable
hands that failed side by side (:func:`misread_crops`), to be looked at, not counted. Which
labelled tiles are judged at all (:func:`judged_tiles`) and how much of each the photo shows
(:func:`visibility`) are defined here once for the whole hand evaluation.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from vision.dataset.manifest import UNKNOWN_CODE
from vision.imageio import read_bgr

#: The causes, in the order they are tried: a tile to blame that the photo barely shows is that
#: whatever else went wrong; a concealed kong's face cannot be seen by any reader; then the first
#: stage that failed.
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
    ``"<true code> (<role>) -> <read code or 'not found'>"`` (no role where the labels give none), in
    label order; then, for a record with a hand (whose labels hold every tile), each detection that
    matches no labelled tile, as ``"no tile -> <read code>"``. The real table photos label only some
    of their tiles, so there a detection without a label is no error."""
    out = []
    for index in judged_tiles(record):
        tile = record.tiles[index]
        truth = f"{tile.code} ({tile.role})" if tile.role else tile.code
        if index not in matches:
            if visibility(tile) >= SEEN_VISIBLE:
                out.append(f"{truth} -> not found")
        elif codes[matches[index]] != tile.code:
            out.append(f"{truth} -> {codes[matches[index]]}")
    if record.hand is None:
        return out
    return out + [f"no tile -> {codes[index]}" for index in _unlabelled(codes, matches)]


def _unlabelled(codes: list[str], matches: dict[int, int]) -> list[int]:
    """Detections (indices into ``codes``) matched to no labelled tile, hand or not: a tile found
    twice, half a tile, or a shadow."""
    labelled = set(matches.values())
    return [index for index in range(len(codes)) if index not in labelled]


def failure_cause(record: Any, codes: list[str], matches: dict[int, int], *, exact: bool,
                  exact_visible: bool, read_hand: dict[str, Any] | None = None) -> str | None:
    """The first of :data:`CAUSES` that explains why the hand of ``record`` was not read exactly
    (``codes``: the code read for each detection; ``matches``: label index -> detection index;
    ``read_hand``: the hand as read, None where none was); None for a hand read exactly or a
    record without a hand.

    Only the tiles to blame count (:func:`blamed_tiles`): a tile the photo barely shows that was
    nevertheless read, or one inferred or found a little off its labelled box, did not make the
    hand wrong: counting every hand with a tile under half visible as hidden would blame the
    hidden tile for hands that failed on a visible one."""
    if exact or record.hand is None:
        return None
    if exact_visible:
        return KONG_FACE
    blamed = blamed_tiles(record, codes, matches, read_hand)
    if any(visibility(record.tiles[index]) < SEEN_VISIBLE for index in blamed):
        return HIDDEN
    if any(index not in matches for index in blamed):
        return NOT_FOUND
    misread = [record.tiles[index] for index in blamed]
    if misread and all(tile.role == "flower" for tile in misread):
        return FLOWER_MISREAD
    if any(tile.role == "winning" for tile in misread):
        return WINNING_MISREAD
    if misread:
        return TILE_MISREAD
    if _unlabelled(codes, matches):
        return EXTRA_TILE
    return LAYOUT


def blamed_tiles(record: Any, codes: list[str], matches: dict[int, int],
                 read_hand: dict[str, Any] | None) -> list[int]:
    """The judged tiles (label indices) not found or read as another code whose face the hand as
    read lacks: with no hand read, every such tile. A tile read wrong whose face the hand holds
    anyway (the decoder inferred it, or it was found a little off its labelled box) is no cause."""
    missed = [index for index in judged_tiles(record)
              if index not in matches or codes[matches[index]] != record.tiles[index].code]
    if read_hand is None:
        return missed
    lacking = hand_faces(record.hand) - hand_faces(read_hand)
    return [index for index in missed if lacking[label_face(record.tiles[index])] > 0]


def hand_faces(hand: dict[str, Any]) -> Counter[str]:
    """Every face a hand holds: its standing tiles (the winning one among them), sets and flowers."""
    faces = Counter(hand["concealed"])
    for meld in hand["melds"]:
        faces.update(meld["tiles"])
    faces.update(hand.get("flowers", []))
    return faces


def label_face(tile: Any) -> str:
    """A labelled tile's face: a concealed kong's back stands for the face its label records."""
    return str(tile.extra.get("face", tile.code)) if tile.code == "back" else tile.code


def misread_crops(record: Any, image: Path, codes: list[str], matches: dict[int, int]
                  ) -> list[tuple[np.ndarray, str]]:
    """The record's hand tiles found but read as another code, each cut from ``image`` by its
    labelled box, with a caption ``"<image>\n<true>><read>"``; none if the image is missing."""
    if not Path(image).is_file():
        return []
    picture = read_bgr(image)
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
