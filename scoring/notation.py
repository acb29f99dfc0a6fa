"""Hand notation: a hand written on one line, and back (``parse_notation`` / ``format_notation``).

Grammar (tokens are separated by spaces)::

    hand    := token+
    token   := tiles              standing tiles; flowers written here go to the flowers
             | "[" tiles "]"      an exposed meld: chow, pung or kong (the kind follows from the tiles)
             | "(" tiles ")"      a concealed kong
             | "+" tile           the winning tile, written once and NOT among the standing tiles
             | "@" key ["=" value] the win context (below)
    tiles   := group+
    group   := digits suit        123m 44p 789s 11z 16f   (m characters, p dots, s bamboo,
                                   z honours 1-7 = E S W N White Green Red, f flowers 1-8)
             | letters            E S W N winds, P (white) F (green) C (red): "EEE", "CC"
             | Chinese            東東東 中中 梅蘭 一萬二萬三萬 ...
             | an alias           east, red, plum, ... (one tile per alias)

Context keys: ``@self`` (self-drawn), ``@seat=E``, ``@round=S``, ``@dealer``, ``@streak=2``,
``@from=W`` (the discarder), ``@last`` (last tile), ``@rob`` (robbing a kong),
``@replacement`` (win on a replacement draw), ``@kong_chain``, ``@ting``, ``@dealt_ready``,
``@table=N`` (tiles on the table), ``@first`` / ``@second`` (first/second turn), ``@rob8``
(seven flowers robbing the eighth). A flag may say ``=no`` to state that it did not happen.
The full field names of :class:`WinContext` work too (``@self_drawn``, ``@seat_wind=E``).

Example: ``123m 456p 789s 44p 3z [555z] (9999p) 16f +3z @self @seat=E @round=E``.
"""

from __future__ import annotations

import re

from scoring.errors import InputError
from scoring.hand import (
    BOOL_CONTEXT_KEYS,
    INT_CONTEXT_KEYS,
    Hand,
    Meld,
    WinContext,
    context_number,
    wind_code,
)
from scoring.tiles import ALIASES, is_flower, normalize_code, rank_of, sorted_codes, suit_of

_GROUP = re.compile(r"(\d+)([mpszf])")
_LETTERS = {"e": "1z", "s": "2z", "w": "3z", "n": "4z", "p": "5z", "f": "6z", "c": "7z"}
_SHORT_KEYS = {
    "self": "self_drawn", "seat": "seat_wind", "round": "round_wind", "streak": "dealer_streak",
    "from": "discarder", "last": "last_tile", "rob": "robbing_kong", "replacement": "replacement_draw",
    "table": "tiles_on_table", "first": "first_turn", "second": "second_turn", "rob8": "robbed_eighth_flower",
}
_LONG_TO_SHORT = {v: k for k, v in _SHORT_KEYS.items()}
_TRUE = {"", "yes", "true", "1", "y"}
_FALSE = {"no", "false", "0", "n"}


def parse_tiles(text: str) -> list[str]:
    """Tile codes in a group string: ``123m44p``, ``EEE``, ``東東``, ``一萬二萬``, or one alias."""
    if not text:
        raise InputError("empty tile group")
    if re.fullmatch(r"(?:\d+[mpszf])+", text):
        return [normalize_code(f"{digit}{suit}") for digits, suit in _GROUP.findall(text) for digit in digits]
    if text.isascii():
        if text.isalpha() and all(ch.lower() in _LETTERS for ch in text):
            return [_LETTERS[ch.lower()] for ch in text]
        if text.lower() in ALIASES:
            return [normalize_code(text)]
        raise InputError(f"cannot read tiles {text!r}: write e.g. 123m 44p 11z, EEE (E S W N winds, "
                         "P F C dragons) or an alias such as east, red, plum")
    out = []
    i = 0
    while i < len(text):
        for size in (2, 1):
            piece = text[i:i + size]
            if len(piece) == size and piece in ALIASES:
                out.append(normalize_code(piece))
                i += size
                break
        else:
            raise InputError(f"cannot read tiles {text!r} (near {text[i:]!r}); write e.g. 123m 44p EEE 東東")
    return out


def _meld_from_tiles(tiles: list[str], concealed: bool, token: str) -> Meld:
    if any(is_flower(t) for t in tiles):
        raise InputError(f"meld {token}: flowers never form sets")
    tiles = sorted_codes(tiles)
    if len(tiles) == 4 and len(set(tiles)) == 1:
        return Meld("kong", tuple(tiles), concealed)
    if concealed:
        raise InputError(f"{token}: only a kong (four of a tile) is written in ( ); use [ ] for exposed sets")
    if len(tiles) == 3 and len(set(tiles)) == 1:
        return Meld("pung", tuple(tiles), False)
    if len(tiles) == 3 and len({suit_of(t) for t in tiles}) == 1 and suit_of(tiles[0]) != "z":
        ranks = [rank_of(t) for t in tiles]
        if ranks == list(range(ranks[0], ranks[0] + 3)):
            return Meld("chow", tuple(tiles), False)
    raise InputError(f"meld {token} is not a chow, pung or kong")


