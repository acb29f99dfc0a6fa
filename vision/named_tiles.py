"""What the player tells taicam about tiles the photo does not show right: ``--kong-face``,
``--winning-tile`` and ``--fix`` (``vision.tile_fixes``).

Why: some of a hand cannot be read from any photo. A concealed kong lying as four backs hides its
face, and a player who lays the winning tile in the row with the others (or whose winning tile
the detector did not see turned) leaves taicam to guess which tile won. Both change totals, and the
player knows both. Without them taicam scores every choice and reports the lowest total
(``vision.repairs.hidden_kong``, ``vision.report.confidence.choose_winning_tile``); named, the hand is scored
as the player says, like the seat and round the flags give. A named tile the hand as read cannot
hold is reported unused rather than forced onto the hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.errors import InputError
from scoring.tiles import SET_TILE_CODES
from vision.tile_fixes import Fix, parse_fix

_SET_CODES_HINT = "a suit tile, wind or dragon code such as 5m, 9p, 1s, 4z or 7z"


@dataclass(frozen=True)
class NamedTiles:
    """Tiles the player named: the faces of concealed kongs of four backs (in any order: which kong
    has which face does not change the total), the winning tile, and misread tiles corrected."""

    kong_faces: tuple[str, ...] = ()
    winning_tile: str | None = None
    fixes: tuple[Fix, ...] = ()


NOTHING_NAMED = NamedTiles()


def named_tiles(kong_faces: list[str] | None = None, winning_tile: str | None = None,
                fixes: list[str] | None = None) -> NamedTiles:
    """The flags' named tiles, checked (InputError naming the first bad one): each a set tile's code,
    no kong face twice (a kong holds all four copies of its face), each fix ``READ=TRUE``."""
    faces = list(kong_faces or [])
    for face in faces:
        if face not in SET_TILE_CODES:
            raise InputError(f"--kong-face {face!r}: not a tile face a kong can hold ({_SET_CODES_HINT})")
    repeated = sorted({face for face in faces if faces.count(face) > 1})
    if repeated:
        raise InputError(f"--kong-face {repeated[0]} is given twice: a kong holds all four copies of its "
                         "face")
    if winning_tile is not None and winning_tile not in SET_TILE_CODES:
        raise InputError(f"--winning-tile {winning_tile!r}: not a tile a hand can win on ({_SET_CODES_HINT})")
    return NamedTiles(tuple(faces), winning_tile, tuple(parse_fix(text) for text in fixes or []))
