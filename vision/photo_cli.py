"""``taicam photo IMAGE...``: read and score photos of winning hands (README.md, "Reading a photo").

Human output goes to the terminal; ``--json`` prints exactly one JSON document per image on stdout
and nothing else. A photo that cannot be read (not an image, no tiles, not a winning hand...) gets a
one-line reason on stderr; with several photos the others are still read, and the exit status is 2
if any photo failed (in ``--json`` mode the failed photo's document carries ``error``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scoring import cli_options as opts
from scoring.errors import InputError
from vision.named_tiles import named_tiles
from vision.types import GroupRole

if TYPE_CHECKING:
    from vision.pipeline import HandSetup, PhotoPipeline, PhotoResult


def _annotate_path(target: Path, image: Path, many: bool) -> Path:
    if many or target.is_dir():
        if not target.is_dir():
            raise InputError(f"--annotate {target}: with several photos, give an existing folder")
        return target / f"{image.stem}.annotated.png"
    return target


def _annotate(target: Path, image: Path, many: bool, result: PhotoResult) -> None:
    from vision.imageio import PhotoSource
    from vision.report.overlay import OUTPUT_SIDE, annotate, write_image

    # Decoded straight at the drawing's size (a phone photo need not be decoded whole to be drawn small).
    picture, scale = PhotoSource(image).image(OUTPUT_SIDE)
    write_image(_annotate_path(target, image, many), annotate(picture, result, scale=scale))


def _hand_lines(result: PhotoResult) -> list[str]:
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


def _winning_line(result: PhotoResult) -> str:
    decoded = result.decoded
    winning = result.hand["winning_tile"]
    if winning == result.named.winning_tile:
        return f"  winning tile: {winning} (named by --winning-tile)"
    if decoded.unseen is not None and decoded.unseen.winning:
        return f"  winning tile: not in the photo; inferred as {winning} (see the warning)"
    if decoded.winning_index is not None:
        return f"  winning tile: {winning} (marked *)"
    return f"  winning tile: not shown; scored as {winning} (the lowest total)"


def format_result(result: PhotoResult) -> str:
    """The terminal report for one photo: the hand as read, what was assumed, the score, the doubts."""
    decoded = result.decoded
    unseen = decoded.unseen
    tiles = sum(len(g.tile_indices) for g in decoded.best.groups) + (unseen is not None)
    report = result.report
    lines = [f"{result.image}: {tiles} tiles in the hand"
             + ("" if report is None else f"; {report.statement}")]
    lines.extend(_hand_lines(result))
    lines.append(_winning_line(result))
    if unseen is not None and not unseen.winning:
        lines.append("  one standing tile is not in the photo and was inferred (see the warning)")
    for change in decoded.changes:
        where = f"{change.place}: " if change.place else ""
        lines.append(f"  corrected: {where}read {change.top1} ({change.top1_probability:.0%}) "
                     f"-> {change.decoded} ({change.decoded_probability:.0%}) to make a legal hand")
    if result.assumed:
        lines.append("  assumed (not given by flags or --table): " + "; ".join(result.assumed))
    lines.append("")
    lines.append(result.score.to_text())
    if report is not None and report.alternatives:
        lines.append("")
        lines.append("other readings and their totals:")
        for alternative in report.alternatives:
            share = "" if alternative.share is None else f" ({alternative.share:.0%})"
            lines.append(f"  {alternative.description}{share}: total {alternative.total}")
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    return "\n".join(lines)


def naming_the_photo(image: Path, error: InputError) -> str:
    """The error as one line that names the photo it is about (the loader's errors already start so)."""
    message = str(error)
    return message if message.startswith(f"{image}: ") else f"{image}: {message}"


def run_photos(images: list[Path], *, setup: HandSetup, as_json: bool, annotate: Path | None,
               pipeline: PhotoPipeline | None = None,
               after: Callable[[Path, PhotoResult], None] | None = None) -> int:
    """Read every photo; return the exit status (0 all read, 2 if any photo was bad input).
    ``setup``: the rule set, table, context and the tiles the player names that no photo shows,
    resolved once for every photo; ``after``: called with each photo read and its result
    (``--learn``)."""
    from vision.pipeline import PhotoPipeline, PhotoReadError, failed_result

    pipeline = pipeline or PhotoPipeline()
    status = 0
    for image in images:
        try:
            result = pipeline.read_photo(image, setup)
            if annotate is not None:
                _annotate(annotate, image, len(images) > 1, result)
            if after is not None:
                after(image, result)
        except InputError as error:
            readings = error.readings if isinstance(error, PhotoReadError) else None
            if annotate is not None and readings:
                # The tiles found are worth seeing even when they make no hand: that is how to fix the photo.
                _annotate(annotate, image, len(images) > 1, failed_result(str(image), error, readings))
            message = naming_the_photo(image, error)
            if len(images) == 1 and not as_json:
                raise InputError(message) from None
            status = 2
            print(f"taicam: error: {message}", file=sys.stderr)
            if as_json:
                print(json.dumps(failed_result(str(image), error, readings).to_json(), ensure_ascii=False))
            continue
        if as_json:
            print(json.dumps(result.to_json(), ensure_ascii=False))
        else:
            print(format_result(result))
            if len(images) > 1:
                print()
    return status


Images = Annotated[list[Path], typer.Argument(help="Photo(s) of a winning hand laid out on the table.")]
AsJson = Annotated[bool, typer.Option("--json", help="One JSON document per photo on stdout, nothing else.")]
Annotate = Annotated[Path | None, typer.Option(
    "--annotate", help="Write the annotated photo here (a folder when several photos are given).")]
KongFace = Annotated[list[str] | None, typer.Option(
    "--kong-face", help="The face of a concealed kong lying as four backs (e.g. 5z), which no photo "
    "shows; repeat for a second kong. Without it the lowest total over the faces it may hide is "
    "scored and the others listed.")]
WinningTile = Annotated[str | None, typer.Option(
    "--winning-tile", help="The tile the hand won on (e.g. 5p), when the photo does not show it lying "
    "across or set apart, or shows it wrong. Without it the lowest total over the tiles that may have "
    "won is scored and the others listed.")]

Fixes = Annotated[list[str] | None, typer.Option(
    "--fix", help="A tile the photo misread, as READ=TRUE (e.g. --fix 7z=1m: a tile read as 7z is a "
    "1m); repeat for more. Read as the hand shows it, or as --annotate labels it when the photo is "
    "refused; of several tiles read so, the one that makes the likeliest hand is fixed.")]
TileSet = Annotated[str | None, typer.Option(
    "--set", help="Read with a tile set learned with 'taicam sets learn' (a table file's set = \"NAME\" "
    "does the same).")]
Learn = Annotated[bool, typer.Option(
    "--learn", help="With --set and --fix: add the fixed tiles to the set, so it reads them next time.")]


def register(app: typer.Typer) -> None:
    """Add ``taicam photo`` to the root app (scoring flags shared with ``taicam score``)."""

    @app.command("photo")
    def photo(images: Images, as_json: AsJson = False, annotate: Annotate = None,
              kong_face: KongFace = None, winning_tile: WinningTile = None, fix: Fixes = None,
              tile_set: TileSet = None, learn: Learn = False,
              rules: opts.RulesOpt = None, table: opts.TableOpt = None,
              seat: opts.SeatOpt = None, round_wind: opts.RoundOpt = None,
              self_drawn: opts.SelfDrawnOpt = None, dealer: opts.DealerOpt = None,
              streak: opts.StreakOpt = None, discarder: opts.DiscarderOpt = None,
              last_tile: opts.LastTileOpt = None, robbing_kong: opts.RobbingKongOpt = None,
              replacement: opts.ReplacementOpt = None, kong_chain: opts.KongChainOpt = None,
              ting: opts.TingOpt = None, dealt_ready: opts.DealtReadyOpt = None,
              tiles_on_table: opts.TilesOnTableOpt = None, first_turn: opts.FirstTurnOpt = None,
              second_turn: opts.SecondTurnOpt = None, robbed_eighth_flower: opts.RobbedFlowerOpt = None,
              minimum: opts.MinimumOpt = None, limit: opts.LimitOpt = None, dice_cap: opts.DiceCapOpt = None,
              no_ting_in_play: opts.NoTingOpt = None, option: opts.OptionOpt = None) -> None:
        """Read photos of winning hands laid out on the table and score them."""
        flags = opts.ScoringFlags.from_arguments(locals())
        ruleset, settings = opts.resolve(flags)
        named = named_tiles(kong_face, winning_tile, fix)
        from vision.sets.photo import photo_reading

        pipeline, after = photo_reading(tile_set or settings.tile_set, learn, named.fixes)
        from vision.pipeline.setup import HandSetup, context_dict

        setup = HandSetup(ruleset, settings, context_dict(flags.context()), named)
        status = run_photos(images, setup=setup, as_json=as_json, annotate=annotate, pipeline=pipeline,
                            after=after)
        if status:
            raise typer.Exit(status)
