"""A table's game as plain values: who sits where, who deals, the round, the streak, the money.

Why: the state of a game (dealer, streak, round wind, balances) follows from its hands alone, so it
is never stored, only replayed (:func:`replay`): undoing the last hand is deleting it, and two
phones that see the same hands see the same table. Players are numbered 0..3 in turn order (each
one's right-hand neighbour is next); player 0 deals first. The dealer sits East and the others take
South, West, North in turn. The dealer keeps the deal on a win, and on a drawn hand where the rule
set says so (``[payments] dealer_keeps_on_draw``), the streak then going up by one; otherwise the
deal passes to the next player and the streak starts again. When it comes back to player 0 the
round wind moves on (East, South, West, North).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.errors import InputError
from scoring.report import Payment, SidePayment
from scoring.tiles import WIND_CODES

PLAYERS = 4
#: Context switches the page offers besides who won from whom (names of ``WinContext`` fields).
EXTRA_FLAGS = ("last_tile", "robbing_kong", "replacement_draw", "kong_chain", "ting", "first_turn")


@dataclass(frozen=True)
class Game:
    """A game's fixed facts: its players (turn order), rule set id and table settings (as the
    table file's keys)."""

    id: int
    players: tuple[str, ...]
    rules: str
    table: dict
    keeps_on_draw: bool
    version: int = 0


@dataclass(frozen=True)
class HandEntry:
    """One finished hand: a win (``winner``, ``discarder`` None when self-drawn) or a draw, and
    what each player gained (negative: paid)."""

    number: int
    kind: str
    winner: int | None
    discarder: int | None
    deltas: tuple[int, ...]


@dataclass(frozen=True)
class TableState:
    """Where the game stands before its next hand."""

    dealer: int
    streak: int
    round_index: int
    balances: tuple[int, ...]
    hands: int

    @property
    def round_wind(self) -> str:
        return WIND_CODES[self.round_index % PLAYERS]

    def seat_wind(self, player: int) -> str:
        """The seat wind of ``player`` this hand (the dealer is East)."""
        return WIND_CODES[(player - self.dealer) % PLAYERS]

    def player_at(self, wind: str) -> int:
        """The player sitting at seat ``wind`` this hand."""
        return (self.dealer + WIND_CODES.index(wind)) % PLAYERS

    def to_json(self, players: Sequence[str]) -> dict:
        return {"dealer": self.dealer, "dealer_name": players[self.dealer], "streak": self.streak,
                "round_wind": self.round_wind, "round_number": self.round_index + 1,
                "balances": list(self.balances), "hands": self.hands,
                "seats": [self.seat_wind(p) for p in range(PLAYERS)]}


START = TableState(dealer=0, streak=0, round_index=0, balances=(0,) * PLAYERS, hands=0)


def next_state(state: TableState, entry: HandEntry, keeps_on_draw: bool) -> TableState:
    """The state after ``entry``: money added, the deal kept or passed."""
    balances = tuple(b + d for b, d in zip(state.balances, entry.deltas, strict=True))
    keeps = entry.winner == state.dealer if entry.kind == "win" else keeps_on_draw
    if keeps:
        return TableState(state.dealer, state.streak + 1, state.round_index, balances, state.hands + 1)
    dealer = (state.dealer + 1) % PLAYERS
    round_index = state.round_index + (dealer == 0)
    return TableState(dealer, 0, round_index, balances, state.hands + 1)


def replay(entries: Sequence[HandEntry], keeps_on_draw: bool) -> TableState:
    """The state after every hand in ``entries``, in order."""
    state = START
    for entry in entries:
        state = next_state(state, entry, keeps_on_draw)
    return state


def check_players(names: Sequence[object]) -> tuple[str, ...]:
    """Four distinct, non-empty names of at most 24 characters, or InputError saying which is wrong."""
    if not isinstance(names, list | tuple) or len(names) != PLAYERS:
        raise InputError("a game needs exactly four players' names")
    cleaned = []
    for number, name in enumerate(names, start=1):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 24:
            raise InputError(f"player {number}: give a name of 1 to 24 characters")
        cleaned.append(name.strip())
    if len(set(cleaned)) != PLAYERS:
        raise InputError("the four players need four different names")
    return tuple(cleaned)


def win_context(state: TableState, winner: int, discarder: int | None, flags: dict) -> dict:
    """The win context the game already knows (seat, round, dealer, streak, who discarded), plus the
    page's switches (``flags``: names of :data:`EXTRA_FLAGS`, true or false)."""
    if not 0 <= winner < PLAYERS:
        raise InputError("the winner must be one of the four players")
    if discarder is not None and (not 0 <= discarder < PLAYERS or discarder == winner):
        raise InputError("the discarder must be another of the four players")
    context: dict = {"seat_wind": state.seat_wind(winner), "round_wind": state.round_wind,
                     "dealer": winner == state.dealer, "dealer_streak": state.streak,
                     "self_drawn": discarder is None}
    if discarder is not None:
        context["discarder"] = state.seat_wind(discarder)
    for key, value in flags.items():
        if key not in EXTRA_FLAGS or not isinstance(value, bool):
            raise InputError(f"unknown win detail {key!r} (known: {', '.join(EXTRA_FLAGS)})")
        if value:
            context[key] = True
    return context


def money(state: TableState, payments: Sequence[Payment], side: Sequence[SidePayment]) -> tuple[int, ...]:
    """What each player gains from a win's payment lines and side payments (seat winds, as the
    scorer names them when the seats are known)."""
    deltas = [0] * PLAYERS
    for payer, payee, amount in [(p.payer, p.payee, p.amount) for p in payments] + \
            [(s.payer, s.payee, s.amount) for s in side]:
        if payer not in WIND_CODES or payee not in WIND_CODES:
            raise InputError(f"a payment names {payer!r} -> {payee!r}, not two seats")
        deltas[state.player_at(payer)] -= amount
        deltas[state.player_at(payee)] += amount
    return tuple(deltas)
