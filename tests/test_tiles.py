"""Tile codes and aliases: the vocabulary every other module relies on."""

import pytest

from scoring import tiles
from scoring.errors import InputError


def test_there_are_42_faces_and_34_set_tiles():
    assert len(tiles.FACE_CODES) == 42
    assert len(tiles.SET_TILE_CODES) == 34
    assert len(tiles.VISION_CODES) == 43


@pytest.mark.parametrize(
    ("alias", "code"),
    [("E", "1z"), ("東", "1z"), ("中", "7z"), ("發", "6z"), ("白", "5z"), ("梅", "1f"), ("冬", "8f"),
     ("一萬", "1m"), ("9筒", "9p"), (" 5s ", "5s"), ("north", "4z")],
)
def test_aliases_resolve_to_canonical_codes(alias, code):
    assert tiles.normalize_code(alias) == code


@pytest.mark.parametrize("bad", ["0m", "10p", "8z", "9f", "", "xx"])
def test_unknown_codes_are_input_errors(bad):
    with pytest.raises(InputError):
        tiles.normalize_code(bad)


def test_back_is_only_accepted_when_asked():
    with pytest.raises(InputError):
        tiles.normalize_code("back")
    assert tiles.normalize_code("back", allow_back=True) == "back"


def test_flower_n_and_season_n_plus_4_belong_to_seat_n():
    assert [tiles.flower_seat(f"{n}f") for n in range(1, 9)] == [1, 2, 3, 4, 1, 2, 3, 4]


def test_sort_order_is_suits_then_honours_then_flowers():
    assert tiles.sorted_codes(["1f", "7z", "1s", "1p", "1m"]) == ["1m", "1p", "1s", "7z", "1f"]
