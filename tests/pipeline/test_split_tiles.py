"""Two slivers side by side that are one tile's halves become one detection; real tiles stay."""

from __future__ import annotations

from vision.repairs.split_tiles import join_split_tiles
from vision.types import Detection


def _upright(x1: float, y1: float, x2: float, y2: float, score: float = 0.9) -> Detection:
    """An upright tile with its face outline (corners top-left, top-right, bottom-right, bottom-left)."""
    quad = ((x1, y1), (x2, y1), (x2, y2), (x1, y2))
    return Detection((x1, y1, x2, y2), score, quad=quad)


ROW = [_upright(31 * k, 0, 31 * k + 30, 40) for k in range(5)]


def test_the_two_halves_of_a_4s_between_its_neighbours_are_one_tile_again():
    """Each column of sticks found as a tile of its own, the two sharing the face's middle."""
    left, right = _upright(155, 0, 171, 40, 0.7), _upright(168, 1, 185, 40, 0.6)
    joined = join_split_tiles([*ROW, left, right])
    assert len(joined) == len(ROW) + 1
    whole = joined[-1]
    assert whole.score == 0.7
    assert [round(v) for v in whole.box] == [155, 0, 185, 40]


def test_two_narrow_tiles_that_together_are_too_wide_are_left_alone():
    left, right = _upright(155, 0, 173, 40, 0.7), _upright(174, 0, 196, 40, 0.6)  # 41: a tile and a third
    narrow = [_upright(155, 0, 170, 40, 0.7), _upright(200, 0, 215, 40, 0.6)]  # far apart
    assert join_split_tiles([*ROW, left, right]) == [*ROW, left, right]
    assert join_split_tiles([*ROW, *narrow]) == [*ROW, *narrow]


def test_two_slivers_with_no_whole_tile_beside_them_in_a_row_are_left_alone():
    """Two tiles seen edge-on side by side in a pile, away from the row: no neighbour lies level
    with them, so they are not taken for the halves of one tile."""
    left, right = _upright(155, 200, 171, 240, 0.7), _upright(168, 201, 185, 240, 0.6)
    assert join_split_tiles([*ROW, left, right]) == [*ROW, left, right]


def test_standing_tiles_beside_wider_flat_faces_are_not_slivers():
    """Faces of a standing row (tall) next to many flat tiles seen from above (wide, shorter): each
    is judged against the tiles seen like it, so two standing faces are not taken for one tile."""
    flat = [_upright(40 * k, 100, 40 * k + 38, 130) for k in range(8)]
    standing = [_upright(24 * k, 0, 24 * k + 23, 45) for k in range(3)]
    detections = [*flat, *standing]
    assert join_split_tiles(detections) == detections


def test_sideways_and_outline_less_detections_are_left_alone():
    sideways = [Detection(d.box, d.score, rotated=True, quad=d.quad) for d in ROW]
    boxes_only = [Detection(d.box, d.score) for d in ROW]
    halves = [_upright(155, 0, 171, 40), _upright(168, 1, 185, 40)]
    assert join_split_tiles([*sideways, *halves]) == [*sideways, *halves]
    assert join_split_tiles([*boxes_only, *halves]) == [*boxes_only, *halves]
