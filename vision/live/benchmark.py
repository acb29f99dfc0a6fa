"""Live-mode benchmark: ``python scripts/benchmark.py live [--width 1280 --height 720 --fps 30] [--json]``.

A rendered hand is laid out tile by tile in a video at camera resolution and frame rate, and the
video is played *in real time* (the capture thread delivers frames on the video's clock and drops
what inference cannot take, exactly as with a webcam). The live session runs in its threaded
arrangement with the annotated picture written at camera rate (standing in for the window).

Measured:

* processed frames per second (inference: detect, classify, track, read) sustained over the run;
* displayed frames per second (annotated frames drawn and written);
* latency from a change on the table to the updated panel, wall clock: the last tile put down ->
  the whole table read (``read_latency``: the panel shows the reading, complete hand or not) ->
  the score announced (``latency``, needs the models to read the hand right), and the tiles swept
  away -> the hand withdrawn. All include the hold time (``--hold``, how long the table must stay
  still), by design.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from vision.live.stability import DEFAULT_HOLD_SECONDS


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmark.py live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--fps", type=float, default=30.0, help="camera frame rate of the played video")
    parser.add_argument(
        "--seed",
        type=int,
        default=12,
        help="which rendered hand (12: one the shipped models read right at 1280x720)",
    )
    parser.add_argument(
        "--no-gate", action="store_true", help="run the detector on every frame (no reuse on a still picture)"
    )
    parser.add_argument(
        "--hold", type=float, default=DEFAULT_HOLD_SECONDS, help="seconds the table must stay still"
    )
    parser.add_argument("--tile-interval", type=float, default=0.3, help="seconds between tiles put down")
    parser.add_argument(
        "--display",
        choices=("window", "video", "none"),
        default=None,
        help="what shows the frames: the OpenCV window (needs a screen, e.g. Xvfb), an annotated MJPG video, "
        "or nothing (default: window if there is a screen, else video)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as one JSON document")
    return parser.parse_args(argv)


def build_video(directory: Path, args: argparse.Namespace) -> tuple[Path, Any, Any]:
    from vision.live.scenario import Script, render_table_scene, script_frames, write_video

    scene = render_table_scene(args.seed, args.width, args.height)
    script = Script(
        fps=args.fps, tile_interval=args.tile_interval, hold=3.0, sweep=1.5, tail=3.0, clear_after=2.0
    )
    frames, times = script_frames(scene, script)
    path = directory / "table.avi"
    write_video(path, frames, times.fps)
    return path, scene, times


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    from vision.live.capture import FrameGrabber, Pace
    from vision.live.engine import EngineConfig, LiveEngine
    from vision.live.motion import GateConfig
    from vision.live.output import EventSink
    from vision.live.reading import PipelineHandReader
    from vision.live.run import has_screen
    from vision.live.session import LiveSession, SessionOptions
    from vision.live.sources import parse_source
    from vision.live.stability import StabilityConfig
    from vision.models.classifier import TileClassifier
    from vision.models.detector import TileDetector

    with tempfile.TemporaryDirectory(prefix="taicam-live-bench-") as folder:
        directory = Path(folder)
        video, scene, times = build_video(directory, args)
        context = scene.hand.get("context", {})
        detector = TileDetector()
        faint_below = detector.score_threshold
        reader = PipelineHandReader("taiwan", None, context, "benchmark", faint_below=faint_below)
        config = EngineConfig(
            stability=StabilityConfig(hold_seconds=args.hold), gate=GateConfig(enabled=not args.no_gate)
        )
        engine = LiveEngine(detector, TileClassifier(), reader, config)
        grabber = FrameGrabber(parse_source(str(video)), pace=Pace.LIVE).start()
        display = args.display or ("window" if has_screen() else "video")
        options = SessionOptions(
            headless=display != "window",
            annotate_path=directory / "annotated.avi" if display == "video" else None,
            wait_at_end=False,
        )
        session = LiveSession(
            grabber,
            engine,
            rules_cycle=["taiwan"],
            make_reader=lambda rules: PipelineHandReader(rules, None, context, "benchmark",
                                                         faint_below=faint_below),
            sink=EventSink(io.StringIO(), json_lines=True),
            options=options,
            hold_seconds=args.hold,
        )
        summary = session.run()
        started = grabber.started_at
    hands = [
        (document, clock)
        for document, clock in zip(summary.events, summary.event_clock, strict=True)
        if document["event"] == "hand"
    ]
    from scoring import hand_from_json, score_hand

    expected_total = score_hand(hand_from_json(scene.hand)).total
    latency = None
    announced_total = None
    if hands:
        document, clock = hands[0]
        announced_total = (document.get("score") or {}).get("total")
        if announced_total == expected_total:  # a wrong hand announced late is not a latency
            latency = clock - (started + times.last_tile)
    clears = [
        clock
        for document, clock in zip(summary.events, summary.event_clock, strict=True)
        if document["event"] == "cleared" and clock >= started + times.cleared
    ]
    clear_latency = clears[0] - (started + times.cleared) if clears else None
    # Tiles go down faster than the hold time, so the first reading at or after the last tile is the
    # reading of the whole table: the panel shows it (complete hand or not) from this moment on.
    readings = [clock for media_time, clock, _ in summary.reading_clock if media_time >= times.last_tile]
    read_latency = readings[0] - (started + times.last_tile) if readings else None
    detect = [stage.detect for stage in summary.stage_times]
    classify = [stage.classify for stage in summary.stage_times]
    return {
        "resolution": f"{args.width}x{args.height}",
        "camera_fps": args.fps,
        "display": display,
        "change_gate": not args.no_gate,
        "video_seconds": round(times.end, 2),
        "frames_read": summary.frames_read,
        "frames_processed": summary.frames_processed,
        "processed_fps": round(summary.processed_fps, 2),
        "detector_runs": summary.frames_detected,
        "displayed_fps": round(summary.frames_shown / summary.wall_seconds, 2)
        if summary.wall_seconds
        else 0.0,
        "detect_ms_median": round(1000 * statistics.median(detect), 1) if detect else None,
        "classify_ms_median": round(1000 * statistics.median(classify), 1) if classify else None,
        "read_ms_max": round(1000 * max(stage.read for stage in summary.stage_times), 1)
        if summary.stage_times
        else None,
        "hold_seconds": args.hold,
        "read_latency_seconds": None if read_latency is None else round(read_latency, 3),
        "latency_seconds": None if latency is None else round(latency, 3),
        "clear_latency_seconds": None if clear_latency is None else round(clear_latency, 3),
        "tiles_in_scene": len(scene.quads),
        "tiles_read": max((tiles for _, _, tiles in summary.reading_clock), default=0),
        "hands_announced": summary.hands_announced,
        "announced_total": announced_total,
        "expected_total": expected_total,
    }


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    result = run_benchmark(args)
    result["benchmark_seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(result))
        return 0
    width = max(len(key) for key in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    return 0
