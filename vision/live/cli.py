"""``taicam live``: score the hand a camera (or a video, or a stream) sees, as soon as it is steady."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vision.live.run import LiveRequest, run_live

# The rule, table and win-context options are exactly ``taicam photo``'s (same names, same help).
from vision.photo_cli import (
    Dealer,
    Discarder,
    LastTile,
    Replacement,
    RobbingKong,
    Round,
    Rules,
    Seat,
    SelfDrawn,
    Streak,
    Table,
    TilesOnTable,
    Ting,
)


def context_from_flags(**flags: object) -> dict[str, object]:
    """The win context the flags describe (only what was given), validated by the scoring package."""
    from scoring.hand import context_from_json

    return context_from_json({key: value for key, value in flags.items() if value is not None}).to_json()


def register(app: typer.Typer) -> None:
    """Add the ``live`` command to the taicam CLI."""

    @app.command("live")
    def live(
        source: Annotated[
            str,
            typer.Option(
                "--source", "-s", help="Camera index (0), video file, or stream URL (rtsp://, http://)."
            ),
        ] = "0",
        rules: Rules = None,
        table: Table = None,
        seat: Seat = None,
        round_wind: Round = None,
        self_drawn: SelfDrawn = None,
        discarder: Discarder = None,
        dealer: Dealer = None,
        streak: Streak = None,
        last_tile: LastTile = None,
        robbing_kong: RobbingKong = None,
        replacement: Replacement = None,
        ting: Ting = None,
        tiles_on_table: TilesOnTable = None,
        headless: Annotated[
            bool,
            typer.Option("--headless", help="No window: print each hand change (and --annotate a video)."),
        ] = False,
        json_output: Annotated[
            bool, typer.Option("--json", help="One JSON line per change of the steady hand on stdout.")
        ] = False,
        annotate: Annotated[
            Path | None, typer.Option(help="Write the annotated video (.mp4 or .avi).")
        ] = None,
        snapshots: Annotated[
            Path | None,
            typer.Option(help="Folder for the 's' key's snapshots (default: the current folder)."),
        ] = None,
        hold: Annotated[
            float, typer.Option(help="Seconds the table must stay unchanged before a hand counts.")
        ] = 0.8,
        realtime: Annotated[
            bool,
            typer.Option(
                "--realtime",
                help="Play a video file at its own frame rate, like a camera (frames may be skipped).",
            ),
        ] = False,
        max_seconds: Annotated[float | None, typer.Option(help="Stop after this many seconds.")] = None,
        reconnect_attempts: Annotated[
            int,
            typer.Option(help="Reopen a lost camera or stream this many times, waiting longer each time."),
        ] = 5,
        width: Annotated[int | None, typer.Option(help="Ask the camera for this frame width.")] = None,
        height: Annotated[int | None, typer.Option(help="Ask the camera for this frame height.")] = None,
    ) -> None:
        """Watch the table and score the hand once it has been laid out and left still.

        Window keys: space freeze, s snapshot (image + JSON), r next rule set, c reset, q quit.

        A video file ends with a summary on stderr; a lost camera is retried, then reported.
        """
        from scoring import load_table

        context = context_from_flags(
            seat_wind=seat,
            round_wind=round_wind,
            self_drawn=self_drawn,
            discarder=discarder,
            dealer=dealer,
            dealer_streak=streak,
            last_tile=last_tile,
            robbing_kong=robbing_kong,
            replacement_draw=replacement,
            ting=ting,
            tiles_on_table=tiles_on_table,
        )
        request = LiveRequest(
            source=source,
            rules=rules,
            table=load_table(table) if table is not None else None,
            context=context,
            headless=headless,
            json_lines=json_output,
            annotate=annotate,
            snapshot_dir=snapshots,
            hold_seconds=hold,
            realtime=realtime,
            max_seconds=max_seconds,
            reconnect_attempts=reconnect_attempts,
            camera_width=width,
            camera_height=height,
        )
        status = run_live(request)
        if status:
            raise typer.Exit(status)
