"""Which code each tile of a set photo shows: the tiles found, put in rows, matched to the order laid out.

A player lays the set out once in :data:`SET_ORDER` (rows may wrap anywhere; the photo may be
upside down, which reverses the order) or in any rows they describe (``--rows``, each row's codes
left to right as the photo shows them). The detections are grouped into rows across the rows'
direction, each row read along it, and the codes assigned in turn. Whatever does not fit is
refused with the reason (:class:`OrderError`): a tile missing or extra, two rows merged, a row of
the wrong length, tiles that do not read as the order at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.layout import estimate_row_direction
from vision.types import Detection

SUITS_ORDER: tuple[str, ...] = tuple(f"{n}{suit}" for suit in "mps" for n in range(1, 10))
HONOURS_ORDER: tuple[str, ...] = tuple(f"{n}z" for n in range(1, 8))
FLOWERS_ORDER: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
#: The documented layout: 1-9 characters, 1-9 dots, 1-9 bamboo, East South West North White Green
#: Red, flowers plum orchid chrysanthemum bamboo, seasons spring summer autumn winter.
SET_ORDER: tuple[str, ...] = SUITS_ORDER + HONOURS_ORDER + FLOWERS_ORDER
#: A set without flowers and seasons laid out the same way.
SET_ORDER_NO_FLOWERS: tuple[str, ...] = SUITS_ORDER + HONOURS_ORDER
ORDER_TEXT = "1-9m, 1-9p, 1-9s, 1-7z (winds, dragons), 1-8f (flowers, seasons)"
#: Two rows are apart where the tiles' centres step across the rows by more than this many tile
#: heights (a row's own tiles scatter by a fraction of one; the next row is a whole one away).
ROW_BREAK = 0.55
#: Neighbours in one row closer than this many tile widths along it are two tiles of two rows merged.
MERGED_ROW_STEP = 0.45
#: At least this share of the tiles must have the code assigned among the classifier's
#: candidates for the documented order to be believed (the shipped models read most tiles of
#: an unknown style; a photo laid out in another order agrees on a few).
MIN_AGREEMENT = 0.35


class OrderError(InputError):
    """The tiles found do not fit the order they were said to be laid out in."""


@dataclass(frozen=True)
class Placed:
    """One detection's place in the layout: its row (0 = top), its position in the row, its code."""

    detection: Detection
    row: int
    position: int
    code: str


