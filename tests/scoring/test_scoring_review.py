"""Findings of the second review against the seed documents, and awkward hands a player will try.

Each test names the seed text it holds the engine to. The report tests check what a player reads
at the table: the reading line, and why a hand that is not a win is not one.
"""

from __future__ import annotations

import pytest

from scoring import parse_notation, score_hand
from vision.cli import main

ALL_HONOURS = "EEE SSS WWW PPP FFF C +C @seat=N @round=E @from=E"


def items(report) -> dict[str, int]:
    return {item.id: item.value for item in report.items}


# ----------------------------------------------------------------- rule rows against the seeds


@pytest.mark.parametrize("rules", ["lrc", "dxb"])
def test_terminals_with_honours_needs_terminal_sets(rules):
    """Seed 000: "Terminals Only WITH Honors — Terminal Pongs/Sheungs + Honor tiles. Eyes = 1, 9 or
    Honors." A hand of winds and dragons only has no terminal set: it is the Pure Honor Hand (LRC
    140), "also award applicable Wind/Dragon combo points" — not a terminals hand as well."""
    report = score_hand(parse_notation(ALL_HONOURS), rules)
    assert report.valid, report.reason
    assert "terminals_with_honours" not in items(report)


@pytest.mark.parametrize("rules", ["lrc", "dxb"])
def test_terminals_with_honours_still_scores_terminal_and_honour_sets(rules):
    report = score_hand(parse_notation("111m 999p 123s EEE CCC 9s +9s @seat=S @from=W"), rules)
    assert items(report)["terminals_with_honours"] == 20


def test_lrc_pure_honour_hand_keeps_its_wind_and_dragon_combinations():
    report = score_hand(parse_notation(ALL_HONOURS), "lrc")
    found = items(report)
    assert found["all_honours"] == 140
    assert found["big_three_winds"] == 30 and found["little_three_dragons"] == 20


# ----------------------------------------------------------------- what the player reads


@pytest.mark.parametrize(("text", "rules", "label"), [
    ("1111m 22m 33p 44p 55s 66s 99p +9p @seat=S @self", "lrc", "seven pairs + a pung: "),
    ("19m 19p 19s ESWNPFC 123s +9m @seat=S", "lrc", "13 orphans: "),
    ("147m 258p 369s ESWNPFC +1m @seat=S", "lrc", "16 orphans: "),
])
def test_special_shapes_are_named_in_words(text, rules, label):
    report = score_hand(parse_notation(text), rules)
    assert report.valid, report.reason
    assert report.reading.describe().startswith(label)
    assert "_" not in report.to_text().splitlines()[1]


@pytest.mark.parametrize("rules", ["taiwan", "lrc", "allmj"])
def test_an_instant_flower_win_reads_as_one(rules):
    report = score_hand(parse_notation("123m 456m 234p 678p 555s E 1234567f +8f @seat=S"), rules)
    assert report.valid and report.reading.shape == "flowers"
    line = report.to_text().splitlines()[1]
    assert "instant win" in line and "1f 2f 3f 4f 5f 6f 7f 8f" in line
    assert "winning tile;" not in line


def test_seven_flowers_without_robbing_says_what_is_missing_under_taiwan():
    """Seed 004 scores seven flowers only with the eighth robbed (七搶一)."""
    report = score_hand(parse_notation("123m 456m 234p 678p 555s E 123456f +7f @seat=S"), "taiwan")
    assert not report.valid
    assert "robbing the eighth" in report.reason and "--robbed-eighth-flower" in report.reason


def test_robbing_the_eighth_flower_with_six_held_says_how_many_are_held():
    report = score_hand(parse_notation("123m 456m 234p 678p 555s E 123456f +7f @seat=S @rob8"), "taiwan")
    assert not report.valid
    assert "6 flowers" in report.reason and "seven" in report.reason


def test_a_special_shape_the_rule_set_lacks_is_named():
    """13 orphans is an LRC/DXB hand; under taiwan the player should learn why it is not a win."""
    report = score_hand(parse_notation("19m 19p 19s ESWNPFC 123s +9m @seat=S"), "taiwan")
    assert not report.valid
    assert "13 orphans" in report.reason and "not a hand under taiwan" in report.reason


# ----------------------------------------------------------------- bad input stays one line


def test_a_json_null_hand_is_one_bad_hand_not_a_batch(capsys, tmp_path):
    path = tmp_path / "hand.json"
    path.write_text("null\n")
    code = main(["score", "--hand", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "JSON object" in err


def test_a_kong_laid_down_for_seven_pairs_gets_a_hint():
    """Four of a kind counts as two pairs only while it stands in the hand (seed 000: "2x pairs not
    declared as Concealed Kong"); a player who writes it as a concealed kong is one tile short."""
    report = score_hand(parse_notation("(1111m) 22m 33p 44p 55s 66s 99p +9p @seat=S"), "lrc")
    assert not report.valid and "wrong tile count" in report.reason
    assert "two pairs" in report.reason and "1111m" in report.reason


def test_a_wind_pung_without_the_round_wind_warns_that_round_items_were_not_scored():
    """LRC scores "1x Pong of Winds of the Round +1": with no round wind given (R-1) the item cannot
    be scored, and the player should be told, as for the seat wind."""
    report = score_hand(parse_notation("EEE 123m 456m 234p 678p 5s +5s @seat=S @from=W"), "lrc")
    assert any("round wind not given" in w for w in report.warnings)
    given = score_hand(parse_notation("EEE 123m 456m 234p 678p 5s +5s @seat=S @round=E @from=W"), "lrc")
    assert "round_wind_pung" in items(given)
    assert not any("round wind" in w for w in given.warnings)


def test_no_round_wind_warning_where_the_rule_set_has_no_round_item():
    report = score_hand(parse_notation("EEE 123m 456m 234p 678p 5s +5s @seat=S @from=W"), "mahjongtime")
    assert not any("round wind" in w for w in report.warnings)
