"""The seeds' worked examples, the supersessions they state, and the rulings each rule set settles."""

from __future__ import annotations

import pytest

from scoring import TableSettings, parse_notation, score_hand


def score(text: str, rules: str = "taiwan", **table):
    report = score_hand(parse_notation(text), rules, TableSettings(rules=rules, **table) if table else None)
    assert report.valid, report.reason
    return report


def items(report) -> dict[str, int]:
    return {item.id: item.value for item in report.items}


# ----------------------------------------------------------------- worked examples


def test_seed_001_worked_example_is_16_tai():
    """North wins in the South round on East's discard: Winning 2, Melded Kong 1, Honor pung 1,
    Pung hand 10, Out on a pair 1, and No Flowers 1 (R-2) = 16; East alone pays 16."""
    report = score("555s E [1111m] [222p] [888s] [WWW] +E @seat=N @round=S @from=E", "mahjongtime")
    assert items(report) == {"winning": 2, "no_flowers": 1, "exposed_kong": 1, "honour_pung": 1,
                             "all_pungs": 10, "out_on_pair": 1}
    assert report.total == 16
    assert [(p.payer, p.payee, p.amount) for p in report.payments] == [("1z", "4z", 16)]


def test_lrc_chicken_hand_is_25():
    """A hand worth only 1 point before the base becomes Chicken Hand 20 + Base 5 = 25."""
    report = score("[123m] 56p 345s 999m 678s SS 3f +7p @seat=S @round=E @from=W", "lrc")
    assert items(report) == {"chicken_hand": 20, "base": 5}
    assert report.total == 25


def test_taiwan_dealer_on_streak_two_who_deals_in_pays_five_more():
    """Seed 004: "a dealer who won twice but loses afterwards will need to pay 1 + (2*2) = 5 tai"."""
    report = score("123m 456m 234p 678p 555s E +E @seat=S @round=E @from=E @streak=2")
    lines = [(p.payer, p.amount) for p in report.payments]
    assert lines == [("1z", report.total), ("1z", 5)]


def test_taiwan_self_draw_every_loser_pays_and_the_dealer_adds_the_dealer_tai():
    report = score("123m 456m 234p 678p 555s E +E @seat=S @round=E @self @streak=1")
    lines = sorted((p.payer, p.amount) for p in report.payments)
    assert lines == sorted([("1z", report.total), ("3z", report.total), ("4z", report.total), ("1z", 3)])


@pytest.mark.parametrize(("die", "bonus"), [(1, 3), (2, 5), (3, 7), (4, 9), (5, 11)])
def test_lrc_dice_on_the_wall(die, bonus):
    """LRC: die n pays 2n+1 on top of the dealer tile 1, from every payer of the dealer's win."""
    report = score(f"123m 456m 234p 678p 555s E +E @seat=E @round=E @from=S @streak={die}", "lrc")
    adders = [p.amount for p in report.payments if "dealer" in p.note]
    assert adders == [1 + bonus]


def test_dxb_dice_cap_from_the_table():
    report = score("123m 456m 234p 678p 555s E +E @seat=E @round=E @from=S @streak=9", "dxb", dice_cap=6)
    assert [p.amount for p in report.payments if "dealer" in p.note] == [13]


def test_classic_points_times_doubles():
    """Seed 002: (20 + exposed dragon pung 4) x 2 (dragon double) = 48; each loser's line shows it."""
    report = score("[CCC] 123p 456p 789s 2s +2s @seat=S @round=E @from=W", "classic")
    assert report.total == 48
    assert items(report) == {"mahjong": 20, "pung_dragons_exposed": 4, "dragon_pung_double": 24}
    assert len(report.payments) == 3


def test_classic_one_suit_is_eight_times():
    report = score("123m 456m 789m 234m 5m +5m @seat=S @round=E @from=W", "classic")
    assert report.total == 20 * 8


