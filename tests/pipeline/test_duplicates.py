"""The photo pipeline's duplicate suppression: one tile found twice is kept once, neighbours stay."""

from __future__ import annotations

from vision.repairs.duplicates import merge_duplicates
from vision.types import Detection


def test_a_tile_found_twice_keeps_the_stronger_box_and_touching_neighbours_stay():
    tile = Detection((0, 0, 10, 14), 0.9)
    inside = Detection((1, 1, 9, 13), 0.95)  # a smaller box inside it, more confident
    neighbour = Detection((9, 0, 19, 14), 0.8)  # touches, overlaps by a sliver
    shifted = Detection((3, 0, 13, 14), 0.7)  # covers 75% of the kept inner box
    kept = merge_duplicates([tile, inside, neighbour, shifted])
    assert kept == [inside, neighbour]


def _upright(x1: float, y1: float, x2: float, y2: float, score: float) -> Detection:
    """An upright tile with its face outline (corners top-left, top-right, bottom-right, bottom-left)."""
    quad = ((x1, y1), (x2, y1), (x2, y2), (x1, y2))
    return Detection((x1, y1, x2, y2), score, quad=quad)


def test_a_tile_split_in_two_halves_is_merged_whole_and_its_neighbours_stay():
    """A 4s's two columns of sticks found as two narrow tiles: one detection covering both again."""
    left_half = _upright(0, 0, 18, 40, 0.8)
    right_half = _upright(12, 0, 30, 40, 0.6)  # overlaps the left half a little (outline IoU 0.2)
    neighbour = _upright(30.5, 0, 60, 40, 0.9)  # touches the merged tile, does not overlap
    kept = merge_duplicates([left_half, right_half, neighbour])
    assert len(kept) == 2
    merged = next(d for d in kept if d is not neighbour)
    assert merged.box == (0, 0, 30, 40)
    assert merged.score == 0.8
    assert merged.quad is not None
    corners = [tuple(round(v, 6) for v in corner) for corner in merged.quad]
    assert corners == [(0, 0), (30, 0), (30, 40), (0, 40)]


def test_neighbours_with_slightly_overlapping_outlines_are_two_tiles():
    """Predicted outlines of touching tiles overlap by a sliver; that must not merge them."""
    first = _upright(0, 0, 32, 40, 0.9)
    second = _upright(29, 0, 61, 40, 0.9)  # 3 px of overlap: IoU 0.05
    assert len(merge_duplicates([first, second])) == 2


def _sideways(x1: float, y1: float, x2: float, y2: float, score: float) -> Detection:
    """A tile lying across: its face's up axis points along the image x axis (corner 0 bottom-left)."""
    quad = ((x1, y2), (x1, y1), (x2, y1), (x2, y2))
    return Detection((x1, y1, x2, y2), score, quad=quad, rotated=True)


def test_a_tile_laid_across_in_front_of_a_standing_one_is_a_second_tile():
    """A winning tile laid flat before its row hides the foot of the standing tile behind it; the
    standing tile's predicted outline runs down over it (outline IoU above the twin threshold)."""
    standing = _upright(0, 0, 30, 60, 0.7)
    in_front = _sideways(4, 30, 60, 64, 0.6)  # outline IoU 0.27; centre 0.8 face widths off
    kept = merge_duplicates([standing, in_front])
    assert kept == [standing, in_front]


def test_a_tile_found_upright_and_sideways_on_one_face_is_one_tile():
    """The same face found twice, once with each axis: the centres nearly coincide, so one tile."""
    upright = _upright(0, 0, 40, 50, 0.8)
    sideways = _sideways(2, 4, 42, 52, 0.6)
    assert len(merge_duplicates([upright, sideways])) == 1


def test_half_of_a_sideways_face_found_upright_inside_it_is_one_tile():
    """A sideways 4p found whole and, a second time, as one upright half read 2p (render 910123):
    the half lies across the whole with its centre off it, as a tile laid in front would, but it
    lies almost wholly inside the sideways outline, so it is part of that face."""
    whole = _sideways(0, 0, 80, 50, 0.65)
    half = _upright(42, 2, 78, 48, 0.59)  # all of it inside the whole; centre 0.5 face widths off
    assert merge_duplicates([whole, half]) == [whole]
