"""Every pattern row of every rule set: a hand that earns it, and a near miss that must not.

Examples are keyed by the row's detector and parameters, so a row is tested in every rule set that
has it. ``test_every_row_has_an_example`` fails when a rule file gains a row nobody tested.
The default context is South's seat in the East round, winning on West's discard.
"""

from __future__ import annotations

import json

import pytest

from scoring import TableSettings, list_rulesets, parse_notation, score_hand
from scoring.rules import PatternRow, RuleSet

BASE16 = "123m 456m 234p 678p 555s E"  # 16 standing tiles waiting on E (a pair wait)

# signature -> (hit notation, near-miss notation), for 16-tile rule sets
EXAMPLES: dict[str, tuple[str, str]] = {
    "always": (f"{BASE16} +E", "123m 456m +E"),
    "flowers_each": (f"{BASE16} 3f +E", f"{BASE16} +E"),
    "seat_flowers": (f"{BASE16} 2f +E", f"{BASE16} 3f +E"),
    "no_flowers": (f"{BASE16} +E", f"{BASE16} 1f +E"),
    'flower_set{"which": "flowers"}': (f"{BASE16} 1234f +E", f"{BASE16} 1235f +E"),
    'flower_set{"which": "seasons"}': (f"{BASE16} 5678f +E", f"{BASE16} 4567f +E"),
    'seven_flowers{"needs_robbed": false}': (f"{BASE16} 123456f +7f", f"{BASE16} 12345f +6f"),
    'seven_flowers{"needs_robbed": true}': (f"{BASE16} 1234567f +8f @rob8", f"{BASE16} 123456f +7f"),
    "eight_flowers": (f"{BASE16} 1234567f +8f", f"{BASE16} 1234567f +8f @rob8"),
    "wind_pung": ("WWW 123m 456m 234p 678p 5s +5s", "CCC 123m 456m 234p 678p 5s +5s"),
    'wind_pung{"which": "seat"}': ("SSS 123m 456m 234p 678p 5s +5s", "WWW 123m 456m 234p 678p 5s +5s"),
    'wind_pung{"which": "round"}': ("EEE 123m 456m 234p 678p 5s +5s", "WWW 123m 456m 234p 678p 5s +5s"),
    "honour_pung": ("WWW 123m 456m 234p 678p 5s +5s", "123m 456m 234p 678p 555s W +W"),
    "dragon_pung": ("CCC 123m 456m 234p 678p 5s +5s", "123m 456m 234p 678p 555s C +C"),
    "little_three_winds": ("EEE SSS W 123m 456m 789p +W", "EEE SSS 123m 456m 789p 5p +5p"),
    "big_three_winds": ("EEE SSS WWW 123m 456m 5p +5p", "EEE SSS 111m 123m 456m 5p +5p"),
    "little_four_winds": ("EEE SSS WWW N 123m 456m +N", "EEE SSS WWW 123m 456m 5p +5p"),
    "big_four_winds": ("EEE SSS WWW NNN 123m 5p +5p", "EEE SSS WWW N 123m 456m +N"),
    "little_three_dragons": ("PPP FFF C 123m 456m 789m +C", "PPP FFF 123m 456m 789m 5p +5p"),
    "big_three_dragons": ("PPP FFF CCC 123m 456m 5p +5p", "PPP FFF C 123m 456m 789m +C"),
    "all_honours": ("EEE SSS WWW PPP FFF C +C", "EEE SSS WWW PPP 111m C +C"),
    "no_honours": ("123m 456m 234p 678p 555s 9s 3f +9s", f"{BASE16} 3f +E"),
    "no_flowers_no_honours": ("123m 456m 234p 678p 555s 9s +9s", "123m 456m 234p 678p 555s 9s 1f +9s"),
    "exposed_kong": ("[1111m] 456m 234p 678p 555s E +E", "(1111m) 456m 234p 678p 555s E +E"),
    "concealed_kong": ("(1111m) 456m 234p 678p 555s E +E", "[1111m] 456m 234p 678p 555s E +E"),
    'concealed_pungs{"count": 2}': ("111m 999p 234s 678s 345p E +E", "111m [999p] 234s 678s 345p E +E"),
    'concealed_pungs{"count": 3}': ("111m 999p 555s 234s 678p E +E", "111m [999p] 555s 234s 678p E +E"),
    'concealed_pungs{"count": 4}': ("111m 999p 555s 777m 234s E +E", "111m [999p] 555s 777m 234s E +E"),
    'concealed_pungs{"count": 5}': ("111m 999p 555s 777m 333s E +E @self",
                                    "[111m] 999p 555s 777m 333s E +E @self"),
    "five_concealed_pungs_strict": ("111m 999p 555s 777m 333s E +E", "111m 999p 555s 777m 333s E +E @self"),
    "concealed_hand": (f"{BASE16} +E", "[123m] 456m 234p 678p 555s E +E"),
    "self_drawn": ("[123m] 456m 234p 678p 555s E +E @self", "[123m] 456m 234p 678p 555s E +E"),
    "concealed_self_drawn": (f"{BASE16} +E @self", f"{BASE16} +E"),
    'fully_exposed{"win": "any"}': ("[123m] [456p] [789s] [222s] [567p] 5s +5s",
                                     "[123m] [456p] [789s] [222s] 567p 5s +5s"),
    'fully_exposed{"win": "discard"}': ("[123m] [456p] [789s] [222s] [567p] 5s +5s",
                                         "[123m] [456p] [789s] [222s] [567p] 5s +5s @self"),
    'fully_exposed{"win": "self_drawn"}': ("[123m] [456p] [789s] [222s] [567p] 5s +5s @self",
                                            "[123m] [456p] [789s] [222s] [567p] 5s +5s"),
    'fully_exposed{"self_drawn_counts": "option:exposed_hand_self_drawn_counts"}': (
        "[123m] [456p] [789s] [222s] [567p] 5s +5s", "[123m] [456p] [789s] [222s] 567p 5s +5s"),
    "replacement_win": (f"{BASE16} +E @self @replacement", f"{BASE16} +E @self"),
    "kong_chain": (f"{BASE16} +E @self @replacement @kong_chain", f"{BASE16} +E @self @replacement"),
    "robbing_kong": (f"{BASE16} +E @rob", f"{BASE16} +E"),
    "last_tile_self_drawn": (f"{BASE16} +E @self @last", f"{BASE16} +E @last"),
    "last_discard": (f"{BASE16} +E @last", f"{BASE16} +E @self @last"),
    "heavenly_hand": (f"{BASE16} +E @first @self @seat=E", f"{BASE16} +E @first @self"),
    "earthly_hand": (f"{BASE16} +E @first @from=E", f"{BASE16} +E @first @self"),
    'turn_win{"turn": 1}': (f"{BASE16} +E @first", "[123m] 456m 234p 678p 555s E +E @first"),
    'turn_win{"turn": 2}': (f"{BASE16} +E @second", "[123m] 456m 234p 678p 555s E +E @second"),
    "dealt_ready": (f"{BASE16} +E @dealt_ready", f"{BASE16} +E"),
    "ting": (f"{BASE16} +E @ting", f"{BASE16} +E"),
    'ting{"not_in_special": true}': (f"{BASE16} +E @ting", "112277m 3344p 5566s 99s +9s @ting"),
    "dealer_point": (f"{BASE16} +E @seat=E", f"{BASE16} +E"),
    "consecutive_wins": (f"{BASE16} +E @seat=E @streak=2", f"{BASE16} +E @seat=E @streak=0"),
    "single_wait": (f"{BASE16} +E", "123m 456m 234p 678p 55s 34s +5s"),
    'single_wait{"roles": ["pair"]}': (f"{BASE16} +E", "123m 456m 234p 678p EE 35s +4s"),
    'single_wait{"roles": ["closed", "edge"]}': ("123m 456m 234p 678p EE 35s +4s", f"{BASE16} +E"),
    'single_wait{"edge_when": "edge_wait_counts_as_closed", "roles": ["closed", "edge"]}': (
        "123m 456m 234p 678p EE 12s +3s", "123m 456m 234p 678p EE 34s +5s"),
    "false_single_wait": ("1234m 456m 234p 678p 555s +1m", f"{BASE16} +E"),
    "two_pair_wait": ("123m 789m 234p 678s 55m 77p +5m", f"{BASE16} +E"),
    "good_eyes": ("123m 456m 234p 678s 789s 5p +5p", "123m 456m 234p 678s 789s 4p +4p"),
    "all_chows": ("123m 456m 234p 678p 345s E +E", f"{BASE16} +E"),
    "all_chows_plain": ("123m 456m 234p 678p 345s 7s +7s", "123m 456m 234p 678p 345s 7s 1f +7s"),
    'all_chows{"no_honour_pair": true, "no_self_draw": true, "no_single_wait": true}': (
        "123m 456m 234p 678p 34s 88s +5s", "123m 456m 234p 678p 34s 88s +5s @self"),
    "pure_straight": ("[123m] 456m 789m 234p 678p E +E", "[123m] 456m 678m 234p 678p E +E"),
    'pure_straight{"closed": "all_concealed"}': ("123m 456m 789m 234p 678p E +E",
                                                 "[123m] 456m 789m 234p 678p E +E"),
    'pure_straight{"closed": "self_drawn"}': ("123m 456m 789m 234p 678p E +E @self",
                                              "123m 456m 789m 234p 678p E +E"),
    'pure_straight{"closed": "self_drawn_completes"}': ("123m 456m 78m 234p 678p EE +9m @self",
                                                        "123m 456m 78m 234p 678p EE +9m"),
    "mixed_straight": ("123m 456p 789s 234m 567m E +E", "123m 456p 789m 234m 567m E +E"),
    'mixed_straight{"closed": "self_drawn_completes"}': ("123m 45p 789s 234m 567m EE +6p @self",
                                                         "123m 45p 789s 234m 567m EE +6p"),
    'identical_chows{"count": 2}': ("[123m] [123m] 456p 789s 345s E +E", "[123m] [234m] 456p 789s 345s E +E"),
    'identical_chows{"count": 3}': ("[123m] [123m] [123m] 456p 789s E +E",
                                    "[123m] [123m] 456p 789s 345s E +E"),
    'identical_chows{"count": 4}': ("[123m] [123m] [123m] [123m] 456p E +E",
                                    "[123m] [123m] [123m] 456p 789s E +E"),
    'sister_chows{"count": 2, "distinct_suits": true}': ("345m 345p 789s 123s 678m E +E",
                                                         "345m 456p 789s 123s 678m E +E"),
    'sister_chows{"count": 3, "distinct_suits": true}': ("345m 345p 345s 789s 123m E +E",
                                                         "345m 345p 789s 123s 678m E +E"),
    'sister_chows{"count": 2, "distinct_suits": false}': ("345m 345p 789s 123s 678m E +E",
                                                          "345m 456p 789s 123s 678m E +E"),
    'sister_chows{"count": 3, "distinct_suits": false}': ("345m 345p 345s 789s 123m E +E",
                                                          "345m 345p 789s 123s 678m E +E"),
    'sister_chows{"count": 4, "distinct_suits": false}': ("345m 345p 345s 345m 789s E +E",
                                                          "345m 345p 345s 789s 123m E +E"),
    'sister_chows{"count": 5, "distinct_suits": false}': ("345m 345p 345s 345m 345p E +E",
                                                          "345m 345p 345s 345m 789s E +E"),
    'step_up_chows{"three_suits": "option:step_up_needs_three_suits"}': (
        "123m 234p 345s 789m 789p E +E", "123m 234p 456s 789m 789p E +E"),
    "all_step_up": ("123m 234p 345s 456m 567p 9s +9s", "123m 234p 345s 456m 678p 9s +9s"),
    'all_step_up{"same_suit": true}': ("123m 234m 345m 456m 567m 9s +9s", "123m 234p 345s 456m 567p 9s +9s"),
    "terminal_chows": ("123m 789m 456p 234s 678s E +E", "123m 789p 456p 234s 678s E +E"),
    'two_terminal_chow_sets{"same_suit": true}': ("[123m] [789m] [123m] [789m] 456p E +E",
                                                  "[123m] [789m] [123p] [789p] 456s E +E"),
    'two_terminal_chow_sets{"same_suit": false}': ("[123m] [789m] [123p] [789p] 456s E +E",
                                                   "[123m] [789m] [123m] [789m] 456p E +E"),
    'four_ways{"ways": 2}': ("666m 456m 123p 789p 345s E +E", "666m 345m 123p 789p 345s E +E"),
    'four_ways{"ways": 3}': ("456m 567m 6m 123p 789p 345s +6m", "666m 456m 123p 789p 345s E +E"),
    'four_ways{"ways": 4}': ("456m 456m 567m 678m 123s 9p +9p", "456m 567m 6m 123p 789p 345s +6m"),
    "all_pungs": ("111m 999p 555s [222s] [777p] E +E", "123m 999p 555s [222s] [777p] E +E"),
    'consecutive_pungs{"count": 2}': ("[222m] [333m] 789p 456s 123s E +E",
                                      "[222m] [444m] 789p 456s 123s E +E"),
    'consecutive_pungs{"count": 3}': ("[222m] [333m] [444m] 789p 456s E +E",
                                      "[222m] [333m] [555m] 789p 456s E +E"),
    'consecutive_pungs{"count": 4}': ("[222m] [333m] [444m] [555m] 789p E +E",
                                      "[222m] [333m] [444m] [666m] 789p E +E"),
    "neighbours_hand": ("[111m] [222m] [333m] [444m] [555m] E +E", "[111m] [222m] [333m] [444m] [666m] E +E"),
    'sister_pungs{"count": 2}': ("555m 555p 123s 789s 234m E +E", "555m 666p 123s 789s 234m E +E"),
    'sister_pungs{"count": 3}': ("555m 555p 555s 123s 789m E +E", "555m 555p 123s 789s 234m E +E"),
    "terminal_pungs": ("111m 999m 456p 234s 678s E +E", "111m 999p 456p 234s 678s E +E"),
    "two_terminal_pung_sets": ("111m 999m 111p 999p 456s E +E", "111m 999m 456p 234s 678s E +E"),
    "half_flush": ("123m 456m 789m 234m EEE C +C", "123m 456m 789m 234p EEE C +C"),
    'half_flush{"honour_pair_only": "option:half_flush_honour_pair_only"}': (
        "123m 456m 789m 234m EEE C +C", "123m 456m 789m 234p EEE C +C"),
    "full_flush": ("123m 456m 789m 234m 678m 5m +5m", "123m 456m 789m 234m 678p 5m +5m"),
    "two_suits": ("123m 456m 789m 234p 678p 5p 1f +5p", "123m 456m 789m 234p 678p E 1f +E"),
    'two_suits{"no_flowers": true}': ("123m 456m 789m 234p 678p 5p +5p",
                                      "123m 456m 789m 234p 678p 5p 1f +5p"),
    "all_five_types": ("123m 456p 789s 234m EEE C +C", "123m 456p 789s 234m EEE 9s +9s"),
    "all_simples": ("234m 456m 567p 678s 345s 8p +8p", "123m 456m 567p 678s 345s 8p +8p"),
    'outside_hand{"honours": true}': ("123m 789p 111s 999s EEE C +C", "123m 456p 111s 999s EEE C +C"),
    'outside_hand{"honours": false}': ("123m 789p 111s 999s 789m 1p +1p", "123m 789p 111s 999s 456m 1p +1p"),
    'gem_hand{"dragon": "6z", "suit": "s"}': ("FFF 123s 456s 789s 234s 5s +5s",
                                              "FFF 123s 456s 789s 234s E +E"),
    'gem_hand{"dragon": "7z", "suit": "m"}': ("CCC 123m 456m 789m 234m 5m +5m",
                                              "CCC 123m 456m 789m 234m E +E"),
    'gem_hand{"dragon": "5z", "suit": "p"}': ("PPP 123p 456p 789p 234p 5p +5p",
                                              "PPP 123p 456p 789p 234p E +E"),
    'gem_hand{"dragon": "5z", "suit": "m"}': ("PPP 123m 456m 789m 234m 5m +5m",
                                              "PPP 123m 456m 789m 234m E +E"),
    "seven_pairs_pung": ("112277m 3344p 5566s 99s +9s", f"{BASE16} +E"),
    'seven_pairs_pung{"pung_by_discard": true}': ("112277m 3344p 5566s 99s +9s", f"{BASE16} +E"),
    'seven_pairs_pung{"pung_by_discard": "option:nico_pung_by_discard"}': ("112277m 3344p 5566s 99s +9s",
                                                                            f"{BASE16} +E"),
    'nico_kongs{"count": 1}': ("112233m 4455p 7777s 99s +9s", "112233m 4455p 6677s 99s +9s"),
    'nico_kongs{"count": 2}': ("112233m 4444p 7777s 99s +9s", "112233m 4455p 7777s 99s +9s"),
    "thirteen_orphans": ("19m 19p 19s 1234567z 234p +1m", f"{BASE16} +E"),
    "sixteen_orphans": ("147m 258p 369s 1234567z +1m", "19m 19p 19s 1234567z 234p +1m"),
    'chicken_hand{"points_before_base": 1}': ("[123m] 56p 345s 999m 678s SS 3f +7p",
                                              "[123m] 56p 345s 999m 678s SS 34f +7p"),
}