# ----------------------------------------------------------------- supersessions the seeds state


@pytest.mark.parametrize("rules", ["taiwan", "mahjongtime", "allmj", "lrc", "dxb"])
def test_concealed_self_draw_replaces_concealed_and_self_draw(rules):
    ids = items(score("123m 456m 234p 678p 555s E +E @self @seat=S @round=E", rules))
    combined = {"taiwan": "concealed_self_drawn", "mahjongtime": "fully_concealed",
                "allmj": "pure_self_touch", "lrc": "concealed_self_drawn",
                "dxb": "concealed_self_drawn"}[rules]
    assert combined in ids
    assert not {"concealed_hand", "pure_hand", "self_drawn", "self_touch"} & set(ids)


@pytest.mark.parametrize(("rules", "value"), [("lrc", 15), ("dxb", 15), ("taiwan", 10), ("mahjongtime", 10)])
def test_no_flower_no_honour_tiers_are_exclusive(rules, value):
    """One tier only, highest wins (15 > 5 > 1 + 1)."""
    ids = items(score("123m 456m 234p 678p 345s 7s +7s @seat=S @round=E @from=W", rules))
    assert ids["all_chows_no_flowers_no_honours"] == value
    assert not {"no_flowers", "no_honours", "no_flowers_no_honours", "all_chows"} & set(ids)
    ids = items(score("123m 456m 234p 678p 555s 9s +9s @seat=S @round=E @from=W", rules))
    assert "no_flowers_no_honours" in ids and not {"no_flowers", "no_honours"} & set(ids)


@pytest.mark.parametrize("rules", ["taiwan", "lrc", "dxb", "mahjongtime", "allmj"])
def test_concealed_pung_tiers_are_exclusive(rules):
    ids = items(score("111m 999p 555s 777m 333s E +E @self @seat=S @round=E", rules))
    pung_tiers = {k for k in ids if k.endswith("concealed_pungs")}
    assert pung_tiers == {"five_concealed_pungs"}


def test_dxb_five_concealed_pungs_no_kong_no_self_draw_replaces_the_80():
    ids = items(score("111m 999p 555s 777m 333s E +E @seat=S @round=E @from=W", "dxb"))
    assert ids["five_concealed_pungs_strict"] == 100 and "five_concealed_pungs" not in ids


def test_dxb_two_suits_no_flowers_replaces_two_suits_and_the_tiers():
    ids = items(score("123m 456m 789m 234p 678p 5p +5p @seat=S @round=E @from=W", "dxb"))
    assert ids["two_suits_no_flowers"] == 15
    assert not {"two_suits", "no_flowers", "no_honours", "no_flowers_no_honours"} & set(ids)


def test_lrc_flower_wall_draw_replaces_plain_self_draw_and_stacks_with_concealed():
    """A-LRC-3: replacement 5 instead of self-draw 1, plus concealed self-draw 10."""
    ids = items(score("[123m] 456m 234p 678p 555s E +E @self @replacement @seat=S @round=E", "lrc"))
    assert ids["replacement_win"] == 5 and "self_drawn" not in ids
    ids = items(score("123m 456m 234p 678p 555s E +E @self @replacement @seat=S @round=E", "lrc"))
    assert ids["replacement_win"] == 5 and ids["concealed_self_drawn"] == 10


@pytest.mark.parametrize(("count", "expected"), [
    (3, "human_hand"), (4, "human_hand"), (5, "win_within_7"), (7, "win_within_7"), (8, "win_within_10"),
    (10, "win_within_10")])
def test_lrc_early_win_tiers_are_exclusive(count, expected):
    ids = items(score(f"123m 456m 234p 678p 555s E +E @table={count} @seat=S @round=E @from=W", "lrc"))
    tiers = {"human_hand", "win_within_7", "win_within_10"} & set(ids)
    assert tiers == {expected}


