"""Two flowers lying side by side found as one outline are cut apart and read as two."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hand_scenes import Scene, lay_out
from heldout_renders import read_held_out_render

from scoring.tiles import FLOWER_CODES
from vision.geometry import face_frame, merged_outline
from vision.live.reading import PipelineHandReader
from vision.pipeline import HandSetup, read_readings
from vision.pipeline.looks import first_kept
from vision.pipeline.readings import read_outcome
from vision.repairs.flower_pairs import WARNING, flower_pair_attempts, halves, pair_outlines
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z", "7m", "8m"]
MELDS = [("pung", ["5z", "5z", "5z"], False)]
FLOWERS = ["2f", "3f", "7f"]


def _read(tiles: list[TileReading]):
    return read_readings(tiles, infer_unseen=True)


def read_with_flower_pairs_cut(result, classify, read_flowers):
    """The hand read again with the pairs cut (the search's step), or ``result`` when none is kept."""
    again = first_kept(flower_pair_attempts(result, classify, read_flowers),
                       lambda tiles: read_outcome(tiles, HandSetup.of(), infer_unseen=True))
    return result if again is None else again


def _scene(angle: float) -> tuple[Scene, list[TileReading], list[int]]:
    scene = lay_out(CONCEALED, MELDS, FLOWERS, "9m")
    readings = scene.readings(angle_degrees=angle)
    flowers = [i for i, tile in enumerate(scene.tiles) if tile.role == "flower"]
    return scene, readings, flowers


def _as_one(readings: list[TileReading], first: int, second: int) -> list[TileReading]:
    """``readings`` with flowers ``first`` and ``second`` found as one outline (at ``first``'s place,
    ``second`` gone), read as one of them, unsure."""
    quad = merged_outline(readings[first].detection.quad, readings[second].detection.quad)
    low, high = quad.min(axis=0), quad.max(axis=0)
    detection = replace(readings[first].detection, quad=tuple(map(tuple, quad.tolist())),
                        box=(float(low[0]), float(low[1]), float(high[0]), float(high[1])))
    out = list(readings)
    out[first] = TileReading(detection, ((readings[first].code, 0.34), ("8f", 0.23), ("1s", 0.2)))
    del out[second]
    return out


def _by_place(scene: Scene, readings: list[TileReading]):
    """Stand-ins for the classifier and the flower model that read a detection as the scene's tile
    whose centre is nearest its own, sure (the flower model as a sharp flower face reads)."""
    centres = np.array([face_frame(r.detection.quad).centre for r in readings])
    codes = [tile.code for tile in scene.tiles]

    def nearest(detection: Detection) -> str:
        centre = face_frame(detection.quad).centre
        return codes[int(np.argmin(np.hypot(*(centres - centre).T)))]

    def classify(detections: list[Detection]) -> list[TileReading]:
        return [TileReading(d, ((nearest(d), 0.97), ("8f", 0.03))) for d in detections]

    def read_flowers(detections: list[Detection]) -> np.ndarray:
        rows = np.full((len(detections), len(FLOWER_CODES)), 0.001)
        for row, detection in zip(rows, detections, strict=True):
            if nearest(detection) in FLOWER_CODES:
                row[FLOWER_CODES.index(nearest(detection))] = 0.99
        return rows

    return classify, read_flowers


@pytest.mark.parametrize("angle", [0, 30, 200])
def test_two_flowers_found_as_one_are_cut_back_into_their_places(angle):
    scene, readings, flowers = _scene(angle)
    places = [face_frame(readings[k].detection.quad).centre for k in flowers[:2]]
    merged = _as_one(readings, flowers[0], flowers[1])
    result = _read(merged)
    assert sorted(result.hand["flowers"]) == ["2f", "7f"]
    assert pair_outlines(merged, result.layout) == [flowers[0]]
    cut = [face_frame(half.quad).centre for half in halves(merged[flowers[0]].detection)]
    assert np.allclose(cut, places, atol=1.5)

    classify, read_flowers = _by_place(scene, readings)
    again = read_with_flower_pairs_cut(result, classify, read_flowers)
    assert sorted(again.hand["flowers"]) == FLOWERS
    assert WARNING.format(count=1) in again.warnings


def test_whole_flowers_are_not_cut():
    scene, readings, _ = _scene(30)
    result = _read(readings)
    assert pair_outlines(readings, result.layout) == []
    classify, read_flowers = _by_place(scene, readings)
    assert read_with_flower_pairs_cut(result, classify, read_flowers) is result


def _merged_pair_read():
    """The hand read with its first two flowers found as one outline, and the place-reading
    stand-ins for the classifier and the flower model."""
    scene, readings, flowers = _scene(30)
    result = _read(_as_one(readings, flowers[0], flowers[1]))
    return result, *_by_place(scene, readings)


def test_a_large_outline_whose_halves_read_as_one_flower_is_kept_whole():
    """Halves of one face read alike; only two different sure flowers make a pair."""
    result, _, read_flowers = _merged_pair_read()

    def classify_alike(detections: list[Detection]) -> list[TileReading]:
        return [TileReading(d, (("2f", 0.97), ("8f", 0.03))) for d in detections]

    assert read_with_flower_pairs_cut(result, classify_alike, read_flowers) is result


def test_halves_the_flower_model_is_unsure_of_are_not_read():
    result, classify, read_flowers = _merged_pair_read()

    def unsure(detections: list[Detection]) -> np.ndarray:
        return read_flowers(detections) * 0.8

    assert read_with_flower_pairs_cut(result, classify, unsure) is result
    assert read_with_flower_pairs_cut(result, classify, lambda detections: None) is result


def test_the_live_mode_cuts_the_pair_too():
    scene, readings, flowers = _scene(30)
    merged = _as_one(readings, flowers[0], flowers[1])
    classify, read_flowers = _by_place(scene, readings)
    outcome = PipelineHandReader(rules="taiwan")(merged, classify, read_flowers)
    assert outcome.complete and sorted(outcome.document["hand"]["flowers"]) == FLOWERS


def test_held_out_render_with_two_flowers_found_as_one_reads_both(tmp_path):
    """Held-out render 940097 (``scripts/evaluate.py hands --render 100 --seed 940000``): its 4f and
    6f lie flat side by side and were found as one outline, read 4f at 0.34; the hand read legal a
    flower short and its score was called sure, and wrong. The halves read 4f and 6f."""
    result, record = read_held_out_render(940097, tmp_path)
    assert sorted(result.hand["flowers"]) == sorted(record.hand["flowers"]) == ["4f", "6f"]
    assert sorted(result.hand["concealed"]) == sorted(record.hand["concealed"])
    assert WARNING.format(count=1) in result.warnings