# The flat early-win tiers are generated from their bounds: hit at the bound, miss just past it.
CLASSIC_EXAMPLES: dict[str, tuple[str, str]] = {
    "always": ("123m 456p 789s 234m 5m +5m", "123m 456p +5m"),
    "flowers_each": ("123m 456p 789s 234m 5m 1f +5m", "123m 456p 789s 234m 5m +5m"),
    'set_points{"classes": ["simple"], "concealed": false, "kind": "pung"}': (
        "[555m] 123p 456p 789s 2s +2s", "555m 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["simple"], "concealed": true, "kind": "pung"}': (
        "555m 123p 456p 789s 2s +2s", "[555m] 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["terminal"], "concealed": false, "kind": "pung"}': (
        "[111m] 123p 456p 789s 2s +2s", "111m 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["terminal"], "concealed": true, "kind": "pung"}': (
        "111m 123p 456p 789s 2s +2s", "[111m] 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["wind"], "concealed": false, "kind": "pung"}': (
        "[WWW] 123p 456p 789s 2s +2s", "WWW 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["wind"], "concealed": true, "kind": "pung"}': (
        "WWW 123p 456p 789s 2s +2s", "[WWW] 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["dragon"], "concealed": false, "kind": "pung"}': (
        "[CCC] 123p 456p 789s 2s +2s", "CCC 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["dragon"], "concealed": true, "kind": "pung"}': (
        "CCC 123p 456p 789s 2s +2s", "[CCC] 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["simple"], "concealed": false, "kind": "kong"}': (
        "[5555m] 123p 456p 789s 2s +2s", "(5555m) 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["simple"], "concealed": true, "kind": "kong"}': (
        "(5555m) 123p 456p 789s 2s +2s", "[5555m] 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["terminal", "wind", "dragon"], "concealed": false, "kind": "kong"}': (
        "[1111m] 123p 456p 789s 2s +2s", "(1111m) 123p 456p 789s 2s +2s"),
    'set_points{"classes": ["terminal", "wind", "dragon"], "concealed": true, "kind": "kong"}': (
        "(EEEE) 123p 456p 789s 2s +2s", "[EEEE] 123p 456p 789s 2s +2s"),
    'scoring_pair{"round_wind": "option:round_wind_pair_scores"}': (
        "123m 456p 789s 234m C +C", "123m 456p 789s 234m W +W"),
    'own_wind_pung{"round_wind": "option:round_wind_pung_doubles"}': (
        "[SSS] 123p 456p 789s 2s +2s", "[WWW] 123p 456p 789s 2s +2s"),
    "dragon_pung": ("[CCC] 123p 456p 789s 2s +2s", "123m 456p 789s 234m C +C"),
    "half_flush": ("123m 456m 789m EEE 5m +5m", "123m 456m 789p EEE 5m +5m"),
    'half_flush{"honour_pair_only": "option:one_suit_honours_pair_only"}': ("123m 456m 789m EEE 5m +5m",
                                                                           "123m 456m 789p EEE 5m +5m"),
    "full_flush": ("123m 456m 789m 234m 5m +5m", "123m 456m 789m 234p 5m +5m"),
}

