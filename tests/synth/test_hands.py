"""Random hands are legal winning hands that the scoring engine accepts, and lay out into sets."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from scoring import hand_from_json, score_hand
from scoring.tiles import FACE_CODES, is_flower
from vision.synth.hands import plan_hand, random_winning_hand, split_concealed


def _all_tiles(hand: dict) -> list[str]:
    tiles = list(hand["concealed"]) + list(hand["flowers"])
    for meld in hand["melds"]:
        tiles.extend(meld["tiles"])
    return tiles


@pytest.mark.parametrize("seed", range(60))
def test_random_hand_is_a_legal_winning_hand(seed: int) -> None:
    hand = random_winning_hand(np.random.default_rng(seed))
    counts = Counter(_all_tiles(hand))
    assert all(code in FACE_CODES for code in counts)
    assert all(n <= (1 if is_flower(code) else 4) for code, n in counts.items())
    assert hand["winning_tile"] in hand["concealed"]
    kongs = sum(1 for meld in hand["melds"] if meld["kind"] == "kong")
    assert len(hand["concealed"]) + sum(len(m["tiles"]) for m in hand["melds"]) == 17 + kongs
    report = score_hand(hand_from_json(hand))
    assert report.valid, report.to_json().get("reason")


def test_random_hands_cover_melds_kongs_and_flowers() -> None:
    hands = [random_winning_hand(np.random.default_rng(seed)) for seed in range(200)]
    kinds = Counter(meld["kind"] for hand in hands for meld in hand["melds"])
    assert kinds["chow"] and kinds["pung"] and kinds["kong"]
    assert any(meld["concealed"] for hand in hands for meld in hand["melds"])
    assert sum(1 for hand in hands if hand["flowers"]) > 100


def test_same_seed_same_hand() -> None:
    assert random_winning_hand(np.random.default_rng(5)) == random_winning_hand(np.random.default_rng(5))


def test_split_concealed_finds_sets_and_the_winning_set() -> None:
    tiles = ["1m", "2m", "3m", "5p", "5p", "5p", "7s", "8s", "9s", "1z", "1z"]
    sets, winning = split_concealed(tiles, "8s")
    assert [s.kind for s in sets] == ["chow", "pung", "chow", "pair"]
    assert "8s" in sets[winning].tiles


def test_split_concealed_rejects_impossible_tiles() -> None:
    assert split_concealed(["1m", "2m", "4m", "9p", "9p"], "9p") is None


def test_plan_puts_claimed_tile_in_the_middle_and_keeps_special_shapes_loose() -> None:
    rng = np.random.default_rng(0)
    hand = {"concealed": ["1m", "1m", "2p", "2p", "3s", "3s", "4s", "4s", "5z", "5z", "6z", "6z", "7z", "7z",
                          "1z", "1z", "1z"],
            "melds": [{"kind": "pung", "tiles": ["9m", "9m", "9m"], "concealed": False}],
            "flowers": ["2f"], "winning_tile": "7z"}
    plan = plan_hand(hand, rng)
    assert plan.melds[0].claimed_index == 1
    assert plan.loose and plan.winning_set is None
