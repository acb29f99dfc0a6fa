"""The rule-set, table and win-context flags shared by ``taicam score``, ``photo`` and ``live``.

A command declares the flags it wants with the ``Annotated`` aliases below (each defaults to
``None`` = "not given", so table settings and the hand's own context show through), gathers them
into :class:`ScoringFlags` (:meth:`ScoringFlags.from_arguments`), and calls :func:`resolve` to get
the rule set and table settings and :func:`apply_context` to lay the flags over a hand. Precedence:
rule-set defaults < table file < hand JSON context < flags.

Example::

    @app.command()
    def photo(image: Path, rules: RulesOpt = None, table: TableOpt = None, seat: SeatOpt = None, ...):
        flags = ScoringFlags.from_arguments(locals())
        ruleset, settings = resolve(flags)
        report = score_hand(apply_context(hand, flags), ruleset, settings)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from scoring.errors import InputError
from scoring.hand import CONTEXT_NUMBER_BOUNDS, Hand, WinContext, wind_code
from scoring.rules import RuleSet, checked_options, load_ruleset, option_value_error
from scoring.table import TableSettings, load_table

RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        help="Rule set: taiwan (default), lrc, dxb, mahjongtime, allmj, classic, or a .toml path.",
    ),
]
TableOpt = Annotated[
    Path | None,
    typer.Option(
        "--table", help="Table settings TOML (rules, minimum points, Ting, dice cap, house options, context)."
    ),
]
SeatOpt = Annotated[
    str | None, typer.Option("--seat", help="Winner's seat wind: E, S, W, N (East = dealer).")
]
RoundOpt = Annotated[str | None, typer.Option("--round", help="Round (prevailing) wind: E, S, W, N.")]
SelfDrawnOpt = Annotated[
    bool | None,
    typer.Option(
        "--self-drawn/--discard", help="Won on a self-drawn tile, or on a discard.", show_default=False
    ),
]
DealerOpt = Annotated[
    bool | None,
    typer.Option(
        "--dealer/--not-dealer",
        help="The winner is (not) the dealer (default: sitting East).",
        show_default=False,
    ),
]
StreakOpt = Annotated[
    int | None, typer.Option("--streak", min=0, max=CONTEXT_NUMBER_BOUNDS["dealer_streak"],
                             help="Dealer's consecutive wins (die on the wall), 0 to 99.")
]
DiscarderOpt = Annotated[
    str | None, typer.Option("--discarder", help="Seat wind of the player who discarded.")
]
LastTileOpt = Annotated[
    bool | None, typer.Option("--last-tile", help="Won on the last tile (wall or discard).")
]
RobbingKongOpt = Annotated[bool | None, typer.Option("--robbing-kong", help="Won by robbing a kong.")]
ReplacementOpt = Annotated[
    bool | None, typer.Option("--replacement", help="Won on the replacement tile after a flower or kong.")
]
KongChainOpt = Annotated[bool | None, typer.Option("--kong-chain", help="LRC: chain of self-drawn kongs.")]
TingOpt = Annotated[bool | None, typer.Option("--ting", help="Declared ready (Ting).")]
DealtReadyOpt = Annotated[
    bool | None, typer.Option("--dealt-ready", help="Ready on the dealt hand (announced).")
]
TilesOnTableOpt = Annotated[
    int | None,
    typer.Option(
        "--tiles-on-table", min=0, max=CONTEXT_NUMBER_BOUNDS["tiles_on_table"],
        help="Discards (LRC/DXB: and declared tiles) on the table at the win, 0 to 144."
    ),
]
FirstTurnOpt = Annotated[
    bool | None, typer.Option("--first-turn", help="Won on the first turn (heavenly / earthly hand).")
]
SecondTurnOpt = Annotated[bool | None, typer.Option("--second-turn", help="allmj: won on the second turn.")]
RobbedFlowerOpt = Annotated[
    bool | None,
    typer.Option("--robbed-eighth-flower", help="Seven flowers held, the eighth robbed from another player."),
]
MinimumOpt = Annotated[int | None, typer.Option("--minimum", min=0, help="Minimum points to declare a win.")]
LimitOpt = Annotated[int | None, typer.Option("--limit", min=0, help="Cap on a hand's total.")]
DiceCapOpt = Annotated[int | None, typer.Option("--dice-cap", min=0, help="Cap on the dealer streak paid.")]
NoTingOpt = Annotated[bool | None, typer.Option("--no-ting-in-play", help="The table does not play Ting.")]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="House option KEY=VALUE: true/false for a switch, a whole number for "
                 "a number option; repeatable."),
]


@dataclass
class ScoringFlags:
    """Every scoring flag a command received (None = not given)."""

    rules: str | None = None
    table: Path | None = None
    seat: str | None = None
    round: str | None = None
    self_drawn: bool | None = None
    dealer: bool | None = None
    streak: int | None = None
    discarder: str | None = None
    last_tile: bool | None = None
    robbing_kong: bool | None = None
    replacement: bool | None = None
    kong_chain: bool | None = None
    ting: bool | None = None
    dealt_ready: bool | None = None
    tiles_on_table: int | None = None
    first_turn: bool | None = None
    second_turn: bool | None = None
    robbed_eighth_flower: bool | None = None
    minimum: int | None = None
    limit: int | None = None
    dice_cap: int | None = None
    no_ting_in_play: bool | None = None
    options: list[str] = field(default_factory=list)

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> ScoringFlags:
        """The scoring flags among a command's arguments (pass ``locals()``); other arguments are ignored.

        Typer needs every flag spelled out in the command's signature; this spares the body a second
        spelling. The parameters ``round_wind`` and ``option`` fill ``round`` and ``options``.
        """
        renamed = {"round_wind": "round", "option": "options"}
        names = {item.name for item in fields(cls)}
        flags = {renamed.get(key, key): value for key, value in arguments.items()}
        flags = {key: value for key, value in flags.items() if key in names}
        flags["options"] = flags.get("options") or []
        return cls(**flags)

    def context(self) -> WinContext:
        """The win context the flags describe (only what was given)."""
        return WinContext(
            self_drawn=self.self_drawn,
            seat_wind=None if self.seat is None else wind_code(self.seat, "--seat"),
            round_wind=None if self.round is None else wind_code(self.round, "--round"),
            dealer=self.dealer,
            dealer_streak=self.streak,
            discarder=None if self.discarder is None else wind_code(self.discarder, "--discarder"),
            last_tile=self.last_tile or None,
            robbing_kong=self.robbing_kong or None,
            replacement_draw=self.replacement or None,
            kong_chain=self.kong_chain or None,
            ting=self.ting or None,
            dealt_ready=self.dealt_ready or None,
            tiles_on_table=self.tiles_on_table,
            first_turn=self.first_turn or None,
            second_turn=self.second_turn or None,
            robbed_eighth_flower=self.robbed_eighth_flower or None,
        )


_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


def parse_option(text: str, ruleset: RuleSet) -> tuple[str, bool | int]:
    """``"key=true"`` -> ``("key", True)``, read as the type ``ruleset`` declares for ``key``: a switch
    takes true/false (yes/no, on/off), a number option a whole number; anything else is an
    :class:`InputError` naming the option and the type it takes."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key:
        raise InputError(f"--option expects KEY=VALUE, not {text!r}")
    if key not in ruleset.options:
        known = ", ".join(sorted(ruleset.options)) or "none"
        raise InputError(f"--option {key!r} is not an option of rule set {ruleset.id!r} (known: {known})")
    low = value.lower()
    parsed: bool | int | str = value
    if isinstance(ruleset.options[key], bool):
        parsed = True if low in _TRUE else False if low in _FALSE else value
    elif low.lstrip("-").isdigit():
        parsed = int(low)
    problem = option_value_error(ruleset, key, parsed)
    if problem is not None:
        raise InputError(f"--option {key}={value}: {problem}")
    return key, parsed


def resolve(flags: ScoringFlags) -> tuple[RuleSet, TableSettings]:
    """The rule set and table settings after laying the flags over the table file (if any)."""
    table = load_table(flags.table) if flags.table is not None else TableSettings()
    ruleset = load_ruleset(flags.rules or table.rules)
    options = checked_options(ruleset, dict(table.options), f"table file {flags.table} [options]")
    for text in flags.options or []:
        key, value = parse_option(text, ruleset)
        options[key] = value
    changes: dict[str, Any] = {"rules": flags.rules or table.rules, "options": options}
    if flags.minimum is not None:
        changes["minimum_points"] = flags.minimum
    if flags.limit is not None:
        changes["limit"] = flags.limit
    if flags.dice_cap is not None:
        changes["dice_cap"] = flags.dice_cap
    if flags.no_ting_in_play:
        changes["ting"] = False
    return ruleset, replace(table, **changes)


def apply_context(hand: Hand, flags: ScoringFlags) -> Hand:
    """``hand`` with the context flags laid over its own context (flags win where given)."""
    override = flags.context()
    merged = hand.context.merged(override)
    return hand if merged is hand.context else replace(hand, context=merged)