def _context_token(token: str, values: dict) -> None:
    body = token[1:]
    key, _, value = body.partition("=")
    key = key.strip().lower()
    field = _SHORT_KEYS.get(key, key)
    if field in ("seat_wind", "round_wind", "discarder"):
        values[field] = wind_code(value, f"@{key}")
    elif field in INT_CONTEXT_KEYS:
        if not value.isdigit():
            raise InputError(f"@{key} needs a whole number, e.g. @{key}=2")
        values[field] = context_number(int(value), field, f"@{key}")
    elif field in BOOL_CONTEXT_KEYS:
        if value.lower() in _TRUE:
            values[field] = True
        elif value.lower() in _FALSE:
            values[field] = False
        else:
            raise InputError(f"@{key} takes yes or no, not {value!r}")
    else:
        known = " ".join("@" + k for k in _SHORT_KEYS)
        raise InputError(f"unknown context {token!r} (known: {known} @dealer @ting @kong_chain @dealt_ready)")


def parse_notation(text: str) -> Hand:
    """Read a hand written in the notation above. Malformed text raises :class:`InputError`."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("empty hand notation")
    standing: list[str] = []
    flowers: list[str] = []
    melds: list[Meld] = []
    winning: list[str] = []
    context: dict = {}
    for token in text.split():
        if token.startswith("@"):
            _context_token(token, context)
        elif token.startswith("+"):
            tiles = parse_tiles(token[1:])
            if len(tiles) != 1:
                raise InputError(f"{token}: write exactly one winning tile after '+'")
            winning.extend(tiles)
        elif token.startswith("[") or token.startswith("("):
            close = "]" if token[0] == "[" else ")"
            if not token.endswith(close) or len(token) < 3:
                raise InputError(f"meld {token!r} is not closed with {close!r}")
            melds.append(_meld_from_tiles(parse_tiles(token[1:-1]), token[0] == "(", token))
        else:
            for tile in parse_tiles(token):
                (flowers if is_flower(tile) else standing).append(tile)
    if len(winning) != 1:
        raise InputError("mark the winning tile once with '+', e.g. '... +3m'" if not winning
                         else "more than one winning tile marked with '+'")
    win = winning[0]
    ctx = WinContext(**context)
    if is_flower(win):
        if not ctx.robbed_eighth_flower:
            flowers.append(win)
    else:
        standing.append(win)
    return Hand(concealed=tuple(sorted_codes(standing)), melds=tuple(melds),
                flowers=tuple(sorted_codes(flowers)), winning_tile=win, context=ctx)


def _group_text(tiles: list[str]) -> str:
    """``['1m','2m','4p']`` -> ``12m4p`` (tiles already sorted)."""
    out = []
    current = ""
    digits = ""
    for tile in tiles:
        suit = suit_of(tile)
        if suit != current and digits:
            out.append(digits + current)
            digits = ""
        current = suit
        digits += tile[0]
    if digits:
        out.append(digits + current)
    return " ".join(out)


def format_notation(hand: Hand) -> str:
    """Write ``hand`` in the notation; ``parse_notation(format_notation(h)) == h``."""
    standing = list(hand.concealed)
    flowers = list(hand.flowers)
    win = hand.winning_tile
    if is_flower(win):
        if win in flowers and not hand.context.robbed_eighth_flower:
            flowers.remove(win)
    elif win in standing:
        standing.remove(win)
    parts = []
    if standing:
        parts.append(_group_text(sorted_codes(standing)))
    for meld in hand.melds:
        body = _group_text(list(meld.tiles)).replace(" ", "")
        parts.append(f"({body})" if meld.concealed else f"[{body}]")
    if flowers:
        parts.append(_group_text(sorted_codes(flowers)))
    parts.append(f"+{win}")
    for key, value in hand.context.to_json().items():
        short = _LONG_TO_SHORT.get(key, key)
        if isinstance(value, bool):
            parts.append(f"@{short}" if value else f"@{short}=no")
        elif key in ("seat_wind", "round_wind", "discarder"):
            parts.append(f"@{short}={'ESWN'[int(value[0]) - 1]}")
        else:
            parts.append(f"@{short}={value}")
    return " ".join(parts)
