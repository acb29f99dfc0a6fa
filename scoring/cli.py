"""``taicam score`` and ``taicam rules``: the scoring core on the command line.

``taicam score 123m 456p ... +3z --seat E`` scores one hand written in the notation of
:mod:`scoring.notation`; ``taicam score --hand FILE`` (``-`` = stdin) reads one hand JSON, a JSON
array of them, or JSON lines. One bad hand in a batch gives a ``valid: false`` result and the
batch goes on; the exit status is then 2 with a one-line summary on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from scoring.cli_options import (
    DealerOpt,
    DealtReadyOpt,
    DiceCapOpt,
    DiscarderOpt,
    FirstTurnOpt,
    KongChainOpt,
    LastTileOpt,
    LimitOpt,
    MinimumOpt,
    NoTingOpt,
    OptionOpt,
    ReplacementOpt,
    RobbedFlowerOpt,
    RobbingKongOpt,
    RoundOpt,
    RulesOpt,
    ScoringFlags,
    SeatOpt,
    SecondTurnOpt,
    SelfDrawnOpt,
    StreakOpt,
    TableOpt,
    TilesOnTableOpt,
    TingOpt,
    apply_context,
    resolve,
)
from scoring.engine import score_hand
from scoring.errors import InputError
from scoring.hand import hand_from_json
from scoring.notation import parse_notation
from scoring.report import ScoreReport, display_width, pad
from scoring.rules import RuleSet, list_rulesets, load_ruleset

MAX_INPUT_BYTES = 64 * 1024 * 1024


_NOT_ONE_DOCUMENT = object()  # the input is not one JSON document (it may be JSON lines)


def read_hand_documents(source: str) -> tuple[list[Any], bool]:
    """The hand objects in a file (``-`` = stdin) and whether it was a batch (array or JSON lines)."""
    if source == "-":
        text = sys.stdin.read(MAX_INPUT_BYTES + 1)
    else:
        path = Path(source)
        try:
            if path.stat().st_size > MAX_INPUT_BYTES:
                raise InputError(f"hand file {source} is larger than {MAX_INPUT_BYTES // 2**20} MB")
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as error:
            raise InputError(f"hand file {source} does not exist") from error
        except IsADirectoryError as error:
            raise InputError(f"hand file {source} is a directory") from error
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"hand file {source} cannot be read: {error}") from error
    if len(text) > MAX_INPUT_BYTES:
        raise InputError(f"hand input is larger than {MAX_INPUT_BYTES // 2**20} MB")
    if not text.strip():
        raise InputError(f"hand input {source} is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = _NOT_ONE_DOCUMENT
    if isinstance(doc, list):
        return doc, True
    if doc is not _NOT_ONE_DOCUMENT:
        return [doc], False
    lines = [line for line in text.splitlines() if line.strip()]
    out: list[Any] = []
    for number, line in enumerate(lines, start=1):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as error:
            if len(lines) == 1:
                raise InputError(f"hand input {source} is not JSON: {error.msg} (line 1)") from error
            out.append(InputError(f"line {number} is not JSON: {error.msg}"))
    return out, True


def _invalid(ruleset: RuleSet, reason: str) -> ScoreReport:
    return ScoreReport(rules=ruleset.id, unit=ruleset.unit, valid=False, reason=reason)


def _score_document(doc: Any, flags: ScoringFlags, ruleset: RuleSet, table) -> ScoreReport:
    if isinstance(doc, InputError):
        return _invalid(ruleset, str(doc))
    try:
        hand = hand_from_json(doc)
    except InputError as error:
        return _invalid(ruleset, str(error))
    return score_hand(apply_context(hand, flags), ruleset, table)


def score_command(
    notation: Annotated[
        list[str] | None,
        typer.Argument(help="The hand in notation, e.g. 123m 456p 789s 3z [555z] (9999p) 16f +3z @self"),
    ] = None,
    hand: Annotated[
        str | None,
        typer.Option("--hand", help="Hand JSON file ('-' = stdin): one hand, a JSON array, or JSON lines."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON result per hand.")] = False,
    rules: RulesOpt = None,
    table: TableOpt = None,
    seat: SeatOpt = None,
    round_wind: RoundOpt = None,
    self_drawn: SelfDrawnOpt = None,
    dealer: DealerOpt = None,
    streak: StreakOpt = None,
    discarder: DiscarderOpt = None,
    last_tile: LastTileOpt = None,
    robbing_kong: RobbingKongOpt = None,
    replacement: ReplacementOpt = None,
    kong_chain: KongChainOpt = None,
    ting: TingOpt = None,
    dealt_ready: DealtReadyOpt = None,
    tiles_on_table: TilesOnTableOpt = None,
    first_turn: FirstTurnOpt = None,
    second_turn: SecondTurnOpt = None,
    robbed_eighth_flower: RobbedFlowerOpt = None,
    minimum: MinimumOpt = None,
    limit: LimitOpt = None,
    dice_cap: DiceCapOpt = None,
    no_ting_in_play: NoTingOpt = None,
    option: OptionOpt = None,
) -> None:
    """Score a hand given as notation or as hand JSON (--hand FILE)."""
    flags = ScoringFlags.from_arguments(locals())
    if bool(notation) == bool(hand):
        raise InputError(
            "give the hand either as notation (taicam score 123m 456p ... +3z) or with --hand FILE"
        )
    ruleset, settings = resolve(flags)
    if notation:
        docs: list[Any] = []
        batch = False
        reports = [score_hand(apply_context(parse_notation(" ".join(notation)), flags), ruleset, settings)]
    else:
        docs, batch = read_hand_documents(hand)
        if not docs:
            raise InputError("the hand input holds no hands")
        reports = [_score_document(doc, flags, ruleset, settings) for doc in docs]
    for n, report in enumerate(reports, start=1):
        if not batch and not as_json and not report.valid:
            continue  # the reason goes to stderr as the one-line error below
        if as_json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
        else:
            if batch:
                print(f"--- hand {n} ---")
            print(report.to_text())
            if batch:
                print()
    invalid = [r for r in reports if not r.valid]
    if not invalid:
        return
    if not batch:
        raise InputError(invalid[0].reason or "not a valid hand")
    raise InputError(
        f"{len(invalid)} of {len(reports)} hands are not valid wins (first: {invalid[0].reason})"
    )


def _rules_listing(rulesets: list[RuleSet]) -> str:
    lines = [f"{'id':<12} {'unit':<7} {'tiles':<6} {'rows':>4}  name"]
    for rs in rulesets:
        lines.append(f"{rs.id:<12} {rs.unit:<7} {rs.hand_tiles}+1   {len(rs.patterns):>4}  {rs.name}")
    lines.append("")
    lines.append(
        "taicam rules ID prints a rule set's table; --rules path/to/house.toml loads a house rule set."
    )
    return "\n".join(lines)


def ruleset_to_json(rs: RuleSet) -> dict:
    return {
        "id": rs.id,
        "name": rs.name,
        "source": rs.source,
        "unit": rs.unit,
        "hand_tiles": rs.hand_tiles,
        "system": rs.system,
        "description": rs.description,
        "options": rs.options,
        "option_notes": rs.option_notes,
        "payments": rs.payments,
        "patterns": [
            {
                "id": r.id,
                "name": r.name,
                "name_zh": r.name_zh,
                "value": r.value,
                "detector": r.detector,
                "params": r.params,
                "supersedes": list(r.supersedes),
                "supersedes_if": {opt: list(ids) for opt, ids in r.supersedes_if},
                "when": r.when,
                "unless": r.unless,
                "exclusive": r.exclusive,
                "last": r.last,
                "double": r.double,
                "seed": r.seed,
            }
            for r in rs.patterns
        ],
        "side_payments": [
            {"id": s.id, "name": s.name, "name_zh": s.name_zh, "value": s.value, "payer": s.payer}
            for s in rs.side_payments
        ],
        "not_scored": [
            {"id": n.id, "name": n.name, "value": n.value, "reason": n.reason} for n in rs.not_scored
        ],
    }


def _rules_table(rs: RuleSet) -> str:
    lines = [
        f"{rs.name}  [{rs.id}]",
        f"source: {rs.source}" if rs.source else "source: not named in the rule file",
        f"unit: {rs.unit}   hand: {rs.hand_tiles}+1 tiles   system: {rs.system}",
    ]
    if rs.description:
        lines.append(rs.description)
    width = max(display_width(f"{r.name} {r.name_zh}") for r in rs.patterns)
    lines.append("")
    for r in rs.patterns:
        value = f"x{2**r.value}" if r.double else str(r.value)
        notes = []
        if r.supersedes:
            notes.append("replaces " + ", ".join(r.supersedes))
        if r.when:
            notes.append(f"if {r.when}")
        if r.unless:
            notes.append(f"unless {r.unless}")
        if r.exclusive:
            notes.append("no other item counts")
        if r.last:
            notes.append("added last")
        label = f"{r.name} {r.name_zh}".strip()
        lines.append(f"  {pad(label, width)}  {value:>5}  {'; '.join(notes)}")
    if rs.side_payments:
        lines.append("")
        lines.append("side payments (paid at once, outside the hand):")
        lines.extend(f"  {s.name}: {s.value} from {s.payer}" for s in rs.side_payments)
    if rs.not_scored:
        lines.append("")
        lines.append("not computed from the hand:")
        lines.extend(f"  {n.name} ({n.value}): {n.reason}" for n in rs.not_scored)
    lines.append("")
    lines.append("options (--option NAME=VALUE, or [options] in a table file):")
    for name, value in rs.options.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        note = rs.option_notes.get(name)
        lines.append(f"  {name} = {shown}" + (f": {note}" if note else ""))
    pay = rs.payments
    lines.append(
        f"payments: self-drawn paid by {pay['self_drawn']}, discard paid by {pay['discard']}; "
        f"dealer {pay['dealer_point']} + streak {pay['streak_base']} + {pay['streak_per']} x N"
    )
    return "\n".join(lines)


def rules_command(
    ruleset: Annotated[
        str | None, typer.Argument(help="Rule set id or path to a rule-set TOML file.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rule set(s) as JSON.")] = False,
) -> None:
    """List the rule sets, or print one rule set's table."""
    if ruleset is None:
        sets = list_rulesets()
        if as_json:
            print(json.dumps([ruleset_to_json(rs) for rs in sets], ensure_ascii=False))
        else:
            print(_rules_listing(sets))
        return
    rs = load_ruleset(ruleset)
    print(json.dumps(ruleset_to_json(rs), ensure_ascii=False) if as_json else _rules_table(rs))


def register(app: typer.Typer) -> None:
    """Add ``score`` and ``rules`` to the taicam CLI."""
    app.command("score")(score_command)
    app.command("rules")(rules_command)
