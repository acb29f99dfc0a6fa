"""The sideways winning tile the detector did not flag, found by reading faces turned a quarter.

The winning tile lies across the end of its row, and the detector flags it sideways most of the
time. When it does not, the layout sees no winning tile, and the tile's face is cut out upright
although it lies on its side: the classifier then reads it unsure, and often wrongly (a 6z as
1s). Read turned a quarter, the same face reads sure and right, while an
upright tile's face gains little. So when the layout names no winning tile, the concealed row's
tiles are read a second time turned; the one tile that reads clearly surer that way is taken as
lying sideways, with its turned reading.

An upright face can read sure turned too (a 4m as 4z, a 6s as 9p), so the pipeline keeps the
turned reading only when the hand then reads, and otherwise reads the photo as detected; on the
held-out renders it gains hands and loses none (``models/EXPERIMENTS.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from vision.layout import concealed_row_in, concealed_row_of_sure_tiles
from vision.repairs.attempt import Attempt, HandResult, attempt
from vision.types import Detection, TileReading

#: A face read turned must be at least this sure of its top code...
TURNED_SURE = 0.85
#: ...and this much surer than it was read as cut (probabilities of the top codes), or its odds
#: this many times the cut's (a classifier that reads a face lying on its side fairly sure upright).
TURNED_GAIN = 0.3
TURNED_ODDS_GAIN = 20.0

Classify = Callable[[list[Detection]], list[TileReading]]


def turned_a_quarter(detection: Detection, sideways: bool = True) -> Detection:
    """``detection`` turned a quarter: its outline's corners taken one step on, flagged ``sideways``
    (False: a flagged tile turned back to stand, ``vision.repairs.upright_faces``)."""
    if detection.quad is None:
        raise ValueError("only a detection with a face outline can be turned")
    quad = tuple(detection.quad[1:]) + (detection.quad[0],)
    return replace(detection, quad=quad, rotated=sideways)


def unflagged_sideways(readings: list[TileReading], classify: Classify,
                       read_as: HandResult | None = None) -> tuple[int, TileReading] | None:
    """The one concealed-row tile that reads clearly surer turned a quarter, with that reading, when
    the layout names no winning tile; None otherwise.

    ``classify`` reads detections (in the readings' coordinates) with the classifier. ``read_as``
    is the hand as read from ``readings`` (a ``PhotoResult``), when it reads: its layout says which
    row to look in. Without it, the most plausible layout of the sure detections does; that layout
    can be another than the one the decoder settles on (a winning 6z cut upright can read 5f, and
    the sure tiles' first layout then puts an exposed set in the row's place).
    """
    found = _concealed_row_read(readings, read_as) or concealed_row_of_sure_tiles(readings)
    if found is None or found[1] is not None:
        return None
    row = [i for i in found[0] if readings[i].detection.quad is not None and not readings[i].detection.rotated
           and not readings[i].detection.face_down]
    if not row:
        return None
    turned = classify([turned_a_quarter(readings[i].detection) for i in row])
    surer = [(i, reading) for i, reading in zip(row, turned, strict=True)
             if reading.candidates[0][1] >= TURNED_SURE
             and _reads_surer(reading.candidates[0][1], readings[i].candidates[0][1])]
    return surer[0] if len(surer) == 1 else None


def _concealed_row_read(readings: list[TileReading], result: HandResult | None
                        ) -> tuple[list[int], int | None] | None:
    """The concealed row of ``result``'s layout and its winning tile, as indices into ``readings``
    (the result may have left faint tiles out, so its readings are found by identity); None when
    there is no such layout."""
    layout = None if result is None else result.layout
    found = None if layout is None else concealed_row_in(layout)
    if found is None:
        return None
    position = {id(reading): index for index, reading in enumerate(readings)}
    row = [position.get(id(result.readings[k])) for k in found[0]]
    if any(index is None for index in row):
        return None
    winning = found[1]
    return row, (None if winning is None else position.get(id(result.readings[winning])))


def _reads_surer(turned: float, cut: float) -> bool:
    """Whether a top-code probability read turned is clearly above the one read as cut."""
    turned_odds = turned / max(1.0 - turned, 1e-9)
    cut_odds = cut / max(1.0 - cut, 1e-9)
    return turned - cut >= TURNED_GAIN or turned_odds >= TURNED_ODDS_GAIN * cut_odds


def with_sideways_found(readings: list[TileReading], classify: Classify, read_as: HandResult | None = None
                        ) -> tuple[list[TileReading], int | None]:
    """``readings`` with the unflagged sideways tile (:func:`unflagged_sideways`), if any, replaced by
    its turned reading; and its index."""
    found = unflagged_sideways(readings, classify, read_as)
    if found is None:
        return readings, None
    index, turned = found  # read on the turned detection, which it carries
    out = list(readings)
    out[index] = turned
    return out, index


def wins_with(result: HandResult, detection: Detection) -> bool:
    """Whether ``result`` (a ``PhotoResult``) names ``detection`` as its winning tile: the test each
    second look that adds or replaces a tile applies before it keeps the reading."""
    winning = result.layout.winning_index if result.layout is not None else None
    return winning is not None and result.readings[winning].detection is detection


#: The warning when the winning tile is the face found sideways by reading it turned.
TURNED_WARNING = ("the winning tile was found by reading its face turned a quarter (the detector did not "
                  "see it lying sideways)")


def turned_face_attempts(readings: list[TileReading], classify: Classify,
                         plain: HandResult | None) -> Iterator[Attempt]:
    """When the hand as read (``plain``, None when it does not read) shows no winning tile, the
    readings with the unflagged sideways tile found (:func:`with_sideways_found`); kept whenever the
    hand reads so, the warning said when that tile is then the winning one. An upright face
    sometimes reads sure turned too (a 4m as 4z): hence the plain reading first, and as the answer
    when the turned one does not read."""
    if plain is not None and plain.layout is not None and plain.layout.winning_index is not None:
        return
    turned, index = with_sideways_found(readings, classify, plain)
    if index is None:
        return
    detection = turned[index].detection
    yield attempt(turned, TURNED_WARNING, warn_if=lambda result: wins_with(result, detection))
