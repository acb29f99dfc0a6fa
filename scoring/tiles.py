"""Tile codes: the canonical spelling of every tile, its aliases, and its properties.

Every file, JSON document and label in taicam uses these codes (``scoring/README.md``):
``1m..9m`` characters, ``1p..9p`` dots, ``1s..9s`` bamboo, ``1z..7z`` East South West
North White Green Red, ``1f..4f`` flowers (plum orchid chrysanthemum bamboo), ``5f..8f``
seasons (spring summer autumn winter). ``back`` (a face-down tile) exists only in vision.
"""

from __future__ import annotations

from scoring.errors import InputError

SUITS = ("m", "p", "s")
SUIT_CODES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10))
WIND_CODES: tuple[str, ...] = ("1z", "2z", "3z", "4z")
DRAGON_CODES: tuple[str, ...] = ("5z", "6z", "7z")
HONOUR_CODES: tuple[str, ...] = WIND_CODES + DRAGON_CODES
FLOWER_CODES: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
#: The 34 tiles that form sets, in canonical sort order.
SET_TILE_CODES: tuple[str, ...] = SUIT_CODES + HONOUR_CODES
#: All 42 faces.
FACE_CODES: tuple[str, ...] = SET_TILE_CODES + FLOWER_CODES
BACK = "back"
#: What a vision model can output: 42 faces and a face-down tile.
VISION_CODES: tuple[str, ...] = FACE_CODES + (BACK,)

_ORDER = {code: i for i, code in enumerate(VISION_CODES)}

ENGLISH_NAMES: dict[str, str] = {
    **{f"{r}m": f"{r} characters" for r in range(1, 10)},
    **{f"{r}p": f"{r} dots" for r in range(1, 10)},
    **{f"{r}s": f"{r} bamboo" for r in range(1, 10)},
    "1z": "East", "2z": "South", "3z": "West", "4z": "North",
    "5z": "White dragon", "6z": "Green dragon", "7z": "Red dragon",
    "1f": "Plum", "2f": "Orchid", "3f": "Chrysanthemum", "4f": "Bamboo flower",
    "5f": "Spring", "6f": "Summer", "7f": "Autumn", "8f": "Winter",
    BACK: "face-down tile",
}

_CHINESE_NUMERALS = "一二三四五六七八九"
_HONOUR_CHARS = {"東": "1z", "南": "2z", "西": "3z", "北": "4z", "白": "5z", "發": "6z", "发": "6z",
                 "中": "7z"}
_FLOWER_CHARS = {"梅": "1f", "蘭": "2f", "兰": "2f", "菊": "3f", "竹": "4f",
                 "春": "5f", "夏": "6f", "秋": "7f", "冬": "8f"}
_SUIT_CHARS = {"萬": "m", "万": "m", "筒": "p", "餅": "p", "饼": "p", "條": "s", "条": "s",
               "索": "s"}


def _build_aliases() -> dict[str, str]:
    aliases: dict[str, str] = {code: code for code in VISION_CODES}
    words = {
        "e": "1z", "s": "2z", "w": "3z", "n": "4z",
        "east": "1z", "south": "2z", "west": "3z", "north": "4z",
        "wh": "5z", "p": "5z", "white": "5z", "haku": "5z",
        "g": "6z", "f": "6z", "green": "6z", "hatsu": "6z",
        "r": "7z", "c": "7z", "red": "7z", "chun": "7z",
        "ton": "1z", "nan": "2z", "shaa": "3z", "pei": "4z",
        "plum": "1f", "orchid": "2f", "chrysanthemum": "3f", "mum": "3f", "bamboo-flower": "4f",
        "spring": "5f", "summer": "6f", "autumn": "7f", "winter": "8f",
        "f1": "1f", "f2": "2f", "f3": "3f", "f4": "4f",
        "s1": "5f", "s2": "6f", "s3": "7f", "s4": "8f",
        "facedown": BACK, "face-down": BACK, "x": BACK,
    }
    aliases.update(words)
    aliases.update(_HONOUR_CHARS)
    aliases.update(_FLOWER_CHARS)
    for rank, numeral in enumerate(_CHINESE_NUMERALS, start=1):
        for char, suit in _SUIT_CHARS.items():
            aliases[f"{numeral}{char}"] = f"{rank}{suit}"
            aliases[f"{rank}{char}"] = f"{rank}{suit}"
    return aliases


ALIASES: dict[str, str] = _build_aliases()


def normalize_code(text: str, *, allow_back: bool = False) -> str:
    """Return the canonical code for a code or alias (``"E"`` -> ``"1z"``, ``"中"`` -> ``"7z"``).

    Raises :class:`InputError` with a readable message for anything else, so a typo in user
    input becomes a one-line error rather than a crash further down.
    """
    key = text.strip()
    code = ALIASES.get(key) or ALIASES.get(key.lower())
    if code is None:
        raise InputError(f"unknown tile code {text!r} (expected e.g. 1m..9m, 1p..9p, 1s..9s, "
                         "1z..7z, 1f..8f or an alias such as E, 中, 梅)")
    if code == BACK and not allow_back:
        raise InputError("a face-down tile ('back') cannot be scored; give its face")
    return code


def is_suited(code: str) -> bool:
    return code in _SUITED


def is_flower(code: str) -> bool:
    """Flowers and seasons alike (bonus tiles, never part of a set)."""
    return code in _FLOWERS


def is_terminal(code: str) -> bool:
    """A 1 or 9 of a suit."""
    return code in _TERMINALS


def is_terminal_or_honour(code: str) -> bool:
    return code in _TERMINALS or code in _HONOURS


def suit_of(code: str) -> str:
    """``"m"``, ``"p"``, ``"s"``, ``"z"`` (honours) or ``"f"`` (flowers)."""
    return code[-1] if code != BACK else BACK


def rank_of(code: str) -> int:
    """The number on a suited tile, the index of an honour (1..7) or of a flower (1..8)."""
    return int(code[0])


def flower_seat(code: str) -> int:
    """Seat (1 = East .. 4 = North) a flower or season belongs to: flower n and season n+4."""
    if not is_flower(code):
        raise ValueError(f"{code} is not a flower")
    return (rank_of(code) - 1) % 4 + 1


def is_season(code: str) -> bool:
    return is_flower(code) and rank_of(code) >= 5


def next_in_suit(code: str, step: int = 1) -> str | None:
    """The suited tile ``step`` ranks higher, or None past 9 or for honours."""
    if not is_suited(code):
        return None
    rank = rank_of(code) + step
    return f"{rank}{code[1]}" if 1 <= rank <= 9 else None


def sort_key(code: str) -> int:
    """Canonical display order: characters, dots, bamboo, winds, dragons, flowers, back."""
    return _ORDER[code]


def sorted_codes(codes: list[str] | tuple[str, ...]) -> list[str]:
    return sorted(codes, key=sort_key)


_SUITED = frozenset(SUIT_CODES)
_HONOURS = frozenset(HONOUR_CODES)
_FLOWERS = frozenset(FLOWER_CODES)
_TERMINALS = frozenset(f"{r}{s}" for s in SUITS for r in (1, 9))
