"""The public scoring API: notation and JSON round trips, validity checks, the report's shape."""

import json

import pytest

from scoring import (
    Hand,
    InputError,
    Meld,
    WinContext,
    format_notation,
    hand_from_json,
    hand_to_json,
    list_rulesets,
    load_ruleset,
    parse_notation,
    score_hand,
)

DESIGN_EXAMPLE = {
    "concealed": ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"],
    "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False},
              {"kind": "kong", "tiles": ["9p", "9p", "9p", "9p"], "concealed": True}],
    "flowers": ["1f", "6f"],
    "winning_tile": "3m",
    "context": {"self_drawn": True, "seat_wind": "1z", "round_wind": "1z", "dealer": True,
                "dealer_streak": 0},
}


def test_design_md_hand_json_round_trips():
    hand = hand_from_json(DESIGN_EXAMPLE)
    assert hand.melds[1] == Meld("kong", ("9p",) * 4, True)
    assert hand.context == WinContext(self_drawn=True, seat_wind="1z", round_wind="1z", dealer=True,
                                      dealer_streak=0)
    assert hand_from_json(json.loads(json.dumps(hand_to_json(hand)))) == hand


def test_design_md_hand_scores_under_taiwan():
    report = score_hand(hand_from_json(DESIGN_EXAMPLE), "taiwan")
    assert report.valid, report.reason
    ids = {item.id for item in report.items}
    assert {"flower", "dragon_pung", "concealed_kong", "self_drawn", "closed_wait"} <= ids
    doc = report.to_json()
    assert set(doc) >= {"rules", "valid", "total", "unit", "items", "payments", "warnings"}
    assert doc["total"] == sum(item["value"] for item in doc["items"])
    assert all(set(item) >= {"id", "name", "value", "tiles"} for item in doc["items"])


def test_aliases_in_json_are_normalised():
    obj = dict(DESIGN_EXAMPLE, concealed=["一萬", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "S", "南"],
               context={"seat_wind": "east"})
    hand = hand_from_json(obj)
    assert hand.concealed.count("2z") == 2
    assert hand.context.seat_wind == "1z"


@pytest.mark.parametrize("text", [
    "123m 456m 789m 234p 5s 678s +5s @self @seat=S",
    "123m 456p 789s 3z [555z] (9999p) 16f +3z @seat=E @round=E @streak=2 @dealer=no",
    "EEE SS 東 [中中中] 梅蘭 [123m] 456m 78m +9m @from=W @table=4 @last",
    "2345678p 2345678p 11s +1s @rob",
    "1111m 2m 3m 4m 5m 6m 7m 8m 9m 9m 99m 12m +3m @ting",
])
def test_notation_round_trips(text):
    hand = parse_notation(text)
    again = parse_notation(format_notation(hand))
    assert again == hand


def test_notation_reads_melds_flowers_and_context():
    hand = parse_notation("123m 456p 789s 3z [555z] [123s] (9999p) 16f +3z @self @seat=N @streak=1")
    assert hand.melds == (Meld("pung", ("5z",) * 3), Meld("chow", ("1s", "2s", "3s")),
                          Meld("kong", ("9p",) * 4, True))
    assert hand.flowers == ("1f", "6f")
    assert hand.winning_tile == "3z" and hand.concealed.count("3z") == 2
    assert hand.context.self_drawn and hand.context.seat_wind == "4z" and hand.context.dealer_streak == 1


@pytest.mark.parametrize("text", [
    "", "123m 456p", "123m +3m +4m", "123x +1m", "[124m] 111p +1p", "(111p) +1p", "[555z +5z",
    "123m +3m @nonsense", "123m +3m @seat=Q", "123m +3m @table=many", "0m +1m",
])
def test_malformed_notation_is_an_input_error(text):
    with pytest.raises(InputError):
        parse_notation(text)


@pytest.mark.parametrize("obj", [
    [], {"concealed": "1m"}, {"concealed": ["1m"], "winning_tile": "zz"},
    {"concealed": ["1m"], "winning_tile": "1m", "melds": [{"kind": "triple", "tiles": ["1m"] * 3}]},
    {"concealed": ["1m"], "winning_tile": "1m", "context": {"seat": "E"}},
    {"concealed": ["1m"], "winning_tile": "1m", "context": {"self_drawn": "yes"}},
    {"concealed": ["1m"], "winning_tile": "1m", "context": {"tiles_on_table": -1}},
    {"concealed": ["1m"], "winning_tile": "1m", "extra": 1},
    {"concealed": ["back"], "winning_tile": "1m"},
])
def test_malformed_hand_json_is_an_input_error(obj):
    with pytest.raises(InputError):
        hand_from_json(obj)


@pytest.mark.parametrize(("text", "reason"), [
    ("123m 456m 789m 234p 678s +5s", "wrong tile count"),
    ("1111m 123m 456m 789m 55s 67s +8s", "appears 5 times"),
    ("123m 456m 789m 234p 5s 678s +6p", "not a winning hand"),
])
def test_illegal_hands_are_invalid_not_errors(text, reason):
    report = score_hand(parse_notation(text))
    assert not report.valid
    assert reason in report.reason
    assert report.to_json()["valid"] is False


def test_illegal_meld_in_json_is_invalid():
    hand = Hand(concealed=("1m", "1m"), melds=(Meld("chow", ("1m", "2m", "4m")),) * 5, winning_tile="1m")
    report = score_hand(hand)
    assert not report.valid and "illegal chow" in report.reason


def test_context_contradictions_are_invalid():
    report = score_hand(parse_notation("123m 456m 789m 234p 5s 678s +5s @self @rob"))
    assert not report.valid and "robbing a kong" in report.reason


def test_every_shipped_rule_set_loads():
    ids = [rs.id for rs in list_rulesets()]
    assert ids[0] == "taiwan"
    assert set(ids) == {"taiwan", "lrc", "dxb", "mahjongtime", "allmj", "classic"}
    for rid in ids:
        assert load_ruleset(rid).id == rid


def test_unknown_rule_set_is_an_input_error():
    with pytest.raises(InputError):
        load_ruleset("nope")


@pytest.mark.parametrize("hand", [
    Hand(concealed=("back",) * 17, winning_tile="back"),
    Hand(concealed=("1m",) * 2, melds=(Meld("kong", ("x",) * 4, True),), winning_tile="1m"),
    Hand(concealed=("1m", "1m"), flowers=("1m",), winning_tile="1m"),
    Hand(concealed=("1m", "1m"), winning_tile=""),
])
def test_hands_built_in_code_with_bad_codes_are_invalid_not_crashes(hand):
    report = score_hand(hand)
    assert not report.valid and report.reason
