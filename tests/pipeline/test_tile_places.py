"""A changed or doubted tile is named by its place in the hand, not by an internal index."""

from __future__ import annotations

import pytest
from hand_scenes import lay_out

from vision.decode import decode_hand
from vision.layout import layout_tiles
from vision.report.tile_places import tile_place
from vision.types import GroupRole

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("chow", ["2s", "3s", "4s"], False)]
FLOWERS = ["1f", "6f", "8f"]


def _places(angle: float, upside_down: bool = False):
    scene = lay_out(CONCEALED, MELDS, FLOWERS, "3m")
    readings = scene.readings(angle_degrees=angle + (180 if upside_down else 0))
    layout = layout_tiles(readings)
    return scene, readings, layout, {i: tile_place(i, layout.groups, readings, layout.winning_index)
                                     for i in range(len(readings))}


def _index(scene, code: str, role: str) -> int:
    return next(i for i, t in enumerate(scene.tiles) if t.code == code and t.role == role)


@pytest.mark.parametrize("angle", [0, 20, -30])
def test_places_are_counted_along_the_hand_from_the_left(angle):
    scene, _, layout, places = _places(angle)
    assert {g.role for g in layout.groups} == {GroupRole.CONCEALED, GroupRole.MELD, GroupRole.FLOWERS}
    assert places[0] == "standing tile 1 of 10 from the left"
    assert places[9] == "standing tile 10 of 10 from the left"
    assert places[scene.winning_position] == "the winning tile"
    assert places[_index(scene, "5z", "meld")] == "tile 1 of exposed set 1 from the left"
    assert places[_index(scene, "3s", "meld")] == "tile 2 of exposed set 2 from the left"
    assert places[_index(scene, "6f", "flower")] == "flower 2 of 3 from the left"


def test_a_hand_photographed_from_the_other_side_is_counted_from_the_picture_left():
    """Turned half round, the row's last tile is the picture's leftmost: the player reads the picture."""
    scene, _, _, places = _places(10, upside_down=True)
    assert places[9] == "standing tile 1 of 10 from the left"
    assert places[_index(scene, "6f", "flower")] == "flower 2 of 3 from the left"


def test_a_row_running_down_the_picture_is_counted_from_the_top():
    scene, _, _, places = _places(80)
    assert places[0] == "standing tile 1 of 10 from the top"
    assert places[_index(scene, "8f", "flower")] == "flower 3 of 3 from the top"


def test_a_tile_in_no_group_is_beside_the_hand():
    _, readings, layout, _ = _places(0)
    kept = [g for g in layout.groups if g.role is not GroupRole.FLOWERS]
    flower = next(i for g in layout.groups if g.role is GroupRole.FLOWERS for i in g.tile_indices)
    assert tile_place(flower, kept, readings) == "a tile beside the hand"


def test_a_corrected_tile_is_named_by_its_place_in_the_warning_and_the_json():
    scene = lay_out(CONCEALED, MELDS, FLOWERS, "3m")
    position = _index(scene, "7s", "concealed")
    readings = scene.readings(angle_degrees=15, misread={position: ("7p", 0.7)})
    decoded = decode_hand(readings, layout_tiles(readings))
    [change] = decoded.changes
    assert change.place == "standing tile 7 of 10 from the left"
    assert any(w.endswith("changed 7p -> 7s (standing tile 7 of 10 from the left)") for w in decoded.warnings)
    assert change.to_json()["place"] == "standing tile 7 of 10 from the left"
