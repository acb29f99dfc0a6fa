"""Standing tiles the detector found as two overlapping halves, joined again.

Why: a standing 4s (or 4p) shows two columns of two marks, and the detector sometimes finds each
column as a tile of its own: two outlines read 2s (2p), each a little wider than half the tile,
overlapping in the middle and skewed against the row. ``vision.repairs.split_tiles`` and
``vision.repairs.sideways_halves`` miss them: the halves are not slivers against the tiles seen like them
(those are the other halves), they overlap more than clean halves do, and their skewed axes are
not those of the row. On the bundled ``hand-standing-row.jpg`` three standing 4s came out as six
2s; the decoder then "corrected" two of them into a legal hand that left the 8m pung out.

A row is evenly spaced, so the halves show in the geometry: the row's whole tiles (about the
halves' height) say how wide a tile is, and two halves read alike, level, each narrower than that
and together about that wide, are one tile. Where halves of neighbouring tiles could pair either
way, the tighter pairs win (a 4s's own halves overlap; halves of two tiles only touch). The
joined outline must read sure as another face (:data:`JOINED_SURE`), and the pipeline keeps the
joined hand only when it reads with every tile as the classifier read it and none unseen. It is
tried only for a hand that does not read, or reads only with tiles corrected.

It reads one more bundled sample exactly and moves no held-out hand (``models/EXPERIMENTS.md``):
there the halves of a standing 4s or 4p are rare, and a flat 4s pung found as six halves joins
right but then needs its winning tile inferred, so it is not kept.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vision.geometry import FaceFrame, face_frame, merged_detection
from vision.repairs.attempt import Attempt, HandResult, attempt
from vision.repairs.turned_faces import Classify
from vision.types import TileReading

#: Heights within this ratio belong to one row (a flat set behind a standing row is seen otherwise).
HEIGHT_RATIO = 1.25
#: Whole tiles of the row: at least this many, to know a tile's width, taken at this percentile.
MIN_WHOLE = 3
WHOLE_PERCENTILE = 75
#: A half is narrower than this share of a whole tile's width ...
HALF_SHARE = 0.85
#: ... their centres about half a tile's width apart across the row (in whole widths: the halves of
#: neighbouring tiles lie three quarters apart, two whole tiles one) ...
SPACING = (0.3, 0.65)
#: ... and level: centres at most this far apart up the face (in heights).
UP_OFFSET = 0.3
#: The joined face must read at least this sure, as another code than its halves.
JOINED_SURE = 0.85
#: The warning for the joined hand; ``{count}`` tiles, ``{codes}`` what they read.
JOINED_WARNING = "{count} tile(s) found as two halves each were joined and read {codes}"


def _whole_width(frames: dict[int, FaceFrame], index: int) -> float | None:
    """A whole tile's width about ``index``'s height: the upper quartile of the upright tiles seen
    that tall (halves and half-hidden faces only pull it down), or None when fewer than
    :data:`MIN_WHOLE` tiles are."""
    height = frames[index].height
    widths = [frame.width for j, frame in frames.items()
              if j != index and max(frame.height, height) <= HEIGHT_RATIO * min(frame.height, height)]
    return float(np.percentile(widths, WHOLE_PERCENTILE)) if len(widths) >= MIN_WHOLE else None


def overlapping_half_pairs(readings: list[TileReading]) -> list[tuple[int, int]]:
    """Disjoint pairs of upright detections that are one standing tile's halves (module docstring),
    the tightest pairs first."""
    upright = [i for i, r in enumerate(readings) if r.detection.quad is not None and not r.detection.rotated
               and not r.detection.face_down]
    quads = {i: np.asarray(readings[i].detection.quad, np.float64) for i in upright}
    frames = {i: face_frame(quads[i]) for i in upright}
    whole = {i: _whole_width(frames, i) for i in upright}
    by_code: dict[str, list[int]] = {}
    for i in upright:
        by_code.setdefault(readings[i].code, []).append(i)
    options = []
    for members in by_code.values():
        for position, i in enumerate(members):
            for j in members[position + 1:]:
                widths = [w for w in (whole[i], whole[j]) if w is not None]
                spacing = _pair_spacing(frames[i], frames[j], max(widths)) if widths else None
                if spacing is not None:
                    options.append((spacing, i, j))
    taken: set[int] = set()
    pairs = []
    for _, i, j in sorted(options):
        if i not in taken and j not in taken:
            taken.update((i, j))
            pairs.append((i, j))
    return pairs


def _pair_spacing(first: FaceFrame, second: FaceFrame, whole: float) -> float | None:
    """How far apart the two halves' centres lie across the row, as a share of a whole tile's width,
    or None when they are not one tile's halves (heights, level, each narrow, half a tile apart).
    Their own axes are skewed alike, so the centres are compared along the mean of the two."""
    height = (first.height + second.height) / 2
    if max(first.height, second.height) > HEIGHT_RATIO * min(first.height, second.height):
        return None
    if max(first.width, second.width) >= HALF_SHARE * whole:
        return None
    up = first.up + second.up if float(first.up @ second.up) >= 0 else first.up - second.up
    up = up / max(float(np.hypot(*up)), 1e-9)
    offset = second.centre - first.centre
    if abs(float(offset @ up)) > UP_OFFSET * height:
        return None
    spacing = abs(float(offset @ np.array([-up[1], up[0]]))) / whole
    return spacing if SPACING[0] <= spacing <= SPACING[1] else None


def joined_standing_halves(readings: list[TileReading], classify: Classify) -> list[TileReading] | None:
    """``readings`` with every pair of overlapping halves (:func:`overlapping_half_pairs`) that reads
    sure as another face made one tile; None when no pair does."""
    pairs = overlapping_half_pairs(readings)
    if not pairs:
        return None
    halves = [sorted((readings[i].detection, readings[j].detection), key=lambda d: -d.score)
              for i, j in pairs]
    joined = [merged_detection(stronger, weaker) for stronger, weaker in halves]  # the stronger's outline
    views = classify(joined)
    absorbed: set[int] = set()
    new_tiles = []
    for (i, j), view in zip(pairs, views, strict=True):
        if view.confidence >= JOINED_SURE and view.code != readings[i].code:
            absorbed.update((i, j))
            new_tiles.append(view)
    if not new_tiles:
        return None
    return [reading for k, reading in enumerate(readings) if k not in absorbed] + new_tiles


def standing_halves_attempts(readings: list[TileReading], classify: Classify,
                             after: HandResult | None = None) -> Iterator[Attempt]:
    """The readings with standing halves joined (:func:`joined_standing_halves`), kept when the hand
    then reads with every tile as the classifier read it and none unseen. ``after``: the hand as
    read without the join, when it reads; then the join is tried only if that reading corrects
    tiles."""
    if after is not None and (after.decoded is None or not after.decoded.changes):
        return
    joined = joined_standing_halves(readings, classify)
    if joined is None:
        return
    count = len(readings) - len(joined)
    codes = " ".join(reading.code for reading in joined[len(joined) - count:])
    yield attempt(joined, JOINED_WARNING.format(count=count, codes=codes), keep=_as_read)


def _as_read(result: HandResult) -> bool:
    """Whether the hand reads with every tile seen and as the classifier read it."""
    return result.decoded is not None and not result.decoded.changes and result.decoded.unseen is None
