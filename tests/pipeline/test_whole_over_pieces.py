"""A tile split into pieces at the detector's input is taken whole from a coarser look."""

from __future__ import annotations

from vision.repairs.whole_over_pieces import holds_pieces, whole_over_pieces, worth_coarser
from vision.types import Detection


def _box(x1: float, y1: float, x2: float, y2: float, score: float = 0.9, spare: bool = False) -> Detection:
    return Detection(box=(x1, y1, x2, y2), score=score, spare=spare)


def test_a_numeral_and_its_character_found_apart_are_replaced_by_the_coarse_whole_tile() -> None:
    row = [_box(0, 0, 70, 100), _box(75, 0, 145, 100)]
    pieces = [_box(150, 0, 220, 45, 0.8), _box(150, 48, 220, 100, 0.7)]
    whole = _box(148, -2, 222, 101, 0.95)
    coarse = [_box(1, 1, 69, 99), _box(76, 1, 144, 99), whole]
    out = whole_over_pieces(row + pieces, coarse)
    assert out == row + [whole]


def test_tiles_found_whole_stay_as_the_first_look_found_them() -> None:
    first = [_box(0, 0, 70, 100), _box(75, 0, 145, 100), _box(150, 0, 220, 100)]
    coarse = [_box(2, 2, 68, 98), _box(77, 1, 143, 99), _box(151, 2, 219, 99)]
    assert whole_over_pieces(first, coarse) == first


def test_a_coarse_box_much_larger_than_its_pieces_or_a_weak_one_replaces_nothing() -> None:
    pieces = [_box(0, 0, 70, 45), _box(0, 48, 70, 100)]
    blob = _box(0, 0, 145, 210)  # four tiles run together: over 1.4 times the pieces' extent
    spare = _box(-2, -2, 72, 101, 0.4, spare=True)
    assert whole_over_pieces(pieces, [blob, spare]) == pieces


def test_only_a_first_look_of_tiles_large_at_the_input_is_looked_at_coarser() -> None:
    large = [_box(0, 0, 70, 100), _box(75, 0, 145, 100)]  # 100 px of 640 is 80 px at 512
    small = [_box(0, 0, 21, 30), _box(22, 0, 43, 30)]  # 24 px at 512
    assert worth_coarser(large, (640, 480), 512)
    assert not worth_coarser(small, (640, 480), 512)
    assert not worth_coarser(large[:1], (640, 480), 512)
    assert not worth_coarser(large, (640, 480), 384)


def test_a_look_holding_two_first_look_detections_in_one_tile_is_a_sign_of_pieces() -> None:
    row = [_box(0, 0, 70, 100), _box(75, 0, 145, 100)]
    pieces = [_box(150, 0, 220, 45), _box(150, 48, 220, 100)]
    probe_whole = [_box(2, 2, 68, 98), _box(148, 0, 222, 100)]
    assert holds_pieces(row + pieces, probe_whole)
    assert not holds_pieces(row, [_box(2, 2, 68, 98), _box(77, 1, 143, 99)])
    assert not holds_pieces(row, [_box(-5, -3, 150, 103)])  # two neighbours taken for one tile
