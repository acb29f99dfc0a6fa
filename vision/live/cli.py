"""``taicam live``: score the hand a camera (or a video, or a stream) sees, as soon as it is steady."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from vision.live.run import LiveRequest, run_live


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
        rules: Annotated[
            str | None, typer.Option(help="Rule set id or rule file (default: the table's, else taiwan).")
        ] = None,
        table: Annotated[Path | None, typer.Option(help="Table settings TOML file.")] = None,
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

        Keys in the window: space freezes the picture, s saves a snapshot (image + JSON), r switches
        to the next rule set, c resets, q quits. A video file ends with a summary on stderr.
        """
        from scoring import load_table

        request = LiveRequest(
            source=source,
            rules=rules,
            table=load_table(table) if table is not None else None,
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
