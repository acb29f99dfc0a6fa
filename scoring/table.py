"""Table settings: what the players agree before the first hand (seed 000, "agree at the table").

One TOML file; CLI flags override it. Example::

    rules = "lrc"                 # rule set id or path to a house rule-set file
    minimum_points = 20           # or a table by round wind: [minimum_points] E = 22, S = 22, ...
    ting = true                   # is Calling / Ting in play?
    dice_cap = 6                  # cap on the dealer's die (streak) used for payments
    limit = 40                    # cap on a hand's total (mahjongtime's optional limit)
    set = "mine"                  # photos are read with this learned tile set (taicam sets learn)

    [options]                     # house options: override the rule set's [options]
    exposed_kong_keeps_concealed = true

    [context]                     # default win context (the hand's own context wins)
    round_wind = "E"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from scoring.hand import WinContext, context_from_json, wind_code
from scoring.toml_file import read_toml

_KEYS = {"rules", "minimum_points", "ting", "dice_cap", "limit", "options", "context", "set"}


@dataclass(frozen=True)
class TableSettings:
    """Agreed table settings. ``minimum_points`` is a number or a dict keyed by round wind code."""

    rules: str = "taiwan"
    minimum_points: int | dict[str, int] | None = field(default=None, hash=False)
    ting: bool = True
    dice_cap: int | None = None
    limit: int | None = None
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    context: WinContext = field(default_factory=WinContext)
    tile_set: str | None = None  # the learned tile set photos are read with (key ``set``)

    def minimum_for(self, round_wind: str | None) -> int | None:
        if isinstance(self.minimum_points, dict):
            return self.minimum_points.get(round_wind or "1z")
        return self.minimum_points


def _whole(value: Any, what: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"table file {source}: '{what}' must be a whole number >= 0")
    return value


def table_from_dict(data: dict, source: str = "<table>") -> TableSettings:
    """Build :class:`TableSettings` from parsed TOML, with a clear error for every mistake."""
    if not isinstance(data, dict):
        raise InputError(f"table file {source}: must be a TOML table")
    unknown = set(data) - _KEYS
    if unknown:
        raise InputError(f"table file {source}: unknown key(s) {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(_KEYS))})")
    rules = data.get("rules", "taiwan")
    if not isinstance(rules, str) or not rules:
        raise InputError(f"table file {source}: 'rules' must be a rule-set id or path")
    minimum: int | dict[str, int] | None = None
    raw_min = data.get("minimum_points")
    if isinstance(raw_min, dict):
        minimum = {wind_code(k, "minimum_points round"): _whole(v, "minimum_points", source)
                   for k, v in raw_min.items()}
    elif raw_min is not None:
        minimum = _whole(raw_min, "minimum_points", source)
    ting = data.get("ting", True)
    if not isinstance(ting, bool):
        raise InputError(f"table file {source}: 'ting' must be true or false")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise InputError(f"table file {source}: [options] must be a table")
    tile_set = data.get("set")
    if tile_set is not None and (not isinstance(tile_set, str) or not tile_set):
        raise InputError(f"table file {source}: 'set' must be the name of a learned tile set")
    context = data.get("context", {})
    try:
        ctx = context_from_json(context)
    except InputError as error:
        raise InputError(f"table file {source}: {error}") from error
    return TableSettings(
        rules=rules, minimum_points=minimum, ting=ting,
        dice_cap=None if data.get("dice_cap") is None else _whole(data["dice_cap"], "dice_cap", source),
        limit=None if data.get("limit") is None else _whole(data["limit"], "limit", source),
        options=dict(options), context=ctx, tile_set=tile_set)


def load_table(path: str | Path) -> TableSettings:
    """Read a table-settings TOML file; any problem is an :class:`InputError` naming the file."""
    return table_from_dict(read_toml(path, "table file"), str(Path(path)))
