"""Legal-hand decoding and the confidence report, on readings made from known hands (real scorer)."""

from __future__ import annotations

import pytest
from hand_scenes import LONG, SHORT, SceneTile, lay_out

from scoring import Meld, hand_from_json, score_hand
from scoring.errors import InputError
from vision.decode import decode_hand
from vision.decode.budget import Budget, BudgetLimits
from vision.evaluation.hand_outcome import same_hand
from vision.layout import layout_tiles
from vision.pipeline import read_readings
from vision.repairs.hidden_kong import hidden_kong_melds
from vision.types import GroupRole, hand_json

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]
TRUTH = {"concealed": sorted(CONCEALED + ["3m"], key=lambda c: ("mpsz".index(c[1]), c)),
         "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
                   {"kind": "kong", "tiles": ["9p"] * 4, "concealed": True}],
         "flowers": ["1f", "6f"], "winning_tile": "3m"}


def _decode(scene, **kwargs):
    readings = scene.readings(angle_degrees=kwargs.pop("angle", 20), **kwargs)
    return readings, decode_hand(readings, layout_tiles(readings))


def test_clean_reading_is_kept_as_is():
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m")
    _, decoded = _decode(scene, confidence=0.97)
    assert same_hand(hand_json(decoded.hand), TRUTH)
    assert decoded.changes == [] and decoded.top1_legal
    assert decoded.confidence > 0.5


def test_misread_standing_tile_is_corrected_to_the_legal_reading():
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m")
    # Tile 0 (1m) read first as 1p: 1p 2m 3m is no set, so the hand is not complete.
    _, decoded = _decode(scene, misread={0: ("1p", 0.7)})
    assert same_hand(hand_json(decoded.hand), TRUTH)
    assert [(c.index, c.top1, c.decoded) for c in decoded.changes] == [(0, "1p", "1m")]
    assert any("changed 1p -> 1m (standing tile 1 of 10 from the left)" in w for w in decoded.warnings)


def test_misread_exposed_tile_must_make_a_legal_set():
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m")
    meld_tile = next(i for i, t in enumerate(scene.tiles) if t.role == "meld")
    _, decoded = _decode(scene, misread={meld_tile: ("6z", 0.55)})
    assert same_hand(hand_json(decoded.hand), TRUTH)
    assert [(c.top1, c.decoded) for c in decoded.changes] == [("6z", "5z")]


def test_at_most_four_of_a_face():
    # Concealed 9p pung-like reading of a 9s would make five 9p with the 9p kong.
    concealed = ["1m", "2m", "9s", "9s", "9s", "6s", "7s", "8s", "2z", "2z"]
    scene = lay_out(concealed, MELDS, [], "3m")
    _, decoded = _decode(scene, misread={2: ("9p", 0.8)})
    assert sorted(decoded.hand.concealed).count("9s") == 3
    assert decoded.changes[0].decoded == "9s"


def test_each_flower_once():
    scene = lay_out(CONCEALED, MELDS, ["1f", "5f"], "3m")
    flower = next(i for i, t in enumerate(scene.tiles) if t.code == "5f")
    _, decoded = _decode(scene, misread={flower: ("1f", 0.6)})
    assert sorted(decoded.hand.flowers) == ["1f", "5f"]


@pytest.mark.parametrize("backs", ["outer", "inner"])
def test_concealed_kong_face_comes_from_its_face_up_tiles(backs):
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs=backs)
    readings, decoded = _decode(scene)
    kong = [m for m in decoded.hand.melds if m.concealed]
    assert kong == [Meld("kong", ("9p",) * 4, concealed=True)]
    group = next(g for g in decoded.best.groups if g.role is GroupRole.CONCEALED_KONG)
    assert sorted(group.codes) == ["9p", "9p", "back", "back"]
    assert decoded.changes == []


def test_four_backs_kong_is_flagged_and_its_alternatives_kept():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    _, decoded = _decode(scene)
    kong = next(n for n, meld in enumerate(decoded.hand.melds) if meld.concealed)
    assert hidden_kong_melds(decoded.best) == [kong]  # the pipeline scores each face it may hide
    readings = [decoded.best, *decoded.alternatives]
    faces = {m.tiles[0] for r in readings for m in r.hand.melds if m.concealed}
    assert len(faces) > 1
    assert decoded.confidence < 0.2


