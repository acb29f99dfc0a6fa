"""What a hand is read and scored with besides its tiles, resolved once into one typed value
(:class:`HandSetup`): the rule set, the table's settings, the win context the photo cannot show and
what the player named. The CLI makes one per run; each reading of a photo's hand uses it as is."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from scoring import load_ruleset
from scoring.hand import WinContext, context_from_json
from scoring.rules import RuleSet
from scoring.table import TableSettings
from vision.named_tiles import NOTHING_NAMED, NamedTiles

#: The rule set as given: a RuleSet, a shipped id or a house rule file's path (None: the table's,
#: else taiwan).
Rules = RuleSet | str | Path | None
#: The win context as given: a WinContext, its JSON, or None.
Context = WinContext | dict[str, Any] | None

#: Context keys the photo cannot show; the output says which of these were not given.
ASSUMABLE = {
    "self_drawn": "won on a discard (not self-drawn)",
    "seat_wind": "seat wind unknown (no seat-wind or seat-flower items)",
    "round_wind": "round wind unknown (no round-wind items)",
    "dealer": "not the dealer",
}


@dataclass(frozen=True)
class HandSetup:
    """The rule set, the table's settings, the win context (JSON, unset keys left out) and the tiles
    the player named (``vision.named_tiles``)."""

    ruleset: RuleSet
    table: TableSettings | None = None
    context: dict[str, Any] = field(default_factory=dict)
    named: NamedTiles = NOTHING_NAMED
    #: ``context`` as the scorer takes it, parsed when the setup is made, so a malformed context is
    #: refused (InputError) before any photo is read.
    win_context: WinContext = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "win_context", context_from_json(self.context))

    @classmethod
    def of(cls, rules: Rules = None, table: TableSettings | None = None, context: Context = None,
           named: NamedTiles = NOTHING_NAMED) -> HandSetup:
        """The setup from what a caller gives: the rule set resolved (:func:`resolve_ruleset`), the
        context as JSON."""
        return cls(resolve_ruleset(rules, table), table, context_dict(context), named)

    @property
    def assumed(self) -> list[str]:
        """What the photo cannot show and neither flags nor the table file said."""
        given = set(self.context)
        table_context = None if self.table is None else self.table.context
        if table_context is not None:
            given |= {f.name for f in fields(table_context) if getattr(table_context, f.name) is not None}
        if "seat_wind" in given:
            given.add("dealer")  # East is the dealer
        return [text for key, text in ASSUMABLE.items() if key not in given]


def context_dict(context: Context) -> dict[str, Any]:
    """The win context as JSON, keys left unset dropped."""
    if context is None:
        return {}
    if isinstance(context, dict):
        return {k: v for k, v in context.items() if v is not None}
    return context.to_json()


def resolve_ruleset(rules: Rules, table: TableSettings | None) -> RuleSet:
    """The rule set to score with: ``rules`` (an id, a path or a RuleSet), else the table's, else taiwan."""
    if rules is None:
        rules = (table.rules if table is not None else None) or "taiwan"
    return load_ruleset(str(rules) if isinstance(rules, Path) else rules)
