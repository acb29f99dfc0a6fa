"""One standing tile too many: the hand is read without one of the row's weakest detections."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hand_scenes import SceneTile, lay_out

from vision.decode.unseen import TileCountError, unseen_tiles
from vision.live.reading import PipelineHandReader
from vision.pipeline import PhotoPipeline, read_readings
from vision.repairs.surplus_tile import WEAKEST, without_one_weak_tile
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z", "5z", "5z", "5z", "7p", "8p"]


def _read(readings: list[TileReading]):
    return PhotoPipeline().read_hand(readings, _unsure, image="scene", rules=None, table=None, context=None)


def _unsure(detections: list[Detection]) -> list[TileReading]:
    """A classifier stand-in for the halves' joins, which find nothing here."""
    return [TileReading(d, (("7p", 0.5), ("1s", 0.5))) for d in detections]


def _row_with_a_discard_against_it(discard_score: float) -> list[TileReading]:
    """A concealed hand (16 tiles and the winning 9p across the row's end) with a 9m discard lying
    against the row's other end, found by the detector at ``discard_score``."""
    scene = lay_out(CONCEALED, [], ["1f"], "9p")
    scene.tiles.append(SceneTile("9m", -40.0, 0.0, role="distractor"))
    readings = scene.readings(angle_degrees=20)
    readings[-1] = TileReading(replace(readings[-1].detection, score=discard_score), readings[-1].candidates)
    return readings


@pytest.mark.parametrize(("standing", "expected", "surplus"), [(18, 17, 1), (15, 14, 1), (12, 14, -2)])
def test_the_count_error_says_how_many_tiles_are_over(standing, expected, surplus):
    with pytest.raises(TileCountError) as error:
        unseen_tiles(standing, expected)
    assert error.value.surplus == surplus


def test_the_weakest_row_tiles_are_tried_left_out_weakest_first():
    readings = _row_with_a_discard_against_it(0.5)
    tried = list(without_one_weak_tile(readings))
    assert len(tried) == WEAKEST
    index, rest = tried[0]
    assert index == len(readings) - 1 and len(rest) == len(readings) - 1
    assert all(reading is not readings[index] for reading in rest)


def test_a_discard_against_the_row_is_left_out_when_the_row_is_a_tile_over():
    readings = _row_with_a_discard_against_it(0.5)
    with pytest.raises(TileCountError):
        read_readings(readings, infer_unseen=True)
    result = _read(readings)
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "9p"])
    assert any("one tile too many" in warning and "9m" in warning for warning in result.warnings)


def test_a_row_two_tiles_short_keeps_its_count_error():
    """Leaving tiles out mends only a row over the count; a row short of it is not read so."""
    readings = _row_with_a_discard_against_it(0.5)[2:]  # 1m and 2m not found; the 9m now lies apart
    with pytest.raises(TileCountError) as error:
        _read(readings)
    assert error.value.surplus == -2


def test_the_live_reader_leaves_a_tile_too_many_out_as_the_photo_does():
    """A hand scores the same on a photo and on the camera: the live reader mends the count too."""
    readings = _row_with_a_discard_against_it(0.5)
    outcome = PipelineHandReader()(readings, _unsure)
    assert outcome.complete
    assert sorted(outcome.document["hand"]["concealed"]) == sorted([*CONCEALED, "9p"])
    assert outcome.document == _read(readings).to_json() | {"image": outcome.document["image"]}
    assert not PipelineHandReader()(readings).complete  # without a classifier nothing is read again
