"""The engine's shortcuts never change an answer.

Scoring skips work in three ways (see ``scoring/engine.py``): a row's per-hand *gate* closes it on
every reading of a hand, waits are cached by the standing tiles, and decompositions are cached by
their counts. Each is checked here against the slow, direct answer on the pattern examples (which
fire every row) and on random legal hands of every kind.
"""

from __future__ import annotations

import random

import pytest
from test_scoring_patterns import EXAMPLES

from scoring import list_rulesets, parse_notation
from scoring.engine import _DEFAULT_TABLE, _implied, _prepare, check_hand
from scoring.readings import HandFacts, enumerate_readings
from scoring.samples import KINDS, random_hand
from scoring.shapes import (
    INDEX,
    SPECIAL_SHAPES,
    counts_of,
    decompositions,
    is_standard_complete,
    standard_splits,
    winning_tiles,
)

RULESETS = list_rulesets()


def _hands(ruleset, count: int = 120):
    rng = random.Random(f"shortcuts-{ruleset.id}")
    hands = [random_hand(rng, KINDS[n % len(KINDS)], ruleset.hand_tiles, ruleset.special_shapes)
             for n in range(count)]
    if ruleset.hand_tiles == 16:
        for hit, miss in EXAMPLES.values():
            for text in (hit, miss):
                try:
                    hands.append(parse_notation(text))
                except Exception:  # noqa: BLE001 - a near miss may be malformed on purpose
                    continue
    return hands


@pytest.mark.parametrize("ruleset", RULESETS, ids=[rs.id for rs in RULESETS])
def test_a_closed_gate_means_the_row_fires_on_no_reading(ruleset):
    options, _, plan = _prepare(ruleset, _DEFAULT_TABLE)
    opened = 0
    for hand in _hands(ruleset):
        context = _implied(hand.context)
        if check_hand(hand, ruleset, context):
            continue
        facts = HandFacts(hand, context, options, ruleset.special_shapes)
        readings = enumerate_readings(hand, facts, ruleset.special_shapes, ruleset.sets_needed)
        for gate, gate_params, rows in plan.gates:
            is_open = gate(facts, gate_params)
            for n in rows:
                row, function, params = plan.reading_rows[n]
                assert gate(facts, params) == is_open, f"{row.id}: rows sharing a gate call disagree"
                fires = any(function(reading, facts, params) for reading in readings)
                if is_open:
                    opened += fires
                else:
                    assert not fires, f"{ruleset.id}: gate of {row.id} closed on {hand}, but the row fires"
    if plan.gates:
        assert opened, "no gated row fired at all: the examples no longer exercise the gates"


def _slow_waits(standing: list[int], used: list[int], special: tuple[str, ...]) -> list[int]:
    out = []
    for index in range(34):
        if used[index] >= 4:
            continue
        trial = list(standing)
        trial[index] += 1
        if is_standard_complete(trial) or any(SPECIAL_SHAPES[name](trial) for name in special):
            out.append(index)
    return out


@pytest.mark.parametrize("ruleset", RULESETS, ids=[rs.id for rs in RULESETS])
def test_cached_waits_match_trying_every_tile(ruleset):
    for hand in _hands(ruleset):
        if hand.winning_tile.endswith("f") or hand.winning_tile not in hand.concealed:
            continue
        standing = counts_of(hand.concealed)
        standing[INDEX[hand.winning_tile]] -= 1
        used = counts_of(hand.all_set_tiles())
        used[INDEX[hand.winning_tile]] -= 1
        if max(used) > 4:
            continue
        special = ruleset.special_shapes if not hand.melds else ()
        for _ in range(2):  # the second call is answered from the cache
            assert winning_tiles(standing, used, special) == _slow_waits(standing, used, special), hand


def test_cached_decompositions_are_the_standard_splits():
    rng = random.Random(5)
    for _ in range(200):
        hand = random_hand(rng, rng.choice(("simple", "multi", "honours")))
        counts = counts_of(hand.concealed)
        assert [split for shape, split in decompositions(tuple(counts), ()) if shape == "standard"] == \
            standard_splits(counts)
