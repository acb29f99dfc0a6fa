"""A sideways tile's second cut is the face its box holds across the row (vision.repairs.sideways_cut)."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest
from heldout_renders import held_out_render

from vision.decode.budget import NO_DEADLINE
from vision.evaluation.hand_outcome import match_labels, same_hand
from vision.pipeline import PhotoPipeline
from vision.repairs.outline_views import second_outlines, turned_quad
from vision.repairs.sideways_cut import box_face_across, second_cuts
from vision.types import Detection


def _face(x: float, y: float, width: float, height: float, degrees: float = 0.0,
          rotated: bool = False) -> Detection:
    corners = np.array([[-width / 2, -height / 2], [width / 2, -height / 2],
                        [width / 2, height / 2], [-width / 2, height / 2]])
    quad = turned_quad(tuple(map(tuple, (corners + (x, y)).tolist())), degrees)
    points = np.asarray(quad)
    box = (*points.min(axis=0), *points.max(axis=0))
    return Detection(box=tuple(float(v) for v in box), score=0.9, rotated=rotated, angle=-90.0 + degrees,
                     quad=quad)


def _edges(quad) -> tuple[float, float]:
    points = np.asarray(quad)
    return float(np.hypot(*(points[1] - points[0]))), float(np.hypot(*(points[2] - points[1])))


def test_the_box_face_across_a_level_row_is_cut_as_lying_on_its_side():
    """A face 54 wide and 40 high lying across a level row: the cut's top edge is the face's short
    side, so the crop shows it turned a quarter, as an upright tile."""
    tile = _face(200.0, 100.0, 54.0, 40.0, rotated=True)
    quad = box_face_across(replace(tile, quad=((0.0, 0.0),) * 4), 0.0)
    top, side = _edges(quad)
    assert top == pytest.approx(40.0, abs=1.0) and side == pytest.approx(54.0, abs=1.0)
    assert np.allclose(np.mean(quad, axis=0), (200.0, 100.0))
    top_edge = np.asarray(quad[1]) - np.asarray(quad[0])
    assert abs(top_edge[0]) < 1e-6  # the short side stands across the level row


def test_a_sideways_tile_whose_outline_came_out_askew_is_cut_from_its_box():
    """A row of upright tiles and one lying across it whose outline is turned 30 degrees and too
    small (as the detector gives it): its second cut is the face its box holds, across the row,
    not the outline squared; upright tiles keep their second cuts as before."""
    row = [_face(40.0 + 34.0 * i, 100.0, 30.0, 40.0) for i in range(5)]
    truth = _face(40.0 + 34.0 * 5 + 7.0, 107.0, 40.0 * 1.0, 30.0, rotated=True)
    askew = replace(truth, quad=turned_quad(_face(*truth.center, 26.0, 20.0).quad, 30.0))
    tiles = [*row, askew]
    cuts = second_cuts(tiles)
    assert cuts[:5] == second_outlines(tiles)[:5]
    top, side = _edges(cuts[5])
    assert top == pytest.approx(30.0, abs=2.0) and side == pytest.approx(40.0, abs=2.0)
    up = np.asarray(cuts[5][0]) - np.asarray(cuts[5][3])
    assert abs(math.degrees(math.atan2(up[1], up[0]))) % 180 < 3  # along the row: lying on its side
    assert second_cuts(row) == second_outlines(row)


@pytest.mark.parametrize("seed", [910066])
def test_a_held_out_render_whose_winning_tile_outline_is_askew_reads_exactly(tmp_path, seed):
    """Held-out render 910066 (as ``scripts/evaluate.py hands --render 150 --seed 910000`` makes it):
    the detector flags the winning 6s sideways but outlines it askew. Cut along that outline the
    classifier is less sure of it than cut from its box: the box cut leaves well under half the
    doubt."""
    path, record = held_out_render(seed, tmp_path)
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE)
    result = pipeline.read_photo(path, context=dict(record.hand.get("context", {})))
    assert same_hand(result.hand, record.hand)
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    detected = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in result.readings])
    tile = result.readings[detected[winning]]
    assert tile.detection.rotated and tile.code == record.tiles[winning].code == "6s"
    as_outlined = pipeline.classifier.classify(cv2.imread(str(path)), [tile.detection])[0]
    doubt_as_outlined = 1.0 - as_outlined.probability_of("6s", 0.0)
    assert 1.0 - tile.probability_of("6s", 0.0) < 0.5 * doubt_as_outlined
