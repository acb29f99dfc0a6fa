"""A winning tile lying flat in front of a standing tile, found as one tall tile with it, cut apart.

Why: players push the winning tile out in front of a standing row, often right against it. Seen
from the player's side the flat tile covers the foot of the standing tile behind it, and the
detector then finds the two as one outline: a "tile" level with its neighbours at the top but
reaching well below their feet, read as neither face (a standing 5p and the winning 5p in front
of it as one outline read 5p, unsure; a 4p and 4p as 6p). The hand is a tile short,
shows no winning tile, or reads only with a tile inferred.

Such an outline shows in the row's geometry: against its two nearest upright neighbours along the
row, its top is level with theirs and its foot overhangs theirs by a fifth of their height or
more. It is cut in two: the standing tile (the neighbours' height, in the gap they leave, or one
tile on from the nearer one) and the flat tile (from the overhang's foot up into the standing
tile's foot, the whole width of the outline), read as cut and turned a quarter, the surer kept,
and flagged as lying across. Perspective makes many whole tiles overhang their neighbours a
little, so the cut is kept only when the hand then reads with every tile seen, the flat tile as
the winning tile, and no more tiles corrected than without the cut; it is tried only for a hand
that does not read, or reads with no winning tile shown or a tile inferred.

On the held-out renders it gains hands and loses none (``models/EXPERIMENTS.md``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from vision.geometry import FaceFrame, face_frame, frame_rectangle, stands_upright
from vision.repairs.attempt import Attempt, HandResult, attempt
from vision.repairs.turned_faces import Classify, turned_a_quarter, wins_with
from vision.types import Detection, TileReading

#: The outline's foot reaches at least this far below its neighbours' feet (in their heights)...
OVERHANG = 0.2
#: ...while its top is level with theirs, within this share of their height.
LEVEL = 0.2
#: A neighbour lies along the row: its centre at most this many of its widths away across the face
#: and at least half a width (not the same tile), and at most this share of its height up or down.
NEIGHBOUR_REACH = 1.8
NEIGHBOUR_LEVEL = 0.6
#: The flat tile covers the standing tile's foot up to this share of the standing tile's height.
FRONT_COVER = 0.3
#: At most this many outlines are cut, the one overhanging most first. Each try is a whole reading
#: of a hand that failed; on the seven render sets every cut kept was the first.
MAX_TRIES = 1
#: The warning for a hand read with such a cut; ``{code}`` is what the flat tile read.
FRONT_TILE_WARNING = ("the winning tile lying flat in front of the row ({code}) was found as one tile with "
                      "the standing tile behind it, and the two were cut apart")


@dataclass(frozen=True)
class Stack:
    """An outline found overhanging its row (``index`` into the readings, its ``frame``), with what
    its two row neighbours say about the row there: their mean height, width and foot (along the
    outline's up axis from its centre), and where across the outline the standing tile stands."""

    index: int
    frame: FaceFrame
    overhang: float
    neighbour_height: float
    neighbour_width: float
    neighbour_foot: float
    standing_across: float


def _span(quad: Sequence[tuple[float, float]], centre: np.ndarray, axis: np.ndarray) -> tuple[float, float]:
    """The lowest and highest of an outline's corners along ``axis`` from ``centre``."""
    values = (np.asarray(quad, np.float64) - centre) @ axis
    return float(values.min()), float(values.max())


def overhanging_outlines(readings: list[TileReading]) -> list[Stack]:
    """The upright outlines whose top is level with their row neighbours' and whose foot overhangs
    theirs (:data:`LEVEL`, :data:`OVERHANG`), the one overhanging most first."""
    upright = [i for i, reading in enumerate(readings) if stands_upright(reading.detection)]
    frames = {i: face_frame(readings[i].detection.quad) for i in upright}
    found = []
    for i in upright:
        frame = frames[i]
        near = []
        for j in upright:
            other = frames[j]
            offset = other.centre - frame.centre
            across, up = float(offset @ frame.across), float(offset @ frame.up)
            if (0.5 * other.width <= abs(across) <= NEIGHBOUR_REACH * other.width
                    and abs(up) <= NEIGHBOUR_LEVEL * other.height):
                near.append((abs(across), across, j))
        near = sorted(near)[:2]
        if not near:
            continue
        low, high = _span(readings[i].detection.quad, frame.centre, frame.up)
        spans = [_span(readings[j].detection.quad, frame.centre, frame.up) for _, _, j in near]
        height = float(np.mean([top - foot for foot, top in spans]))
        foot = float(np.mean([foot for foot, _ in spans]))
        top = float(np.mean([top for _, top in spans]))
        overhang = (foot - low) / height
        if overhang < OVERHANG or abs(high - top) > LEVEL * height:
            continue
        width = float(np.mean([frames[j].width for _, _, j in near]))
        sides = [across for _, across, _ in near]
        if min(sides) < 0 < max(sides):  # a neighbour on each side: the standing tile fills the gap
            standing = (max(a for a in sides if a < 0) + min(a for a in sides if a > 0)) / 2
        else:
            nearest = sides[0]
            standing = nearest - np.sign(nearest) * width
        found.append(Stack(i, frame, overhang, height, width, foot, float(standing)))
    return sorted(found, key=lambda stack: -stack.overhang)


def cut_apart(reading: TileReading, stack: Stack) -> tuple[Detection, Detection]:
    """The standing tile and the flat tile before it that ``stack``'s outline holds (flat one unread,
    upright in the row's axes)."""
    frame, detection = stack.frame, reading.detection
    low, high = _span(detection.quad, frame.centre, frame.up)
    left, right = _span(detection.quad, frame.centre, frame.across)
    standing_centre = (frame.centre + frame.across * stack.standing_across
                       + frame.up * (high - stack.neighbour_height / 2))
    standing = frame_rectangle(standing_centre, frame, stack.neighbour_width, stack.neighbour_height,
                               detection.score)
    flat_top = stack.neighbour_foot + FRONT_COVER * stack.neighbour_height
    flat_centre = frame.centre + frame.across * (left + right) / 2 + frame.up * (low + flat_top) / 2
    flat = frame_rectangle(flat_centre, frame, right - left, flat_top - low, detection.score)
    return standing, flat


def front_tile_cuts(readings: list[TileReading], classify: Classify) -> list[list[TileReading]]:
    """For each overhanging outline (:func:`overhanging_outlines`, at most :data:`MAX_TRIES`), the
    readings with it cut into a standing tile and a flat tile lying across before it, the flat tile
    last; it is read as cut or turned a quarter, whichever reads surer."""
    cuts = []
    for stack in overhanging_outlines(readings)[:MAX_TRIES]:
        standing, flat = cut_apart(readings[stack.index], stack)
        turned = turned_a_quarter(flat)
        read_standing, read_flat, read_turned = classify([standing, flat, turned])
        lying = read_turned if read_turned.confidence >= read_flat.confidence else read_flat
        lying = replace(lying, detection=replace(lying.detection, rotated=True))
        rest = [reading for i, reading in enumerate(readings) if i != stack.index]
        cuts.append([*rest, read_standing, lying])
    return cuts


def shows_the_winning_tile(result: HandResult) -> bool:
    """Whether ``result`` (a ``PhotoResult``) reads with a winning tile shown and no tile inferred."""
    return (result.layout is not None and result.layout.winning_index is not None
            and result.decoded is not None and result.decoded.unseen is None)


def front_tile_attempts(readings: list[TileReading], classify: Classify,
                        corrections: int = 0) -> Iterator[Attempt]:
    """The readings with an overhanging outline cut apart (:func:`front_tile_cuts`), kept when the
    flat tile is the winning tile, with no tile unseen and at most ``corrections`` tiles corrected
    (those of the reading without the cut: a cut in the wrong place reads as some legal hand only
    with sure tiles changed)."""
    for cut in front_tile_cuts(readings, classify):
        flat = cut[-1].detection

        def keep(result: HandResult, flat: Detection = flat) -> bool:
            return (shows_the_winning_tile(result) and len(result.decoded.changes) <= corrections
                    and wins_with(result, flat))

        yield attempt(cut, FRONT_TILE_WARNING.format(code=cut[-1].code), keep=keep)