def parse_rows(rows: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """``["123456789m", "1234567z", "11m"]`` -> the codes of each row, in order.

    Each row is the notation's digits with a suit letter closing each run (``123m456p``); the
    codes must be faces (not ``back``).
    """
    parsed = []
    for number, text in enumerate(rows, start=1):
        codes: list[str] = []
        digits = ""
        for char in text.replace(" ", ""):
            if char.isdigit():
                digits += char
            elif char in "mpszf" and digits:
                codes.extend(f"{digit}{char}" for digit in digits)
                digits = ""
            else:
                raise InputError(f"--rows row {number} {text!r}: expected digits closed by a suit letter "
                                 "(m p s z f), e.g. 123456789m")
        if digits or not codes:
            raise InputError(f"--rows row {number} {text!r}: the digits must end with a suit letter")
        unknown = [code for code in codes if code not in VISION_CODES or code == "back"]
        if unknown:
            raise InputError(f"--rows row {number}: {', '.join(unknown)} is not a tile face")
        parsed.append(tuple(codes))
    return tuple(parsed)


def _axes(centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows' direction (pointing right) and the normal across them (pointing down)."""
    angle = estimate_row_direction(centres) if len(centres) > 2 else 0.0
    along = np.array([np.cos(angle), np.sin(angle)])
    if along[0] < 0 or (abs(along[0]) < 1e-9 and along[1] < 0):
        along = -along
    across = np.array([-along[1], along[0]])
    if across[1] < 0:
        across = -across
    return along, across


def group_rows(detections: Sequence[Detection]) -> list[list[int]]:
    """Indices of ``detections`` by row, top row first, each row left to right."""
    if not detections:
        return []
    centres = np.array([d.center for d in detections], dtype=float)
    along, across = _axes(centres)
    heights = np.array([max(d.width, d.height) for d in detections], dtype=float)
    height = float(np.median(heights))
    offsets = centres @ across
    order = np.argsort(offsets)
    rows: list[list[int]] = [[int(order[0])]]
    for previous, index in zip(order[:-1], order[1:], strict=True):
        if offsets[index] - offsets[previous] > ROW_BREAK * height:
            rows.append([])
        rows[-1].append(int(index))
    positions = centres @ along
    return [sorted(row, key=lambda i: positions[i]) for row in rows]


def _merged_row(detections: Sequence[Detection], rows: list[list[int]]) -> int | None:
    """The first row (0-based) in which two neighbours lie on top of each other along it, or None."""
    centres = np.array([d.center for d in detections], dtype=float)
    along, _ = _axes(centres)
    width = float(np.median([min(d.width, d.height) for d in detections]))
    for number, row in enumerate(rows):
        steps = np.diff(centres[row] @ along)
        if len(steps) and float(steps.min()) < MERGED_ROW_STEP * width:
            return number
    return None


def assign_rows(detections: Sequence[Detection], rows: Sequence[Sequence[str]]) -> list[Placed]:
    """The codes of ``rows`` (as the photo shows them) given to the tiles found, row by row."""
    found = group_rows(detections)
    merged = _merged_row(detections, found)
    if merged is not None:
        raise OrderError(f"row {merged + 1} of the photo has tiles lying on top of each other along it: "
                         "two rows merged? Lay the rows further apart")
    if len(found) != len(rows):
        hint = " (two rows too close, so read as one?)" if len(found) < len(rows) else ""
        raise OrderError(f"found {len(found)} rows of tiles, --rows gives {len(rows)}{hint}")
    for number, (row, codes) in enumerate(zip(found, rows, strict=True), start=1):
        if len(row) != len(codes):
            why = "a tile missing or not found" if len(row) < len(codes) else "a tile extra"
            raise OrderError(f"row {number}: found {len(row)} tiles, --rows gives {len(codes)} codes ({why})")
    return [Placed(detections[i], number, position, code)
            for number, (row, codes) in enumerate(zip(found, rows, strict=True))
            for position, (i, code) in enumerate(zip(row, codes, strict=True))]


def _agreement(candidates: Sequence[Sequence[str]], sequence: Sequence[int], order: Sequence[str]) -> int:
    return sum(order[k] in candidates[i] for k, i in enumerate(sequence))


def assign_set_order(detections: Sequence[Detection], candidates: Sequence[Sequence[str]]
                     ) -> tuple[list[Placed], bool]:
    """The documented order given to the tiles found, and whether it ran backwards (upside down).

    ``candidates``: the classifier's top codes of each detection, which decide the direction (the
    one more tiles agree with) and whether the photo shows the order at all.
    """
    found = group_rows(detections)
    merged = _merged_row(detections, found)
    if merged is not None:
        raise OrderError(f"row {merged + 1} of the photo has tiles lying on top of each other along it: "
                         "two rows merged? Lay the rows further apart")
    count = sum(len(row) for row in found)
    order = SET_ORDER if count > len(SET_ORDER_NO_FLOWERS) else SET_ORDER_NO_FLOWERS
    if count != len(order):
        missing = len(order) - count
        what = f"{missing} missing or not found" if missing > 0 else f"{-missing} extra"
        raise OrderError(f"found {count} tiles; the set laid out in order ({ORDER_TEXT}) has "
                         f"{len(SET_ORDER)}, or {len(SET_ORDER_NO_FLOWERS)} without flowers: {what}. "
                         "Check every tile shows, or give the layout with --rows")
    sequence = [i for row in found for i in row]
    forward = _agreement(candidates, sequence, order)
    backward = _agreement(candidates, sequence[::-1], order)
    reversed_order = backward > forward
    agree = max(forward, backward)
    if agree < MIN_AGREEMENT * count:
        raise OrderError(f"the tiles do not read as the set laid out in order ({ORDER_TEXT}): only "
                         f"{agree} of {count} agree with it. Lay them out so, or give the layout with --rows")
    codes = list(order[::-1]) if reversed_order else list(order)
    places = {i: (number, position) for number, row in enumerate(found) for position, i in enumerate(row)}
    placed = [Placed(detections[i], *places[i], code) for i, code in zip(sequence, codes, strict=True)]
    return placed, reversed_order
