"""Two tiles at the end of a row found as one outline, cut into the two the row's spacing puts there."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hand_scenes import lay_out
from heldout_renders import read_held_out_render

from vision.decode.budget import NO_DEADLINE
from vision.geometry import face_frame, merged_outline
from vision.pipeline import PhotoPipeline
from vision.repairs.row_end_pair import row_end_pairs
from vision.types import TileReading

CONCEALED = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False)]


def _row(angle: float) -> tuple[list[TileReading], list[int]]:
    """A scene's readings and its concealed row's standing tiles' indices, left to right (the winning
    tile lies across beyond the right end)."""
    scene = lay_out(CONCEALED, MELDS, [], "3s")
    readings = scene.readings(angle_degrees=angle)
    row = [k for k, tile in enumerate(scene.tiles) if tile.role == "concealed" and not tile.rotated]
    return readings, sorted(row, key=lambda k: scene.tiles[k].u)


def _as_one(readings: list[TileReading], first: int, second: int) -> list[TileReading]:
    """``readings`` with tiles ``first`` and ``second`` found as one outline holding both (at
    ``first``'s place; ``second`` gone), read unsure."""
    quad = merged_outline(readings[first].detection.quad, readings[second].detection.quad)
    low, high = quad.min(axis=0), quad.max(axis=0)
    detection = replace(readings[first].detection, quad=tuple(map(tuple, quad.tolist())),
                        box=(float(low[0]), float(low[1]), float(high[0]), float(high[1])))
    out = list(readings)
    out[first] = TileReading(detection, (("5s", 0.3), ("8s", 0.2)))
    del out[second]
    return out


@pytest.mark.parametrize("angle", [0, 35, 200])
@pytest.mark.parametrize("end", ["right", "left"])
def test_the_last_two_tiles_found_as_one_are_put_back_in_the_rows_places(angle, end):
    readings, row = _row(angle)
    first, second = (row[-2], row[-1]) if end == "right" else (row[1], row[0])
    places = [face_frame(readings[k].detection.quad).centre for k in (first, second)]
    merged = _as_one(readings, first, second)
    found = row_end_pairs(merged)
    assert [index for index, _ in found] == [first if first < second else first - 1]
    cut = [face_frame(detection.quad).centre for detection in found[0][1]]
    assert np.allclose(cut, places, atol=1.5)


@pytest.mark.parametrize("angle", [0, 35, 200])
def test_a_row_of_whole_tiles_has_nothing_to_cut(angle):
    readings, _ = _row(angle)
    assert row_end_pairs(readings) == []


def test_two_tiles_found_as_one_inside_the_row_are_not_its_end():
    readings, row = _row(20)
    merged = _as_one(readings, row[4], row[5])
    assert row_end_pairs(merged) == []


@pytest.mark.parametrize("seed", [910099, 930083, 940045])
def test_held_out_renders_whose_last_two_tiles_were_found_as_one_read(tmp_path, seed):
    """Held-out renders (``scripts/evaluate.py hands --render 150 --seed 910000``; ``--render 100
    --seed 930000`` and ``--seed 940000``): the row's last two tiles, small and at a slant, outlined
    as one (910099's 8s and 8s read 5s at 0.27, 930083's 7s and 7s read 7s, 940045's 6m and 7m
    read 4s at 0.41); each hand read with a tile inferred before, its concealed row now whole.
    Read upright only: turned level (``vision.repairs.turned_look``) 940045 reads whole and sure
    without the cut, and 910099 from a finer look."""
    upright_only = PhotoPipeline(photo_budget=NO_DEADLINE, turned_look=False)
    result, record = read_held_out_render(seed, tmp_path, upright_only)
    assert sorted(result.hand["concealed"]) == sorted(record.hand["concealed"])
    assert result.hand["winning_tile"] == record.hand["winning_tile"]
    assert any("two tiles at the end of a row were found as one" in warning for warning in result.warnings)
    assert not result.report.score_stable


def test_a_cut_that_reads_only_with_a_tile_corrected_is_not_kept(tmp_path):
    """Held-out render 930097 (``--render 100 --seed 930000``): a standing 4s at the row's end is
    outlined large; cut as two tiles it reads 2s 2s, and a legal hand only with a 4s changed to 2s.
    Read without the cut, the hand is whole with one tile inferred, and right."""
    result, record = read_held_out_render(930097, tmp_path)
    assert not any("two tiles at the end of a row" in warning for warning in result.warnings)
    assert sorted(result.hand["concealed"]) == sorted(record.hand["concealed"])
