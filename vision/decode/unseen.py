"""The one tile of a hand that the photo does not show.

A photo is all the scorer gets. A tile lying behind the standing row, under a hand or outside the
frame leaves the hand one tile short, and refusing the photo would throw away a hand that the game
pins down: only the tiles that complete the hand can be the missing one, and those are few. This
module holds that policy, apart from the search over the seen tiles (``vision.decode``), which asks
it how many tiles are unseen and, for each reading of the seen tiles, which codes the unseen one can
be (the scorer then confirms each):

- at most one tile is inferred: a row exactly one short is read, any other count is refused;
- its codes are the hand's waits (with no set on the table, the waits of the special shapes too:
  every shape any rule set knows, the scorer then says which the table's rules allow), less the
  faces whose four copies are all in the hand already;
- they share one uniform prior, since nothing in the photo tells them apart. The search therefore
  cannot choose among them; the confidence report does (``vision.report.confidence.choose_unseen_tile``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scoring.shapes import SPECIAL_SHAPES, winning_tiles
from scoring.tiles import SET_TILE_CODES
from vision.decode.refusals import TileCountError, refusal_error
from vision.types import HAND_SIZE, LegalReading, Refusal

__all__ = ["TileCountError", "UNSEEN_LOG_PRIOR", "UnseenTile", "unseen_codes", "unseen_count", "unseen_tiles"]

#: Log prior of each code for the unseen tile: uniform over the 34 set tiles (the photo shows nothing).
UNSEEN_LOG_PRIOR = math.log(1.0 / len(SET_TILE_CODES))


def unseen_tiles(standing: int, expected: int, infer: bool = True, hand_size: int = HAND_SIZE) -> int:
    """:func:`unseen_count`, its refusal raised as :class:`~vision.decode.refusals.TileCountError`."""
    count = unseen_count(standing, expected, infer, hand_size)
    if isinstance(count, Refusal):
        raise refusal_error(count)
    return count


def unseen_count(standing: int, expected: int, infer: bool = True,
                 hand_size: int = HAND_SIZE) -> int | Refusal:
    """How many tiles of the hand the photo does not show, from the ``standing`` tiles found and the
    ``expected`` count the sets on the table require (``vision.decode.expected_standing_tiles``): 0, or
    1 when the row is exactly one short and ``infer`` allows reading it. Any other count cannot be
    read: a refusal naming the counts and the likely cause, with the count's ``surplus``.
    ``hand_size``: the tiles of a complete hand under the rule set (:data:`vision.types.HAND_SIZE`,
    14 for a 13-tile game)."""
    short = expected - standing
    if short == 0 or (short == 1 and infer):
        return short
    sets = (hand_size - expected) // 3
    most = (hand_size - 2) // 3
    if sets > most:
        return Refusal(f"not a hand: {sets} sets found laid on the table, and a hand holds at most "
                       f"{most}; is the photo of a whole tile set laid out, or of more than one hand?",
                       surplus=-short)
    hint = ""
    if short == 1:
        hint = "; is a tile hidden or outside the picture?"
    elif short > 1:
        hint = f"; {short} tiles are missing (hidden or outside the picture?)"
        hint += " and only one can be inferred" if infer else ""
        # On the held-out renders most such hands hide sets or flowers behind a standing row.
        hint += "; sets laid behind a standing row are often hidden by it: take the photo from higher up"
    elif short == -1:
        hint = "; is a tile from outside the hand (a discard, the wall) in the row?"
    return Refusal(f"not a winning hand: {standing} standing tiles with {sets} set(s) on the table; "
                   f"a complete hand has {expected} ({hand_size} with no sets laid down, 3 fewer per set)"
                   f"{hint}", surplus=-short)


def unseen_codes(standing: list[int], in_hand: list[int], special_shapes: bool) -> list[str]:
    """The codes the unseen tile can be, for the scorer to confirm: the exact waits of the ``standing``
    tiles (34 counts): sets and a pair, and with ``special_shapes`` (no set on the table) the special
    shapes' too; less those of which the hand (``in_hand``: counts over standing tiles and sets)
    already holds all four. Exact, not screened: a loose screen let most faces through for a
    hopeless photo, and the scorer was asked about each on every reading (53 s instead of 0.75 s)."""
    shapes = tuple(SPECIAL_SHAPES) if special_shapes else ()
    return [SET_TILE_CODES[i] for i in winning_tiles(standing, in_hand, shapes)]


@dataclass(frozen=True)
class UnseenTile:
    """The one tile of the hand the photo does not show, and the readings that complete the hand.

    ``completions`` are the legal readings that differ from the best one only in the unseen tile's
    code, best (first found) first; all are equally probable, so which is reported is the confidence
    report's choice (``vision.report.confidence.choose_unseen_tile``). ``winning`` says the unseen tile was
    taken as the winning tile (the layout found none: the tile lying across is the one most often hidden).
    """

    winning: bool
    completions: tuple[LegalReading, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.unseen or "" for r in self.completions)
