"""Flowers the layout left out of the hand (misread as suit tiles) are found by the flower model."""

from __future__ import annotations

import numpy as np
import pytest
from hand_scenes import Scene, SceneTile, lay_out
from heldout_renders import read_held_out_render

from scoring.tiles import FLOWER_CODES
from vision.evaluation.hand_outcome import same_hand
from vision.live.reading import PipelineHandReader
from vision.pipeline import HandSetup, read_readings
from vision.pipeline.looks import first_kept
from vision.pipeline.readings import read_outcome
from vision.repairs.stray_flowers import as_flower, left_out_near_hand, stray_flower_attempts
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]


def _read(tiles: list[TileReading]):
    return read_readings(tiles, infer_unseen=True)


def read_with_stray_flowers(result, read_flowers):
    """The hand read again with the stray flowers (the search's step), or ``result`` when none is kept."""
    again = first_kept(stray_flower_attempts(result, read_flowers),
                       lambda tiles: read_outcome(tiles, HandSetup.of(), infer_unseen=True))
    return result if again is None else again


def _flower_model_stand_in(scene: Scene, readings: list[TileReading], mass: float):
    """Reads each flower of ``scene`` as its own code with ``mass`` flower mass (the rest on other
    codes), and every other tile as no flower (0.01), as the flower model reads sharp faces."""
    truth = {readings[i].detection.box: tile.code for i, tile in enumerate(scene.tiles)}
    asked: list[list[Detection]] = []

    def read_flowers(detections: list[Detection]) -> np.ndarray:
        asked.append(detections)
        rows = np.full((len(detections), len(FLOWER_CODES)), 0.01 / len(FLOWER_CODES))
        for row, detection in zip(rows, detections, strict=True):
            code = truth[detection.box]
            if code in FLOWER_CODES:
                row[:] = 0.0
                row[FLOWER_CODES.index(code)] = mass
        return rows

    return read_flowers, asked


def _scene_with_a_misread_flower(flowers: list[str]):
    scene = lay_out(CONCEALED, MELDS, flowers, "3m")
    first_flower = next(i for i, tile in enumerate(scene.tiles) if tile.role == "flower")
    readings = scene.readings(angle_degrees=30, misread={first_flower: ("2p", 0.97)})
    return scene, readings


@pytest.mark.parametrize("flowers", [["1f"], ["1f", "6f"]])
def test_flowers_left_out_beside_the_sets_are_read_again_as_flowers(flowers):
    """One flower read as 2p lies alone after the sets (set aside), or beside a second flower (both
    ignored as two discards touching): the hand reads without them, a flower short."""
    scene, readings = _scene_with_a_misread_flower(flowers)
    result = _read(readings)
    assert result.hand["flowers"] == []
    read_flowers, _ = _flower_model_stand_in(scene, readings, mass=0.95)
    again = read_with_stray_flowers(result, read_flowers)
    assert sorted(again.hand["flowers"]) == sorted(flowers)
    assert any("as flowers" in warning and "2p" in warning for warning in again.warnings)


def test_an_unsure_flower_model_leaves_the_hand_as_it_read():
    scene, readings = _scene_with_a_misread_flower(["1f"])
    result = _read(readings)
    read_flowers, asked = _flower_model_stand_in(scene, readings, mass=0.6)
    assert read_with_stray_flowers(result, read_flowers) is result
    assert len(asked) == 1
    assert read_with_stray_flowers(result, lambda detections: None) is result


def test_a_tile_the_classifier_gives_no_flower_mass_is_not_asked():
    """The flower model alone takes some badly cut suit tiles for flowers: only tiles the main
    classifier gives some flower mass are asked."""
    scene, readings = _scene_with_a_misread_flower(["1f"])
    first_flower = next(i for i, tile in enumerate(scene.tiles) if tile.role == "flower")
    readings[first_flower] = TileReading(readings[first_flower].detection, (("2p", 0.97), ("3p", 0.03)))
    result = _read(readings)
    read_flowers, asked = _flower_model_stand_in(scene, readings, mass=0.95)
    assert read_with_stray_flowers(result, read_flowers) is result
    assert asked == []


