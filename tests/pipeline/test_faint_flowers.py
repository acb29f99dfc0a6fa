"""Faint flowers: a flower the detector found only weakly beside a hand that reads without it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hand_scenes import lay_out

from vision.dataset.manifest import quad_to_box
from vision.evaluation.hand_outcome import same_hand
from vision.geometry import outline_iou
from vision.pipeline import read_readings
from vision.repairs.faint_flowers import FAINT_FLOWER_MASS, FAINT_FLOWER_SCORE, FAINT_NOTE, faint_flowers
from vision.repairs.row_completion import SPARE_OVERLAP_IOU, WINNER_ONLY_OVERLAP_IOU
from vision.types import TileReading

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("chow", ["3s", "4s", "5s"], False)]
HAND = {"concealed": sorted([*CONCEALED, "3m"]), "winning_tile": "3m",
        "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
                  {"kind": "chow", "tiles": ["3s", "4s", "5s"], "concealed": False}]}


def _faint(reading: TileReading, score: float, code: str | None = None,
           probability: float = 0.99) -> TileReading:
    """``reading`` as a weak spare peak, read as ``code`` (its own by default) at ``probability``."""
    code = code or reading.code
    candidates = ((code, probability), ("2p", 1.0 - probability))
    return TileReading(replace(reading.detection, spare=True, score=score), candidates)


def _scene_readings(flowers: list[str], angle: float = 20.0) -> tuple[list[TileReading], list[int]]:
    scene = lay_out(CONCEALED, MELDS, flowers, "3m")
    readings = scene.readings(angle_degrees=angle, jitter=1.0)
    return readings, [k for k, tile in enumerate(scene.tiles) if tile.code in flowers]


@pytest.mark.parametrize("angle", [20, 200])
def test_a_faint_flower_beside_a_hand_that_reads_is_kept(angle):
    readings, (sure, weak) = _scene_readings(["1f", "6f"], angle)
    readings[weak] = _faint(readings[weak], 0.45)
    result = read_readings(readings, infer_unseen=True)
    assert same_hand(result.hand, {**HAND, "flowers": ["1f", "6f"]})
    assert any("faint tile(s) beside the hand read as flowers (6f)" in w for w in result.warnings)
    assert len(result.readings) == len(readings)
    assert not result.report.score_stable and FAINT_NOTE in result.report.notes
    without = [a for a in result.report.alternatives if "without the faint flower(s) 6f" in a.description]
    assert [a.total for a in without] == [result.score.total - 1]


def test_a_hand_reads_the_same_without_any_faint_flower():
    readings, (sure, weak) = _scene_readings(["1f", "6f"])
    without = [r for k, r in enumerate(readings) if k != weak]
    result = read_readings(without, infer_unseen=True)
    assert same_hand(result.hand, {**HAND, "flowers": ["1f"]})
    assert not any("faint" in w for w in result.warnings)


@pytest.mark.parametrize(("score", "code", "probability"), [
    (FAINT_FLOWER_SCORE - 0.05, None, 0.99),  # too faint: table texture reads as anything
    (0.45, None, FAINT_FLOWER_MASS - 0.1),  # the classifier is not sure it is a flower
    (0.45, "1f", 0.99),  # a flower the hand already holds: that tile again, or a discard
], ids=["too faint", "unsure", "already held"])
def test_a_doubtful_faint_flower_is_left_out(score, code, probability):
    readings, (sure, weak) = _scene_readings(["1f", "6f"])
    readings[weak] = _faint(readings[weak], score, code, probability)
    result = read_readings(readings, infer_unseen=True)
    assert same_hand(result.hand, {**HAND, "flowers": ["1f"]})
    assert len(result.readings) == len(readings) - 1


def test_only_one_faint_tile_per_flower_is_taken():
    readings, (sure, weak) = _scene_readings(["1f", "6f"])
    readings[weak] = _faint(readings[weak], 0.45)
    twin = TileReading(replace(readings[sure].detection, spare=True, score=0.42),
                       (("6f", 0.99), ("2p", 0.01)))
    chosen = faint_flowers([*readings, twin], [weak, len(readings)], {"flowers": ["1f"]})
    assert chosen == [weak]


def test_a_faint_flower_half_over_a_tile_found_is_that_tile_again():
    """A weak peak half over the 1f (outline IoU 0.3-0.5), read 6f: the 1f found twice, not a flower."""
    readings, (sure,) = _scene_readings(["1f"])
    flower = readings[sure].detection
    shift = 0.4 * (flower.quad[1][0] - flower.quad[0][0]), 0.4 * (flower.quad[1][1] - flower.quad[0][1])
    quad = tuple((x + shift[0], y + shift[1]) for x, y in flower.quad)
    twice = replace(flower, quad=quad, box=quad_to_box(quad), score=0.45, spare=True)
    assert WINNER_ONLY_OVERLAP_IOU < outline_iou(twice.quad, flower.quad) < SPARE_OVERLAP_IOU
    result = read_readings([*readings, TileReading(twice, (("6f", 0.99), ("2p", 0.01)))], infer_unseen=True)
    assert same_hand(result.hand, {**HAND, "flowers": ["1f"]})
    assert not any("faint" in w for w in result.warnings)
