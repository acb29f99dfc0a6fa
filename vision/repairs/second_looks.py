"""Second looks at a hand: what the pipeline tries when the detector's tiles, read as found, make
no hand, or a hand that shows no winning tile, needs a tile inferred or leaves flowers out.

Each look is a whole reading of the hand (``read``), tried in a fixed order and kept only on its
own module's condition, so a hand that reads at first costs nothing more. The photo
(``vision.pipeline.PhotoPipeline``) and the live mode (``vision.live.reading``) both read a hand
through :func:`read_with_second_looks`, then finish it with :func:`read_flowers_again`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from scoring.errors import InputError
from vision.decode import HandReading
from vision.decode.unseen import TileCountError
from vision.repairs.flower_pairs import read_with_flower_pairs_cut
from vision.repairs.front_tile import read_with_front_tile_cut, shows_the_winning_tile
from vision.repairs.half_tiles import PART_WARNING, without_one_part
from vision.repairs.row_end_pair import read_with_row_end_pair_cut
from vision.repairs.sideways_halves import JOINED_WARNING, joined_halves, read_with_winning_tile_joined
from vision.repairs.standing_halves import read_standing_halves_joined, read_with_standing_halves_joined
from vision.repairs.stray_flowers import ReadFlowers, read_with_stray_flowers
from vision.repairs.surplus_tile import without_one_weak_tile
from vision.repairs.turned_faces import Classify, read_with_turned_face
from vision.report.confidence import ConfidenceReport
from vision.types import TileReading


class HandResult(Protocol):
    """What a second look needs of a whole reading of the hand (the photo's is
    ``vision.pipeline.PhotoResult``): how it decoded, its confidence report and its warnings."""

    decoded: HandReading | None
    report: ConfidenceReport | None
    warnings: list[str]


#: The reading's own type, handed back as ``read`` made it.
Result = TypeVar("Result", bound=HandResult)


def read_flowers_again(result: Result, classify: Classify | None, read_flowers: ReadFlowers,
                       read: Callable[[list[TileReading]], Result]) -> Result:
    """A hand that reads, read again with the flower model's second looks: tiles left out beside it
    that it is sure are flowers (``vision.repairs.stray_flowers``), then two flowers side by side found as
    one outline cut apart (``vision.repairs.flower_pairs``; needs ``classify``). The photo and the live mode
    both finish a hand so."""
    result = read_with_stray_flowers(result, read_flowers, read)
    if classify is None:
        return result
    return read_with_flower_pairs_cut(result, classify, read_flowers, read)


def read_with_second_looks(readings: list[TileReading], classify: Classify,
                           read: Callable[[list[TileReading]], Result],
                           cut_merged: bool = True) -> Result:
    """The hand as the detector saw the tiles, or with a sideways tile it missed found by its turned
    face (``vision.repairs.turned_faces.read_with_turned_face``). If the tile count makes no hand, two tiles
    side by side that are one face's halves (``vision.repairs.sideways_halves``) are joined, or one tile too
    many is left out (``vision.repairs.surplus_tile``): :func:`read_count_mended`. A hand that fails
    otherwise is read with standing tiles found as two halves each joined
    (``vision.repairs.standing_halves``), else without a small detection lying on a bigger tile
    (:func:`read_without_a_part`, at most three tries). Each try is a whole reading of the hand, so
    these run only for hands that fail. A hand that reads with no winning tile shown may hold such halves too
    (``vision.repairs.sideways_halves.read_with_winning_tile_joined``), and a hand that reads only with tiles
    corrected may hold standing tiles found as two halves each (``vision.repairs.standing_halves``).
    Last, a hand that still fails, shows no winning tile or needs one inferred may hold a winning
    tile lying flat against a standing one, the two found as one outline (``vision.repairs.front_tile``),
    and one that fails or needs a tile inferred may end a row with two tiles found as one
    (``vision.repairs.row_end_pair``). These cuts are the slowest tries on a photo that does not read (a
    whole reading each), so the photo makes them at its first look only (``cut_merged=False`` for
    the finer looks and the last resort: on the seven render sets every hand they read, they read
    at the first look, and the 40 hardest of the 200 took 48 s to refuse with them at every look).
    The photo and the live mode (``vision.live.reading``) both read a hand so."""
    if not cut_merged:
        return _read_with_mended_tiles(readings, classify, read)
    try:
        result = _read_with_mended_tiles(readings, classify, read)
    except TileCountError:
        raise  # a cut adds one tile, and a hand one tile short reads (with it inferred): none helps
    except InputError:
        cut = (read_with_front_tile_cut(readings, classify, read)
               or read_with_row_end_pair_cut(readings, classify, read))
        if cut is None:
            raise
        return cut
    if shows_the_winning_tile(result):
        return result
    changes = len(result.decoded.changes) if result.decoded is not None else 0
    cut = read_with_front_tile_cut(readings, classify, read, corrections=changes)
    if cut is None and result.decoded is not None and result.decoded.unseen is not None:
        cut = read_with_row_end_pair_cut(readings, classify, read)
    return result if cut is None else cut


def _read_with_mended_tiles(readings: list[TileReading], classify: Classify,
                            read: Callable[[list[TileReading]], Result]) -> Result:
    try:
        result = read_with_turned_face(readings, classify, read)
    except TileCountError as error:
        return read_count_mended(readings, classify, read, error)
    except InputError as error:
        joined = read_standing_halves_joined(readings, classify, read)
        return joined if joined is not None else read_without_a_part(readings, read, error)
    result = read_with_winning_tile_joined(result, readings, classify, read)
    return read_with_standing_halves_joined(result, readings, classify, read)


def read_without_a_part(readings: list[TileReading], read: Callable[[list[TileReading]], Result],
                        failure: InputError) -> Result:
    """A hand that does not read, read again without each small detection lying on a bigger tile
    (``vision.repairs.half_tiles``); the first reading that makes a whole hand with every tile seen, else
    the ``failure``."""
    found = first_whole_reading(without_one_part(readings), read)
    if found is None:
        raise failure
    index, result = found
    result.warnings.append(PART_WARNING.format(code=readings[index].code))
    if result.report is not None:
        result.report.score_stable = False
    return result


def first_whole_reading(tries: Iterable[tuple[int, list[TileReading]]],
                        read: Callable[[list[TileReading]], Result]) -> tuple[int, Result] | None:
    """The first of ``tries`` (a detection's index and the readings without it) that reads as a whole
    hand with every tile seen (none inferred), with that index; None if none does."""
    for index, rest in tries:
        try:
            result = read(rest)
        except InputError:
            continue
        if result.decoded is not None and result.decoded.unseen is None:
            return index, result
    return None


def read_count_mended(readings: list[TileReading], classify: Classify,
                      read: Callable[[list[TileReading]], Result],
                      failure: TileCountError) -> Result:
    """A hand whose tile count failed, read again: the first join of two halves of one face
    (``vision.repairs.sideways_halves``) that reads; then every tile found as two overlapping halves joined
    (``vision.repairs.standing_halves``), if the hand then reads as seen; then, with one standing tile too
    many, the first reading without one of the row's weakest detections that makes a whole hand
    (``vision.repairs.surplus_tile``).
    Else the tile count's ``failure``. The photo and the live mode both mend a count so."""
    for joined in joined_halves(readings, classify):
        try:
            result = read(joined)
        except InputError:
            continue
        result.warnings.append(JOINED_WARNING.format(code=joined[-1].code, what=""))
        return result
    standing_joined = read_standing_halves_joined(readings, classify, read)
    if standing_joined is not None:
        return standing_joined
    found = first_whole_reading(without_one_weak_tile(readings), read) if failure.surplus == 1 else None
    if found is None:
        raise failure
    index, result = found
    result.warnings.append(f"one tile too many stood in the row; the hand reads without the least sure "
                           f"one, read {readings[index].code} (a discard or a tile found twice?)")
    return result
