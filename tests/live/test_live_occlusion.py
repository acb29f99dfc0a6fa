"""A hand passing over an announced hand must not make the live mode announce it again, differently.

What went wrong (detector r15, ``benchmark.py live``): the fingers sweeping over the table hid some
tiles past the tracker's miss tolerance (they came back as new tracks, so the table was read again)
and left classifier outputs of fingers in the votes of the tiles they covered; the photo pipeline
then decoded the same 20 tiles, with the same top codes, to a 3-tai hand (three flowers re-read as
a 4m5m6m chow), announced 4 s after the right 4 tai. Two rules answer it, each tested here:

* the same tiles (places and faces) as the announced hand are that hand, not read again
  (:mod:`vision.live.same_table`): pure tests, and the engine fed the readings recorded then
  (``r15_sweep_readings.json``) with the real layout, decoder and scoring, as recorded and with a
  misread tile whose runner-up (what the decoder corrects it by) changed under the fingers;
* a steady table is read from the votes cast since it went quiet: the real scenario video
  (scene 12 at 1280x720, 30 fps, MJPG as a camera file) through the engine with the shipped
  models, every frame, announces once and clears once, and its re-read after the sweep is the hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import require_shared_data

from scoring import hand_from_json, score_hand
from vision.live.engine import LiveEngine, LiveEvent
from vision.live.reading import PipelineHandReader
from vision.live.same_table import TileSeen, same_tiles
from vision.live.scenario import Script, render_table_scene, script_frames, write_video
from vision.live.tracker import Observation
from vision.models import models_dir
from vision.types import Detection

MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
RECORDED = Path(__file__).with_name("r15_sweep_readings.json")


def tile(x: float, code: str, y: float = 100.0, rotated: bool = False, face_down: bool = False) -> TileSeen:
    return TileSeen((x, y), 40.0, code, rotated, face_down)


ROW = (tile(20, "1m"), tile(61, "2m"), tile(102, "3m"), tile(143, "5f"))


def test_the_same_tiles_re_detected_with_jitter_in_another_order_are_the_same_table():
    now = (tile(145, "5f"), tile(22, "1m"), tile(100, "3m", y=103), tile(61, "2m"))
    assert same_tiles(ROW, now)


@pytest.mark.parametrize(
    "now",
    [
        ROW[:3],  # a tile taken away
        ROW + (tile(184, "6f"),),  # a tile added
        ROW[:3] + (tile(184, "5f"),),  # a tile moved to the next place
        ROW[:3] + (tile(143, "6f"),),  # another face at the same place
        ROW[:3] + (tile(143, "5f", rotated=True),),  # turned sideways
        ROW[:3] + (tile(143, "5f", face_down=True),),  # turned face down
        (tile(20, "2m"), tile(61, "1m")) + ROW[2:],  # two tiles swapped
    ],
)
def test_any_physical_change_makes_another_table(now):
    assert not same_tiles(ROW, now)


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory: pytest.TempPathFactory):
    """Every frame of the benchmark's video through the engine: the events, and the tiles as read
    on the first steady frame after the hand has passed over (with the engine's reader)."""
    if any(not (models_dir() / name).is_file() for name in MODELS):
        pytest.skip("shipped models not present yet")
    require_shared_data("crops-labelled")  # the scene is drawn with the held-out real tile sets
    from vision.live.capture import FrameGrabber
    from vision.live.sources import parse_source
    from vision.live.stability import TableStatus
    from vision.models.classifier import TileClassifier
    from vision.models.detector import TileDetector

    scene = render_table_scene(12, 1280, 720)
    script = Script(fps=30.0, tile_interval=0.3, hold=3.0, sweep=1.5, tail=3.0, clear_after=2.0)
    frames, times = script_frames(scene, script)
    video = tmp_path_factory.mktemp("sweep") / "table.avi"
    write_video(video, frames, times.fps)
    reader = PipelineHandReader("taiwan", None, scene.hand["context"])
    engine = LiveEngine(TileDetector(), TileClassifier(), reader)
    events = []
    after_sweep = None
    with FrameGrabber(parse_source(str(video))) as grabber:
        last = -1
        while (frame := grabber.next_frame(last, timeout=10.0)) is not None:
            last = frame.index
            update = engine.process(frame.image, frame.timestamp, frame.index)
            if update.event is not None:
                total = None if update.announced is None else update.announced.document["score"]["total"]
                events.append((frame.timestamp, update.event, total))
            steady = update.status is TableStatus.STEADY
            if after_sweep is None and steady and frame.timestamp > times.hand_over[1]:
                after_sweep = reader(update.tracker.readings())
    return scene, times, events, after_sweep


@pytest.mark.slow
def test_a_hand_passing_over_the_announced_hand_announces_nothing(sweep_run):
    scene, times, events, _ = sweep_run
    expected = score_hand(hand_from_json(scene.hand)).total
    assert [(event, total) for _, event, total in events] == [
        (LiveEvent.HAND, expected),
        (LiveEvent.CLEARED, None),
    ], f"events {events}; the hand passed over at {times.hand_over}, the tiles went at {times.cleared}"
    assert events[0][0] < times.hand_over[0]
    assert events[1][0] >= times.cleared  # withdrawn when the tiles go, not when a hand passes over


@pytest.mark.slow
def test_after_the_hand_has_passed_the_tiles_read_as_before(sweep_run):
    """The votes cast under the fingers are forgotten: the table, read again, is the same hand."""
    scene, _, _, after_sweep = sweep_run
    assert after_sweep is not None and after_sweep.complete, "the table never settled after the sweep"
    assert after_sweep.document["score"]["total"] == score_hand(hand_from_json(scene.hand)).total
    assert sorted(after_sweep.document["hand"]["flowers"]) == sorted(scene.hand["flowers"])


def recorded(key: str) -> tuple[list[Observation], dict]:
    """Observations (every tile classified) from the readings recorded with r15 (see the file's "about")."""
    document = json.loads(RECORDED.read_text(encoding="utf-8"))
    observations = []
    for item in document[key]:
        box = tuple(item["box"])
        detection = Detection(box, item["score"], rotated=item["rotated"], face_down=item["face_down"])
        observations.append(Observation(detection, tuple((code, p) for code, p in item["candidates"])))
    return observations, document["context"]


def test_recorded_r15_readings_of_the_same_tiles_after_a_sweep_announce_nothing():
    """The same 20 tiles as announced, the same top codes, but runner-ups from the fingers. The
    decoder read 3 tai from them when they were recorded, and no winning hand after the layout
    change of 22 Nov 15:24 (a "cleared" for a hand still on the table, and then no clear when the
    tiles really go): either is a second answer for an untouched hand; the engine must not ask.
    (Since a tile read best as a flower stays a flower in the layout, they decode to the announced
    hand again; the engine must still not depend on that.)"""
    announced, context = recorded("announced")
    after_sweep, _ = recorded("after_sweep")
    events = replay(context, ((announced, 1.5), ([], 0.5), (after_sweep, 2.0)))  # the hand hides all
    assert [event for _, event, _ in events] == [LiveEvent.HAND], [(t, e) for t, e, _ in events]
    assert events[0][2]["score"]["total"] == 4


def replay(context: dict, phases) -> list[tuple[float, LiveEvent, dict | None]]:
    """Feed each phase's observations to a fresh engine at 30 frames/s for its seconds; the events."""
    engine = LiveEngine(None, None, PipelineHandReader("taiwan", None, context))  # type: ignore[arg-type]
    events = []
    t = 0.0
    for observations, seconds in phases:
        for _ in range(round(seconds * 30)):
            update = engine.step(observations, t)
            if update.event is not None:
                events.append((round(t, 2), update.event, update.announced and update.announced.document))
            t += 1 / 30
    return events


def misread_4m(observations: list[Observation], runner_up: str) -> list[Observation]:
    """The same observations with the 4m read as 5z first and ``runner_up`` second."""
    out = []
    for observation in observations:
        if observation.candidates[0][0] == "4m":
            others = "4m" if runner_up != "4m" else "6p"
            observation = Observation(observation.detection, (("5z", 0.6), (runner_up, 0.35), (others, 0.05)))
        out.append(observation)
    return out


def test_an_unchanged_table_is_not_re_read_even_when_its_runner_ups_would_decode_otherwise():
    """The same tiles with the same top codes (a 4m misread 5z), but the runner-up that the decoder
    corrects it by went from 4m (234m) to 1m (123m) under the fingers: read again, the table would
    be a different hand. Unchanged places and faces keep the announced hand (same_table rule)."""
    announced, context = recorded("announced")
    after_sweep, _ = recorded("after_sweep")
    phases = ((misread_4m(announced, "4m"), 1.5), ([], 0.5), (misread_4m(after_sweep, "1m"), 2.0))
    events = replay(context, phases)
    assert [event for _, event, _ in events] == [LiveEvent.HAND], [(t, e) for t, e, _ in events]
    assert "4m" in events[0][2]["hand"]["concealed"]
