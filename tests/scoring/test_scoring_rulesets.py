"""Rule-set files: house rule sets load without code changes; every mistake is a clear InputError."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import (
    InputError,
    TableSettings,
    list_rulesets,
    load_ruleset,
    load_table,
    parse_notation,
    score_hand,
)
from scoring.rules import RULESETS_DIR

HAND = "123m 456m 234p 678p 555s E +E @seat=S @round=E @from=W"


def _house(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_house_rule_set_is_a_copied_file_with_new_values(tmp_path):
    text = (RULESETS_DIR / "taiwan.toml").read_text(encoding="utf-8")
    text = text.replace('id = "taiwan"', 'id = "house"').replace(
        'name_zh = "獨聽"\nvalue = 2', 'name_zh = "獨聽"\nvalue = 7')
    text += '\n[[pattern]]\nid = "good_eyes"\nname = "Good eyes"\nvalue = 4\nseed = "house"\n'
    path = _house(tmp_path, text)
    base = score_hand(parse_notation(HAND), "taiwan")
    house = score_hand(parse_notation(HAND), str(path))
    assert house.rules == "house"
    assert {i.id: i.value for i in house.items}["single_wait"] == 7
    assert house.total == base.total + 5
    hand = parse_notation("123m 456m 234p 678p 555s 5p +5p @seat=S @round=E @from=W")
    assert "good_eyes" in {i.id for i in score_hand(hand, str(path)).items}


TOP = 'id = "x"\nname = "X"\n'
ROW = '[[pattern]]\nid = "always"\nname = "A"\nvalue = 1\n'


@pytest.mark.parametrize(("text", "message"), [
    (TOP, "no [[pattern]] rows"),
    (TOP + '[[pattern]]\nid = "a"\nname = "A"\nvalue = 1\ndetector = "nope"\n', "unknown detector"),
    (TOP + ROW + 'supersedes = ["b"]\n', "supersedes unknown pattern"),
    (TOP + ROW + 'when = "opt"\n', "not declared"),
    (TOP + ROW + ROW, "defined twice"),
    (TOP + "hand_tiles = 14\n" + ROW, "hand_tiles"),
    (TOP + ROW + 'colour = "red"\n', "unknown key"),
    (TOP + '[payments]\ndiscard = "nobody"\n' + ROW, "[payments]"),
    (TOP + ROW + 'value = "ten"\n', "value"),
    ("id = = x", "not valid TOML"),
])
def test_broken_rule_files_are_input_errors(tmp_path, text, message):
    with pytest.raises(InputError) as caught:
        load_ruleset(str(_house(tmp_path, text)))
    assert message in str(caught.value) and "house.toml" in str(caught.value)


def test_missing_rule_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_ruleset(str(tmp_path / "missing.toml"))


@pytest.mark.parametrize("ruleset", list_rulesets(), ids=lambda rs: rs.id)
def test_shipped_rule_sets_are_complete(ruleset):
    """Every row cites its seed row, has a Chinese name where the 16-tile seeds give one, and
    every option is used by some row or by the engine."""
    assert ruleset.source and ruleset.unit
    for row in ruleset.patterns:
        assert row.seed, f"{ruleset.id}:{row.id} does not cite its seed row"
    used = {row.when for row in ruleset.patterns} | {row.unless for row in ruleset.patterns}
    used |= {opt for row in ruleset.patterns for opt, _ in row.supersedes_if}
    used |= {v[7:] for row in ruleset.patterns for v in row.params.values()
             if isinstance(v, str) and v.startswith("option:")}
    engine_options = {"open_kong_counts_concealed", "exposed_kong_keeps_concealed", "flower_win_takes_base",
                      "edge_wait_counts_as_closed"}
    assert set(ruleset.options) <= used | engine_options


def test_table_file_rejects_mistakes(tmp_path):
    path = tmp_path / "table.toml"
    for text, message in [("minimum_points = -1", "whole number"), ('ting = "yes"', "true or false"),
                          ("[context]\nseat = 'E'", "unknown context key"), ("limit = 1.5", "whole number")]:
        path.write_text(text)
        with pytest.raises(InputError, match=message):
            load_table(path)


def test_table_minimum_by_round_and_house_options(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('rules = "dxb"\nminimum_points = { E = 22, S = 22, W = 240, N = 26 }\n'
                    '[options]\nstep_up_needs_three_suits = true\n')
    table = load_table(path)
    assert table.minimum_for("3z") == 240
    hand = parse_notation("123m 234m 345m 789p 789s E +E @seat=S @round=W @from=E")
    report = score_hand(hand, "dxb", table)
    assert "step_up_chows" not in {i.id for i in report.items}
    assert any("minimum of 240" in w for w in report.warnings)
    report = score_hand(hand, "dxb")
    assert "step_up_chows" in {i.id for i in report.items}


def test_unknown_house_option_is_a_warning_not_a_crash():
    report = score_hand(parse_notation(HAND), "taiwan", TableSettings(options={"made_up": True}))
    assert report.valid and any("made_up" in w for w in report.warnings)