def test_touching_exposed_sets_are_split_into_legal_sets():
    melds = [("chow", ["3s", "4s", "5s"], False), ("pung", ["7m", "7m", "7m"], False)]
    concealed = ["1m", "1m", "5p", "6p", "7p", "2s", "3s", "4s", "2z", "2z"]
    scene = lay_out(concealed, melds, ["2f"], "2z", set_gap=0.0)
    _, decoded = _decode(scene)
    kinds = sorted((m.kind, m.tiles) for m in decoded.hand.melds)
    assert kinds == [("chow", ("3s", "4s", "5s")), ("pung", ("7m", "7m", "7m"))]


def test_wrong_tile_count_is_an_input_error():
    # Two tiles short (one short is read with an unseen tile: tests/pipeline/test_hidden_tile.py).
    scene = lay_out(CONCEALED[:-2], MELDS, [], "3m")
    with pytest.raises(InputError, match="not a winning hand: 9 standing tiles"):
        _decode(scene)


def test_hand_that_cannot_win_is_an_input_error():
    concealed = ["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z"]
    scene = lay_out(concealed, MELDS, [], "3z")
    with pytest.raises(InputError, match="not a winning hand"):
        _decode(scene, confidence=0.99)


def test_a_photo_shares_one_search_budget_over_all_its_decodings():
    """A photo that is no hand is searched once per layout and per look; within one photo's budget
    the searches stop when it is spent (a look's part of it spends the photo's too), and a hand that
    reads costs only what it searched."""
    concealed = ["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z"]
    readings = lay_out(concealed, MELDS, [], "3z").readings(angle_degrees=20, confidence=0.6)
    layout = layout_tiles(readings)
    photo = Budget(BudgetLimits(8_000))
    look = photo.part(5_000)
    with pytest.raises(InputError, match=r"searched 5000 readings"):
        decode_hand(readings, layout, budget=look)
    with pytest.raises(InputError, match=r"search budget \(5000 readings\) was spent"):
        decode_hand(readings, layout, budget=look)
    with pytest.raises(InputError, match=r"searched 3000 readings"):
        decode_hand(readings, layout, budget=photo)
    with pytest.raises(InputError, match=r"search budget \(8000 readings\) was spent"):
        decode_hand(readings, layout, budget=photo)
    with pytest.raises(InputError, match=r"searched 30000 readings"):
        decode_hand(readings, layout)  # outside a photo: each search has its own budget
    good = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m").readings(angle_degrees=20, confidence=0.97)
    budget = Budget(BudgetLimits(5_000))
    for _ in range(3):
        assert same_hand(hand_json(decode_hand(good, layout_tiles(good), budget=budget).hand), TRUTH)


def test_a_search_stops_at_its_budgets_deadline():
    """Past the deadline a search stops where it is and no other is begun; the refusal says why."""
    concealed = ["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z"]
    readings = lay_out(concealed, MELDS, [], "3z").readings(angle_degrees=20, confidence=0.6)
    layout = layout_tiles(readings)
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001  # each look at the clock: a thousandth of a second later
        return now[0]

    budget = Budget(BudgetLimits(600_000, seconds=0.003), clock=clock)
    with pytest.raises(InputError, match=r"^no winning hand found within the time limit \(0.003 s\); the "
                                         r"search stopped after 512 readings"):
        decode_hand(readings, layout, budget=budget)
    assert budget.expired()
    with pytest.raises(InputError, match=r"time limit \(0.003 s\); the layouts and looks left were not"):
        decode_hand(readings, layout, budget=budget)
    assert budget.readings_left == 600_000 - 512
    assert budget.seconds_left() <= 0
    assert Budget(BudgetLimits(600_000)).seconds_left() is None


def test_pipeline_scores_the_decoded_hand_like_the_scorer_scores_the_truth():
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m")
    readings = scene.readings(angle_degrees=140, misread={0: ("1p", 0.7)})
    context = {"self_drawn": True, "seat_wind": "2z", "round_wind": "1z"}
    result = read_readings(readings, rules="taiwan", context=context)
    expected = score_hand(hand_from_json({**TRUTH, "context": context}), rules="taiwan")
    assert result.score.valid and result.score.total == expected.total
    document = result.to_json()
    assert document["score"]["total"] == expected.total
    assert [t["code"] for t in document["tiles"]] == scene.truth_codes()
    # Turned 140 degrees, the row's first tile is the picture's last.
    assert document["changes"] == [{"tile": 0, "place": "standing tile 10 of 10 from the left",
                                    "from": "1p", "to": "1m", "from_confidence": 0.7,
                                    "to_confidence": pytest.approx(0.24)}]
    assert document["assumed"] == []
    roles = [t["role"] for t in document["tiles"]]
    assert roles.count("winning") == 1 and roles.count("flowers") == 2


