"""Rule sets as data: one TOML file per rule set, loaded and checked here.

The six seed rule sets ship in ``scoring/rulesets/``; a house rule set is a new TOML file in the
same format, loaded with ``load_ruleset("path/to/house.toml")`` (or ``--rules path``), no code
change. The format (see ``rulesets/taiwan.toml`` for a commented example):

- top level: ``id``, ``name``, ``source`` (the sheet or site the table comes from, by name), ``unit``,
  ``hand_tiles`` (16, or 13 for 4 sets + a pair), ``system`` (``additive`` = tai/points summed;
  ``doubles`` = points x 2^doubles, as the classic 13-tile sheet counts);
- ``[options]``: the switches the source leaves open, booleans or whole numbers; ``[option_notes]``
  says in words what each one does (``taicam rules`` shows it);
- ``[[pattern]]`` rows: ``id``, ``name``, ``name_zh``, ``value``, ``detector`` (a function in
  :mod:`scoring.patterns`, default = id), ``params``, ``supersedes`` (ids it replaces),
  ``when``/``unless`` (an option that switches the row on/off), ``exclusive`` (no other item
  counts, e.g. flower instant wins), ``last`` (added after everything, e.g. LRC's base point),
  ``double`` (the value is a number of doubles), ``seed`` (the source's row it implements, in its words);
- ``[[side_payment]]`` rows: paid at once during play, outside the hand total (``payer``:
  ``each`` other player or the ``discarder``);
- ``[[not_scored]]`` rows: seed rows that cannot be computed from a hand, with the reason;
- ``[payments]``: who pays a win (``self_drawn``/``discard``: ``each`` or ``discarder``) and the
  dealer adders on the line between the dealer and the winner; ``dealer_keeps_on_draw``: whether
  the dealer keeps the deal (streak + 1) when nobody wins.

Any mistake in a file is an :class:`InputError` naming the file and the row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from scoring.patterns import DETECTORS
from scoring.shapes import SPECIAL_SHAPES
from scoring.toml_file import read_toml

RULESETS_DIR = Path(__file__).parent / "rulesets"
RULESET_IDS = ("taiwan", "lrc", "dxb", "mahjongtime", "allmj", "classic")
#: Detectors the engine applies itself, after the pattern rows (not in :mod:`scoring.patterns`).
POST_DETECTORS = ("chicken_hand",)

_PATTERN_KEYS = {"id", "name", "name_zh", "value", "detector", "params", "supersedes", "supersedes_if",
                 "when", "unless",
                 "exclusive", "last", "double", "seed", "note"}
_SIDE_KEYS = {"id", "name", "name_zh", "value", "detector", "params", "payer", "when", "unless", "seed",
              "note"}
_NOT_SCORED_KEYS = {"id", "name", "name_zh", "value", "reason", "seed"}
_TOP_KEYS = {"id", "name", "name_zh", "source", "unit", "hand_tiles", "system", "description",
             "options", "option_notes", "payments", "pattern", "side_payment", "not_scored"}
_PAYMENT_DEFAULTS: dict[str, Any] = {
    "self_drawn": "each", "discard": "discarder", "dealer_point": 0, "streak_base": 0, "streak_per": 0,
    "robbed_flower_payer": "each", "losers_pay_difference": False, "multiple_winners": True,
    "dealer_keeps_on_draw": True,
}


@dataclass(frozen=True)
class PatternRow:
    id: str
    name: str
    name_zh: str
    value: int
    detector: str
    params: dict = field(default_factory=dict, hash=False, compare=False)
    supersedes: tuple[str, ...] = ()
    supersedes_if: tuple[tuple[str, tuple[str, ...]], ...] = ()
    when: str | None = None
    unless: str | None = None
    exclusive: bool = False
    last: bool = False
    double: bool = False
    seed: str = ""


@dataclass(frozen=True)
class SidePaymentRow:
    id: str
    name: str
    name_zh: str
    value: int
    detector: str
    params: dict = field(default_factory=dict, hash=False, compare=False)
    payer: str = "each"
    when: str | None = None
    unless: str | None = None
    seed: str = ""


@dataclass(frozen=True)
class NotScoredRow:
    id: str
    name: str
    name_zh: str
    value: str
    reason: str


@dataclass(frozen=True)
class RuleSet:
    """A loaded rule set. ``patterns`` keep file order (the order items are reported in)."""

    id: str
    name: str
    unit: str
    hand_tiles: int
    system: str
    options: dict = field(hash=False, compare=False)
    payments: dict = field(hash=False, compare=False)
    patterns: tuple[PatternRow, ...]
    side_payments: tuple[SidePaymentRow, ...]
    not_scored: tuple[NotScoredRow, ...]
    source: str = ""
    description: str = ""
    path: str = ""
    option_notes: dict = field(default_factory=dict, hash=False, compare=False)
    _closures: dict = field(default_factory=dict, hash=False, compare=False, repr=False)
    special_shapes: tuple[str, ...] = field(default=(), init=False, compare=False)
    has_flower_wins: bool = field(default=False, init=False, compare=False)
    row_order: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    detectors_used: frozenset = field(default=frozenset(), init=False, compare=False, repr=False)
    conditional_options: tuple[str, ...] = field(default=(), init=False, compare=False, repr=False)

    @property
    def sets_needed(self) -> int:
        return (self.hand_tiles - 1) // 3

    def __post_init__(self) -> None:
        used = {row.detector for row in self.patterns}
        # A special shape is in play when its detector (of the same name) has a row.
        shapes = tuple(shape for shape in SPECIAL_SHAPES if shape in used)
        object.__setattr__(self, "special_shapes", shapes)
        object.__setattr__(self, "has_flower_wins", bool(used & {"seven_flowers", "eight_flowers"}))
        object.__setattr__(self, "row_order", {row.id: n for n, row in enumerate(self.patterns)})
        object.__setattr__(self, "detectors_used", frozenset(used))
        object.__setattr__(self, "conditional_options",
                           tuple({opt for row in self.patterns for opt, _ in row.supersedes_if}))

    def supersession_closure(self, options: dict | None = None) -> dict[str, frozenset[str]]:
        """Each row id -> every id it replaces, directly or through a chain ("higher replaces lower").

        ``supersedes_if`` entries count only when their option is on in ``options``.
        """
        options = self.options if options is None else options
        key = tuple(sorted(opt for opt in self.conditional_options if options.get(opt)))
        cached = self._closures.get(key)
        if cached is not None:
            return cached
        direct = {row.id: set(row.supersedes) for row in self.patterns}
        for row in self.patterns:
            for opt, ids in row.supersedes_if:
                if options.get(opt):
                    direct[row.id].update(ids)
        closed: dict[str, frozenset[str]] = {}
        for row_id in direct:
            seen: set[str] = set()
            todo = list(direct[row_id])
            while todo:
                other = todo.pop()
                if other in seen or other == row_id:
                    continue
                seen.add(other)
                todo.extend(direct.get(other, ()))
            closed[row_id] = frozenset(seen)
        self._closures[key] = closed
        return closed


def _err(source: str, message: str) -> InputError:
    return InputError(f"rule file {source}: {message}")


def _text(row: dict, key: str, source: str, where: str, default: str | None = None) -> str:
    value = row.get(key, default)
    if not isinstance(value, str) or (not value and default is None):
        raise _err(source, f"{where}: '{key}' must be a non-empty string")
    return value


def _int(row: dict, key: str, source: str, where: str, default: int | None = None) -> int:
    value = row.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(source, f"{where}: '{key}' must be a whole number")
    return value


def _check_keys(row: Any, allowed: set[str], source: str, where: str) -> dict:
    if not isinstance(row, dict):
        raise _err(source, f"{where} must be a table")
    unknown = set(row) - allowed
    if unknown:
        raise _err(source, f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    return row


def option_type(default: bool | int) -> str:
    """What an option takes, in words, from its rule-set default: a switch or a whole number."""
    return "true or false" if isinstance(default, bool) else "a whole number"


def option_value_error(ruleset: RuleSet, key: str, value: Any) -> str | None:
    """Why ``value`` cannot be rule set ``ruleset``'s option ``key`` (None when it can): a switch
    takes only true or false, a number option only a whole number, never a string or a float."""
    default = ruleset.options[key]
    fits = isinstance(value, bool) if isinstance(default, bool) else (
        isinstance(value, int) and not isinstance(value, bool))
    if fits:
        return None
    return f"option {key!r} of rule set {ruleset.id!r} takes {option_type(default)}, not {value!r}"


def checked_options(ruleset: RuleSet, options: dict, where: str) -> dict:
    """``options`` (house options over ``ruleset``) after checking each known one's type; a wrong
    type is an :class:`InputError` that starts with ``where`` (the file or flag it came from).
    Unknown names are left for the caller, which warns or refuses."""
    for key, value in options.items():
        problem = option_value_error(ruleset, key, value) if key in ruleset.options else None
        if problem is not None:
            raise InputError(f"{where}: {problem}")
    return options


def _gate(row: dict, options: dict, source: str, where: str) -> tuple[str | None, str | None]:
    gates = (row.get("when"), row.get("unless"))
    for gate in gates:
        if gate is not None and gate not in options:
            raise _err(source, f"{where}: option {gate!r} is not declared in [options]")
    return gates


def _detector(row: dict, source: str, where: str, allow_post: bool) -> str:
    name = row.get("detector", row.get("id"))
    if name not in DETECTORS and not (allow_post and name in POST_DETECTORS):
        raise _err(source, f"{where}: unknown detector {name!r}")
    return name


def _params(row: dict, source: str, where: str) -> dict:
    params = row.get("params", {})
    if not isinstance(params, dict):
        raise _err(source, f"{where}: 'params' must be a table")
    return dict(params)


def _option_notes(data: dict, options: dict, source: str) -> dict[str, str]:
    notes = data.get("option_notes", {})
    if not isinstance(notes, dict) or not all(isinstance(v, str) for v in notes.values()):
        raise _err(source, "[option_notes] must map option names to text")
    unknown = set(notes) - set(options)
    if unknown:
        raise _err(source, f"[option_notes]: not an option in [options]: {', '.join(sorted(unknown))}")
    return dict(notes)


def parse_ruleset(data: dict, source: str) -> RuleSet:
    """Check and build a :class:`RuleSet` from parsed TOML (``source`` names the file in errors)."""
    _check_keys(data, _TOP_KEYS, source, "top level")
    rid = _text(data, "id", source, "top level")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise _err(source, "[options] must be a table")
    for key, value in options.items():
        if not isinstance(value, int):  # bool is an int too: both are the types an option may take
            raise _err(source, f"[options] {key!r} must be true, false or a whole number, not {value!r}")
    hand_tiles = _int(data, "hand_tiles", source, "top level", 16)
    if hand_tiles not in (13, 16):
        raise _err(source, "'hand_tiles' must be 16 (5 sets + pair) or 13 (4 sets + pair)")
    system = data.get("system", "additive")
    if system not in ("additive", "doubles"):
        raise _err(source, "'system' must be 'additive' or 'doubles'")
    payments = dict(_PAYMENT_DEFAULTS)
    given = data.get("payments", {})
    if not isinstance(given, dict):
        raise _err(source, "[payments] must be a table")
    unknown = set(given) - set(_PAYMENT_DEFAULTS)
    if unknown:
        raise _err(source, f"[payments]: unknown key(s) {', '.join(sorted(unknown))}")
    payments.update(given)
    for key in ("self_drawn", "discard"):
        if payments[key] not in ("each", "discarder"):
            raise _err(source, f"[payments] {key} must be 'each' or 'discarder'")
    if not isinstance(payments["dealer_keeps_on_draw"], bool):
        raise _err(source, "[payments] dealer_keeps_on_draw must be true or false")

    patterns = []
    seen: set[str] = set()
    rows = data.get("pattern", [])
    if not isinstance(rows, list) or not rows:
        raise _err(source, "no [[pattern]] rows")
    for n, raw in enumerate(rows, start=1):
        where = f"pattern #{n}"
        row = _check_keys(raw, _PATTERN_KEYS, source, where)
        pid = _text(row, "id", source, where)
        where = f"pattern {pid!r}"
        if pid in seen:
            raise _err(source, f"{where} is defined twice")
        seen.add(pid)
        when, unless = _gate(row, options, source, where)
        supersedes = row.get("supersedes", [])
        if not isinstance(supersedes, list) or not all(isinstance(s, str) for s in supersedes):
            raise _err(source, f"{where}: 'supersedes' must be a list of pattern ids")
        cond = row.get("supersedes_if", {})
        if not isinstance(cond, dict) or not all(isinstance(v, list) for v in cond.values()):
            raise _err(source, f"{where}: 'supersedes_if' must map option names to lists of pattern ids")
        for opt in cond:
            if opt not in options:
                raise _err(source, f"{where}: option {opt!r} is not declared in [options]")
        patterns.append(PatternRow(
            id=pid, name=_text(row, "name", source, where), name_zh=_text(row, "name_zh", source, where, ""),
            value=_int(row, "value", source, where), detector=_detector(row, source, where, True),
            params=_params(row, source, where), supersedes=tuple(supersedes),
            supersedes_if=tuple((opt, tuple(ids)) for opt, ids in cond.items()), when=when, unless=unless,
            exclusive=bool(row.get("exclusive", False)), last=bool(row.get("last", False)),
            double=bool(row.get("double", False)), seed=str(row.get("seed", ""))))
    for row in patterns:
        for other in row.supersedes + tuple(i for _, ids in row.supersedes_if for i in ids):
            if other not in seen:
                raise _err(source, f"pattern {row.id!r} supersedes unknown pattern {other!r}")

    sides = []
    for n, raw in enumerate(data.get("side_payment", []), start=1):
        row = _check_keys(raw, _SIDE_KEYS, source, f"side_payment #{n}")
        sid = _text(row, "id", source, f"side_payment #{n}")
        where = f"side_payment {sid!r}"
        when, unless = _gate(row, options, source, where)
        payer = row.get("payer", "each")
        if payer not in ("each", "discarder"):
            raise _err(source, f"{where}: 'payer' must be 'each' or 'discarder'")
        sides.append(SidePaymentRow(
            id=sid, name=_text(row, "name", source, where), name_zh=_text(row, "name_zh", source, where, ""),
            value=_int(row, "value", source, where), detector=_detector(row, source, where, False),
            params=_params(row, source, where), payer=payer, when=when, unless=unless,
            seed=str(row.get("seed", ""))))

    not_scored = []
    for n, raw in enumerate(data.get("not_scored", []), start=1):
        row = _check_keys(raw, _NOT_SCORED_KEYS, source, f"not_scored #{n}")
        nid = _text(row, "id", source, f"not_scored #{n}")
        where = f"not_scored {nid!r}"
        not_scored.append(NotScoredRow(
            id=nid, name=_text(row, "name", source, where), name_zh=_text(row, "name_zh", source, where, ""),
            value=str(row.get("value", "")), reason=_text(row, "reason", source, where)))

    return RuleSet(
        id=rid, name=_text(data, "name", source, "top level"),
        unit=_text(data, "unit", source, "top level", "points"), hand_tiles=hand_tiles, system=system,
        options=dict(options), payments=payments, patterns=tuple(patterns), side_payments=tuple(sides),
        not_scored=tuple(not_scored), source=str(data.get("source", "")),
        description=str(data.get("description", "")), path=source,
        option_notes=_option_notes(data, options, source))


def load_ruleset_file(path: str | Path) -> RuleSet:
    """A house rule set from its TOML file."""
    return parse_ruleset(read_toml(path, "rule file"), str(Path(path)))


@lru_cache(maxsize=32)
def _builtin(rid: str) -> RuleSet:
    return load_ruleset_file(RULESETS_DIR / f"{rid}.toml")


def load_ruleset(id_or_path: str | RuleSet) -> RuleSet:
    """A shipped rule set by id (``taiwan``, ``lrc``, ``dxb``, ``mahjongtime``, ``allmj``, ``classic``)
    or a house rule set by path to its TOML file."""
    if isinstance(id_or_path, RuleSet):
        return id_or_path
    if not isinstance(id_or_path, str) or not id_or_path.strip():
        raise InputError("rule set must be an id or a path to a .toml file")
    key = id_or_path.strip()
    if key.lower() in RULESET_IDS:
        return _builtin(key.lower())
    if key.endswith(".toml") or "/" in key or Path(key).is_file():
        return load_ruleset_file(key)
    raise InputError(f"unknown rule set {key!r} (known: {', '.join(RULESET_IDS)}, or a path to a .toml file)")


def list_rulesets() -> list[RuleSet]:
    """The shipped rule sets, the default (taiwan) first."""
    return [_builtin(rid) for rid in RULESET_IDS]
