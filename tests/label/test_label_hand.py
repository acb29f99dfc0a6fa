"""The hand JSON derived from labelled groups and roles."""

from __future__ import annotations

import pytest

from scoring import hand_from_json, score_hand
from scoring.errors import InputError
from vision.dataset.manifest import TileLabel
from vision.label.hand import hand_from_labels, meld_kind, validate_context


def tile(code: str, x: int, group: int | None = None, role: str | None = None, **flags) -> TileLabel:
    return TileLabel(code=code, box=(x, 0, x + 10, 14), group=group, role=role, **flags)


def test_no_roles_and_no_context_means_no_hand() -> None:
    assert hand_from_labels([tile("1m", 0), tile("2m", 10)], {}) == (None, [])


def test_groups_roles_and_winning_tile_make_the_hand() -> None:
    row = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "2z", "2z"]
    tiles = [
        *[tile(c, 10 * i) for i, c in enumerate(row)],
        tile("8s", 100, role="winning"),
        *[tile("5z", 120 + 10 * i, group=1, role="meld") for i in range(3)],
        tile("back", 160, group=2, role="concealed_kong", face_down=True),
        tile("9p", 170, group=2, role="concealed_kong"),
        tile("9p", 180, group=2, role="concealed_kong"),
        tile("back", 190, group=2, role="concealed_kong", face_down=True),
        tile("1f", 200, role="flower"), tile("6f", 210),
        tile("3z", 220, role="distractor"),
    ]
    hand, warnings = hand_from_labels(tiles, {"self_drawn": True, "seat_wind": "1z"})
    assert warnings == []
    assert hand == {
        "concealed": ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"],
        "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False},
                  {"kind": "kong", "tiles": ["9p", "9p", "9p", "9p"], "concealed": True}],
        "flowers": ["1f", "6f"],
        "winning_tile": "8s",
        "context": {"self_drawn": True, "seat_wind": "1z"},
    }
    report = score_hand(hand_from_json(hand))  # the scorer takes the labelled hand as it is
    assert report.valid and report.total > 0


def test_the_set_holding_the_winning_tile_stands_in_the_hand() -> None:
    tiles = [tile("3s", 0, group=4, role="meld"), tile("4s", 10, group=4, role="winning"),
             tile("5s", 20, group=4, role="meld")]
    hand, _ = hand_from_labels(tiles, {})
    assert hand["melds"] == [] and hand["concealed"] == ["3s", "4s", "5s"] and hand["winning_tile"] == "4s"


def test_illegal_sets_and_missing_faces_are_warned_not_guessed() -> None:
    tiles = [tile("1m", 0, group=0, role="meld"), tile("5m", 10, group=0, role="meld"),
             tile("9m", 20, group=0, role="meld"), tile("unknown", 30, role="concealed")]
    hand, warnings = hand_from_labels(tiles, {})
    assert hand["melds"] == [] and hand["concealed"] == []
    assert any("not a legal set" in w for w in warnings)
    assert any("not identified" in w for w in warnings)
    assert any("no winning tile" in w for w in warnings)


@pytest.mark.parametrize("codes, kind", [
    (["2p", "3p", "1p"], "chow"), (["7z"] * 3, "pung"), (["1s"] * 4, "kong"), (["8m", "9m", "1p"], None),
    (["1z", "2z", "3z"], None), (["1m", "1m"], None), (["back", "1m", "1m"], None),
])
def test_meld_kind(codes, kind) -> None:
    assert meld_kind(codes) == kind


@pytest.mark.parametrize("context", [{"seat_wind": "5z"}, {"self_drawn": "yes"}, {"dealer_streak": -1},
                                     {"discarder": 7}, {"mood": True}, []])
def test_bad_context_is_an_input_error(context) -> None:
    with pytest.raises(InputError):
        validate_context(context)


def test_unset_context_values_are_dropped() -> None:
    assert validate_context({"self_drawn": None, "seat_wind": "", "dealer_streak": 2}) == {"dealer_streak": 2}


def test_a_face_down_kong_takes_its_face_from_the_saved_hand() -> None:
    backs = [tile("back", 10 * i, group=3, role="concealed_kong", face_down=True) for i in range(4)]
    previous = {"melds": [{"kind": "kong", "tiles": ["9p"] * 4, "concealed": True}]}
    hand, warnings = hand_from_labels([*backs, tile("1m", 50, role="winning")], {}, previous)
    assert hand["melds"] == [{"kind": "kong", "tiles": ["9p"] * 4, "concealed": True}]
    hand, warnings = hand_from_labels([*backs, tile("1m", 50, role="winning")], {})
    assert hand["melds"] == [] and any("not a legal concealed kong" in w for w in warnings)


def test_the_form_asks_for_every_field_the_scorer_reads() -> None:
    from dataclasses import fields

    from scoring import WinContext
    from vision.label.hand import CONTEXT_FIELDS

    assert set(CONTEXT_FIELDS) == {f.name for f in fields(WinContext)}
    assert CONTEXT_FIELDS["discarder"] == "wind" and CONTEXT_FIELDS["tiles_on_table"] == "count"


def test_hand_check_scores_a_legal_hand_and_explains_an_illegal_one() -> None:
    from vision.label.hand import hand_check

    legal = {"concealed": ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"],
             "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
                       {"kind": "kong", "tiles": ["9p"] * 4, "concealed": True}],
             "flowers": ["1f"], "winning_tile": "8s", "context": {"self_drawn": True}}
    assert hand_check(legal).startswith("scores ")
    assert hand_check({**legal, "concealed": legal["concealed"][:-1]}).startswith("not a legal winning hand")
    assert hand_check({**legal, "context": {"mood": 1}}).startswith("not a hand the scorer takes")
    assert hand_check({k: v for k, v in legal.items() if k != "winning_tile"}) is None