DEFAULT_CONTEXT = "@seat=S @round=E"


def signature(row: PatternRow) -> str:
    return row.detector + (json.dumps(row.params, sort_keys=True) if row.params else "")


def _early_win(row: PatternRow) -> tuple[str, str]:
    top = row.params["max"]
    return f"{BASE16} +E @table={top}", f"{BASE16} +E @table={top + 1}"


def example(ruleset: RuleSet, row: PatternRow) -> tuple[str, str]:
    if row.detector == "early_win":
        return _early_win(row)
    table = CLASSIC_EXAMPLES if ruleset.hand_tiles == 13 else EXAMPLES
    return table[signature(row)]


def table_for(ruleset: RuleSet, row: PatternRow) -> TableSettings:
    """Switch on the row's option (or off its ``unless`` option) so the row can fire."""
    options = {}
    if row.when:
        options[row.when] = True
    if row.unless:
        options[row.unless] = False
    return TableSettings(rules=ruleset.id, options=options)


def item_ids(text: str, ruleset: RuleSet, table: TableSettings) -> set[str]:
    hand = parse_notation(f"{text} {DEFAULT_CONTEXT}" if "@seat=" not in text else f"{text} @round=E")
    ctx = hand.context
    if not ctx.self_drawn and ctx.discarder is None and not ctx.robbed_eighth_flower:
        hand = parse_notation(f"{text} {DEFAULT_CONTEXT} @from=W" if "@seat=" not in text
                              else f"{text} @round=E @from=W")
    report = score_hand(hand, ruleset, table)
    return {item.id for item in report.items} if report.valid else set()


