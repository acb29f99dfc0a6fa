"""The hand as data: melds, the win context and the hand itself, and the hand JSON (README.md).

These are plain frozen dataclasses so a hand can be hashed, compared and passed between the
photo pipeline and the scorer without surprises. Parsing (``hand_from_json``) checks *form*
(known codes, known keys, the right types) and raises :class:`InputError`; whether the hand is a
legal win is the scorer's question (``score_hand`` answers ``valid=False`` with a reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from scoring.errors import InputError
from scoring.tiles import WIND_CODES, is_flower, normalize_code, sorted_codes

MELD_KINDS = ("chow", "pung", "kong")


@dataclass(frozen=True)
class Meld:
    """A set laid on the table: an exposed chow/pung/kong, or a concealed kong (``concealed=True``)."""

    kind: str
    tiles: tuple[str, ...]
    concealed: bool = False


@dataclass(frozen=True)
class WinContext:
    """How the hand was won: everything the tiles alone cannot tell.

    Every field defaults to ``None`` = "not given", which the scorer reads as "did not happen"
    no early-win item without a count of tiles on the table, no last-tile item
    unless set. ``None`` also lets table defaults, the hand JSON and CLI flags be layered with
    :meth:`merged` (later layers win only where they say something).

    Winds are tile codes (``1z`` East .. ``4z`` North); the dealer sits East.
    ``dealer_streak`` is N, the dealer's consecutive wins before this hand (the die on the wall).
    ``discarder`` is the seat wind of the player whose tile won (or whose kong was robbed).
    ``tiles_on_table`` counts discards (and, for LRC/DXB, declared tiles) when the hand was won.
    Both counts are bounded (:data:`CONTEXT_NUMBER_BOUNDS`): a streak runs 0..99, the tiles on the
    table 0..144 (the whole set); the parsers refuse anything beyond, naming the field.
    A win on a replacement draw, and the dealer's first-turn win, are self-drawn by definition:
    the scorer takes ``self_drawn`` from them when it is not given.
    """

    self_drawn: bool | None = None
    seat_wind: str | None = None
    round_wind: str | None = None
    dealer: bool | None = None
    dealer_streak: int | None = None
    discarder: str | None = None
    last_tile: bool | None = None
    robbing_kong: bool | None = None
    replacement_draw: bool | None = None
    kong_chain: bool | None = None
    ting: bool | None = None
    dealt_ready: bool | None = None
    tiles_on_table: int | None = None
    first_turn: bool | None = None
    second_turn: bool | None = None
    robbed_eighth_flower: bool | None = None

    def merged(self, override: WinContext | None) -> WinContext:
        """This context with every field that ``override`` sets replaced by its value."""
        if override is None or override is self:
            return self
        if self == _EMPTY_CONTEXT:
            return override
        changes = {f.name: getattr(override, f.name) for f in fields(override)
                   if getattr(override, f.name) is not None}
        return replace(self, **changes) if changes else self

    @property
    def is_dealer(self) -> bool:
        """The winner is the dealer: said explicitly, or implied by sitting East."""
        if self.dealer is not None:
            return self.dealer
        return self.seat_wind == "1z"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


_EMPTY_CONTEXT = WinContext()
BOOL_CONTEXT_KEYS = tuple(f.name for f in fields(WinContext) if f.type in ("bool | None",))
INT_CONTEXT_KEYS = ("dealer_streak", "tiles_on_table")
#: The largest value each number of the context may take. No table lets a dealer keep the deal a
#: hundred hands in a row (the streak is paid per win, so an unbounded one pays without limit), and
#: no more tiles lie on the table than the 144 of the set.
CONTEXT_NUMBER_BOUNDS = {"dealer_streak": 99, "tiles_on_table": 144}
WIND_CONTEXT_KEYS = ("seat_wind", "round_wind", "discarder")


@dataclass(frozen=True)
class Hand:
    """A winning hand as laid on the table.

    ``concealed`` holds every tile standing in the hand, the winning tile included;
    ``melds`` the exposed sets and concealed kongs; ``flowers`` the bonus tiles set aside.
    """

    concealed: tuple[str, ...]
    melds: tuple[Meld, ...] = ()
    flowers: tuple[str, ...] = ()
    winning_tile: str = ""
    context: WinContext = field(default_factory=WinContext)

    def all_set_tiles(self) -> list[str]:
        """Every non-flower tile of the hand: standing tiles and all meld tiles (kongs give 4)."""
        tiles = list(self.concealed)
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles


def context_number(value: Any, key: str, what: str) -> int:
    """``value`` as context number ``key`` (``dealer_streak`` or ``tiles_on_table``): a whole number
    within :data:`CONTEXT_NUMBER_BOUNDS`; anything else is an :class:`InputError` naming ``what``."""
    top = CONTEXT_NUMBER_BOUNDS[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise InputError(f"{what} must be a whole number from 0 to {top}, not {value!r}")
    return value


def wind_code(value: Any, what: str) -> str:
    """Normalise a seat/round wind given as ``1z``, ``E``, ``east`` or ``東``; a number is refused
    (seat 1 may be East or the first player to the dealer's right, so it says no wind)."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be a wind (E, S, W, N or 1z..4z), not {value!r}")
    try:
        code = normalize_code(value)
    except InputError:
        code = ""
    if code not in WIND_CODES:
        raise InputError(f"{what} must be a wind (E, S, W, N or 1z..4z), not {value!r}")
    return code


def context_from_json(obj: Any) -> WinContext:
    """Build a :class:`WinContext` from a JSON object, rejecting unknown keys and wrong types."""
    if obj is None:
        return WinContext()
    if not isinstance(obj, dict):
        raise InputError("hand 'context' must be a JSON object")
    values: dict[str, Any] = {}
    for key, value in obj.items():
        if key in WIND_CONTEXT_KEYS:
            values[key] = None if value is None else wind_code(value, f"context '{key}'")
        elif key in INT_CONTEXT_KEYS:
            if value is None:
                continue
            values[key] = context_number(value, key, f"context '{key}'")
        elif key in BOOL_CONTEXT_KEYS:
            if value is not None and not isinstance(value, bool):
                raise InputError(f"context '{key}' must be true or false, not {value!r}")
            values[key] = value
        else:
            known = ", ".join(f.name for f in fields(WinContext))
            raise InputError(f"unknown context key {key!r} (known: {known})")
    return WinContext(**values)


def _codes(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise InputError(f"hand '{what}' must be a list of tile codes")
    codes = []
    for item in value:
        if not isinstance(item, str):
            raise InputError(f"hand '{what}' must hold tile codes as strings, not {item!r}")
        codes.append(normalize_code(item))
    return tuple(codes)


def meld_from_json(obj: Any) -> Meld:
    if not isinstance(obj, dict):
        raise InputError("each meld must be a JSON object with 'kind' and 'tiles'")
    unknown = set(obj) - {"kind", "tiles", "concealed"}
    if unknown:
        raise InputError(f"unknown meld key(s): {', '.join(sorted(unknown))}")
    kind = obj.get("kind")
    if kind not in MELD_KINDS:
        raise InputError(f"meld kind must be chow, pung or kong, not {kind!r}")
    concealed = obj.get("concealed", False)
    if not isinstance(concealed, bool):
        raise InputError("meld 'concealed' must be true or false")
    return Meld(kind=kind, tiles=tuple(sorted_codes(_codes(obj.get("tiles"), "melds.tiles"))),
                concealed=concealed)


_HAND_KEYS = {"concealed", "melds", "flowers", "winning_tile", "context"}


def hand_from_json(obj: dict) -> Hand:
    """Parse the hand JSON (aliases accepted). Malformed input raises :class:`InputError`.

    Flower codes found among ``concealed`` are moved to ``flowers`` (they never stand in a hand).
    """
    if not isinstance(obj, dict):
        raise InputError("a hand must be a JSON object with 'concealed' and 'winning_tile'")
    unknown = set(obj) - _HAND_KEYS
    if unknown:
        raise InputError(f"unknown hand key(s): {', '.join(sorted(unknown))}")
    if "concealed" not in obj:
        raise InputError("hand has no 'concealed' tiles")
    standing = _codes(obj["concealed"], "concealed")
    flowers = list(_codes(obj.get("flowers", []), "flowers"))
    concealed = [code for code in standing if not is_flower(code)]
    flowers.extend(code for code in standing if is_flower(code))
    for code in flowers:
        if not is_flower(code):
            raise InputError(f"{code} in 'flowers' is not a flower or season")
    melds_obj = obj.get("melds", [])
    if not isinstance(melds_obj, list):
        raise InputError("hand 'melds' must be a list")
    melds = tuple(meld_from_json(m) for m in melds_obj)
    winning = obj.get("winning_tile")
    if not isinstance(winning, str) or not winning.strip():
        raise InputError("hand has no 'winning_tile'")
    return Hand(concealed=tuple(sorted_codes(concealed)), melds=melds,
                flowers=tuple(sorted_codes(flowers)), winning_tile=normalize_code(winning),
                context=context_from_json(obj.get("context")))


def hand_to_json(hand: Hand) -> dict:
    """The hand JSON; context keys that were not given are left out."""
    return {
        "concealed": list(hand.concealed),
        "melds": [{"kind": m.kind, "tiles": list(m.tiles), "concealed": m.concealed} for m in hand.melds],
        "flowers": list(hand.flowers),
        "winning_tile": hand.winning_tile,
        "context": hand.context.to_json(),
    }