def test_only_tiles_left_out_beside_the_hand_are_asked():
    """A tile lying six tile lengths from every tile of the hand is a discard, whatever it shows."""
    scene = lay_out(CONCEALED, MELDS, ["1f"], "3m")
    scene.tiles.append(SceneTile("6f", 0.0, -54.0 * 6, role="distractor"))
    readings = scene.readings(angle_degrees=30)
    result = _read(readings)
    far = len(scene.tiles) - 1
    assert far in result.layout.ignored
    assert far not in left_out_near_hand(result.readings, result.layout)
    read_flowers, asked = _flower_model_stand_in(scene, readings, mass=0.95)
    assert read_with_stray_flowers(result, read_flowers) is result
    assert asked == []


def test_the_live_reader_finds_the_flowers_with_the_frame_flower_model():
    """The live mode reads the voted tiles as ``taicam photo`` does when the engine hands it the
    flower model on the latest frame; without it the hand reads a flower short."""
    scene, readings = _scene_with_a_misread_flower(["1f", "6f"])
    read_flowers, _ = _flower_model_stand_in(scene, readings, mass=0.95)
    reader = PipelineHandReader(rules="taiwan")
    assert reader(readings).result.hand["flowers"] == []
    outcome = reader(readings, None, read_flowers)
    assert outcome.complete and sorted(outcome.document["hand"]["flowers"]) == ["1f", "6f"]


def test_a_tile_read_as_a_flower_keeps_a_little_of_its_first_reading():
    detection = Detection(box=(0, 0, 30, 40), score=0.9)
    reading = TileReading(detection, (("2p", 0.97), ("1p", 0.02), ("1f", 0.01)))
    flowers = np.zeros(len(FLOWER_CODES))
    flowers[FLOWER_CODES.index("1f")], flowers[FLOWER_CODES.index("5f")] = 0.85, 0.05
    read = as_flower(reading, flowers)
    assert read.code == "1f" and read.detection is detection
    assert len(read.candidates) == len(reading.candidates)
    probabilities = dict(read.candidates)
    assert probabilities["1f"] == pytest.approx(0.95 * 0.85 / 0.9)
    assert probabilities["5f"] == pytest.approx(0.95 * 0.05 / 0.9)
    assert probabilities["2p"] == pytest.approx(0.05)


@pytest.mark.parametrize("seed", [910013])
def test_a_held_out_render_with_a_flower_of_an_unseen_set_reads_exactly(tmp_path, seed):
    """Held-out render 910013 (as ``scripts/evaluate.py hands --render 150 --seed 910000`` makes it):
    its 梅 1 flower, of a set no model was trained on, is read as the hand's flower 1f, by the main
    classifier or, where it reads the tile 2p and the layout leaves it out, by the flower model's
    second look (which then says so)."""
    result, record = read_held_out_render(seed, tmp_path)
    assert "1f" in record.hand["flowers"]
    assert same_hand(result.hand, record.hand)
    second_look = [warning for warning in result.warnings if "as flowers" in warning]
    assert all("2p" in warning for warning in second_look)


def test_a_score_is_not_called_sure_while_a_tile_left_out_beside_the_hand_may_be_a_flower():
    """The misread flower keeps a little flower mass (its true code second); it and the flower beside
    it are ignored as two discards touching. Without the flower model's second look the hand reads
    two flowers short, so its total is not called sure."""
    _, readings = _scene_with_a_misread_flower(["1f", "6f"])
    result = _read(readings)
    assert result.hand["flowers"] == [] and not result.report.score_stable
    assert any("may be a flower" in warning for warning in result.warnings)
    assert any("may be flowers" in note for note in result.report.notes)


def test_a_tile_left_out_that_cannot_be_a_flower_leaves_the_score_sure():
    """A discard touching the sets' row end, read as a suit tile with no flower among its codes."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    last = max(tile.u for tile in scene.tiles if tile.role != "concealed")
    scene.tiles.append(SceneTile("5m", last + 40.0 * 2.5, 54.0 * 1.25, role="distractor"))
    readings = scene.readings(angle_degrees=30)
    result = _read(readings)
    left_out = left_out_near_hand(result.readings, result.layout)
    assert left_out == [len(scene.tiles) - 1]
    assert result.report.score_stable
    assert not any("flower" in warning for warning in result.warnings)
