"""A concealed kong of four backs: every face it may hide is scored, the lowest total reported, and
the other totals listed with their faces, unless the player names the face (``--kong-face``) (real
scorer, readings made from known hands)."""

from __future__ import annotations

import pytest
from hand_scenes import lay_out

from scoring import Hand, hand_from_json, score_hand
from scoring.errors import InputError
from scoring.hand import context_from_json
from vision.named_tiles import NamedTiles, named_tiles
from vision.pipeline import read_readings
from vision.repairs.hidden_kong import choose_hidden_kong_faces, hidden_kong_melds, possible_faces

# 5z (white dragon) and 2z are in the hand already, so the kong can hide neither.
CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]
CONTEXT = {"self_drawn": False, "seat_wind": "3z", "round_wind": "1z", "dealer": False}


def _hand_json(face: str) -> dict:
    return {"concealed": sorted(CONCEALED + ["3m"]), "winning_tile": "3m", "flowers": [],
            "melds": [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
                      {"kind": "kong", "tiles": [face] * 4, "concealed": True}]}


def _total(face: str) -> int:
    return score_hand(hand_from_json({**_hand_json(face), "context": CONTEXT}), rules="taiwan").total


def _hand(face: str) -> Hand:
    return hand_from_json(_hand_json(face))


def _position(hand: dict) -> int:
    return next(n for n, meld in enumerate(hand["melds"]) if meld["concealed"])


def _read_naming(scene, **named):
    return read_readings(scene.readings(angle_degrees=20), context=CONTEXT, named=NamedTiles(**named))


def test_a_kong_hides_only_faces_seen_nowhere_else_in_the_hand():
    faces = possible_faces(_hand("9p"), 1)
    seen = {"1m", "2m", "3m", "4p", "6s", "7s", "8s", "2z", "5z"}
    assert not seen & set(faces)
    assert {"9p", "6z", "7z", "1z", "3z"} <= set(faces) and len(faces) == 34 - len(seen)


def test_the_lowest_total_is_scored_and_each_other_total_named_with_its_faces():
    hand, report, alternatives = choose_hidden_kong_faces(_hand("9p"), [1], context_from_json(CONTEXT),
                                                          "taiwan", None)
    face = hand.melds[1].tiles[0]
    totals = {f: _total(f) for f in possible_faces(_hand("9p"), 1)}
    assert report.total == min(totals.values()) == totals[face]
    # A dragon kong is also a dragon pung, a seat (West) or round (East) wind kong a wind pung.
    assert totals["6z"] > totals["9p"] and totals["1z"] > totals["9p"] and totals["3z"] > totals["9p"]
    named = {a.total: a.description for a in alternatives}
    assert set(named) == set(totals.values()) - {report.total}
    assert "6z" in named[totals["6z"]] and "7z" in named[totals["6z"]]
    for alternative in alternatives:
        assert alternative.hand.melds[1].tiles[0] in alternative.description


def test_the_photo_pipeline_reports_the_kongs_faces_and_calls_the_score_unsure():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    result = read_readings(scene.readings(angle_degrees=20), context=CONTEXT)
    assert hidden_kong_melds(result.decoded.best) == [_position(result.hand)]
    warning = next(w for w in result.warnings if "four backs" in w)
    assert "6z" in warning and "would total" in warning
    assert not result.report.score_stable
    kong_totals = {a.total for a in result.report.alternatives if "four backs" in a.description}
    assert kong_totals and all(total > result.score.total for total in kong_totals)


def test_a_kong_with_a_face_up_is_scored_as_seen():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="outer")
    result = read_readings(scene.readings(angle_degrees=20), context=CONTEXT)
    assert hidden_kong_melds(result.decoded.best) == []
    assert not any("four backs" in w for w in result.warnings)
    assert result.hand["melds"][_position(result.hand)]["tiles"] == ["9p"] * 4


def test_a_face_the_player_names_is_scored_with_no_guess():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    result = _read_naming(scene, kong_faces=("6z",))
    assert result.hand["melds"][_position(result.hand)]["tiles"] == ["6z"] * 4
    assert result.score.total == _total("6z") > _total("9p")
    assert any("scored as 6z" in w and "--kong-face" in w for w in result.warnings)
    assert not any("would total" in w for w in result.warnings)
    assert not any("four backs" in a.description for a in result.report.alternatives)
    assert result.report.score_stable


def test_a_named_face_the_hand_already_shows_is_not_used_and_the_faces_are_guessed_as_before():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    result = _read_naming(scene, kong_faces=("5z",))
    assert any("--kong-face 5z not used" in w for w in result.warnings)
    assert any("would total" in w for w in result.warnings)
    assert not result.report.score_stable


def test_a_named_face_with_no_kong_of_four_backs_is_reported_unused():
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="outer")
    result = _read_naming(scene, kong_faces=("6z",))
    assert result.hand["melds"][_position(result.hand)]["tiles"] == ["9p"] * 4
    assert any("--kong-face 6z not used: the photo shows 0" in w for w in result.warnings)


@pytest.mark.parametrize(("faces", "winning", "message"), [
    (["5f"], None, "--kong-face '5f': not a tile face"), (["back"], None, "not a tile face"),
    (["x"], None, "not a tile face"), (["6z", "6z"], None, "given twice"),
    ([], "3f", "--winning-tile '3f': not a tile a hand can win on"), ([], "10m", "--winning-tile"),
])
def test_named_tiles_that_no_hand_can_hold_are_refused(faces, winning, message):
    with pytest.raises(InputError, match=message):
        named_tiles(faces, winning)


def test_the_live_reader_scores_a_named_kong_face_as_the_photo_does():
    from vision.live.reading import PipelineHandReader

    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    reader = PipelineHandReader("taiwan", None, CONTEXT, named=NamedTiles(kong_faces=("6z",)))
    outcome = reader(scene.readings(angle_degrees=20))
    assert outcome.complete
    assert outcome.document["score"]["total"] == _total("6z")


def test_the_cli_scores_a_rendered_kong_of_four_backs_with_the_face_the_player_names(tmp_path, capsys):
    """Held-out render 900035: a 6z kong lying as four backs; self-drawn, seat North, round South."""
    import json

    from heldout_renders import held_out_render

    from vision.cli import main

    path, record = held_out_render(900035, tmp_path)
    assert [m["tiles"][0] for m in record.hand["melds"] if m["concealed"]] == ["6z"]
    flags = ["photo", str(path), "--json", "--seat", "N", "--round", "S", "--self-drawn"]
    assert main(flags) == 0
    guessed = json.loads(capsys.readouterr().out)
    assert main([*flags, "--kong-face", "6z"]) == 0
    named = json.loads(capsys.readouterr().out)
    kong = next(m for m in named["hand"]["melds"] if m["concealed"])
    assert kong["tiles"] == ["6z"] * 4
    assert named["score"]["total"] > guessed["score"]["total"]  # a dragon kong is a dragon pung too
    assert named["confidence_report"]["score_stable"] and not guessed["confidence_report"]["score_stable"]
