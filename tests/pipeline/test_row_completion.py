"""Row completion: a faint detection is kept only where it is the next tile of a row of sure tiles,
and a hand that does not read with the faint tiles is read without them."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import cv2
import pytest

from scoring.errors import InputError
from vision.dataset.manifest import quad_to_box, read_manifest
from vision.evaluation.hand_outcome import match_labels, oracle_readings, same_hand, sure_reading
from vision.geometry import merged_detection, outline_iou
from vision.models.detector import TileDetector
from vision.pipeline import read_readings
from vision.repairs.row_completion import (
    MAX_SPARES,
    SPARE_OVERLAP_IOU,
    WINNER_ONLY_OVERLAP_IOU,
    extend_rows,
    spare_tiles,
)
from vision.types import Detection

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
THRESHOLD = 0.5


def _tile(x: float, y: float, score: float, width: float = 30, height: float = 40) -> Detection:
    """An upright tile whose face's top-left corner is at (x, y)."""
    quad = ((x, y), (x + width, y), (x + width, y + height), (x, y + height))
    return Detection((x, y, x + width, y + height), score, quad=quad)


ROW = [_tile(0, 0, 0.9), _tile(31, 0, 0.8), _tile(62, 0, 0.95)]


def test_a_faint_tile_next_in_the_row_is_kept():
    faint = _tile(93, 1, 0.3)
    assert extend_rows([*ROW, faint], THRESHOLD) == [0, 1, 2, 3]


def test_faint_tiles_chain_along_the_row_but_not_past_a_gap():
    """Two faint backs of a kong side by side both extend the row; one set far apart does not."""
    first, second, far = _tile(-31, 0, 0.35), _tile(-62, 0, 0.3), _tile(200, 0, 0.45)
    assert sorted(extend_rows([*ROW, second, far, first], THRESHOLD)) == [0, 1, 2, 3, 5]


@pytest.mark.parametrize("faint", [
    _tile(0, 45, 0.4),  # in the next row over, not along this one
    _tile(93, 0, 0.4, width=15, height=20),  # half the size: not a tile of this set
    _tile(40, 0, 0.45),  # over a sure tile: that tile again
    _tile(93, 0, 0.2),  # below the weakest score worth judging
], ids=["off the row", "wrong size", "overlapping", "too faint"])
def test_a_faint_tile_that_does_not_extend_a_row_is_dropped(faint):
    assert extend_rows([*ROW, faint], THRESHOLD) == [0, 1, 2]


def test_without_sure_tiles_nothing_faint_is_kept():
    assert extend_rows([_tile(0, 0, 0.4), _tile(31, 0, 0.45)], THRESHOLD) == []


def test_the_shipped_detector_keeps_faint_hand_tiles_of_the_concealed_kong_sample():
    """On the bundled concealed-kong render some hand tiles are only faint peaks (with detector p2 a
    4s of a sideways meld; with r15 and p1 a face-down tile of the kong as well); completion keeps
    them, and keeps nothing off the hand."""
    records = read_manifest(SAMPLES / "manifest.jsonl")
    record = next(r for r in records if r.image == "hand-concealed-kong.jpg")
    image = cv2.imread(str(SAMPLES / record.image))
    detector = TileDetector(threads=1)
    sure = detector.detect(image, complete_rows=False)
    completed = detector.detect(image)
    assert all(d.score >= detector.score_threshold for d in sure)
    added = [d for d in completed if d.score < detector.score_threshold]
    assert added
    hand = [t for t in record.tiles if t.role != "distractor"]
    matches = match_labels([tuple(t.box) for t in hand], [d.box for d in added])
    assert len(matches) == len(added), "a faint detection kept off the hand"


def test_a_hand_that_does_not_read_with_a_faint_tile_is_read_without_it():
    """A faint 'tile' in the gap between two groups, read as a back, would spoil the tile count."""
    record = next(r for r in read_manifest(SAMPLES / "manifest.jsonl") if r.image == "hand-flat-row.jpg")
    readings = oracle_readings(record)
    last = max(readings, key=lambda r: r.detection.box[2]).detection
    step = last.box[2] - last.box[0]
    gap = dataclasses.replace(last, box=(last.box[0] + 1.05 * step, *last.box[1:2], last.box[2] + 1.05 * step,
                                         last.box[3]), quad=None, score=0.3, rotated=False)
    spoiled = [*readings, sure_reading(gap, "back", 0.9)]
    with pytest.raises(InputError):
        read_readings(spoiled, context=record.hand["context"])
    result = read_readings(spoiled, context=record.hand["context"], optional=[len(readings)])
    assert same_hand(result.hand, record.hand)
    assert len(result.readings) == len(readings)
    assert any("faint" in warning for warning in result.warnings)


def test_a_weak_tile_lying_in_front_of_the_row_is_a_spare():
    """A winning tile laid flat before a standing row: bigger (nearer the camera), sideways, hiding
    the bottom of the faces behind it, and extending no row."""
    flat = _tile(20, 36, 0.38, width=52, height=34)
    detections = [*ROW, flat]
    chosen = extend_rows(detections, THRESHOLD)
    assert chosen == [0, 1, 2]
    assert spare_tiles(detections, chosen) == [3]


