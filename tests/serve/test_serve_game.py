"""The table's game: the deal's rotation and streak as the rule set says, money from the payment
lines, the SQLite store's versions, undo and exports, and a typed hand scored like a photo's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_helpers import CHANGE, SAMPLES, RunningServe

from scoring import load_ruleset, parse_notation, score_hand
from scoring.errors import InputError
from scoring.report import Payment, SidePayment
from vision.serve.game import START, HandEntry, check_players, money, next_state, replay, win_context
from vision.serve.store import GameStore, StaleGameError

PLAYERS = ("Ann", "Bo", "Cy", "Di")
#: A legal 16-tile hand: 123m 456m 789m 234p 567s, pair 11z, won on 7s.
HAND = "123m 456m 789m 234p 56s 11z +7s"


def win(number: int, winner: int, discarder: int | None = None) -> HandEntry:
    deltas = [0, 0, 0, 0]
    deltas[winner] += 3
    deltas[discarder if discarder is not None else (winner + 1) % 4] -= 3
    return HandEntry(number, "win", winner, discarder, tuple(deltas))


def draw(number: int) -> HandEntry:
    return HandEntry(number, "draw", None, None, (0, 0, 0, 0))


def test_the_dealer_keeps_the_deal_on_a_win_and_the_streak_grows() -> None:
    state = replay([win(1, 0, 2), win(2, 0, 3)], keeps_on_draw=True)
    assert (state.dealer, state.streak, state.round_wind) == (0, 2, "1z")
    assert state.balances == (6, 0, -3, -3) and state.hands == 2


def test_another_players_win_passes_the_deal_and_resets_the_streak() -> None:
    state = replay([win(1, 0, 2), win(2, 2, 0)], keeps_on_draw=True)
    assert (state.dealer, state.streak) == (1, 0)
    assert [state.seat_wind(p) for p in range(4)] == ["4z", "1z", "2z", "3z"]
    assert state.player_at("1z") == 1 and state.player_at("4z") == 0


def test_a_draw_keeps_or_passes_the_deal_as_the_rule_set_says() -> None:
    assert load_ruleset("taiwan").payments["dealer_keeps_on_draw"] is True
    assert load_ruleset("lrc").payments["dealer_keeps_on_draw"] is False
    kept = next_state(START, draw(1), keeps_on_draw=True)
    passed = next_state(START, draw(1), keeps_on_draw=False)
    assert (kept.dealer, kept.streak) == (0, 1) and (passed.dealer, passed.streak) == (1, 0)


def test_the_round_wind_moves_on_when_the_deal_comes_back_to_the_first_dealer() -> None:
    entries = [win(n + 1, (n + 1) % 4, n % 4) for n in range(4)]  # each dealer loses in turn
    assert replay(entries[:3], True).round_wind == "1z"
    state = replay(entries, True)
    assert (state.dealer, state.round_wind, state.round_index) == (0, "2z", 1)


def test_the_win_context_comes_from_the_game() -> None:
    state = replay([win(1, 0, 1), draw(2)], keeps_on_draw=True)  # Ann deals, streak 2
    context = win_context(state, winner=2, discarder=0, flags={"last_tile": True, "ting": False})
    assert context == {"seat_wind": "3z", "round_wind": "1z", "dealer": False, "dealer_streak": 2,
                       "self_drawn": False, "discarder": "1z", "last_tile": True}
    assert win_context(state, 0, None, {})["self_drawn"] is True
    for bad in [(4, None, {}), (1, 1, {}), (1, None, {"moon": True}), (1, None, {"ting": "yes"})]:
        with pytest.raises(InputError):
            win_context(state, *bad)


def test_money_follows_the_payment_lines_by_seat() -> None:
    state = replay([win(1, 1, 0)], keeps_on_draw=True)  # Bo deals now (East)
    payments = [Payment("3z", "1z", 5, "discarder pays"), Payment("3z", "1z", 3, "to the dealer")]
    side = [SidePayment("kong", "Concealed kong", "暗槓", "4z", "1z", 2, [])]
    assert money(state, payments, side) == (-2, 10, 0, -8)
    with pytest.raises(InputError):
        money(state, [Payment("discarder", "1z", 5, "")], [])


def test_players_need_four_distinct_names() -> None:
    assert check_players([" Ann ", "Bo", "Cy", "Di"]) == PLAYERS
    for bad in [["Ann", "Bo", "Cy"], ["Ann", "Bo", "Cy", ""], ["Ann", "Ann", "Cy", "Di"],
                ["A" * 25, "B", "C", "D"], "Ann Bo Cy Di"]:
        with pytest.raises(InputError):
            check_players(bad)


def test_the_store_keeps_hands_in_versions_undoes_and_survives_a_reopen(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    game = store.new_game(PLAYERS, "taiwan", {}, True)
    record = {"kind": "win", "winner": 1, "discarder": 2, "fixes": [], "deltas": [0, 7, -7, 0],
              "score": {"total": 7}}
    assert store.add_hand(game.id, 0, record) == 1
    with pytest.raises(StaleGameError):
        store.add_hand(game.id, 0, record)  # a second phone's add made on the old version
    assert store.add_hand(game.id, 1, {"kind": "draw", "deltas": [0, 0, 0, 0]}) == 2
    with pytest.raises(InputError):
        store.add_hand(game.id, 2, {**record, "deltas": [1, 2, 3]})
    assert store.game(game.id).version == 2
    assert store.undo_last(game.id, 2) is True
    with pytest.raises(StaleGameError):
        store.undo_last(game.id, 2)  # an undo tapped twice undoes one hand
    store.close()

    again = GameStore(tmp_path / "games.sqlite3")
    game = again.current()
    assert game is not None and game.players == PLAYERS and game.version == 3
    assert [h["number"] for h in again.hands(game.id)] == [1]
    state = again.state(game)
    assert state.balances == (0, 7, -7, 0) and state.dealer == 1
    rows = again.export_csv(game).splitlines()
    assert rows[0].startswith("hand,kind,winner,discarder,total,Ann +/-")
    assert rows[1] == "1,win,Bo,Cy,7,0,7,-7,0,0,7,-7,0"
    exported = again.export_json(game)
    assert exported["players"] == list(PLAYERS) and exported["state"]["dealer_name"] == "Bo"
    assert again.undo_last(game.id, 3) is True and again.undo_last(game.id, 4) is False
    again.close()


def test_a_name_that_would_be_a_spreadsheet_formula_is_quoted_in_the_csv(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    game = store.new_game(("=SUM(A1)", "Bo", "Cy", "Di"), "taiwan", {}, True)
    store.add_hand(game.id, 0, {"kind": "win", "winner": 0, "discarder": 1, "deltas": [5, -5, 0, 0],
                                "score": {"total": 5}})
    rows = store.export_csv(game).splitlines()
    assert "'=SUM(A1) +/-" in rows[0] and rows[1].startswith("1,win,'=SUM(A1),Bo,5")
    store.close()


def test_a_file_that_is_not_a_game_database_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "notes.sqlite3"
    bad.write_text("not a database at all, just some notes " * 50)
    with pytest.raises(InputError, match="not a taicam game database"):
        GameStore(bad)
    with pytest.raises(InputError, match="is a folder"):
        GameStore(tmp_path)


def test_a_typed_hand_is_scored_as_the_engine_scores_it(serve: RunningServe) -> None:
    assert serve.call("POST", "/api/games", {"players": list(PLAYERS)}, CHANGE)[0] == 200
    body = {"notation": HAND, "winner": 0, "discarder": None}
    status, scored = serve.call("POST", "/api/score", body, CHANGE)
    assert status == 200
    hand = parse_notation(HAND + " @self @seat=E @round=E @dealer @streak=0")
    expected = score_hand(hand, "taiwan")
    assert scored["score"]["total"] == expected.total and scored["score"]["items"] == [
        item.to_json() for item in expected.items]
    # Self-drawn by the dealer: each other player pays the hand and the dealer's 1.
    assert scored["deltas"][0] == 3 * (expected.total + 1) and sum(scored["deltas"]) == 0
    status, refused = serve.call("POST", "/api/score", {"notation": "123m 456m +7s", "winner": 0}, CHANGE)
    assert status == 400 and refused["error"].startswith("not a winning hand")


def test_a_photo_hand_and_the_same_hand_typed_score_alike(serve: RunningServe) -> None:
    serve.call("POST", "/api/games", {"players": list(PLAYERS), "rules": "lrc"}, CHANGE)
    data = (SAMPLES / "hand-overhead.jpg").read_bytes()
    _, reading = serve.call("POST", "/api/photos", data, {"X-Taicam": "1", "Content-Type": "image/jpeg"})
    choice = {"winner": 3, "discarder": 1, "flags": {}}
    _, from_photo = serve.call("POST", "/api/score", {"photo": reading["photo"], **choice}, CHANGE)
    typed = "[456m] [9999p] 789m 222p 55p 12s 4f 7f 8f +3s"
    _, from_notation = serve.call("POST", "/api/score", {"notation": typed, **choice}, CHANGE)
    assert from_photo["score"]["total"] == from_notation["score"]["total"]
    assert from_photo["deltas"] == from_notation["deltas"]
    version = 0
    _, view = serve.call("POST", "/api/hands", {"kind": "draw", "version": version}, CHANGE)
    assert view["state"]["dealer"] == 1  # LRC: the deal passes on a draw
    status, stale = serve.call("POST", "/api/undo", {"version": version}, CHANGE)
    assert status == 409 and stale["stale"]
    status, exported = serve.call("GET", "/api/export.json")
    assert status == 200 and json.loads(json.dumps(exported))["rules"] == "lrc"
