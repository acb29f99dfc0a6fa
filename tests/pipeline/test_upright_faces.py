"""A tile flagged sideways that reads sure only upright stands again, read upright."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hand_scenes import lay_out
from heldout_renders import held_out_render

import vision.pipeline.photo as pipeline_module
from vision.decode.budget import NO_DEADLINE
from vision.evaluation.hand_outcome import match_labels, same_hand
from vision.imageio import PhotoSource
from vision.live.reading import PipelineHandReader
from vision.pipeline import PhotoPipeline, PhotoReadError
from vision.repairs.turned_faces import turned_a_quarter
from vision.repairs.upright_faces import SURE_UPRIGHT, UNSURE_AS_FLAGGED, with_false_turns_undone
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "9m", "9m", "9m", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False)]


def _falsely_flagged(position: int, as_flagged: float):
    """A hand whose tile at ``position`` the detector flagged sideways and the classifier read
    ``1s`` at ``as_flagged``, its truth nowhere among the candidates (cut on its side)."""
    scene = lay_out(CONCEALED, MELDS, [], "2z")
    readings = scene.readings(angle_degrees=20)
    flagged = replace(readings[position].detection, rotated=True)
    rest = (1.0 - as_flagged) / 2
    readings[position] = TileReading(flagged, (("1s", as_flagged), ("9s", rest), ("7z", rest)))
    return scene, readings


def _reads_upright(tile: Detection, code: str, upright: float):
    """A classifier stand-in: ``tile`` turned upright reads ``code`` at ``upright``; every other
    cut reads unsure."""
    expected = np.array(turned_a_quarter(tile, sideways=False).quad)
    calls: list[list[Detection]] = []

    def classify(detections: list[Detection]) -> list[TileReading]:
        calls.append(detections)
        return [TileReading(d, ((code, upright), ("1s", 1.0 - upright)) if np.allclose(d.quad, expected)
                            else (("1s", 0.4), ("7z", 0.3))) for d in detections]

    return classify, calls


def test_an_unsure_flagged_tile_that_reads_sure_upright_stands():
    scene, readings = _falsely_flagged(3, as_flagged=0.3)
    classify, calls = _reads_upright(readings[3].detection, "4p", upright=0.98)
    mended = with_false_turns_undone(readings, classify)
    assert [len(call) for call in calls] == [1]
    assert not mended[3].detection.rotated and mended[3].code == "4p"
    assert mended[3].detection.quad == turned_a_quarter(readings[3].detection).quad
    assert mended[:3] + mended[4:] == readings[:3] + readings[4:]


def test_a_flagged_tile_read_sure_as_flagged_is_not_read_again():
    """A tile truly lying sideways reads sure as cut (a sideways 6s reads 9p upright just as sure)."""
    _, readings = _falsely_flagged(3, as_flagged=UNSURE_AS_FLAGGED + 0.05)
    classify, calls = _reads_upright(readings[3].detection, "4p", upright=1.0)
    assert with_false_turns_undone(readings, classify) == readings
    assert calls == []


def test_an_upright_reading_below_sure_leaves_the_flag():
    _, readings = _falsely_flagged(3, as_flagged=0.3)
    classify, calls = _reads_upright(readings[3].detection, "4p", upright=SURE_UPRIGHT - 0.05)
    mended = with_false_turns_undone(readings, classify)
    assert len(calls) == 1
    assert mended[3].detection.rotated and mended[3].code == "1s"


def test_the_live_reader_stands_a_falsely_flagged_tile_with_the_frame_classifier():
    """The live mode reads the voted tiles as ``taicam photo`` does when the engine hands it a
    classifier on the latest frame: the flagged 4p, read 1s unsure, stands read upright and the
    hand is whole; without a classifier the tile stays flagged and misread."""
    _, readings = _falsely_flagged(3, as_flagged=0.3)
    classify, _ = _reads_upright(readings[3].detection, "4p", upright=0.98)
    reader = PipelineHandReader(rules="taiwan")
    outcome = reader(readings, classify)
    assert outcome.complete
    assert sorted(outcome.result.hand["concealed"]) == sorted([*CONCEALED, "2z"])
    assert outcome.result.hand["winning_tile"] == "2z"
    without = reader(readings)
    assert not (without.complete and without.result.hand == outcome.result.hand)


def test_a_held_out_render_whose_4z_the_detector_turned_reads_exactly(tmp_path, monkeypatch):
    """Held-out render 910059 (``scripts/evaluate.py hands --render 150 --seed 910000``): a 4z of
    the concealed row comes out flagged sideways and reads as another face, unsure, cut across;
    upright it reads 4z, and the hand reads exactly as seen. Without the second reading the hand
    does not read, reads wrong, or reads only with that tile corrected. Read upright only: turned
    level (``vision.repairs.turned_look``) no tile comes out flagged."""
    path, record = held_out_render(910059, tmp_path)
    context = dict(record.hand.get("context", {}))
    labels = [tuple(t.box) for t in record.tiles]
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE, turned_look=False)

    def flagged_standing(readings: list[TileReading]) -> list[str]:
        found = match_labels(labels, [r.detection.box for r in readings])
        return [readings[j].code for i, j in found.items()
                if readings[j].detection.rotated and not record.tiles[i].rotated
                and record.tiles[i].role != "distractor"]

    assert flagged_standing(pipeline.read_tiles(PhotoSource(path))) == []
    assert same_hand(pipeline.read_photo(path, context=context).hand, record.hand)

    monkeypatch.setattr(pipeline_module, "with_false_turns_undone", lambda readings, classify: readings)
    flagged = flagged_standing(pipeline.read_tiles(PhotoSource(path)))
    assert len(flagged) == 1 and flagged[0] != "4z"
    try:
        result = pipeline.read_photo(path, context=context)
    except PhotoReadError:
        return
    # Read as it was cut, the tile is a correction the decoder has to make, or the hand is wrong.
    assert result.decoded is not None
    assert result.decoded.changes or not same_hand(result.hand, record.hand)