@pytest.mark.parametrize("weak", [
    _tile(0, 200, 0.45),  # a discard across the table
    _tile(32, 2, 0.45),  # a kept tile found again
    _tile(20, 36, 0.2),  # below the weakest score worth judging
    _tile(20, 36, 0.4, width=12, height=14),  # a third of the size: not a tile of this set
], ids=["far", "overlapping", "too faint", "wrong size"])
def test_a_weak_tile_that_is_not_beside_the_tiles_is_no_spare(weak):
    detections = [*ROW, weak]
    assert spare_tiles(detections, extend_rows(detections, THRESHOLD)) == []


def test_only_the_strongest_spares_are_offered():
    row = [_tile(31 * k, 0, 0.9) for k in range(8)]
    weak = [_tile(35 * k, 45, 0.3 + 0.01 * k) for k in range(MAX_SPARES + 2)]
    detections = [*row, *weak]
    chosen = extend_rows(detections, THRESHOLD)
    assert len(spare_tiles(detections, chosen, limit=len(weak))) == len(weak)
    spares = spare_tiles(detections, chosen)
    assert [detections[i].score for i in spares] == sorted((w.score for w in weak), reverse=True)[:MAX_SPARES]


def _sample(name: str):
    return next(r for r in read_manifest(SAMPLES / "manifest.jsonl") if r.image == name)


def _as_spare(reading):
    weak = dataclasses.replace(reading.detection, spare=True, score=0.4)
    return dataclasses.replace(reading, detection=weak)


def test_a_hand_a_tile_short_is_read_with_the_spare_that_completes_it():
    """The standing sample's winning tile found only weakly: without it the hand needs a tile
    inferred (two would complete it); with it every tile is seen."""
    record = _sample("hand-standing-row.jpg")
    readings = oracle_readings(record)
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    matched = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    index = matched[winning]
    others = [r for i, r in enumerate(readings) if i != index]
    short = read_readings(others, context=record.hand["context"], infer_unseen=True)
    assert short.decoded.unseen is not None
    result = read_readings([*others, _as_spare(readings[index])], context=record.hand["context"],
                           infer_unseen=True)
    assert result.decoded.unseen is None
    assert same_hand(result.hand, record.hand)
    assert len(result.readings) == len(readings)
    assert any("faint tile beside the hand" in warning for warning in result.warnings)


def test_a_hand_two_tiles_short_is_read_with_the_two_spares_that_complete_it():
    """A winning tile lying flat in front of the row and a set's tile behind it, both found only
    weakly (held-out render 900024): no single spare completes the hand, the two together do."""
    record = _sample("hand-standing-row.jpg")
    readings = oracle_readings(record)
    matched = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    winning = matched[next(i for i, t in enumerate(record.tiles) if t.role == "winning")]
    in_a_set = matched[next(i for i, t in enumerate(record.tiles) if t.role == "meld")]
    others = [r for i, r in enumerate(readings) if i not in (winning, in_a_set)]
    spares = [_as_spare(readings[winning]), _as_spare(readings[in_a_set])]
    result = read_readings([*others, *spares], context=record.hand["context"], infer_unseen=True)
    assert result.decoded.unseen is None
    assert same_hand(result.hand, record.hand)
    assert len(result.readings) == len(readings)
    assert any("kept 2 faint tiles" in warning for warning in result.warnings)


def test_a_spare_that_completes_the_hand_is_named_when_a_faint_tile_is_left_out():
    """The hand reads with the spare only once a faint tile that spoils it is left out: the result's
    readings are then fewer than those read, and the warning still names the spare's code."""
    record = _sample("hand-standing-row.jpg")
    readings = oracle_readings(record)
    matched = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    winning = matched[next(i for i, t in enumerate(record.tiles) if t.role == "winning")]
    others = [r for i, r in enumerate(readings) if i != winning]
    last = max(others, key=lambda r: r.detection.box[2]).detection
    step = last.box[2] - last.box[0]
    gap = dataclasses.replace(last, box=(last.box[0] + 1.05 * step, last.box[1], last.box[2] + 1.05 * step,
                                         last.box[3]), quad=None, score=0.3, rotated=False)
    faint = [*others, sure_reading(gap, "5z", 0.9)]
    result = read_readings([*faint, _as_spare(readings[winning])], context=record.hand["context"],
                           infer_unseen=True, optional=[len(others)])
    assert same_hand(result.hand, record.hand)
    code = record.hand["winning_tile"]
    assert any(f"kept a faint tile beside the hand (read {code})" in w for w in result.warnings)


