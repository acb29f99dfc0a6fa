"""A hand with one tile the photo does not show: the decoder infers it from the tiles that complete the
hand (real decoder and scorer, readings made from known hands with one tile left out)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hand_scenes import lay_out

from scoring import hand_from_json, score_hand
from scoring.errors import InputError
from scoring.tiles import SET_TILE_CODES, sorted_codes
from vision.decode import decode_hand
from vision.evaluation.hand_outcome import same_hand
from vision.layout import layout_tiles
from vision.pipeline import read_readings
from vision.report.confidence import HIDDEN_NOTE

MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]
MELDS_JSON = [{"kind": "pung", "tiles": ["5z"] * 3, "concealed": False},
              {"kind": "kong", "tiles": ["9p"] * 4, "concealed": True}]
#: 1m 2m waits on 3m alone (an edge wait): the standing tiles have exactly one completion.
SINGLE_WAIT = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
#: Two pairs wait on either (4p or 7z); a pung of Red scores more than one of 4 dots.
TWO_WAITS = ["1m", "2m", "3m", "6s", "7s", "8s", "4p", "4p", "7z", "7z"]


def _hand(concealed: list[str], winning_tile: str, flowers: list[str] | None = None) -> dict:
    return {"concealed": sorted_codes(concealed), "melds": MELDS_JSON, "flowers": flowers or [],
            "winning_tile": winning_tile}


def _completions(seen: list[str], winning_tile: str | None = None) -> dict[str, int]:
    """Every code that makes these standing tiles a valid hand (won on that code, or on
    ``winning_tile`` if given), with its total: brute force through the scorer alone."""
    totals = {}
    for code in SET_TILE_CODES:
        try:
            report = score_hand(hand_from_json(_hand(seen + [code], winning_tile or code)), rules="taiwan")
        except InputError:  # a fifth tile of a face
            continue
        if report.valid:
            totals[code] = report.total
    return totals


def test_hidden_winning_tile_with_a_single_wait_is_read_exactly():
    truth = _hand(SINGLE_WAIT + ["3m"], "3m", ["1f", "6f"])
    scene = lay_out(SINGLE_WAIT, MELDS, ["1f", "6f"], None)  # the winning tile lies hidden
    readings = scene.readings(angle_degrees=20, confidence=0.97)
    result = read_readings(readings, rules="taiwan", infer_unseen=True)
    assert same_hand(result.hand, truth)
    assert result.decoded.unseen is not None and result.decoded.unseen.winning
    assert result.decoded.unseen.codes == ("3m",)
    assert any("winning tile is not visible" in w and "read as 3m, the only tile that completes the hand" in w
               for w in result.warnings)
    assert not any("every possible winning tile is considered" in w for w in result.warnings)
    assert result.score.total == score_hand(hand_from_json(truth), rules="taiwan").total
    document = result.to_json()
    assert len(document["tiles"]) == len(scene.tiles)  # no detection, no entry in ``tiles``
    assert document["hand"]["winning_tile"] == "3m" and document["hand"]["concealed"].count("3m") == 1
    assert [t["role"] for t in document["tiles"]].count("winning") == 0
    # One tile completes it, so the total is right; but the photo hides part of the hand, and a
    # flower hidden with it would change no count: the score is not called sure.
    assert not document["confidence_report"]["score_stable"]
    assert HIDDEN_NOTE in document["confidence_report"]["notes"]
    assert any("a flower may be hidden too" in w for w in result.warnings)


def test_several_completions_report_the_lowest_total_and_list_the_others():
    totals = _completions(TWO_WAITS)
    assert sorted(totals) == ["4p", "7z"] and len(set(totals.values())) == 2
    scene = lay_out(TWO_WAITS, MELDS, [], None)
    result = read_readings(scene.readings(angle_degrees=-35), rules="taiwan", infer_unseen=True)
    lowest = min(totals, key=totals.get)
    other = max(totals, key=totals.get)
    assert same_hand(result.hand, _hand(TWO_WAITS + [lowest], lowest))
    assert result.score.valid and result.score.total == totals[lowest]
    unseen = [a for a in result.report.alternatives if a.description.startswith("unseen tile")]
    assert [(a.description, a.total) for a in unseen] == [(f"unseen tile {other}", totals[other])]
    assert unseen[0].hand.winning_tile == other and unseen[0].share == pytest.approx(0.5, abs=0.05)
    assert result.decoded.confidence == pytest.approx(0.5, abs=0.05)
    assert not result.report.score_stable
    assert any(f"read as {lowest}, other tiles that complete the hand: {other} (total {totals[other]})" in w
               for w in result.warnings)
    document = result.to_json()
    assert document["confidence"] < 1 and document["confidence_report"]["hand"] < 1
    assert any(a["reading"] == f"unseen tile {other}" and a["total"] == totals[other]
               for a in document["confidence_report"]["alternatives"])


def test_hidden_concealed_tile_with_the_winning_tile_shown_is_read_exactly():
    # 6s _ 8s: the missing 7s is the only tile that completes the hand; 3m lies across as the winner.
    seen = [c for c in SINGLE_WAIT if c != "7s"]
    truth = _hand(SINGLE_WAIT + ["3m"], "3m")
    scene = lay_out(seen, MELDS, [], "3m")
    result = read_readings(scene.readings(angle_degrees=10, misread={0: ("1p", 0.7)}), rules="taiwan",
                           infer_unseen=True)
    assert same_hand(result.hand, truth)
    assert result.decoded.unseen is not None and not result.decoded.unseen.winning
    assert [(c.top1, c.decoded) for c in result.decoded.changes] == [("1p", "1m")]
    assert any("read as 7s, the only tile that completes the hand" in w for w in result.warnings)
    roles = [t["role"] for t in result.to_json()["tiles"]]
    assert roles.count("winning") == 1


def test_hidden_concealed_tile_with_several_completions_reports_the_lowest_total():
    # 3m lies across as the winner; one of the pairs' partners is hidden: 4p or 7z completes the hand.
    seen = ["1m", "2m", "6s", "7s", "8s", "4p", "4p", "7z", "7z"]
    totals = _completions(seen + ["3m"], winning_tile="3m")
    assert sorted(totals) == ["4p", "7z"] and totals["4p"] < totals["7z"]
    result = read_readings(lay_out(seen, MELDS, [], "3m").readings(angle_degrees=60), rules="taiwan",
                           infer_unseen=True)
    assert same_hand(result.hand, _hand(seen + ["3m", "4p"], "3m"))
    assert result.score.total == totals["4p"] and not result.decoded.unseen.winning
    assert [(a.description, a.total) for a in result.report.alternatives
            if a.description.startswith("unseen")] == [("unseen tile 7z", totals["7z"])]
    assert not result.report.score_stable and result.decoded.confidence < 0.6


def test_without_inference_one_tile_short_is_refused_as_before():
    """The live mode reads the table while the player lays it out: one short there means "not yet"."""
    scene = lay_out(SINGLE_WAIT, MELDS, [], None)
    with pytest.raises(InputError, match=r"10 standing tiles with 2 set\(s\) on the table; a complete hand "
                                         r"has 11 .*is a tile hidden or outside the picture\?"):
        read_readings(scene.readings(angle_degrees=20), rules="taiwan")


def test_two_tiles_short_is_still_refused_with_the_counts():
    scene = lay_out(SINGLE_WAIT[:-2], MELDS, [], "3m")
    readings = scene.readings(angle_degrees=20)
    with pytest.raises(InputError, match=r"9 standing tiles with 2 set\(s\) on the table; a complete hand "
                                         r"has 11 .*2 tiles are missing .*only one can be inferred; sets "
                                         r"laid behind a standing row .* from higher up"):
        decode_hand(readings, layout_tiles(readings))


@pytest.mark.parametrize("seen, melds", [
    # No tile completes these standing tiles.
    (["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z"], MELDS),
    # The only wait, 3m, would be a fifth 3m: all four lie in the exposed kong.
    (SINGLE_WAIT, [("kong", ["3m"] * 4, False), ("kong", ["9p"] * 4, True)]),
])
def test_seen_tiles_no_tile_completes_are_refused(seen, melds):
    scene = lay_out(seen, melds, [], None)
    # A sure classifier (one candidate per tile): no misreading can make another hand of them.
    readings = [replace(r, candidates=r.candidates[:1]) for r in scene.readings(angle_degrees=20)]
    with pytest.raises(InputError, match="not a winning hand with one tile not visible"):
        decode_hand(readings, layout_tiles(readings))


def test_the_text_report_counts_and_names_the_inferred_winning_tile():
    from vision.photo_cli import format_result

    scene = lay_out(SINGLE_WAIT, MELDS, ["1f", "6f"], None)
    result = read_readings(scene.readings(angle_degrees=20, confidence=0.97), rules="taiwan",
                           infer_unseen=True)
    text = format_result(result)
    # 10 standing + 1 inferred, a pung, a concealed kong and 2 flowers.
    assert "20 tiles in the hand" in text.splitlines()[0]
    assert "winning tile: not in the photo; inferred as 3m" in text


def test_a_hidden_tile_completing_seven_pairs_and_a_pung_is_inferred():
    """With no set on the table the special shapes' waits count too (taiwan scores seven pairs + a pung)."""
    seen = ["1m", "1m", "3m", "3m", "5p", "5p", "7p", "7p", "2s", "2s", "4s", "4s", "6z", "6z", "9s", "9s"]
    truth = {"concealed": sorted_codes(seen + ["9s"]), "melds": [], "flowers": [], "winning_tile": "9s"}
    assert score_hand(hand_from_json(truth), rules="taiwan").valid
    scene = lay_out(seen, [], [], None)
    result = read_readings(scene.readings(angle_degrees=10, confidence=0.97), rules="taiwan",
                           infer_unseen=True)
    assert result.decoded.unseen is not None and "9s" in result.decoded.unseen.codes
    expected = {code for code in SET_TILE_CODES if seen.count(code) < 4 and score_hand(hand_from_json(
        {**truth, "concealed": sorted_codes(seen + [code]), "winning_tile": code}), rules="taiwan").valid}
    assert set(result.decoded.unseen.codes) == expected


def test_a_hopeless_hand_one_tile_short_is_refused_by_its_waits():
    """Sixteen unrelated tiles and no sets: no code completes them, and the refusal comes from the exact
    waits (none) rather than from scoring every face on every reading."""
    seen = ["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z", "2z", "3z", "2m", "5m", "8m", "9s"]
    readings = lay_out(seen, [], [], None).readings(angle_degrees=20, confidence=0.8)
    with pytest.raises(InputError, match="no tile completes it"):
        decode_hand(readings, layout_tiles(readings), infer_unseen=True)
