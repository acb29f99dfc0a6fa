"""The table's games in one SQLite file: players, settings and every hand, each change one transaction.

Why SQLite: a phone and a laptop may both write while a hand is being added, and the server may be
stopped at any moment; a transaction either lands whole or not at all, and WAL lets readers go on
while one writes. Each game carries a ``version`` that every change increments; a change names the
version it was made on and is refused (:class:`StaleGameError`) when another phone changed the game
first, so an undo tapped twice undoes one hand.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from scoring.errors import InputError
from vision.serve.game import PLAYERS, Game, HandEntry, TableState, replay

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, created TEXT NOT NULL, players TEXT NOT NULL, rules TEXT NOT NULL,
    table_json TEXT NOT NULL, keeps_on_draw INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id), number INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('win', 'draw')), winner INTEGER, discarder INTEGER,
    photo TEXT, notation TEXT, fixes TEXT NOT NULL, reading TEXT, context TEXT, score TEXT,
    deltas TEXT NOT NULL, created TEXT NOT NULL, UNIQUE (game_id, number));
"""


class StaleGameError(Exception):
    """The change was made on an older version of the game than the one stored."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class GameStore:
    """The games in ``path`` (created with its folder when missing). Thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).expanduser()
        if self.path.is_dir():
            raise InputError(f"--db {self.path}: is a folder; give a file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise InputError(f"{self.path}: not a taicam game database ({error})") from None
        except OSError as error:
            raise InputError(f"cannot open {self.path}: {error.strerror or error}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def _transaction(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    # ------------------------------------------------------------- reads
    def current(self) -> Game | None:
        """The newest game, None before the first one."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self.game(row[0])

    def game(self, game_id: int) -> Game:
        with self._lock:
            row = self._db.execute("SELECT id, players, rules, table_json, keeps_on_draw, version FROM games "
                                   "WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise InputError(f"no game {game_id}")
        return Game(row[0], tuple(json.loads(row[1])), row[2], json.loads(row[3]), bool(row[4]), row[5])

    def entries(self, game_id: int) -> list[HandEntry]:
        with self._lock:
            rows = self._db.execute("SELECT number, kind, winner, discarder, deltas FROM hands "
                                    "WHERE game_id = ? ORDER BY number", (game_id,)).fetchall()
        return [HandEntry(n, kind, w, d, tuple(json.loads(deltas))) for n, kind, w, d, deltas in rows]

    def state(self, game: Game) -> TableState:
        return replay(self.entries(game.id), game.keeps_on_draw)

    def hands(self, game_id: int) -> list[dict]:
        """Every hand of the game as stored (JSON columns parsed), in order."""
        with self._lock:
            cursor = self._db.execute("SELECT number, kind, winner, discarder, photo, notation, fixes, "
                                      "reading, context, score, deltas, created FROM hands "
                                      "WHERE game_id = ? ORDER BY number", (game_id,))
            names = [column[0] for column in cursor.description]
            rows = cursor.fetchall()
        out = []
        for row in rows:
            hand = dict(zip(names, row, strict=True))
            for key in ("fixes", "reading", "context", "score", "deltas"):
                hand[key] = None if hand[key] is None else json.loads(hand[key])
            out.append(hand)
        return out

    # ------------------------------------------------------------- changes
    def new_game(self, players: tuple[str, ...], rules: str, table: dict, keeps_on_draw: bool) -> Game:
        with self._lock:
            db = self._transaction()
            try:
                cursor = db.execute("INSERT INTO games (created, players, rules, table_json, keeps_on_draw) "
                                    "VALUES (?, ?, ?, ?, ?)", (_now(), json.dumps(list(players)), rules,
                                                               json.dumps(table), int(keeps_on_draw)))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            game_id = int(cursor.lastrowid or 0)
        return self.game(game_id)

    def _bump(self, db: sqlite3.Connection, game_id: int, version: int) -> None:
        row = db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise InputError(f"no game {game_id}")
        if row[0] != version:
            raise StaleGameError(f"the game changed on another screen (version {row[0]}, this one "
                                 f"{version}): it is shown again as it is now")
        db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))

    def add_hand(self, game_id: int, version: int, record: dict) -> int:
        """Append a hand (``record``: kind, winner, discarder, photo, notation, fixes, reading, context,
        score, deltas) made on game ``version``; returns its number."""
        deltas = record["deltas"]
        if len(deltas) != PLAYERS:
            raise InputError("a hand's money must name four players")
        with self._lock:
            db = self._transaction()
            try:
                self._bump(db, game_id, version)
                number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM hands WHERE game_id = ?",
                                    (game_id,)).fetchone()[0]
                db.execute(
                    "INSERT INTO hands (game_id, number, kind, winner, discarder, photo, notation, fixes, "
                    "reading, context, score, deltas, created) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, number, record["kind"], record.get("winner"), record.get("discarder"),
                     record.get("photo"), record.get("notation"), json.dumps(record.get("fixes") or []),
                     _dumps(record.get("reading")), _dumps(record.get("context")),
                     _dumps(record.get("score")), json.dumps(list(deltas)), _now()))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return int(number)

    def undo_last(self, game_id: int, version: int) -> bool:
        """Delete the game's last hand (made on ``version``); False when it has none."""
        with self._lock:
            db = self._transaction()
            try:
                self._bump(db, game_id, version)
                deleted = db.execute("DELETE FROM hands WHERE game_id = ? AND number = (SELECT MAX(number) "
                                     "FROM hands WHERE game_id = ?)", (game_id, game_id)).rowcount
                if not deleted:
                    db.execute("ROLLBACK")
                    return False
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return True

    # ------------------------------------------------------------- exports
    def export_json(self, game: Game) -> dict:
        state = self.state(game)
        return {"game": game.id, "players": list(game.players), "rules": game.rules, "table": game.table,
                "hands": self.hands(game.id), "state": state.to_json(game.players)}

    def export_csv(self, game: Game) -> str:
        """One row a hand: number, kind, winner, discarder, total, each player's gain and balance."""
        out = io.StringIO()
        writer = csv.writer(out)
        names = [_cell(name) for name in game.players]
        writer.writerow(["hand", "kind", "winner", "discarder", "total",
                         *[f"{name} +/-" for name in names], *[f"{name} balance" for name in names]])
        balances = [0] * PLAYERS
        for hand in self.hands(game.id):
            balances = [b + d for b, d in zip(balances, hand["deltas"], strict=True)]
            total = (hand["score"] or {}).get("total", "")
            writer.writerow([hand["number"], hand["kind"], _name(game, hand["winner"]),
                             _name(game, hand["discarder"]), total, *hand["deltas"], *balances])
        return out.getvalue()


def _name(game: Game, player: int | None) -> str:
    return "" if player is None else _cell(game.players[player])


def _cell(text: str) -> str:
    """``text`` safe in a spreadsheet cell: one that would start a formula is quoted."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text


def _dumps(value: object) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)
