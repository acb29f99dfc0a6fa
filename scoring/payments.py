"""Who pays whom: the win's payment lines and the side payments made during play.

Payment lines follow the rule set's ``[payments]`` table: a self-drawn win is paid by each other
player, a discard win by the discarder alone (Taiwanese convention, S001/S004; A-LRC-9) or by
all. Dealer adders (taiwan 1 + 2N, LRC dealer tile 1 + die bonus 2n+1, DXB die
bonus) are separate lines between the dealer and the winner, so the hand total stays the
hand's own. Seats are wind codes; when the winner's seat is not known the lines name roles.
"""

from __future__ import annotations

from scoring.hand import WinContext
from scoring.params import resolve_params
from scoring.patterns import DETECTORS, Detector
from scoring.readings import HandFacts, Reading
from scoring.report import Payment, SidePayment
from scoring.rules import RuleSet, SidePaymentRow
from scoring.table import TableSettings
from scoring.tiles import WIND_CODES

EACH_OTHER = "each other player"


def _others(context: WinContext) -> list[str]:
    winner = _winner(context)
    if winner == "winner":
        return [EACH_OTHER]
    return [w for w in WIND_CODES if w != winner]


def _winner(context: WinContext) -> str:
    if context.seat_wind:
        return context.seat_wind
    if context.dealer:
        return "1z"
    return "winner"


def dealer_adder(ruleset: RuleSet, table: TableSettings, context: WinContext) -> tuple[int, str]:
    """The extra paid on the line between the dealer and the winner, and how it was made up."""
    pay = ruleset.payments
    streak = context.dealer_streak or 0
    if table.dice_cap is not None:
        streak = min(streak, table.dice_cap)
    amount = pay["dealer_point"]
    parts = [f"dealer {pay['dealer_point']}"] if pay["dealer_point"] else []
    if streak > 0 and (pay["streak_per"] or pay["streak_base"]):
        bonus = pay["streak_base"] + pay["streak_per"] * streak
        amount += bonus
        parts.append(f"{bonus} for a streak of {streak}")
    explained = " + ".join(parts)
    return amount, f"{explained} = {amount}" if len(parts) > 1 else explained


def build_payments(ruleset: RuleSet, table: TableSettings, context: WinContext, total: int,
                   reading: Reading) -> list[Payment]:
    """Payment lines for a win worth ``total``."""
    pay = ruleset.payments
    winner = _winner(context)
    discarder = context.discarder or "discarder"
    if reading.shape == "flowers":
        if context.robbed_eighth_flower and pay["robbed_flower_payer"] == "drawer":
            payers = [discarder]
            note = "seven flowers, robbing the eighth: the player who drew it pays"
        else:
            payers = _others(context)
            note = "instant flower win: every other player pays"
    elif context.self_drawn:
        payers = _others(context) if pay["self_drawn"] == "each" else [discarder]
        note = "self-drawn: every other player pays the hand"
    elif pay["discard"] == "discarder":
        payers = [discarder]
        note = "won on a discard: the discarder alone pays"
    else:
        payers = _others(context)
        note = "won on a discard: every other player pays (rule set)"
    if pay["losers_pay_difference"]:
        note += "; each loser pays the difference between the winner's score and their own, as the sheet says"
    lines = [Payment(payer, winner, total, note) for payer in payers]

    adder, how = dealer_adder(ruleset, table, context)
    if adder and reading.shape != "flowers":
        if context.is_dealer:
            lines.extend(Payment(payer, winner, adder, f"to the dealer: {how}") for payer in payers)
        elif "1z" in payers:
            lines.append(Payment("1z", winner, adder, f"the dealer pays: {how}"))
        elif payers == [EACH_OTHER]:
            lines.append(Payment("dealer", winner, adder, f"the dealer pays: {how}"))
        elif payers == ["discarder"]:
            lines.append(Payment("dealer", winner, adder, f"only if the discarder is the dealer: {how}"))
    return lines


def active_side_rows(ruleset: RuleSet, options: dict) -> list[tuple[SidePaymentRow, Detector, dict]]:
    """The side-payment rows switched on by ``options``, with their detectors and resolved params
    (the engine keeps this list with its cached plan, so it is built once per rule set)."""
    out = []
    for row in ruleset.side_payments:
        if row.when is not None and not options.get(row.when):
            continue
        if row.unless is not None and options.get(row.unless):
            continue
        out.append((row, DETECTORS[row.detector], resolve_params(row.params, options)))
    return out


def build_side_payments(ruleset: RuleSet, facts: HandFacts, reading: Reading, context: WinContext,
                        options: dict, rows: list[tuple[SidePaymentRow, Detector, dict]] | None = None
                        ) -> list[SidePayment]:
    """Side payments visible in the finished hand (concealed kongs, bouquets, a robbed kong).

    ``rows`` is :func:`active_side_rows` for ``ruleset`` and ``options`` when the caller has it."""
    out: list[SidePayment] = []
    if rows is None:
        rows = active_side_rows(ruleset, options)
    if not rows:
        return out
    winner = _winner(context)
    for row, detector, params in rows:
        hits = (detector.function(facts, params) if detector.scope == "hand"
                else detector.function(reading, facts, params))
        if not hits:
            continue
        tiles = [t for hit in hits for t in hit]
        amount = row.value * len(hits)
        payers = _others(context) if row.payer == "each" else [context.discarder or "discarder"]
        out.extend(SidePayment(row.id, row.name, row.name_zh, payer, winner, amount, tiles)
                   for payer in payers)
    return out
