"""``taicam live``: score the hand a camera (or a video, or a stream) sees, as soon as it is steady.

The rule-set, table and win-context flags are ``scoring.cli_options``' shared ones, so ``live``
takes exactly the flags ``photo`` and ``score`` take.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scoring import cli_options as opts
from vision.live.run import LiveRequest, run_live
from vision.live.stability import DEFAULT_HOLD_SECONDS
from vision.photo_cli import Fixes, KongFace, TileSet, WinningTile

Source = Annotated[
    str,
    typer.Option("--source", "-s", help="Camera index (0), video file, or stream URL (rtsp://, http://)."),
]
Headless = Annotated[
    bool, typer.Option("--headless", help="No window: print each hand change (and --annotate a video).")
]
AsJson = Annotated[
    bool, typer.Option("--json", help="One JSON line per change of the steady hand on stdout.")
]
AnnotateVideo = Annotated[
    Path | None, typer.Option("--annotate", help="Write the annotated video (.mp4 or .avi).")
]
Snapshots = Annotated[
    Path | None,
    typer.Option("--snapshots", help="Folder for the 's' key's snapshots (default: current folder)."),
]
Hold = Annotated[
    float, typer.Option("--hold", help="Seconds the table must stay unchanged before a hand counts.")
]
Realtime = Annotated[
    bool,
    typer.Option(
        "--realtime", help="Play a video file at its own frame rate, like a camera (frames may be skipped)."
    ),
]
MaxSeconds = Annotated[float | None, typer.Option("--max-seconds", help="Stop after this many seconds.")]
ReconnectAttempts = Annotated[
    int,
    typer.Option(
        "--reconnect-attempts", help="Reopen a lost camera or stream this many times (with backoff)."
    ),
]
Width = Annotated[int | None, typer.Option("--width", help="Ask the camera for this frame width.")]
Height = Annotated[int | None, typer.Option("--height", help="Ask the camera for this frame height.")]


def register(app: typer.Typer) -> None:
    """Add the ``live`` command to the taicam CLI."""

    @app.command("live")
    def live(
        source: Source = "0",
        headless: Headless = False,
        as_json: AsJson = False,
        annotate: AnnotateVideo = None,
        snapshots: Snapshots = None,
        hold: Hold = DEFAULT_HOLD_SECONDS,
        realtime: Realtime = False,
        max_seconds: MaxSeconds = None,
        reconnect_attempts: ReconnectAttempts = 5,
        width: Width = None,
        height: Height = None,
        kong_face: KongFace = None,
        winning_tile: WinningTile = None,
        fix: Fixes = None,
        tile_set: TileSet = None,
        rules: opts.RulesOpt = None,
        table: opts.TableOpt = None,
        seat: opts.SeatOpt = None,
        round_wind: opts.RoundOpt = None,
        self_drawn: opts.SelfDrawnOpt = None,
        dealer: opts.DealerOpt = None,
        streak: opts.StreakOpt = None,
        discarder: opts.DiscarderOpt = None,
        last_tile: opts.LastTileOpt = None,
        robbing_kong: opts.RobbingKongOpt = None,
        replacement: opts.ReplacementOpt = None,
        kong_chain: opts.KongChainOpt = None,
        ting: opts.TingOpt = None,
        dealt_ready: opts.DealtReadyOpt = None,
        tiles_on_table: opts.TilesOnTableOpt = None,
        first_turn: opts.FirstTurnOpt = None,
        second_turn: opts.SecondTurnOpt = None,
        robbed_eighth_flower: opts.RobbedFlowerOpt = None,
        minimum: opts.MinimumOpt = None,
        limit: opts.LimitOpt = None,
        dice_cap: opts.DiceCapOpt = None,
        no_ting_in_play: opts.NoTingOpt = None,
        option: opts.OptionOpt = None,
    ) -> None:
        """Watch the table and score the hand once it has been laid out and left still.

        Window keys: space freeze, s snapshot (image + JSON), r next rule set, c reset, q quit.

        A video file ends with a summary on stderr; a lost camera is retried, then reported.
        """
        from vision.named_tiles import named_tiles

        flags = opts.ScoringFlags.from_arguments(locals())
        ruleset, settings = opts.resolve(flags)
        named = named_tiles(kong_face, winning_tile, fix)
        request = LiveRequest(
            source=source,
            rules=ruleset,
            table=settings,
            context=flags.context().to_json(),
            headless=headless,
            json_lines=as_json,
            annotate=annotate,
            snapshot_dir=snapshots,
            hold_seconds=hold,
            realtime=realtime,
            max_seconds=max_seconds,
            reconnect_attempts=reconnect_attempts,
            named=named,
            camera_width=width,
            camera_height=height,
        )
        set_name = tile_set or settings.tile_set
        if set_name is not None:
            from vision.sets.photo import reading_classifier

            status = run_live(request, classifier=reading_classifier(set_name))
        else:
            status = run_live(request)
        if status:
            raise typer.Exit(status)
