"""The search over a hand's repairs: what is tried when the detector's tiles, read as found, make no
hand, or a hand that shows no winning tile, needs a tile inferred or leaves flowers out.

The repairs (``vision/repairs/``) only propose :class:`~vision.repairs.attempt.Attempt` s; this
module reads them (``read``: one whole reading of the hand under the photo's budget, a result or a
:class:`~vision.types.Refusal`), in a fixed order, each only on its condition, and keeps the first
that passes its test (:func:`first_kept`). A hand that reads at first costs nothing more. The
photo (``vision.pipeline.photo``) and the live mode (``vision.live.reading``) both read a hand
through :func:`read_with_second_looks`, then finish it with :func:`read_flowers_again`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from vision.decode.budget import Budget
from vision.repairs.attempt import Attempt, HandResult, amended
from vision.repairs.flower_pairs import flower_pair_attempts
from vision.repairs.front_tile import front_tile_attempts, shows_the_winning_tile
from vision.repairs.half_tiles import part_attempts
from vision.repairs.row_end_pair import row_end_pair_attempts
from vision.repairs.sideways_halves import joined_halves_attempts, winning_tile_joined_attempts
from vision.repairs.standing_halves import standing_halves_attempts
from vision.repairs.stray_flowers import ReadFlowers, stray_flower_attempts
from vision.repairs.surplus_tile import surplus_attempts
from vision.repairs.turned_faces import Classify, turned_face_attempts
from vision.types import Refusal, TileReading

#: The reading's own type, handed back as ``read`` made it.
Result = TypeVar("Result", bound=HandResult)
#: Whether to make no more attempts: the photo's deadline has passed (``Budget.expired``).
Stop = Callable[[], bool]


def never() -> bool:
    """The :data:`Stop` of a reading with no deadline."""
    return False


def stop_at(budget: Budget | None) -> Stop:
    """The :data:`Stop` of a reading that spends ``budget``: its deadline has passed."""
    return never if budget is None else budget.expired


def first_kept(attempts: Iterable[Attempt], read: Callable[[list[TileReading]], Result | Refusal],
               stop: Stop = never) -> Result | None:
    """The hand read from the first of ``attempts`` that reads and passes its test, amended as the
    attempt says (:func:`~vision.repairs.attempt.amended`); None if none does, or once ``stop``
    says so. Attempts are made as they are asked for, so a repair's later cuts (and their model
    reads) cost nothing once one is kept or the time is up."""
    pending = iter(attempts)
    while not stop():
        chosen = next(pending, None)
        if chosen is None:
            return None
        outcome = read(list(chosen.tiles))
        if isinstance(outcome, Refusal) or not chosen.keep(outcome):
            continue
        return amended(outcome, chosen)
    return None


def _either(found: Result | None, otherwise: Result | Refusal) -> Result | Refusal:
    return otherwise if found is None else found


def read_flowers_again(result: Result, classify: Classify | None, read_flowers: ReadFlowers,
                       read: Callable[[list[TileReading]], Result | Refusal], stop: Stop = never) -> Result:
    """A hand that reads, read again with the flower model's second looks: tiles left out beside it
    that it is sure are flowers (``vision.repairs.stray_flowers``), then two flowers side by side
    found as one outline cut apart (``vision.repairs.flower_pairs``; needs ``classify``)."""
    strays = first_kept(stray_flower_attempts(result, read_flowers), read, stop)
    result = result if strays is None else strays
    if classify is None:
        return result
    pairs = first_kept(flower_pair_attempts(result, classify, read_flowers), read, stop)
    return result if pairs is None else pairs


def read_with_second_looks(readings: list[TileReading], classify: Classify,
                           read: Callable[[list[TileReading]], Result | Refusal],
                           cut_merged: bool = True, stop: Stop = never) -> Result | Refusal:
    """The hand as the detector saw the tiles, or with a sideways tile it missed found by its turned
    face (``vision.repairs.turned_faces``). If the tile count makes no hand, two tiles side by side
    that are one face's halves are joined (``vision.repairs.sideways_halves``), standing tiles found
    as two halves each are joined (``vision.repairs.standing_halves``), or one tile too many is left
    out (``vision.repairs.surplus_tile``): :func:`_count_mended`. A hand that fails otherwise is read
    with standing halves joined, else without a small detection lying on a bigger tile
    (``vision.repairs.half_tiles``). A hand that reads with no winning tile shown may hold a sideways
    tile's halves, and one that reads only with tiles corrected standing halves.
    Last, a hand that still fails, shows no winning tile or needs one inferred may hold a winning
    tile lying flat against a standing one, the two found as one outline
    (``vision.repairs.front_tile``), and one that fails or needs a tile inferred may end a row with
    two tiles found as one (``vision.repairs.row_end_pair``). These cuts are the slowest tries on a
    photo that does not read (a whole reading each), so the photo makes them at its first look only
    (``cut_merged=False`` for the finer looks and the last resort: every hand of the held-out
    render sets they read, they read at the first look). ``stop``: no more attempts once it is true.
    """
    result = _read_with_mended_tiles(readings, classify, read, stop)
    if not cut_merged:
        return result
    if isinstance(result, Refusal):
        if result.count_failed:  # a cut adds one tile, and a hand one tile short reads (with it inferred)
            return result
        cut = first_kept(front_tile_attempts(readings, classify), read, stop)
        if cut is None:
            cut = first_kept(row_end_pair_attempts(readings, classify), read, stop)
        return _either(cut, result)
    if shows_the_winning_tile(result):
        return result
    changes = len(result.decoded.changes) if result.decoded is not None else 0
    cut = first_kept(front_tile_attempts(readings, classify, corrections=changes), read, stop)
    if cut is None and result.decoded is not None and result.decoded.unseen is not None:
        cut = first_kept(row_end_pair_attempts(readings, classify), read, stop)
    return _either(cut, result)


def _read_with_mended_tiles(readings: list[TileReading], classify: Classify,
                            read: Callable[[list[TileReading]], Result | Refusal],
                            stop: Stop) -> Result | Refusal:
    plain = read(readings)
    shown = None if isinstance(plain, Refusal) else plain
    turned = first_kept(turned_face_attempts(readings, classify, shown), read, stop)
    result = _either(turned, plain)
    if isinstance(result, Refusal):
        if result.count_failed:
            return _count_mended(readings, classify, read, result, stop)
        joined = first_kept(standing_halves_attempts(readings, classify), read, stop)
        if joined is None:
            joined = first_kept(part_attempts(readings), read, stop)
        return _either(joined, result)
    joined = first_kept(winning_tile_joined_attempts(result, readings, classify), read, stop)
    result = result if joined is None else joined
    halves = first_kept(standing_halves_attempts(readings, classify, after=result), read, stop)
    return _either(halves, result)


def _count_mended(readings: list[TileReading], classify: Classify,
                  read: Callable[[list[TileReading]], Result | Refusal],
                  failure: Refusal, stop: Stop) -> Result | Refusal:
    """A hand whose tile count failed, read again: the first join of two halves of one face that
    reads; then every tile found as two overlapping halves joined, if the hand then reads as seen;
    then, with one standing tile too many, the first reading without one of the row's weakest
    detections that makes a whole hand. Else the count's ``failure``."""
    for attempts in (joined_halves_attempts(readings, classify), standing_halves_attempts(readings, classify),
                     surplus_attempts(readings, failure.surplus or 0)):
        found = first_kept(attempts, read, stop)
        if found is not None:
            return found
    return failure
