"""The photo pipeline's duplicate suppression: one tile found twice is kept once, neighbours stay."""

from __future__ import annotations

from vision.pipeline import suppress_duplicates
from vision.types import Detection


def test_a_tile_found_twice_keeps_the_stronger_box_and_touching_neighbours_stay():
    tile = Detection((0, 0, 10, 14), 0.9)
    inside = Detection((1, 1, 9, 13), 0.95)  # a smaller box inside it, more confident
    neighbour = Detection((9, 0, 19, 14), 0.8)  # touches, overlaps by a sliver
    shifted = Detection((3, 0, 13, 14), 0.7)  # covers 75% of the kept inner box
    kept = suppress_duplicates([tile, inside, neighbour, shifted])
    assert kept == [inside, neighbour]
