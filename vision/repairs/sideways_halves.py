"""A sideways tile the detector found as two upright tiles, joined again when the hand needs it.

Why: a 4p lying sideways shows two rows of two dots, and the detector sometimes finds it as two
upright tiles side by side, each half read as 2p. The hand then holds a tile too many and a wrong
face; held-out renders show it for winning 4p lying sideways, and for a sideways 4p in a set
found as two 4z. Two halves look like two narrow upright tiles, so geometry alone cannot tell them from two
real tiles; the classifier can: the two halves of one face read alike, and their joined outline
reads sure as one tile. Such a join is tried when the tile count makes no hand as detected
(the reading's refusal says the count failed; or, below, when the hand shows no winning tile), and
kept only when the hand then reads, the surest join first. Each try reads the whole
hand again, so only two joins are tried after a count failure: more joins, or joins after any
failure, gain no hand and make a photo that reads neither way several times slower to fail.

The halves can also fit the count: a winning 4p lying flat in front of a standing row found as
two halves (one a weak detection, ``spares=True``), or as two upright tiles each read 2p, one of
them taken for a standing tile, the hand then read without a winning tile shown. So a hand that
reads but shows no winning tile is read once more with each join, and the join is kept when its
tile is then the winning tile and no tile need be unseen (without that rule a join of two real
1p can read as a 2p). On the held-out renders it gains hands and loses none
(``models/EXPERIMENTS.md``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vision.geometry import face_frame, merged_detection
from vision.repairs.attempt import Attempt, HandResult, attempt
from vision.repairs.split_tiles import ACROSS_GAP, ACROSS_OVERLAP, across_gap, seen_alike
from vision.repairs.turned_faces import Classify, turned_a_quarter, wins_with
from vision.types import Detection, TileReading

#: The joined face must read at least this sure (as cut or turned a quarter, whichever is surer).
JOINED_SURE = 0.85
#: At most this many joins are tried, the surest first.
MAX_JOINS = 2
#: The warning for a join; ``{what}`` says more of the joined tile (or is empty).
JOINED_WARNING = ("two tiles side by side were read as one {code}{what} (the detector found its face as "
                  "two halves)")


def half_pairs(readings: list[TileReading], spares: bool = False) -> list[tuple[int, int]]:
    """Pairs of upright tiles that could be one face's halves: read as the same code, seen alike
    (height and axis), level, touching or overlapping a little across their faces. ``spares``: a
    weak detection beside the tiles may be one of the halves."""
    upright = [i for i, r in enumerate(readings) if r.detection.quad is not None and not r.detection.rotated
               and not r.detection.face_down and (spares or not r.detection.spare)]
    quads = {i: np.asarray(readings[i].detection.quad, np.float64) for i in upright}
    frames = {i: face_frame(quads[i]) for i in upright}
    pairs = []
    for position, i in enumerate(upright):
        for j in upright[position + 1:]:
            if readings[i].code != readings[j].code or not seen_alike(frames[i], frames[j]):
                continue
            gap = across_gap(quads[i], quads[j], frames[i])
            if gap is not None and -ACROSS_OVERLAP * frames[i].height <= gap <= ACROSS_GAP * frames[i].height:
                pairs.append((i, j))
    return pairs


def joined_halves(readings: list[TileReading], classify: Classify, spares: bool = False
                  ) -> list[list[TileReading]]:
    """Readings with one pair of halves (:func:`half_pairs`) made one tile, one list per join that
    reads sure (:data:`JOINED_SURE`) as another code than its halves, the surest first (at most
    :data:`MAX_JOINS`). The joined tile is flagged sideways when it reads surer turned."""
    pairs = half_pairs(readings, spares)
    if not pairs:
        return []
    joined = [merged_detection(readings[i].detection, readings[j].detection) for i, j in pairs]
    turned = [turned_a_quarter(detection) for detection in joined]
    views = classify(joined + turned)
    options = []
    for k, (i, j) in enumerate(pairs):
        upright_view, turned_view = views[k], views[len(pairs) + k]
        best = max((upright_view, turned_view), key=lambda view: view.candidates[0][1])
        if best.candidates[0][1] < JOINED_SURE or best.code == readings[i].code:
            continue
        options.append((best.candidates[0][1], i, j, best))
    options.sort(key=lambda option: -option[0])
    out = []
    for _, i, j, best in options[:MAX_JOINS]:
        rest = [reading for k, reading in enumerate(readings) if k not in (i, j)]
        out.append([*rest, best])
    return out



def joined_halves_attempts(readings: list[TileReading], classify: Classify) -> Iterator[Attempt]:
    """For a hand whose tile count failed: the readings with two halves of one face joined
    (:func:`joined_halves`), the first that reads kept."""
    for joined in joined_halves(readings, classify):
        yield attempt(joined, JOINED_WARNING.format(code=joined[-1].code, what=""))


def winning_tile_joined_attempts(result: HandResult, readings: list[TileReading],
                                 classify: Classify) -> Iterator[Attempt]:
    """When ``result`` (the reading of ``readings``) shows no winning tile or needs a tile inferred:
    the readings with two halves of one face joined (:func:`joined_halves`, a weak detection allowed
    as a half), kept when the joined tile is the winning tile and no tile is unseen (a standing tile
    at a slant can be taken for the winning tile while the winning 4p lying in front of the row,
    found as two 2p, leaves the hand a tile short)."""
    unseen = result.decoded is not None and result.decoded.unseen is not None
    if result.layout is None or (result.layout.winning_index is not None and not unseen):
        return
    for joined in joined_halves(readings, classify, spares=True):
        tile = joined[-1].detection

        def keep(candidate: HandResult, tile: Detection = tile) -> bool:
            return (wins_with(candidate, tile) and candidate.decoded is not None
                    and candidate.decoded.unseen is None)

        warning = JOINED_WARNING.format(code=joined[-1].code, what=" lying sideways, the winning tile")
        yield attempt(joined, warning, keep=keep)
