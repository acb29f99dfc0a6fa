"""End to end: ``taicam live`` on a real video of a rendered hand being laid out, with the shipped models.

The video (640x480, 10 fps) shows an empty table, the hand's tiles put down one by one, the hand
left alone, a player's hand sweeping over it, a change of light, and the tiles swept away. The
live mode must announce the hand once, only after the last tile is down and the hold time has
passed, with the score the scoring engine gives the rendered hand, and withdraw it once the
table is empty.

The live mode cannot read a hand the models cannot read, so the scene is the first of
:data:`CANDIDATE_SEEDS` that the photo pipeline reads right as a still photo; if the shipped
models read none of them, the test fails and says so (that is a model defect, not a live one).
The timing test below does not depend on the models reading the hand right.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from live_fixtures import MjpegServer
from shared_data import require_shared_data

from scoring import hand_from_json, score_hand
from scoring.errors import InputError
from vision.cli import main
from vision.live.scenario import Script, render_table_scene, script_frames, write_video
from vision.models import models_dir

MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing), reason=f"shipped models not present yet: {', '.join(missing)}"),
]

CANDIDATE_SEEDS = (25, 5, 12, 20, 26, 3, 7, 9)
HOLD = 0.8


def same_hand(read: dict, expected: dict) -> bool:
    def melds(hand: dict) -> list:
        return sorted((m["kind"], sorted(m["tiles"]), m["concealed"]) for m in hand["melds"])

    return (
        sorted(read["concealed"]) == sorted(expected["concealed"])
        and sorted(read["flowers"]) == sorted(expected["flowers"])
        and melds(read) == melds(expected)
    )


def readable_scene():
    """The first candidate scene the shipped models read right as a still photo."""
    from vision.pipeline import PhotoPipeline

    require_shared_data("crops-labelled")  # the scenes are drawn with the held-out real tile sets

    pipeline = PhotoPipeline()
    tried = []
    for seed in CANDIDATE_SEEDS:
        scene = render_table_scene(seed, 640, 480)
        try:
            result = pipeline.read_image(scene.full, context=scene.hand["context"])
        except InputError as error:
            tried.append(f"{seed}: {error}"[:100])
            continue
        if same_hand(result.hand, scene.hand):
            return scene
        tried.append(f"{seed}: read a different hand")
    pytest.fail(
        "the shipped models read none of the rendered hands right as still photos: " + "; ".join(tried)
    )


def record_video(scene, directory: Path):
    frames, times = script_frames(scene, Script(fps=10.0, clear_after=2.0))
    path = directory / "table.avi"
    write_video(path, frames, times.fps)
    return times, path


@pytest.fixture(scope="module")
def table_video(tmp_path_factory: pytest.TempPathFactory):
    scene = readable_scene()
    times, path = record_video(scene, tmp_path_factory.mktemp("live"))
    return scene, times, path


def context_flags(context: dict) -> list[str]:
    flags = ["--seat", context["seat_wind"], "--round", context["round_wind"]]
    flags.append("--self-drawn" if context.get("self_drawn") else "--discard")
    flags.append("--dealer" if context.get("dealer") else "--not-dealer")
    flags += ["--streak", str(context.get("dealer_streak", 0))]
    return flags


def test_the_hand_is_announced_once_after_it_is_laid_out_with_its_score(table_video, capsys, tmp_path: Path):
    scene, times, video = table_video
    annotated = tmp_path / "annotated.avi"
    argv = [
        "live",
        "--source",
        str(video),
        "--headless",
        "--json",
        "--hold",
        str(HOLD),
        "--annotate",
        str(annotated),
    ]
    status = main(argv + context_flags(scene.hand["context"]))
    captured = capsys.readouterr()
    assert status == 0, captured.err
    events = [json.loads(line) for line in captured.out.splitlines()]
    assert [event["event"] for event in events] == ["hand", "cleared"], captured.out
    event = events[0]
    # Not while tiles were being placed: only once the last one had been still for the hold time.
    assert event["time"] >= times.last_tile + HOLD - 1e-6
    assert event["time"] <= times.last_tile + HOLD + 1.0
    expected = scene.hand
    assert same_hand(event["hand"], expected)
    assert event["score"]["total"] == score_hand(hand_from_json(expected)).total
    # The hand sweeping over and the change of light announce nothing; sweeping the tiles away does.
    assert times.cleared + HOLD - 1e-6 <= events[1]["time"] <= times.cleared + HOLD + 1.0
    assert "end of video file" in captured.err and "1 hand(s) announced" in captured.err
    capture = cv2.VideoCapture(str(annotated))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == round(times.end * times.fps)
    capture.release()


def test_human_output_names_the_total(table_video, capsys):
    scene, _, video = table_video
    status = main(
        ["live", "--source", str(video), "--headless", "--max-seconds", "9"]
        + context_flags(scene.hand["context"])
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    lines = captured.out.splitlines()
    assert len(lines) == 1
    total = score_hand(hand_from_json(scene.hand)).total
    assert f"=>  {total} " in lines[0]
    assert "stopped after 9 s as asked" in captured.err


def test_the_table_is_read_only_once_it_is_still_and_again_after_each_disturbance(tmp_path: Path):
    """Real models on the real video, whatever they read: when does the panel's reading change?"""
    from vision.live.capture import FrameGrabber
    from vision.live.engine import LiveEngine
    from vision.live.reading import PipelineHandReader
    from vision.live.sources import parse_source
    from vision.models.classifier import TileClassifier
    from vision.models.detector import TileDetector

    require_shared_data("crops-labelled")
    scene = render_table_scene(CANDIDATE_SEEDS[0], 640, 480)
    times, path = record_video(scene, tmp_path)
    engine = LiveEngine(
        TileDetector(), TileClassifier(), PipelineHandReader("taiwan", None, scene.hand["context"])
    )
    reads: list[tuple[float, int]] = []
    with FrameGrabber(parse_source(str(path))) as grabber:
        last = -1
        while (frame := grabber.next_frame(last, timeout=10.0)) is not None:
            last = frame.index
            update = engine.process(frame.image, frame.timestamp, frame.index)
            if update.read_now:
                reads.append((frame.timestamp, len(update.tracker.confirmed_tracks())))
    assert reads, "the still table was never read"
    first_time, first_tiles = reads[0]
    assert times.last_tile + HOLD - 1e-6 <= first_time <= times.last_tile + HOLD + 1.0
    assert first_tiles == len(scene.quads)  # the whole hand, and nothing else
    sweep_start, sweep_end = times.hand_over
    assert not any(sweep_start < t < sweep_end for t, _ in reads)  # never while the hand is over the tiles


def test_a_stream_lost_for_good_ends_with_the_reason(capsys):
    server = MjpegServer(frames_per_connection=15, interval=0.05, max_connections=1)
    try:
        status = main(["live", "--source", server.url, "--headless", "--json", "--reconnect-attempts", "2"])
    finally:
        server.stop()
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert "disconnected; gave up after 2 reconnect attempts" in last
    assert server.connections == 3  # the first, then two attempts
