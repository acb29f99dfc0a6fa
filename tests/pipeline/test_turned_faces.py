"""A sideways winning tile the detector did not flag is found by reading the row's faces turned."""

from __future__ import annotations

import numpy as np
import pytest
from hand_scenes import lay_out
from heldout_renders import held_out_render

from vision.decode.budget import NO_DEADLINE
from vision.evaluation.hand_outcome import match_labels, same_hand
from vision.imageio import PhotoSource
from vision.layout import layout_tiles
from vision.live.reading import PipelineHandReader
from vision.pipeline import PhotoPipeline
from vision.repairs.turned_faces import turned_a_quarter, with_sideways_found
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]


def _scene_with_an_unflagged_winning_tile(*unsure: int, cut: float = 0.3):
    """The winning tile stands in the row, as the detector reports a sideways tile it missed, and
    the classifier reads its upright cut unsure (``cut``), as it does the tiles at ``unsure``."""
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="none")
    misread = {k: ("1s", cut) for k in (scene.winning_position, *unsure)}
    readings = scene.readings(angle_degrees=25, misread=misread)
    return scene, readings


def _reads_surer_turned(*tiles: Detection, turned: float = 0.97):
    """A classifier stand-in: faces of ``tiles`` read ``turned`` turned a quarter; any other turned
    face reads 0.5 (an upright face turned is no clearer)."""
    centres = [np.mean(tile.quad, axis=0) for tile in tiles]
    calls = []

    def classify(detections: list[Detection]) -> list[TileReading]:
        calls.append(detections)
        out = []
        for detection in detections:
            sure = any(np.allclose(np.mean(detection.quad, axis=0), c) for c in centres)
            candidates = (("3m", turned), ("1s", 1.0 - turned)) if sure else (("7p", 0.5), ("1s", 0.5))
            out.append(TileReading(detection, candidates))
        return out

    return classify, calls


def test_the_one_face_that_reads_surer_turned_is_the_sideways_winning_tile():
    scene, readings = _scene_with_an_unflagged_winning_tile()
    assert layout_tiles(readings).winning_index is None
    classify, _ = _reads_surer_turned(readings[scene.winning_position].detection)
    found, index = with_sideways_found(readings, classify)
    assert index == scene.winning_position
    assert found[index].detection.rotated and found[index].code == "3m"
    assert layout_tiles(found).winning_index == scene.winning_position


@pytest.mark.parametrize(("cut", "turned", "found"),
                         [(0.9, 0.999, True), (0.9, 0.95, False), (0.6, 0.92, True)])
def test_a_face_read_fairly_sure_upright_is_found_when_its_turned_odds_are_far_higher(cut, turned, found):
    """A classifier trained on faces cut along turned windows reads a face lying on its side fairly
    sure upright (render 910004: a 4p at 0.92 as cut, 0.999 turned): 0.3 more probability cannot
    be asked of it, twenty times the odds can."""
    scene, readings = _scene_with_an_unflagged_winning_tile(cut=cut)
    classify, _ = _reads_surer_turned(readings[scene.winning_position].detection, turned=turned)
    _, index = with_sideways_found(readings, classify)
    assert (index == scene.winning_position) if found else index is None


def test_two_faces_that_read_surer_turned_name_no_winning_tile():
    scene, readings = _scene_with_an_unflagged_winning_tile(2)
    classify, _ = _reads_surer_turned(readings[scene.winning_position].detection, readings[2].detection)
    found, index = with_sideways_found(readings, classify)
    assert index is None and found is readings


def test_nothing_is_read_again_when_the_layout_shows_the_winning_tile():
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    readings = scene.readings(angle_degrees=25)
    classify, calls = _reads_surer_turned(readings[scene.winning_position].detection)
    assert with_sideways_found(readings, classify) == (readings, None)
    assert calls == []


def test_turning_a_quarter_steps_the_outline_on_one_corner():
    quad = ((0.0, 0.0), (30.0, 0.0), (30.0, 40.0), (0.0, 40.0))
    turned = turned_a_quarter(Detection(box=(0, 0, 30, 40), score=0.9, quad=quad))
    assert turned.quad == (quad[1], quad[2], quad[3], quad[0]) and turned.rotated


@pytest.mark.parametrize("seed", [910050, 910106])
def test_a_held_out_render_whose_winning_tile_the_detector_did_not_flag_reads_exactly(tmp_path, seed):
    """Held-out renders (as ``scripts/evaluate.py hands --render 150 --seed 910000`` makes them)
    whose winning tile lying sideways the shipped detector does not flag, and only its face read
    turned a quarter names it. 910050's winning 6z cut upright reads 5f: the sure tiles' first
    layout then puts a set in the row's place, so the row is taken from the hand as read."""
    path, record = held_out_render(seed, tmp_path)
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE)
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    result = pipeline.read_photo(path, context=dict(record.hand.get("context", {})))
    detected = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in result.readings])
    assert same_hand(result.hand, record.hand)
    assert any("turned a quarter" in warning for warning in result.warnings)
    assert result.layout.winning_index == detected[winning]
    as_detected = pipeline.read_tiles(PhotoSource(path))
    assert not as_detected[detected[winning]].detection.rotated


def test_the_live_reader_finds_the_unflagged_winning_tile_with_the_frame_classifier():
    """The live mode reads the voted tiles as ``taicam photo`` does, turned faces included, when the
    engine hands it a classifier on the latest frame; without one it reads the tiles as they are."""
    scene, readings = _scene_with_an_unflagged_winning_tile()
    classify, _ = _reads_surer_turned(readings[scene.winning_position].detection)
    reader = PipelineHandReader(rules="taiwan")
    outcome = reader(readings, classify)
    assert outcome.complete
    assert outcome.result.layout.winning_index == scene.winning_position
    assert outcome.result.hand["winning_tile"] == "3m"
    assert any("turned a quarter" in warning for warning in outcome.result.warnings)
    without = reader(readings)
    assert without.result.layout.winning_index is None
    assert any("does not show which tile won" in warning for warning in without.result.warnings)
