"""``--fix READ=TRUE``: the player corrects a misread tile and the hand is read again (real decoder and
scorer on readings made from known hands; one held-out render through the real models and CLI)."""

from __future__ import annotations

import json

import pytest
from hand_scenes import lay_out

from scoring.errors import InputError
from vision.decode import UnbelievedReadingError
from vision.named_tiles import NamedTiles, named_tiles
from vision.pipeline import read_readings
from vision.tile_fixes import parse_fix

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]
CONTEXT = {"self_drawn": False, "seat_wind": "3z", "round_wind": "1z", "dealer": False}


def _read(misread: dict[int, tuple[str, float]], concealed: list[str] = CONCEALED, *fixes: str):
    scene = lay_out(concealed, MELDS, [], "3m")
    readings = scene.readings(angle_degrees=15, misread=misread)
    return read_readings(readings, context=CONTEXT, named=named_tiles(fixes=list(fixes)))


def test_a_fix_is_parsed_from_codes_or_aliases():
    assert parse_fix("7z=1m") == ("7z", "1m")
    assert parse_fix("中=一萬") == ("7z", "1m")
    assert parse_fix("back=5p") == ("back", "5p")


@pytest.mark.parametrize("text, reason", [
    ("7z", "write what the photo read and what the tile is"),
    ("=1m", "write what the photo read and what the tile is"),
    ("7z=", "write what the photo read and what the tile is"),
    ("7z=9x", "unknown tile code '9x'"),
    ("1m=1m", "is read as 1m already"),
])
def test_a_malformed_fix_is_refused_in_one_line(text, reason):
    with pytest.raises(InputError, match=reason) as caught:
        named_tiles(fixes=[text])
    assert "\n" not in str(caught.value)


def test_a_sure_misread_is_refused_with_the_fix_that_would_read_it():
    # The 6s (position 5) read as 9m, sure: the one legal hand needs a change too unlikely to make.
    with pytest.raises(UnbelievedReadingError, match=r"say it: --fix 9m=6s") as caught:
        _read({5: ("9m", 0.99999)})
    assert caught.value.fixes == (("9m", "6s"),)


def test_the_fix_reads_the_hand_as_the_player_says():
    result = _read({5: ("9m", 0.99999)}, CONCEALED, "9m=6s")
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "3m"])
    assert not result.decoded.changes
    assert "a tile read 9m is taken as 6s, as --fix says" in result.warnings


def test_of_several_tiles_read_alike_the_fix_takes_the_one_that_makes_a_hand():
    # The middle 5z of the exposed pung (position 12) read as 2z, sure, beside the concealed pair of
    # 2z: three tiles show 2z, and only the pung's one read 5z makes a legal hand.
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    readings = scene.readings(angle_degrees=15, misread={12: ("2z", 0.99999)})
    assert [reading.code for reading in readings].count("2z") == 3
    with pytest.raises(InputError):
        read_readings(readings, context=CONTEXT)
    result = read_readings(readings, context=CONTEXT, named=named_tiles(fixes=["2z=5z"]))
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "3m"])
    assert {"kind": "pung", "tiles": ["5z"] * 3, "concealed": False} in result.hand["melds"]
    fixed = [index for index, reading in enumerate(result.readings) if reading.candidates == (("5z", 1.0),)]
    assert fixed == [12]


def test_a_fix_no_tile_answers_to_is_reported_unused_and_changes_nothing():
    plain = _read({})
    result = _read({}, CONCEALED, "3z=1m")
    assert result.hand == plain.hand
    assert "--fix 3z=1m not used: no tile of the hand is read as 3z" in result.warnings


def test_a_fix_with_which_no_winning_hand_reads_is_dropped_and_the_photo_read_as_it_was():
    plain = _read({})
    result = _read({}, CONCEALED, "2z=9p")
    assert result.hand == plain.hand
    assert ("--fix 2z=9p not used: no winning hand reads with it (one reads without it)"
            in result.warnings)


def test_fixes_are_kept_with_the_other_named_tiles():
    named = named_tiles(["5z"], "3m", ["7z=1m", "2f=6f"])
    assert named == NamedTiles(("5z",), "3m", (("7z", "1m"), ("2f", "6f")))


def test_the_cli_reads_a_refused_render_once_the_player_fixes_its_misread_tiles(tmp_path, capsys):
    """Held-out render 930054 (``--render 100 --seed 930000``): two of the three 1z standing with
    the winning 1z are read 2z; the photo is refused with the two fixes named, and with them it
    reads exactly as laid out."""
    from heldout_renders import held_out_render

    from vision.cli import main

    path, record = held_out_render(930054, tmp_path)
    assert main(["photo", str(path)]) == 2
    assert "--fix 2z=1z --fix 2z=1z" in capsys.readouterr().err
    assert main(["photo", str(path), "--json"]) == 2  # a tool gets the fixes as data
    assert json.loads(capsys.readouterr().out)["suggested_fixes"] == ["2z=1z", "2z=1z"]
    assert main(["photo", str(path), "--json", "--fix", "2z=1z", "--fix", "2z=1z"]) == 0
    hand = json.loads(capsys.readouterr().out)["hand"]
    truth = record.hand
    assert sorted(hand["concealed"]) == sorted(truth["concealed"])
    assert hand["winning_tile"] == truth["winning_tile"] == "1z"
    assert sorted(hand["flowers"]) == sorted(truth["flowers"])
    def sets(melds):
        return sorted(tuple(meld["tiles"]) for meld in melds)

    assert sets(hand["melds"]) == sets(truth["melds"])


def test_two_fixes_of_one_misread_code_take_two_tiles():
    # The 6s and 7s of the concealed 678s both read 9m, sure: one fix each, never the same tile twice.
    result = _read({5: ("9m", 0.99999), 6: ("9m", 0.99999)}, CONCEALED, "9m=6s", "9m=7s")
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "3m"])
    assert sum("as --fix says" in warning for warning in result.warnings) == 2


def test_a_hand_no_reading_makes_legal_points_to_the_fix():
    # Two tiles misread into faces whose alternatives hold no legal hand: refused, with the way on.
    misread = {5: ("9m", 0.99999), 0: ("7z", 0.99999)}
    with pytest.raises(InputError, match=r"--annotate shows each tile as read, --fix READ=TRUE corrects one"):
        _read(misread)
    result = _read(misread, CONCEALED, "9m=6s", "7z=1m")
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "3m"])


def test_a_reading_that_changes_more_than_three_tiles_is_refused_with_its_fixes():
    # Each misread likely enough to change on its own (the truth at 32%), but four at once is a guess.
    three = {2: ("8p", 0.6), 5: ("9m", 0.6), 6: ("9s", 0.6)}
    assert sorted(_read(three).hand["concealed"]) == sorted([*CONCEALED, "3m"])
    four = {**three, 8: ("1z", 0.6)}
    with pytest.raises(InputError, match=r"reads 4 tiles otherwise than the classifier, too many") as caught:
        _read(four)
    assert "say it: --fix 8p=4p --fix 9m=6s --fix 9s=7s --fix 1z=2z" in str(caught.value)
    fixed = _read(four, CONCEALED, "8p=4p", "9m=6s", "9s=7s", "1z=2z")
    assert sorted(fixed.hand["concealed"]) == sorted([*CONCEALED, "3m"])
