"""A sideways tile found as two upright halves is joined again when the hand does not read without."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hand_scenes import lay_out
from heldout_renders import read_held_out_render
from shared_data import require_shared_data

from scoring.errors import InputError
from vision.decode.budget import NO_DEADLINE
from vision.decode.unseen import TileCountError, unseen_tiles
from vision.evaluation.hand_outcome import same_hand
from vision.live.reading import PipelineHandReader
from vision.pipeline import PhotoPipeline, read_readings
from vision.repairs.sideways_halves import half_pairs, joined_halves
from vision.synth.scene import SceneConfig, render_scene
from vision.types import Detection, TileReading

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
    require_shared_data("crops-labelled")
    image, record = render_scene(np.random.default_rng(910127), SceneConfig(split="val"))
    path = tmp_path / "910127.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE)
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
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE)
    result = pipeline.read_hand(readings, classify, image="scene", rules=None, table=None, context=None)
    assert result.hand["winning_tile"] == "3m"
    assert any("found its face as two halves" in warning for warning in result.warnings)
    # A hand that reads as detected is read so: nothing is joined.
    whole = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m").readings(angle_degrees=30)
    result = pipeline.read_hand(whole, classify, image="scene", rules=None, table=None, context=None)
    assert not any("two halves" in warning for warning in result.warnings)


# A hand that reads with either half's code as its last standing tile: 2s 3s wait on 1s or 4s.
ONE_OR_FOUR = ["2s", "3s", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]


def _winning_4s_in_halves_read_1s(spare_half: bool):
    """The winning 4s lying across the row's end, found as two upright halves read 1s (the second a
    weak detection when ``spare_half``), and a stand-in classifier that reads the joined outline
    turned a quarter as 4s at 0.99."""
    scene = lay_out(ONE_OR_FOUR, MELDS, ["1f", "6f"], "4s")
    readings = scene.readings(angle_degrees=20)
    winning = readings.pop(scene.winning_position)
    first, second = _halves(winning.detection)
    halves = [TileReading(first, (("1s", 0.9), ("2s", 0.1))),
              TileReading(replace(second, spare=spare_half), (("1s", 0.9), ("2s", 0.1)))]
    centre = np.mean(winning.detection.quad, axis=0)

    def read(detection: Detection) -> tuple[tuple[str, float], ...]:
        if not np.allclose(np.mean(detection.quad, axis=0), centre, atol=1.0):
            return ("7p", 0.5), ("1s", 0.5)
        return (("4s", 0.99), ("1s", 0.01)) if detection.rotated else (("1s", 0.6), ("4s", 0.4))

    def classify(detections: list[Detection]) -> list[TileReading]:
        return [TileReading(d, read(d)) for d in detections]

    return [*readings, *halves], classify


def test_halves_are_joined_when_the_hand_reads_but_shows_no_winning_tile():
    """One half stands at the row's end beside a weak one: the hand reads, but no tile lies across
    or apart. Joined, the winning tile is shown, and that reading is kept."""
    readings, classify = _winning_4s_in_halves_read_1s(spare_half=True)
    pipeline = PhotoPipeline(photo_budget=NO_DEADLINE)
    plain = read_readings(readings, infer_unseen=True, optional=pipeline.faint_tiles(readings))
    assert plain.layout.winning_index is None and "1s" in plain.hand["concealed"]
    result = pipeline.read_hand(readings, classify, image="scene", rules=None, table=None, context=None)
    assert result.hand["winning_tile"] == "4s"
    assert sorted(result.hand["concealed"]) == sorted([*ONE_OR_FOUR, "4s"])
    assert any("lying sideways, the winning tile" in warning for warning in result.warnings)


def test_a_spare_is_a_half_only_when_asked():
    readings, _ = _winning_4s_in_halves_read_1s(spare_half=True)
    halves = (len(readings) - 2, len(readings) - 1)
    assert halves not in half_pairs(readings)
    assert halves in half_pairs(readings, spares=True)


def test_a_join_that_still_needs_an_unseen_tile_is_not_kept():
    """Without the row's first tile (2s) the joined reading needs an unseen tile as well: the
    detector's reading stands."""
    readings, classify = _winning_4s_in_halves_read_1s(spare_half=True)
    del readings[0]
    result = PhotoPipeline().read_hand(readings, classify, image="scene", rules=None, table=None,
                                        context=None)
    assert not any("lying sideways, the winning tile" in warning for warning in result.warnings)


def test_held_out_render_whose_winning_4p_in_front_of_a_standing_row_is_read_2p(tmp_path):
    """Held-out render 910033 (``scripts/evaluate.py hands --render 150 --seed 910000``): the winning
    4p lies flat in front of a standing row, found as two upright halves, each read 2p at 0.999;
    the hand reads with a 2p standing and the winning tile unseen. Joined, it is the 4p shown."""
    result, record = read_held_out_render(910033, tmp_path)
    assert same_hand(result.hand, record.hand)
    assert any("lying sideways, the winning tile" in warning for warning in result.warnings)


def test_held_out_render_whose_winning_4p_halves_read_without_the_join(tmp_path):
    """Held-out render 900108 (``--render 200``): the same lie, one half a weak detection; the
    four-member classifier reads the tiles so that the hand reads exactly without the join."""
    result, record = read_held_out_render(900108, tmp_path)
    assert same_hand(result.hand, record.hand)


def test_a_held_out_render_read_with_a_tile_inferred_is_read_with_its_winning_4p_joined(tmp_path):
    """Held-out render 940047 (``--render 100 --seed 940000``): the winning 4p lies flat before the
    row, found as two 2p left out, and a standing 3p at a slant was taken for the winning tile; the
    hand read a tile short, with a 4p inferred. Joined, the 4p is the winning tile shown and the
    hand reads exactly."""
    result, record = read_held_out_render(940047, tmp_path)
    assert same_hand(result.hand, record.hand)
    assert any("lying sideways, the winning tile" in warning for warning in result.warnings)
    assert result.decoded.unseen is None


def test_the_live_reader_joins_the_halves_of_a_winning_tile_as_the_photo_does():
    readings, classify = _winning_4s_in_halves_read_1s(spare_half=True)
    outcome = PipelineHandReader()(readings, classify)
    assert outcome.complete
    assert outcome.document["hand"]["winning_tile"] == "4s"
    assert any("lying sideways, the winning tile" in warning for warning in outcome.result.warnings)