def test_unshown_winning_tile_reports_the_lowest_total_and_the_others():
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="none")
    result = read_readings(scene.readings(angle_degrees=5), rules="taiwan")
    totals = {}
    for code in set(TRUTH["concealed"]):
        hand = {**TRUTH, "flowers": [], "winning_tile": code}
        report = score_hand(hand_from_json(hand), rules="taiwan")
        if report.valid:
            totals[code] = report.total
    assert result.score.total == min(totals.values())
    reported = {a.total for a in result.report.alternatives}
    assert reported == set(totals.values()) - {min(totals.values())}
    assert any("does not show which tile won" in w for w in result.warnings)


def test_score_stability_lists_a_plausible_reading_with_another_total():
    """The pair reads South 55% / 5 dots 45%: both legal, and 'no honours' scores only with the dots."""
    concealed = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
    melds = [("pung", ["5s", "5s", "5s"], False), ("kong", ["9p"] * 4, True)]
    scene = lay_out(concealed, melds, [], "3m")
    readings = scene.readings()
    pair = [i for i, t in enumerate(scene.tiles) if t.code == "2z"]
    for i in pair:
        readings[i] = type(readings[i])(readings[i].detection, (("2z", 0.55), ("5p", 0.45)))
    result = read_readings(readings, rules="taiwan")
    assert result.hand["concealed"].count("2z") == 2
    alternative_hand = {**result.hand, "concealed": sorted(concealed[:8] + ["3m", "5p", "5p"]), "context": {}}
    alternative_total = score_hand(hand_from_json(alternative_hand), rules="taiwan").total
    assert alternative_total != result.score.total
    assert [a.total for a in result.report.alternatives] == [alternative_total]
    assert result.report.alternatives[0].share == pytest.approx(0.45 ** 2 / (0.45 ** 2 + 0.55 ** 2), rel=0.05)
    assert not result.report.score_stable
    assert any("score is not certain" in w for w in result.warnings)


def test_a_four_backs_kong_is_never_called_a_sure_score():
    """Its ~34 faces are equally likely and the decoder keeps only 8 of them, which may all score
    alike while a dragon would not: the unexamined mass alone makes the total uncertain."""
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    result = read_readings(scene.readings(angle_degrees=20), rules="taiwan")
    assert result.report.hand_confidence < 0.2
    assert not result.report.score_stable
    assert any("score is not certain" in w for w in result.warnings)


def test_a_sure_reading_with_the_kong_face_shown_stays_stable():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="outer")
    result = read_readings(scene.readings(angle_degrees=20, confidence=0.97), rules="taiwan")
    assert result.report.score_stable
    assert not any("score is not certain" in w for w in result.warnings)


def test_a_set_read_against_the_classifier_makes_the_score_unsure():
    """The pung's three tiles each look like something else (1s, 7s, 4m: no set), so the only legal
    reading is the 5z the classifier gives 12% each: right here, but the same forcing reads a TV
    remote's buttons beside a hand as a pung. The total is shown, not called sure."""
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="outer")
    pung = [k for k, tile in enumerate(scene.tiles) if tile.code == "5z"]
    misread = dict(zip(pung, [("1s", 0.85), ("7s", 0.85), ("4m", 0.85)], strict=True))
    result = read_readings(scene.readings(angle_degrees=20, confidence=0.97, misread=misread), rules="taiwan")
    assert same_hand(result.hand, TRUTH | {"flowers": []})
    assert not result.report.score_stable
    assert any("pung 5z 5z 5z is read against the classifier" in w for w in result.warnings)
    assert any("read against the classifier" in n for n in result.report.notes)


def test_tiles_left_out_among_the_sets_make_the_score_unsure():
    """Two backs beside a complete hand are taken for a piece of wall; the hand may still be missing a set."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    end = max(t.u for t in scene.tiles if t.v > LONG / 2)
    scene.tiles += [SceneTile("1z", end + (2 + k) * SHORT, LONG * 1.25, face_down=True) for k in range(2)]
    result = read_readings(scene.readings(angle_degrees=0, confidence=0.97), rules="taiwan")
    assert same_hand(result.hand, TRUTH | {"flowers": []})
    assert len(result.layout.set_aside) == 2
    assert not result.report.score_stable
    assert any("left out" in n for n in result.report.notes)