def test_a_spare_is_left_out_of_a_hand_that_is_whole_without_it():
    record = _sample("hand-flat-row.jpg")
    readings = oracle_readings(record)
    last = max(readings, key=lambda r: r.detection.box[2]).detection
    step = last.box[2] - last.box[0]
    below = (last.box[0], last.box[3] + 0.2 * step, last.box[2], last.box[3] + 1.5 * step)
    beside = dataclasses.replace(last, box=below, quad=None, score=0.4, rotated=False, spare=True)
    result = read_readings([*readings, sure_reading(beside, "9m", 0.9)], context=record.hand["context"],
                           infer_unseen=True)
    assert same_hand(result.hand, record.hand)
    assert len(result.readings) == len(readings)
    assert not any(r.detection.spare for r in result.readings)


def test_spares_that_read_only_with_a_tile_inferred_are_a_last_resort():
    """The concealed-kong sample as the shipped detector sees it: two of the kong's four backs are
    weak spares, and the two standing 4s are found as one tile. The spares read the hand only with
    a tile inferred, so a plain reading refuses the photo (a finer look may still read it whole);
    the last resort reads it, four backs and all, with the tile inferred."""
    record = _sample("hand-concealed-kong.jpg")
    readings = oracle_readings(record)
    matched = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    backs = [matched[i] for i, t in enumerate(record.tiles) if t.role == "concealed_kong"][:2]
    pair = [matched[i] for i, t in enumerate(record.tiles) if t.role == "concealed" and t.code == "4s"]
    assert len(pair) == 2
    both = merged_detection(readings[pair[0]].detection, readings[pair[1]].detection)
    one_box = sure_reading(both, "4s", 0.9)
    kept = [r for i, r in enumerate(readings) if i not in (*backs, *pair)]
    tiles = [*kept, one_box, *(_as_spare(readings[i]) for i in backs)]
    context = record.hand["context"]
    with pytest.raises(InputError):
        read_readings(tiles, context=context, infer_unseen=True)
    result = read_readings(tiles, context=context, infer_unseen=True, last_resort=True)
    assert result.decoded.unseen is not None
    assert sum(r.detection.face_down for r in result.readings) == 4
    assert same_hand(result.hand, record.hand, hide_concealed_faces=True)
    assert {c.unseen for c in result.decoded.unseen.completions} == {"4s", "9m"}
    assert not result.report.score_stable
    assert any("without them it does not read" in warning for warning in result.warnings)


def _scene_hand():
    from hand_scenes import lay_out

    concealed = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
    melds = [("pung", ["5z", "5z", "5z"], False), ("chow", ["3s", "4s", "5s"], False)]
    hand = {"concealed": sorted([*concealed, "3m"]), "winning_tile": "3m", "flowers": [],
            "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
                      {"kind": "chow", "tiles": ["3s", "4s", "5s"], "concealed": False}]}
    return lay_out(concealed, melds, [], "3m"), hand


@pytest.mark.parametrize("angle", [15, 200])
def test_a_faint_winning_tile_lying_half_over_the_row_is_read(angle):
    """Held-out render 950085: the winning 4p lies across in front of the row, half over the 4p
    beside it; its peak (0.39) overlaps that tile's outline (IoU 0.46), so it was no spare and the
    hand read with its winning tile inferred. A spare may now overlap a tile read, as the winning tile."""
    scene, hand = _scene_hand()
    scene.tiles[scene.winning_position].u -= 30.0  # over the last row tile: outline IoU about 0.39
    readings = scene.readings(angle_degrees=angle, jitter=0.5)
    winner = readings[scene.winning_position]
    last_row_tile = readings[scene.winning_position - 1]
    overlap = outline_iou(winner.detection.quad, last_row_tile.detection.quad)
    assert WINNER_ONLY_OVERLAP_IOU < overlap < SPARE_OVERLAP_IOU
    readings[scene.winning_position] = _as_spare(winner)
    result = read_readings(readings, infer_unseen=True)
    assert same_hand(result.hand, hand)
    assert result.decoded.unseen is None
    assert any("kept a faint tile beside the hand (read 3m)" in w for w in result.warnings)


def test_a_faint_tile_over_a_row_tile_that_is_not_the_winning_one_is_that_tile_again():
    """A weak peak half over a row tile, in line with the row, read as the tile the hand lacks: taken,
    it would complete the row and leave no tile shown as the winning one. It is that row tile found
    twice, so the hand is read with its winning tile inferred instead."""
    scene, hand = _scene_hand()
    readings = scene.readings(angle_degrees=10)
    del readings[scene.winning_position]
    row_tile = next(r for r in readings if r.code == "2m")
    corners = [(x + 17 * math.cos(math.radians(10)), y + 17 * math.sin(math.radians(10)))
               for x, y in row_tile.detection.quad]
    twice = dataclasses.replace(row_tile.detection, quad=tuple(corners), box=quad_to_box(corners), score=0.4,
                                spare=True)
    assert WINNER_ONLY_OVERLAP_IOU < outline_iou(twice.quad, row_tile.detection.quad) < SPARE_OVERLAP_IOU
    result = read_readings([*readings, sure_reading(twice, "3m", 0.99)], infer_unseen=True)
    assert same_hand(result.hand, hand)
    assert result.decoded.unseen is not None and result.decoded.unseen.winning
    assert not any("kept a faint tile" in w for w in result.warnings)
