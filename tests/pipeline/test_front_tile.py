"""A winning tile lying flat against a standing tile, found as one tall outline with it, cut apart."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hand_scenes import lay_out
from heldout_renders import held_out_render, read_held_out_render

from vision.evaluation.hand_outcome import same_hand
from vision.geometry import face_frame
from vision.imageio import PhotoSource
from vision.pipeline import HandSetup, PhotoPipeline
from vision.pipeline.looks import read_with_second_looks
from vision.pipeline.readings import read_outcome
from vision.repairs.front_tile import FRONT_TILE_WARNING, OVERHANG, cut_apart, overhanging_outlines
from vision.types import TileReading

CONCEALED = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False)]


def _row(angle: float) -> tuple[list[TileReading], list[int]]:
    """A scene's readings and the indices of its concealed row's tiles, left to right."""
    scene = lay_out(CONCEALED, MELDS, [], "3s")
    readings = scene.readings(angle_degrees=angle)
    row = [k for k, tile in enumerate(scene.tiles) if tile.role == "concealed"]
    return readings, sorted(row, key=lambda k: scene.tiles[k].u)


def _reaching_down(reading: TileReading, share: float) -> TileReading:
    """``reading`` with its outline's foot moved down the face by ``share`` of its height, as the
    detector outlines a standing tile together with a flat tile lying against its foot."""
    frame = face_frame(reading.detection.quad)
    quad = np.asarray(reading.detection.quad, np.float64)
    quad[2:] -= frame.up * frame.height * share
    low, high = quad.min(axis=0), quad.max(axis=0)
    detection = replace(reading.detection, quad=tuple(map(tuple, quad.tolist())),
                        box=(float(low[0]), float(low[1]), float(high[0]), float(high[1])))
    return replace(reading, detection=detection)


@pytest.mark.parametrize("angle", [0, 25, 200])
def test_an_outline_reaching_below_its_row_is_found(angle):
    readings, row = _row(angle)
    middle = row[len(row) // 2]
    readings[middle] = _reaching_down(readings[middle], 0.45)
    assert [stack.index for stack in overhanging_outlines(readings)] == [middle]


@pytest.mark.parametrize("angle", [0, 25, 200])
def test_a_level_row_has_no_outline_to_cut(angle):
    readings, row = _row(angle)
    assert overhanging_outlines(readings) == []
    middle = row[len(row) // 2]
    readings[middle] = _reaching_down(readings[middle], OVERHANG / 2)
    assert overhanging_outlines(readings) == []


@pytest.mark.parametrize("angle", [0, 25, 200])
def test_the_cut_stands_one_tile_in_the_row_and_lays_the_other_before_it(angle):
    readings, row = _row(angle)
    middle = row[len(row) // 2]
    whole = face_frame(readings[middle].detection.quad)
    readings[middle] = _reaching_down(readings[middle], 0.45)
    (stack,) = overhanging_outlines(readings)
    standing, flat = cut_apart(readings[middle], stack)
    standing_frame, flat_frame = face_frame(standing.quad), face_frame(flat.quad)
    assert np.allclose(standing_frame.centre, whole.centre, atol=1.0)
    assert standing_frame.height == pytest.approx(whole.height, rel=0.02)
    below = (flat_frame.centre - whole.centre) @ whole.up
    assert -whole.height < below < -whole.height / 2  # in front of the row, across its foot


@pytest.mark.parametrize("seed", [900173, 930019, 940067])
def test_held_out_renders_whose_winning_tile_lies_against_a_standing_one_read(tmp_path, seed):
    """Held-out renders (``scripts/evaluate.py hands --render 200``; ``--seed 930000`` and
    ``--seed 940000 --render 100``): the winning tile lies flat against the foot of a standing tile
    and the detector outlines the two as one tile (900173's 5p and 5p read 5p at 0.47, 930019's
    4p and 4p read 6p, 940067's 7p and 9p read 7p). Read with the winning tile unseen or not at all
    before; cut apart, each hand reads exactly."""
    result, record = read_held_out_render(seed, tmp_path)
    assert same_hand(result.hand, record.hand)
    code = record.hand["winning_tile"]
    assert FRONT_TILE_WARNING.format(code=code) in result.warnings


def test_a_cut_that_reads_only_with_more_tiles_corrected_is_not_kept(tmp_path):
    """Held-out render 950029 (``--render 100 --seed 950000``): a winning 5m lies flat before the
    row, and a chow's tile outline overhangs its neighbours. Cut there, the hand reads as a legal
    one only with four tiles changed (a 1p read at 0.99 among them), against one without the cut."""
    result, _ = read_held_out_render(950029, tmp_path)
    assert not any("cut apart" in warning for warning in result.warnings)
    assert len(result.decoded.changes) <= 1


def test_the_cut_is_made_only_where_asked(tmp_path):
    """The photo cuts merged outlines at its first look only (``cut_merged``): the finer looks and
    the last resort read without, each cut being a whole reading of a hand that failed."""
    path, _ = held_out_render(900173, tmp_path)
    readings, classify, _ = PhotoPipeline()._read_tiles(PhotoSource(path)).readers()

    def read(tiles):
        return read_outcome(tiles, HandSetup.of(), infer_unseen=True)

    cut = read_with_second_looks(readings, classify, read)
    uncut = read_with_second_looks(readings, classify, read, cut_merged=False)
    assert FRONT_TILE_WARNING.format(code="5p") in cut.warnings
    assert not any("cut apart" in warning for warning in uncut.warnings)
    assert uncut.decoded.unseen is not None or uncut.layout.winning_index is None
