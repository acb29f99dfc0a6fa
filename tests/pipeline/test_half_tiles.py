"""A small detection lying on a bigger tile: the hand is read again without it (vision.repairs.half_tiles)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hand_scenes import lay_out

from scoring.errors import InputError
from vision.decode.unseen import TileCountError
from vision.pipeline import PhotoPipeline, read_readings
from vision.repairs.half_tiles import MOST_TRIED, parts_of_tiles
from vision.types import Detection, TileReading

CONCEALED = ["1m", "1m", "1m", "6m", "7m", "8m", "1s", "1s", "4s", "5s"]
MELDS = [("chow", ["6p", "7p", "8p"], False), ("chow", ["1m", "2m", "3m"], False)]


def _read(readings: list[TileReading]):
    return PhotoPipeline().read_hand(readings, _unsure, image="scene", rules=None, table=None, context=None)


def _unsure(detections: list[Detection]) -> list[TileReading]:
    """A classifier stand-in for the second looks' reads, which find nothing here."""
    return [TileReading(d, (("9s", 0.5), ("1z", 0.5))) for d in detections]


def _box_reading(box: tuple[float, float, float, float], code: str, score: float = 0.6,
                 spare: bool = False) -> TileReading:
    x1, y1, x2, y2 = box
    quad = ((x1, y1), (x2, y1), (x2, y2), (x1, y2))
    return TileReading(Detection(box=box, score=score, quad=quad, spare=spare), ((code, 0.8), ("1p", 0.1)))


def _part_of(reading: TileReading, code: str, score: float = 0.6) -> TileReading:
    """A narrow box over the left part of ``reading``'s tile, a little beyond it: render 920039's
    half of a sideways 6p, read 2p."""
    x1, y1, x2, y2 = reading.detection.box
    width = x2 - x1
    return _box_reading((x1 - 0.3 * width, y1, x1 + 0.35 * width, y2), code, score)


def _hand_with_a_part(angle: float = 0.0) -> tuple[list[TileReading], int]:
    """A hand like render 920039's (two exposed chows; here the winning tile 6s), its 7p found again in
    part; and the index of the part."""
    scene = lay_out(CONCEALED, MELDS, [], "6s")
    readings = scene.readings(angle_degrees=angle)
    seven = next(i for i, tile in enumerate(scene.tiles) if tile.code == "7p")
    readings.append(_part_of(readings[seven], "2p"))
    return readings, len(readings) - 1


def test_a_narrow_box_lying_on_a_bigger_tile_is_a_part_but_neighbours_in_a_row_are_not():
    readings, part = _hand_with_a_part()
    assert parts_of_tiles(readings) == [part]
    whole = readings[0]
    x1, y1, x2, y2 = whole.detection.box
    neighbour = _box_reading((x1 + 0.5 * (x2 - x1), y1, x2 + 0.5 * (x2 - x1), y2), "2m")
    assert parts_of_tiles([whole, neighbour]) == [], "tiles of one size overlapping in a row"
    spare = TileReading(replace(readings[part].detection, spare=True), readings[part].candidates)
    assert parts_of_tiles([*readings[:part], spare]) == []


def test_at_most_a_few_parts_are_tried_least_sure_first():
    readings, _ = _hand_with_a_part()
    tiles = list(range(len(readings) - 1))
    parts = [_part_of(readings[i], "2p", score=0.3 + 0.01 * n) for n, i in enumerate(tiles[:MOST_TRIED + 2])]
    found = parts_of_tiles([*readings, *parts])
    assert len(found) == MOST_TRIED
    scores = [[*readings, *parts][i].detection.score for i in found]
    assert scores == sorted(scores) and scores[0] == pytest.approx(0.3)


@pytest.mark.parametrize("angle", [0, 30])
def test_a_hand_that_reads_only_without_a_part_of_a_tile_is_read_so(angle):
    readings, part = _hand_with_a_part(angle)
    with pytest.raises(InputError) as failure:
        read_readings(readings, infer_unseen=True)
    assert not isinstance(failure.value, TileCountError)
    result = _read(readings)
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "6s"])
    assert sorted(sorted(meld["tiles"]) for meld in result.hand["melds"]) == [["1m", "2m", "3m"],
                                                                               ["6p", "7p", "8p"]]
    assert all(reading is not readings[part] for reading in result.readings)
    assert any("left out a small detection" in warning and "2p" in warning for warning in result.warnings)
    assert result.report is not None and not result.report.score_stable
