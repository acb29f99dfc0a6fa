"""``taicam photo IMAGE...``: read and score photos of winning hands (DESIGN.md, Interfaces).

Human output goes to the terminal; ``--json`` prints exactly one JSON document per image on stdout
and nothing else. A photo that cannot be read (not an image, no tiles, not a winning hand...) gets a
one-line reason on stderr; with several photos the others are still read, and the exit status is 2
if any photo failed (in ``--json`` mode the failed photo's document carries ``error``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from scoring.errors import InputError
from vision.types import GroupRole


def _context_from_flags(**flags: Any) -> dict[str, Any]:
    from scoring.hand import context_from_json

    given = {key: value for key, value in flags.items() if value is not None}
    return context_from_json(given).to_json()


def _annotate_path(target: Path, image: Path, many: bool) -> Path:
    if many or target.is_dir():
        if not target.is_dir():
            raise InputError(f"--annotate {target}: with several photos, give an existing folder")
        return target / f"{image.stem}.annotated.png"
    return target


def _hand_lines(result: Any) -> list[str]:
    decoded = result.decoded
    lines = []
    for group in decoded.best.groups:
        codes = []
        for index, code in zip(group.tile_indices, group.codes, strict=True):
            codes.append(f"{code}*" if index == decoded.winning_index else code)
        if group.role is GroupRole.CONCEALED:
            name = "standing"
        elif group.role is GroupRole.CONCEALED_KONG:
            name = "kong (concealed)"
        elif group.role is GroupRole.FLOWERS:
            name = "flowers"
        else:
            name = group.kind or "set"
        lines.append(f"  {name:<17} {' '.join(codes):<40} {group.probability:>4.0%}")
    return lines


def format_result(result: Any) -> str:
    """The terminal report for one photo: the hand as read, what was assumed, the score, the doubts."""
    decoded = result.decoded
    tiles = sum(len(g.tile_indices) for g in decoded.best.groups)
    lines = [f"{result.image}: {tiles} tiles in the hand, reading confidence {decoded.confidence:.0%}"]
    lines.extend(_hand_lines(result))
    if decoded.winning_index is not None:
        lines.append(f"  winning tile: {result.hand['winning_tile']} (marked *)")
    else:
        lines.append(f"  winning tile: not shown; scored as {result.hand['winning_tile']} (the lowest total)")
    for change in decoded.changes:
        lines.append(f"  corrected: tile {change.index + 1} read {change.top1} "
                     f"({change.top1_probability:.0%}) -> {change.decoded} "
                     f"({change.decoded_probability:.0%}) to make a legal hand")
    if result.assumed:
        lines.append("  assumed (not given by flags or --table): " + "; ".join(result.assumed))
    lines.append("")
    lines.append(result.score.to_text())
    report = result.report
    if report is not None and report.alternatives:
        lines.append("")
        verdict = "sure enough" if report.score_stable else "NOT certain"
        lines.append(f"score is {verdict}; other readings:")
        for alternative in report.alternatives:
            share = "" if alternative.share is None else f" ({alternative.share:.0%})"
            lines.append(f"  {alternative.description}{share}: total {alternative.total}")
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    return "\n".join(lines)


def run_photos(images: list[Path], *, rules: str | None, table_path: Path | None, context: dict[str, Any],
               as_json: bool, annotate: Path | None) -> int:
    """Read every photo; return the exit status (0 all read, 2 if any photo was bad input)."""
    from scoring import load_ruleset, load_table
    from vision.pipeline import PhotoPipeline, PhotoReadError, failed_result

    table = load_table(table_path) if table_path is not None else None
    ruleset = load_ruleset(rules or getattr(table, "rules", None) or "taiwan")
    pipeline = PhotoPipeline()
    status = 0
    for image in images:
        try:
            result = pipeline.read_photo(image, rules=ruleset, table=table, context=context)
            if annotate is not None:
                from vision.imageio import load_image
                from vision.overlay import annotate as draw
                from vision.overlay import write_image

                target = _annotate_path(annotate, image, len(images) > 1)
                write_image(target, draw(load_image(image), result))
        except InputError as error:
            if len(images) == 1 and not as_json:
                raise
            status = 2
            print(f"taicam: error: {error}", file=sys.stderr)
            if as_json:
                readings = error.readings if isinstance(error, PhotoReadError) else None
                print(json.dumps(failed_result(str(image), error, readings).to_json(), ensure_ascii=False))
            continue
        if as_json:
            print(json.dumps(result.to_json(), ensure_ascii=False))
        else:
            print(format_result(result))
            if len(images) > 1:
                print()
    return status


def _flag(name: str, help_text: str, kind: Any = str) -> Any:
    return Annotated[kind | None, typer.Option(name, help=help_text)]


Rules = _flag("--rules", "Rule set id or file (default: the table file's rules, else taiwan).")
Table = _flag("--table", "Table settings TOML file (rules, minimum, house options, default context).", Path)
Seat = _flag("--seat", "Winner's seat wind: E S W N (1z..4z).")
Round = _flag("--round", "Round (prevailing) wind: E S W N.")
SelfDrawn = _flag("--self-drawn/--discard", "Won by self-draw, or on a discard.", bool)
Discarder = _flag("--discarder", "Seat wind of the player whose discard won.")
Dealer = _flag("--dealer/--not-dealer", "The winner is the dealer.", bool)
Streak = _flag("--streak", "Dealer's consecutive wins before this hand (the die).", int)
LastTile = _flag("--last-tile", "Won on the last tile of the wall.", bool)
RobbingKong = _flag("--robbing-kong", "Won by robbing a kong.", bool)
Replacement = _flag("--replacement", "Won on a replacement tile (after a flower or kong).", bool)
Ting = _flag("--ting", "The winner had declared Ting.", bool)
TilesOnTable = _flag("--tiles-on-table", "Tiles discarded when the hand was won (early wins).", int)
Images = Annotated[list[Path], typer.Argument(help="Photo(s) of a winning hand laid out on the table.")]
AsJson = Annotated[bool, typer.Option("--json", help="One JSON document per photo on stdout, nothing else.")]
Annotate = _flag("--annotate", "Write the annotated photo here (a folder for several photos).", Path)


def register(app: typer.Typer) -> None:
    """Add ``taicam photo`` to the root app."""

    @app.command("photo")
    def photo(images: Images, rules: Rules = None, table: Table = None, seat: Seat = None,
              round_wind: Round = None, self_drawn: SelfDrawn = None, discarder: Discarder = None,
              dealer: Dealer = None, streak: Streak = None, last_tile: LastTile = None,
              robbing_kong: RobbingKong = None, replacement: Replacement = None, ting: Ting = None,
              tiles_on_table: TilesOnTable = None, as_json: AsJson = False,
              annotate: Annotate = None) -> None:
        """Read photos of winning hands laid out on the table and score them."""
        context = _context_from_flags(
            seat_wind=seat, round_wind=round_wind, self_drawn=self_drawn, discarder=discarder,
            dealer=dealer, dealer_streak=streak, last_tile=last_tile, robbing_kong=robbing_kong,
            replacement_draw=replacement, ting=ting, tiles_on_table=tiles_on_table)
        status = run_photos(images, rules=rules, table_path=table, context=context, as_json=as_json,
                            annotate=annotate)
        if status:
            raise typer.Exit(status)