def test_early_win_needs_the_count_of_tiles_on_the_table():
    """R-1: no count given, no early-win item (never default the count to 0)."""
    ids = items(score("123m 456m 234p 678p 555s E +E @seat=S @round=E @from=W"))
    assert not any(k.startswith("win_within") for k in ids)


def test_mahjongtime_exposed_hand_implies_out_on_a_pair():
    ids = items(score("[123m] [456p] [789s] [222s] [567p] 5s +5s @seat=S @round=E @from=W", "mahjongtime"))
    assert "exposed_hand" in ids and "out_on_pair" not in ids


@pytest.mark.parametrize("rules", ["lrc", "dxb", "taiwan"])
def test_fully_exposed_stacks_with_single_wait(rules):
    """R-4: in LRC, DXB and taiwan the all-exposed item and the single wait both count."""
    ids = items(score("[123m] [456p] [789s] [222s] [567p] 5s +5s @seat=S @round=E @from=W", rules))
    exposed = {"lrc": "fully_exposed", "dxb": "fully_exposed", "taiwan": "all_exposed"}[rules]
    single = {"lrc": "true_single_wait", "dxb": "true_single_wait", "taiwan": "single_wait"}[rules]
    assert exposed in ids and single in ids


def test_mahjongtime_last_wall_tile_does_not_imply_self_drawn():
    ids = items(score("[123m] 456m 234p 678p 555s E +E @self @last @seat=S @round=E", "mahjongtime"))
    assert "last_wall_tile" in ids and "self_drawn" in ids


def test_neighbours_hand_replaces_five_sequential_pongs():
    ids = items(score("[111m] [222m] [333m] [444m] [555m] E +E @seat=S @round=E @from=W", "lrc"))
    assert ids["neighbours_hand"] == 80 and "consecutive_pungs_5" not in ids


@pytest.mark.parametrize("rules", ["taiwan", "lrc", "mahjongtime", "allmj"])
def test_big_winds_replace_little_winds(rules):
    ids = items(score("EEE SSS WWW NNN 123m 5p +5p @seat=S @round=E @from=W", rules))
    assert not {"little_four_winds", "big_three_winds", "little_three_winds", "lesser_four_winds"} & set(ids)
    assert {"big_four_winds", "greater_four_winds"} & set(ids)


def test_taiwan_honour_hands_stack_with_pung_items_unless_switched():
    """A-S4-5: stacked by default; the option makes Big Three Dragons replace the dragon pungs."""
    hand = "PPP FFF CCC 123m 456m 5p +5p @seat=S @round=E @from=W"
    assert items(score(hand))["dragon_pung"] == 3
    ids = items(score(hand, options={"honour_hands_replace_pungs": True}))
    assert "dragon_pung" not in ids and ids["big_three_dragons"] == 30


def test_taiwan_seat_and_round_wind_option():
    """R-14: any wind pung 1 each; the option scores only seat 1 + round 1."""
    hand = "EEE WWW 123m 456m 234p 5s +5s @seat=E @round=E @from=S"
    assert items(score(hand))["wind_pung"] == 2
    ids = items(score(hand, options={"seat_round_winds_only": True}))
    assert ids == {**ids, "seat_wind_pung": 1, "round_wind_pung": 1} and "wind_pung" not in ids


# ----------------------------------------------------------------- special hands and R-n rulings


def test_lrc_thirteen_orphans_also_earns_all_five_types():
    """R-5: in LRC/DXB special hands stack with everything else that applies."""
    ids = items(score("19m 19p 19s 1234567z 234p +1m @seat=S @round=E @from=W", "lrc"))
    assert ids["thirteen_orphans"] == 90 and ids["all_five_types"] == 10 and ids["base"] == 5


def test_nico_nico_stacks_with_kong_bonus_and_concealed_hand():
    ids = items(score("112233m 4444p 7777s 99s +9s @seat=S @round=E @from=W", "lrc"))
    assert ids["nico_nico"] == 40 and ids["nico_nico_two_kongs"] == 25 and ids["concealed_hand"] == 5


