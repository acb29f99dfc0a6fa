"""``--fix READ=TRUE``: the player corrects a tile the photo misread, and the hand is read again.

Why: a photo read one tile wrong either gets the wrong score or none ("not a winning hand"), and
until now the only way on was to type the whole hand into ``taicam score``. The player can see
which tile is wrong (the terminal lists the hand, ``--annotate`` labels every tile) and knows what
it is, so one flag is enough: ``--fix 7z=1m`` says "a tile read as 7z is a 1m". Which tile, when
several read 7z, is left to the decoder: each is tried as 1m and the one that makes the likeliest
legal hand is taken (so a red dragon of a pung is not the one turned into a 1m). The fixed tile is
then read as certain, as the player says.

"Read as" means what the player was shown: the decoded hand's code for a tile when the photo read
as a hand (a tile the decoder corrected shows its corrected code), the classifier's first choice
when it did not (the annotated picture of a refused photo shows those).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from scoring.errors import InputError
from scoring.tiles import normalize_code
from vision.types import Layout, Refusal, TileReading

if TYPE_CHECKING:
    from vision.decode import HandReading

#: A fix as the player gives it: (the code the photo shows, the code the tile is).
Fix = tuple[str, str]


def parse_fix(text: str) -> Fix:
    """``"7z=1m"`` (or aliases: ``"中=一萬"``) -> ``("7z", "1m")``; InputError with a one-line reason
    for anything else. Either side may be ``back``: a face-down tile read as a face, or the reverse."""
    read, sep, true = text.partition("=")
    if not sep or not read.strip() or not true.strip():
        raise InputError(f"--fix {text!r}: write what the photo read and what the tile is, e.g. --fix 7z=1m")
    try:
        read, true = normalize_code(read, allow_back=True), normalize_code(true, allow_back=True)
    except InputError as error:
        raise InputError(f"--fix {text!r}: {error}") from None
    if read == true:
        raise InputError(f"--fix {text!r}: the tile is read as {read} already")
    return read, true


def forced(reading: TileReading, code: str) -> TileReading:
    """``reading`` read as ``code`` for certain (what the player says overrules the classifier)."""
    return replace(reading, candidates=((code, 1.0),))


#: Decodes readings into (layout, HandReading), or the refusal when they make no legal hand.
Decode = Callable[[list[TileReading]], "tuple[Layout, HandReading] | Refusal"]


def shown_codes(readings: Sequence[TileReading], decode: Decode) -> tuple[dict[int, str], bool]:
    """The code the player was shown for each tile: the decoded hand's when the readings make one
    (only the hand's tiles: discards and walls are nobody's fix), else the classifier's first choice;
    and whether they made one."""
    decoded = decode(list(readings))
    if isinstance(decoded, Refusal):
        return {index: tile.code for index, tile in enumerate(readings)}, False
    return dict(decoded[1].best.codes), True


def _likelihood(readings: list[TileReading], decode: Decode) -> float | None:
    """The best legal reading's probability, None when the readings make no legal hand."""
    decoded = decode(readings)
    return None if isinstance(decoded, Refusal) else decoded[1].best.probability


def apply_fixes(readings: Sequence[TileReading], fixes: Sequence[Fix],
                decode: Decode) -> tuple[list[TileReading], list[str]]:
    """``readings`` with each fix applied to one tile shown as its ``read`` code, and one note per fix
    (applied, or why not). Each fix takes a tile no earlier fix took; of several candidates the one
    whose fix leaves the likeliest legal hand (where the hands are alike, that is the tile read
    least surely); when no fix makes a legal hand yet (another fix may be needed), the one the
    classifier was least sure of. What the classifier gave ``true`` is not weighed: a misread the
    decoder refuses gives the true face under 1e-4, where such shares are noise (a misread tile's
    true face can get nothing, a true tile beside it as little). Fixes with which no winning hand
    reads, where one read without them, are dropped and said so: a photo that reads is not refused
    for a slip of the player's (``--fix back=3p`` on a concealed kong of four backs, whose face is
    ``--kong-face``'s)."""
    fixed = list(readings)
    shown, read_as_hand = shown_codes(fixed, decode)
    taken: set[int] = set()
    unused: list[str] = []
    applied: list[Fix] = []
    for read, true in fixes:
        candidates = [index for index, code in sorted(shown.items()) if code == read and index not in taken]
        if not candidates:
            unused.append(f"--fix {read}={true} not used: no tile of the hand is read as {read}")
            continue
        choice = _best_candidate(fixed, candidates, true, read, decode)
        fixed[choice] = forced(fixed[choice], true)
        taken.add(choice)
        applied.append((read, true))
    if applied and read_as_hand and _likelihood(fixed, decode) is None:
        # The photo reads as a hand, and with the fixes as none: rather than refuse the photo for
        # what the player said, it is read as it was, and the player is told why.
        return list(readings), [*unused, *[_unusable(read, true) for read, true in applied]]
    taken_as = [f"a tile read {read} is taken as {true}, as --fix says" for read, true in applied]
    return fixed, [*taken_as, *unused]


def _unusable(read: str, true: str) -> str:
    """Why a fix was dropped: with it, the tiles make no winning hand (they did without it)."""
    hint = ("; the face of a concealed kong lying as backs is named with --kong-face" if read == "back"
            else "")
    return f"--fix {read}={true} not used: no winning hand reads with it (one reads without it){hint}"


def _best_candidate(readings: list[TileReading], candidates: list[int], true: str, read: str,
                    decode: Decode) -> int:
    """Which of ``candidates`` (tiles shown as ``read``) the fix to ``true`` goes to (:func:`apply_fixes`)."""
    if len(candidates) == 1:
        return candidates[0]
    scored = []
    for index in candidates:
        trial = [forced(tile, true) if k == index else tile for k, tile in enumerate(readings)]
        hand = _likelihood(trial, decode)
        if hand is not None:
            scored.append((hand, index))
    if scored:
        return max(scored, key=lambda pair: (pair[0], -pair[1]))[1]
    return min(candidates, key=lambda index: (readings[index].probability_of(read), index))
