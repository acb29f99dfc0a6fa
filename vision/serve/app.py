"""What ``taicam serve`` answers, apart from HTTP: the game, the photos, scoring a hand for the table.

Every hand, read from a photo or typed, is scored the same way: its tiles as a hand (the photo's
reading with the player's fixes, or notation), the win context the game knows (seat, round, dealer,
streak, who discarded) with the player's few switches, then ``scoring.score_hand`` under the game's
rule set and table settings; the payment lines become each player's gain
(``vision.serve.game.money``). The server scores; what the page sends is only what the player chose.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from scoring import list_rulesets, load_ruleset, parse_notation, score_hand
from scoring.errors import InputError
from scoring.hand import Hand, context_from_json, hand_from_json
from scoring.table import table_from_dict
from scoring.tiles import ENGLISH_NAMES, FACE_CODES
from vision.serve.game import EXTRA_FLAGS, Game, TableState, check_players, money, win_context
from vision.serve.photos import MAX_FIXES, UPLOAD_LIMITS, PhotoDesk
from vision.serve.store import GameStore

#: Longest hand notation accepted (a 16-tile hand with melds and context is under 120 characters).
MAX_NOTATION = 300
_CHINESE = {**{f"{n}m": f"{c}萬" for n, c in zip(range(1, 10), "一二三四五六七八九", strict=True)},
            **{f"{n}p": f"{c}筒" for n, c in zip(range(1, 10), "一二三四五六七八九", strict=True)},
            **{f"{n}s": f"{c}條" for n, c in zip(range(1, 10), "一二三四五六七八九", strict=True)},
            **dict(zip([f"{n}z" for n in range(1, 8)], "東南西北白發中", strict=True)),
            **dict(zip([f"{n}f" for n in range(1, 9)], "梅蘭菊竹春夏秋冬", strict=True))}


class ServeApp:
    """The store, the photo desk and the default rules a new game starts with."""

    def __init__(self, store: GameStore, desk: PhotoDesk, rules: str = "taiwan",
                 table: dict | None = None) -> None:
        self.store = store
        self.desk = desk
        self.table = dict(table or {})
        table_from_dict(self.table, "--table")
        load_ruleset(rules)  # a bad id or file is reported when the server starts, not at the table
        self.rules = rules

    # ------------------------------------------------------------- views
    def meta(self) -> dict[str, Any]:
        return {"codes": list(FACE_CODES), "names": {c: ENGLISH_NAMES[c] for c in FACE_CODES},
                "chinese": _CHINESE, "rulesets": self._rulesets(),
                "rules": self.rules, "flags": list(EXTRA_FLAGS), "max_fixes": MAX_FIXES,
                "max_upload_bytes": UPLOAD_LIMITS.max_bytes, "max_pixels": UPLOAD_LIMITS.max_pixels}

    def _rulesets(self) -> list[dict[str, str]]:
        """The rule sets a new game may take: the shipped ones, and a file ``--rules`` named."""
        shipped = [{"id": r.id, "name": r.name} for r in list_rulesets()]
        if all(r["id"] != self.rules for r in shipped):
            shipped.insert(0, {"id": self.rules, "name": f"{load_ruleset(self.rules).name} ({self.rules})"})
        return shipped

    def view(self) -> dict[str, Any]:
        """The current game as every phone shows it: players, state, hands, version."""
        game = self.store.current()
        if game is None:
            return {"game": None}
        state = self.store.state(game)
        hands = [{"number": h["number"], "kind": h["kind"], "winner": h["winner"],
                  "discarder": h["discarder"], "total": (h["score"] or {}).get("total"),
                  "deltas": h["deltas"], "photo": h["photo"]} for h in self.store.hands(game.id)]
        return {"game": {"id": game.id, "players": list(game.players), "rules": game.rules,
                         "version": game.version, "keeps_on_draw": game.keeps_on_draw},
                "state": state.to_json(game.players), "hands": hands}

    # ------------------------------------------------------------- changes
    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        players = check_players(body.get("players"))
        rules = body.get("rules") or self.rules
        if not isinstance(rules, str):
            raise InputError("'rules' must be a rule-set id")
        ruleset = load_ruleset(rules)
        self.store.new_game(players, rules, self.table, bool(ruleset.payments["dealer_keeps_on_draw"]))
        return self.view()

    def score(self, body: dict[str, Any]) -> dict[str, Any]:
        """The hand ``body`` describes scored for the current game, not yet added."""
        game, state = self._game()
        return self._scored(game, state, body)[0]

    def add_hand(self, body: dict[str, Any]) -> dict[str, Any]:
        """Score the hand again and add it (or a drawn hand) to the game, made on ``version``."""
        game, state = self._game()
        version = _version(body)
        if body.get("kind") == "draw":
            self.store.add_hand(game.id, version, {"kind": "draw", "deltas": [0, 0, 0, 0]})
            return self.view()
        scored, record = self._scored(game, state, body)
        self.store.add_hand(game.id, version, record)
        return {**self.view(), "added": scored}

    def undo(self, body: dict[str, Any]) -> dict[str, Any]:
        game, _ = self._game()
        undone = self.store.undo_last(game.id, _version(body))
        return {**self.view(), "undone": undone}

    def export(self, kind: str) -> tuple[bytes, str]:
        game, _ = self._game()
        if kind == "csv":
            return self.store.export_csv(game).encode("utf-8"), "text/csv; charset=utf-8"
        return (json.dumps(self.store.export_json(game), ensure_ascii=False, indent=1).encode("utf-8"),
                "application/json")

    # ------------------------------------------------------------- scoring
    def _game(self) -> tuple[Game, TableState]:
        game = self.store.current()
        if game is None:
            raise InputError("start a game first: four players' names")
        return game, self.store.state(game)

    def _hand(self, body: dict[str, Any]) -> tuple[Hand, dict | None, tuple[str, ...]]:
        """The hand's tiles: a photo's reading (with fixes) or notation; the reading; the fixes."""
        photo, notation = body.get("photo"), body.get("notation")
        if photo is not None:
            fixes = body.get("fixes") or []
            if not isinstance(fixes, list) or not all(isinstance(f, str) for f in fixes):
                raise InputError("'fixes' must be a list of READ=TRUE texts")
            reading = self.desk.read(photo, tuple(fixes))
            if not reading["ok"]:
                raise InputError(f"{reading['error']}. {reading['advice']}")
            return hand_from_json(reading["hand"]), reading, tuple(fixes)
        if not isinstance(notation, str) or not notation.strip() or len(notation) > MAX_NOTATION:
            raise InputError("give a photo or the hand's notation (e.g. 123m 456p 789s 11z 234s 55s +5s)")
        return parse_notation(notation), None, ()

    def _scored(self, game: Game, state: TableState, body: dict[str, Any]) -> tuple[dict, dict]:
        winner, discarder = body.get("winner"), body.get("discarder")
        if isinstance(winner, bool) or not isinstance(winner, int):
            raise InputError("say who won")
        if discarder is not None and (isinstance(discarder, bool) or not isinstance(discarder, int)):
            raise InputError("'discarder' must be a player number or null (self-drawn)")
        flags = body.get("flags") or {}
        if not isinstance(flags, dict):
            raise InputError("'flags' must be an object")
        context = win_context(state, winner, discarder, flags)
        hand, reading, fixes = self._hand(body)
        hand = replace(hand, context=hand.context.merged(context_from_json(context)))
        table = table_from_dict(game.table, "the game's table settings")
        report = score_hand(hand, load_ruleset(game.rules), table)
        if not report.valid:
            raise InputError(f"not a winning hand: {report.reason}")
        deltas = money(state, report.payments, report.side_payments)
        names = {state.seat_wind(p): name for p, name in enumerate(game.players)}
        lines = [{"from": names[p.payer], "to": names[p.payee], "amount": p.amount, "note": p.note}
                 for p in report.payments]
        lines += [{"from": names[s.payer], "to": names[s.payee], "amount": s.amount, "note": s.name}
                  for s in report.side_payments]
        sure = _sureness(reading)
        scored = {"score": report.to_json(), "deltas": list(deltas), "lines": lines, "context": context,
                  "sure": sure, "winner": winner, "discarder": discarder}
        record = {"kind": "win", "winner": winner, "discarder": discarder,
                  "photo": reading["photo"] if reading else None,
                  "notation": None if reading else body.get("notation"), "fixes": list(fixes),
                  "reading": None if reading is None else {
                      "hand": reading["hand"], "confidence_report": reading.get("confidence_report")},
                  "context": context, "score": report.to_json(), "deltas": list(deltas)}
        return scored, record


def _version(body: dict[str, Any]) -> int:
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError("a change must carry the game's 'version' it was made on")
    return version


def _sureness(reading: dict | None) -> dict[str, Any]:
    """Whether the score is sure, in words: the confidence report's verdict and other readings."""
    if reading is None:
        return {"sure": True, "words": "typed by hand: scored as given", "alternatives": []}
    report = reading.get("confidence_report") or {}
    alternatives = [f"{a['reading']}: total {a['total']}" + (
        "" if a.get("probability") is None else f" ({a['probability']:.0%} likely)")
        for a in report.get("alternatives", [])]
    stable = bool(report.get("score_stable"))
    words = ("sure: no other likely reading of the photo changes the total" if stable
             else "not sure: another reading of the photo would score differently; check the tiles")
    return {"sure": stable, "words": words, "alternatives": alternatives, "notes": report.get("notes", [])}