def test_nico_nico_good_eyes_need_a_258_winning_tile():
    ids = items(score("112277m 3344p 66s 999s 5s +5s @seat=S @round=E @from=W", "lrc"))
    assert "nico_nico" in ids and "good_eyes" in ids
    ids = items(score("112255m 3344p 66s 999s 7s +7s @seat=S @round=E @from=W", "lrc"))
    assert "nico_nico" in ids and "good_eyes" not in ids


def test_dxb_no_ting_in_nico_nico():
    ids = items(score("112277m 3344p 5566s 99s +9s @ting @seat=S @round=E @from=W", "dxb"))
    assert "nico_nico" in ids and "ting" not in ids


def test_allmj_eight_and_a_half_pairs_triple_by_discard_is_an_option():
    hand = "112277m 3344p 5566s 99s +9s @seat=S @round=E @from=W"
    assert "eight_and_a_half_pairs" in items(score(hand, "allmj"))
    report = score_hand(parse_notation(hand), "allmj", TableSettings(options={"nico_pung_by_discard": False}))
    assert report.valid and "eight_and_a_half_pairs" not in items(report)


def test_flower_instant_win_ignores_everything_else():
    """R-6: 7 flowers robbing the 8th / all 8 flowers score nothing else, and no base."""
    report = score("123m 456m 234p 678p 555s E 1234567f +8f @seat=S @round=E", "taiwan")
    assert items(report) == {"eight_flowers": 30}
    report = score("123m 456m 234p 678p 555s E 123456f +7f @seat=S @round=E", "lrc")
    assert items(report) == {"seven_flowers": 20}


def test_flower_win_reports_the_better_of_flower_win_and_normal_reading():
    report = score("111m 999m 111p 999p 555s 7s 12345678f +7s @seat=S @round=E @self", "lrc")
    assert report.reading.shape == "standard" and report.total > 40


def test_seven_flowers_robbing_the_eighth_is_paid_by_its_drawer():
    report = score("123m 456m 234p 678p 555s E 1234567f +8f @rob8 @seat=S @round=E @from=N", "taiwan")
    assert items(report) == {"seven_flowers_rob": 20}
    assert [(p.payer, p.amount) for p in report.payments] == [("4z", 20)]


def test_pung_finished_by_the_winning_discard_is_not_concealed():
    """R-9: three standing pungs, one finished by the discard, count as two concealed pungs."""
    ids = items(score("111m 999p 55s 123p 789s EE +5s @seat=S @round=E @from=W"))
    assert "two_concealed_pungs" in ids and "three_concealed_pungs" not in ids
    ids = items(score("111m 999p 55s 123p 789s EE +5s @seat=S @round=E @self"))
    assert "three_concealed_pungs" in ids


def test_open_kong_counts_as_concealed_pung_in_lrc_only():
    hand = "[1111m] 999p 555s 234p 678s E +E @seat=S @round=E @from=W"
    assert "three_concealed_pungs" in items(score(hand, "lrc"))
    assert "two_concealed_pungs" in items(score(hand, "taiwan"))


def test_one_suit_stacks_with_no_honours():
    """R-3."""
    ids = items(score("123m 456m 789m 234m 678m 5m +5m @seat=S @round=E @from=W", "mahjongtime"))
    assert "full_flush" in ids and "all_chows_no_flowers_no_honours" in ids


def test_allmj_win_may_total_zero_and_below_minimum_is_a_warning():
    """R-17: a legal win may total 0; a hand below the minimum is valid with a warning."""
    report = score("[123m] 456m 234p 678p 55s WW 3f +W @seat=S @round=E @from=E", "allmj", minimum_points=5)
    assert report.valid and report.total == 0 and report.items == []
    assert any("minimum" in w for w in report.warnings)


