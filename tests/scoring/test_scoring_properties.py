"""Property tests over random hands: scoring never raises, totals add up, readings use the hand's tiles."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import (
    Hand,
    InputError,
    Meld,
    WinContext,
    format_notation,
    hand_from_json,
    hand_to_json,
    list_rulesets,
    parse_notation,
    score_hand,
)
from scoring.samples import KINDS, random_hand
from scoring.tiles import FACE_CODES, FLOWER_CODES, SET_TILE_CODES

RULESETS = list_rulesets()
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reading_tiles(report) -> Counter:
    return Counter(t for group in report.reading.groups for t in group.tiles)


@FAST
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS), index=st.integers(0, len(RULESETS) - 1))
def test_random_legal_hands_score_consistently(seed, kind, index):
    ruleset = RULESETS[index]
    hand = random_hand(random.Random(seed), kind, ruleset.hand_tiles, ruleset.special_shapes)
    report = score_hand(hand, ruleset)
    assert report.valid, (format_notation(hand), report.reason)
    doc = report.to_json()
    json.dumps(doc)
    assert doc["total"] == sum(item["value"] for item in doc["items"])
    if report.reading.shape == "flowers":
        assert len(hand.flowers) >= 7
    else:
        assert _reading_tiles(report) == Counter(hand.all_set_tiles())
        assert sum(g.winning for g in report.reading.groups) == 1
    for payment in report.payments:
        assert payment.amount >= 0


@FAST
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS))
def test_random_hands_round_trip_through_notation_and_json(seed, kind):
    hand = random_hand(random.Random(seed), kind)
    assert parse_notation(format_notation(hand)) == hand
    assert hand_from_json(json.loads(json.dumps(hand_to_json(hand)))) == hand


tile = st.sampled_from(FACE_CODES)
meld = st.builds(Meld, kind=st.sampled_from(["chow", "pung", "kong"]),
                 tiles=st.lists(st.sampled_from(SET_TILE_CODES), min_size=0, max_size=5).map(tuple),
                 concealed=st.booleans())
context = st.builds(WinContext, self_drawn=st.none() | st.booleans(), seat_wind=st.none() | st.sampled_from(
    ["1z", "2z", "3z", "4z"]), discarder=st.none() | st.sampled_from(["1z", "2z", "3z", "4z"]),
    robbing_kong=st.none() | st.booleans(), replacement_draw=st.none() | st.booleans(),
    tiles_on_table=st.none() | st.integers(0, 200), dealer_streak=st.none() | st.integers(0, 30),
    robbed_eighth_flower=st.none() | st.booleans(), first_turn=st.none() | st.booleans())


@FAST
@given(concealed=st.lists(st.sampled_from(SET_TILE_CODES), max_size=22), melds=st.lists(meld, max_size=6),
       flowers=st.lists(st.sampled_from(FLOWER_CODES), max_size=9), winning=tile, ctx=context,
       index=st.integers(0, len(RULESETS) - 1))
def test_any_well_formed_hand_scores_without_raising(concealed, melds, flowers, winning, ctx, index):
    hand = Hand(tuple(sorted(concealed)), tuple(melds), tuple(flowers), winning, ctx)
    report = score_hand(hand, RULESETS[index])
    doc = report.to_json()
    assert doc["valid"] or doc["reason"]
    assert doc["total"] == sum(item["value"] for item in doc["items"])


@FAST
@given(text=st.text(alphabet="0123456789mpszf []()+@=ESWNPFC東中梅萬x-", max_size=60))
def test_notation_parser_only_raises_input_errors(text):
    try:
        hand = parse_notation(text)
    except InputError:
        return
    score_hand(hand)


json_value = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                          lambda children: st.lists(children, max_size=4)
                          | st.dictionaries(st.text(max_size=8), children, max_size=4), max_leaves=12)


@FAST
@given(obj=st.dictionaries(st.sampled_from(["concealed", "melds", "flowers", "winning_tile", "context", "x"]),
                           json_value, max_size=5))
def test_hand_json_parser_only_raises_input_errors(obj):
    try:
        hand = hand_from_json(obj)
    except InputError:
        return
    score_hand(hand)
