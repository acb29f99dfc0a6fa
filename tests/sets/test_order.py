"""Which code each tile of a set photo gets: rows found across their direction, the order either way."""

from __future__ import annotations

import pytest

from scoring.errors import InputError
from vision.sets.order import SET_ORDER, OrderError, assign_rows, assign_set_order, group_rows, parse_rows
from vision.types import Detection


def _grid(lengths: list[int], slant: float = 0.0, row_pitch: float = 60.0) -> list[Detection]:
    """Tiles 30x40 in rows of ``lengths`` (top row first), the rows sloping ``slant`` px per px."""
    tiles = []
    for row, length in enumerate(lengths):
        for position in range(length):
            x = 20 + position * 33.0
            y = 30 + row * row_pitch + slant * x
            tiles.append(Detection(box=(x, y, x + 30, y + 40), score=0.9))
    return tiles


def test_rows_are_found_top_down_and_read_left_to_right_even_shuffled_and_sloping() -> None:
    tiles = _grid([9, 9, 9, 7, 8], slant=0.08)
    order = list(range(len(tiles)))[::-1]
    rows = group_rows([tiles[i] for i in order])
    assert [len(row) for row in rows] == [9, 9, 9, 7, 8]
    found = [order[i] for row in rows for i in row]
    assert found == list(range(len(tiles)))


def test_the_documented_order_runs_forwards_or_backwards_by_what_the_tiles_read() -> None:
    tiles = _grid([14, 14, 14])
    truth = list(SET_ORDER)
    placed, backwards = assign_set_order(tiles, [[code] for code in truth])
    assert not backwards and [p.code for p in placed] == truth
    placed, backwards = assign_set_order(tiles, [[code] for code in truth[::-1]])
    assert backwards and [p.code for p in placed] == truth[::-1]


def test_a_missing_tile_or_tiles_not_in_the_order_are_refused_with_the_reason() -> None:
    tiles = _grid([9, 9, 9, 7, 8])
    with pytest.raises(OrderError, match="found 41 tiles.*1 missing"):
        assign_set_order(tiles[:-1], [["1m"]] * 41)
    with pytest.raises(OrderError, match="only 0 of 42 agree"):
        assign_set_order(tiles, [["back"]] * 42)


def test_two_rows_merged_are_refused() -> None:
    tiles = _grid([9, 9], row_pitch=8.0)  # the second row lies almost on the first
    with pytest.raises(OrderError, match="two rows merged"):
        assign_rows(tiles, parse_rows(["123456789m", "123456789p"]))


def test_rows_given_must_match_the_rows_found() -> None:
    tiles = _grid([3, 2])
    placed = assign_rows(tiles, parse_rows(["1m9p5z", "5f5f"]))
    assert [p.code for p in placed] == ["1m", "9p", "5z", "5f", "5f"]
    with pytest.raises(OrderError, match="row 2: found 2 tiles, --rows gives 3"):
        assign_rows(tiles, parse_rows(["1m9p5z", "123f"]))
    with pytest.raises(OrderError, match="found 2 rows of tiles, --rows gives 3"):
        assign_rows(tiles, parse_rows(["123m", "45m", "6m"]))


@pytest.mark.parametrize("text", ["123", "m", "12x", "0z9", "9z"])
def test_bad_rows_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(InputError, match="--rows row 1"):
        parse_rows([text])