def test_every_reading_is_scored_and_the_best_kept():
    """A-GEN-1: 111222333m reads as three pungs or three chows; the best reading wins."""
    report = score("111222333m 456p 78p 99s +9p @seat=S @round=E @self", "lrc")
    assert report.readings_scored >= 2
    assert report.reading.describe().count("111m") == 1  # the pung reading
    # allmj: the pung reading earns 3 Hidden Triples (2) on top of what the chow reading earns
    # (No Characters 1, No Flowers 1, Pure Self-Touch 3; Peaceful Win is barred by the self-draw).
    allmj = score("111222333m 456p 78p 99s +9p @seat=S @round=E @self", "allmj")
    assert allmj.reading.describe().count("111m") == 1
    assert items(allmj) == {
        "no_honours": 1, "no_flowers": 1, "pure_self_touch": 3, "three_concealed_pungs": 2,
    }
    assert allmj.total == 7


def test_waits_are_judged_on_the_sixteen_tiles_before_the_win():
    """A-GEN-2: 1234m 456m waits on 1m, 4m and 7m, so winning on 1m is not a single wait."""
    report = score("1234m 456m 234p 678p 555s +1m @seat=S @round=E @from=W", "taiwan")
    assert report.waits == ["1m", "4m", "7m"]
    assert "single_wait" not in items(report)


def test_dxb_two_suits_tier_replacement_is_an_option():
    """R-16 option: keep the no-flower / no-honour tiers beside the 15."""
    hand = "123m 456m 789m 234p 555p 6p +6p @seat=S @round=E @from=W"
    assert "no_flowers_no_honours" not in items(score(hand, "dxb"))
    ids = items(score(hand, "dxb", options={"two_suits_no_flowers_replaces_tiers": False}))
    assert ids["two_suits_no_flowers"] == 15 and "no_flowers_no_honours" in ids and "two_suits" not in ids


def test_lrc_flower_wall_can_replace_the_concealed_cell():
    """A-LRC-3 option."""
    hand = "123m 456m 234p 678p 555s E +E @self @replacement @seat=S @round=E"
    ids = items(score(hand, "lrc", options={"replacement_replaces_concealed_cells": True}))
    assert ids["replacement_win"] == 5 and "concealed_self_drawn" not in ids


def test_classic_one_suit_with_honours_pair_only_option():
    """S2-3 option: honours only as the pair."""
    hand = "123m 456m 789m EEE 5m +5m @seat=S @round=E @from=W"
    assert "one_suit_with_honours" in items(score(hand, "classic"))
    ids = items(score(hand, "classic", options={"one_suit_honours_pair_only": True}))
    assert "one_suit_with_honours" not in ids


@pytest.mark.parametrize("rules", ["lrc", "dxb"])
def test_two_terminal_sets_replace_the_single_set(rules):
    ids = items(score("[123m] [789m] [123m] [789m] 456p E +E @seat=S @round=E @from=W", rules))
    assert ids["two_terminal_chow_sets_pure"] == 20 and "terminal_chows" not in ids
    ids = items(score("111m 999m 111p 999p 456s E +E @seat=S @round=E @from=W", rules))
    assert "two_terminal_pung_sets" in ids and "terminal_pungs" not in ids


@pytest.mark.parametrize("rules", ["taiwan", "lrc", "dxb", "mahjongtime", "allmj"])
def test_big_three_dragons_replaces_little(rules):
    ids = items(score("PPP FFF CCC 123m 456m 5p +5p @seat=S @round=E @from=W", rules))
    assert {"big_three_dragons", "greater_three_dragons"} & set(ids)
    assert not {"little_three_dragons", "lesser_three_dragons"} & set(ids)


def test_pure_straight_concealed_replaces_partial_in_lrc():
    ids = items(score("123m 456m 78m 234p 678p EE +9m @self @seat=S @round=E", "lrc"))
    assert ids["pure_straight_concealed"] == 20 and "pure_straight" not in ids
