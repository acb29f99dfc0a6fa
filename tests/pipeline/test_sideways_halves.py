"""A sideways tile found as two upright halves is joined again when the hand does not read without."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hand_scenes import lay_out

from scoring.errors import InputError
from vision.evaluation.hands import same_hand
from vision.pipeline import PhotoPipeline, read_readings
from vision.sideways_halves import half_pairs, joined_halves
from vision.synth.scene import SceneConfig, render_scene
from vision.types import Detection, TileReading
from vision.unseen import TileCountError, unseen_tiles

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]


def _halves(detection: Detection) -> list[Detection]:
    """The two upright halves of a sideways tile's outline, split across its long side."""
    c0, c1, c2, c3 = (np.asarray(p, np.float64) for p in detection.quad)
    top, bottom = (c0 + c1) / 2, (c3 + c2) / 2
    out = []
    for quad in ((c0, top, bottom, c3), (top, c1, c2, bottom)):
        xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
        out.append(replace(detection, rotated=False, box=(min(xs), min(ys), max(xs), max(ys)),
                           quad=tuple((float(p[0]), float(p[1])) for p in quad)))
    return out


def _hand_with_the_winning_tile_in_halves(angle: float, style: str = "sideways"):
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m", winning_style=style)
    readings = scene.readings(angle_degrees=angle)
    winning = readings.pop(scene.winning_position)
    halves = [TileReading(half, (("5s", 0.9), ("2s", 0.1))) for half in _halves(winning.detection)]
    return scene, [*readings, *halves], winning


def _reads_the_whole_face(whole: Detection):
    """A classifier stand-in: the joined outline turned a quarter reads 3m at 0.99, as cut 4s at
    0.6; any other face 7p at 0.5."""
    centre = np.mean(whole.quad, axis=0)

    def classify(detections: list[Detection]) -> list[TileReading]:
        out = []
        for detection in detections:
            if np.allclose(np.mean(detection.quad, axis=0), centre, atol=1.0):
                candidates = (("3m", 0.99), ("4s", 0.01)) if detection.rotated else (("4s", 0.6), ("3m", 0.4))
            else:
                candidates = (("7p", 0.5), ("1s", 0.5))
            out.append(TileReading(detection, candidates))
        return out

    return classify


@pytest.mark.parametrize("angle", [0, 110])
def test_the_halves_of_a_sideways_winning_tile_are_joined_into_the_tile(angle):
    scene, readings, winning = _hand_with_the_winning_tile_in_halves(angle)
    with pytest.raises(InputError):
        read_readings(readings)
    halves = (len(readings) - 2, len(readings) - 1)
    assert halves in half_pairs(readings)
    joins = joined_halves(readings, _reads_the_whole_face(winning.detection))
    assert len(joins) == 1
    tile = joins[0][-1]
    assert tile.code == "3m" and tile.detection.rotated
    result = read_readings(joins[0])
    assert result.hand["winning_tile"] == "3m"
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "3m"])


def test_halves_that_read_differently_are_two_tiles():
    _, readings, winning = _hand_with_the_winning_tile_in_halves(0)
    readings[-1] = TileReading(readings[-1].detection, (("6s", 0.9), ("2s", 0.1)))
    assert joined_halves(readings, _reads_the_whole_face(winning.detection)) == []


def test_a_join_that_reads_unsure_is_not_offered():
    _, readings, winning = _hand_with_the_winning_tile_in_halves(0)

    def unsure(detections: list[Detection]) -> list[TileReading]:
        return [TileReading(d, (("3m", 0.6), ("4s", 0.4))) for d in detections]

    assert joined_halves(readings, unsure) == []


def test_a_held_out_render_whose_sideways_4p_was_found_as_two_2p_reads(tmp_path):
    """Held-out render 910127 (``scripts/evaluate.py hands --render 150 --seed 910000``): the shipped
    detector finds the winning 4p lying sideways as two upright tiles, each read as 2p. Its
    concealed kong shows four backs, so its face is not compared."""
    image, record = render_scene(np.random.default_rng(910127), SceneConfig(split="val"))
    path = tmp_path / "910127.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    pipeline = PhotoPipeline()
    as_detected = pipeline.read_tiles(image)
    assert [r.code for r in as_detected].count("2p") >= 3  # the two halves and the hand's own 2p
    result = pipeline.read_photo(path, context=dict(record.hand.get("context", {})))
    assert same_hand(result.hand, record.hand, hide_concealed_faces=True)
    assert any("found its face as two halves" in warning for warning in result.warnings)


@pytest.mark.parametrize(("standing", "expected"), [(15, 14), (12, 14), (18, 17)])
def test_a_count_that_makes_no_hand_is_a_tile_count_error(standing, expected):
    """Joins are tried only for this error: a face found as two halves shows first in the count."""
    with pytest.raises(TileCountError, match="standing tiles"):
        unseen_tiles(standing, expected)
    assert unseen_tiles(13, 14) == 1 and unseen_tiles(14, 14) == 0


def test_the_halves_are_joined_in_the_pipeline_only_when_the_count_fails():
    """Here the winning tile set apart at the row's end, found as two slivers that join the row:
    a tile too many."""
    _, readings, winning = _hand_with_the_winning_tile_in_halves(30, style="apart")
    with pytest.raises(TileCountError):
        read_readings(readings, infer_unseen=True)
    classify = _reads_the_whole_face(winning.detection)
    pipeline = PhotoPipeline()
    result = pipeline._read_hand(readings, classify, image="scene", rules=None, table=None, context=None)
    assert result.hand["winning_tile"] == "3m"
    assert any("found its face as two halves" in warning for warning in result.warnings)
    # A hand that reads as detected is read so: nothing is joined.
    whole = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m").readings(angle_degrees=30)
    result = pipeline._read_hand(whole, classify, image="scene", rules=None, table=None, context=None)
    assert not any("two halves" in warning for warning in result.warnings)
