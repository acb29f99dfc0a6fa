"""The engine's shortcuts never change an answer.

Scoring reuses work (see ``scoring/shapes.py`` and ``scoring/readings.py``): waits are cached by the
standing tiles, and the standing tiles' layouts (built from their decompositions) by their counts.
Each is checked here against the slow, direct answer on the pattern examples and on random legal
hands of every kind.
"""

from __future__ import annotations

import random

import pytest
from test_scoring_patterns import EXAMPLES

from scoring import list_rulesets, parse_notation
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


def test_decompositions_are_the_standard_splits():
    rng = random.Random(5)
    for _ in range(200):
        hand = random_hand(rng, rng.choice(("simple", "multi", "honours")))
        counts = counts_of(hand.concealed)
        assert [split for shape, split in decompositions(tuple(counts), ()) if shape == "standard"] == \
            standard_splits(counts)


@pytest.mark.parametrize("ruleset", RULESETS, ids=[rs.id for rs in RULESETS])
def test_cached_layouts_match_a_fresh_build(ruleset):
    from scoring.readings import _standing_layouts

    for hand in _hands(ruleset, 60):
        if hand.winning_tile.endswith("f") or hand.winning_tile not in hand.concealed:
            continue
        args = (tuple(counts_of(hand.concealed)), INDEX[hand.winning_tile], not hand.context.self_drawn,
                () if hand.melds else ruleset.special_shapes, ruleset.sets_needed - len(hand.melds))
        for _ in range(2):
            assert _standing_layouts(*args) == _standing_layouts.__wrapped__(*args)