CASES = [(rs, row) for rs in list_rulesets() for row in rs.patterns]
#: Rows another row always replaces when they apply; their test checks the replacement instead.
ALWAYS_SUPERSEDED = {("lrc", "consecutive_pungs_5"): "neighbours_hand",
                     ("dxb", "consecutive_pungs_5"): "neighbours_hand"}


@pytest.mark.parametrize(("ruleset", "row"), CASES, ids=[f"{rs.id}:{row.id}" for rs, row in CASES])
def test_row_earned_by_its_example_and_not_by_the_near_miss(ruleset, row):
    table = table_for(ruleset, row)
    if (ruleset.id, row.id) in ALWAYS_SUPERSEDED:
        hit, _ = EXAMPLES["neighbours_hand"]
        ids = item_ids(hit, ruleset, table)
        assert ALWAYS_SUPERSEDED[(ruleset.id, row.id)] in ids and row.id not in ids
        return
    hit, miss = example(ruleset, row)
    assert row.id in item_ids(hit, ruleset, table), f"{ruleset.id}:{row.id} not earned by {hit!r}"
    assert row.id not in item_ids(miss, ruleset, table), f"{ruleset.id}:{row.id} wrongly earned by {miss!r}"


def test_every_row_has_an_example():
    missing = sorted({signature(row) for rs, row in CASES
                      if row.detector != "early_win" and (rs.id, row.id) not in ALWAYS_SUPERSEDED
                      and signature(row) not in (CLASSIC_EXAMPLES if rs.hand_tiles == 13 else EXAMPLES)})
    assert not missing
