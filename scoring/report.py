"""The score report: what ``score_hand`` returns, as JSON or as a terminal table.

``total`` always equals the sum of the item values: a table limit appears as a negative
``limit`` item and, in the doubles system, each double is an item worth the points it added.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from scoring.readings import Reading

WIND_NAMES = {"1z": "East", "2z": "South", "3z": "West", "4z": "North"}


@dataclass
class ScoreItem:
    id: str
    name: str
    name_zh: str
    value: int
    tiles: list[str]
    count: int = 1
    doubles: int = 0

    def to_json(self) -> dict:
        out = {"id": self.id, "name": self.name, "name_zh": self.name_zh, "value": self.value,
               "tiles": self.tiles, "count": self.count}
        if self.doubles:
            out["doubles"] = self.doubles
        return out


@dataclass
class Payment:
    """One line of money: ``payer`` pays ``payee`` ``amount`` (seat wind codes, or a role name)."""

    payer: str
    payee: str
    amount: int
    note: str

    def to_json(self) -> dict:
        return {"from": self.payer, "to": self.payee, "amount": self.amount, "note": self.note}


@dataclass
class SidePayment:
    """Paid at once during play (concealed kong, bouquets, robbed kong), outside the hand total."""

    id: str
    name: str
    name_zh: str
    payer: str
    payee: str
    amount: int
    tiles: list[str]

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "name_zh": self.name_zh, "from": self.payer,
                "to": self.payee, "amount": self.amount, "tiles": self.tiles}


@dataclass
class ScoreReport:
    rules: str
    unit: str
    valid: bool
    total: int = 0
    items: list[ScoreItem] = field(default_factory=list)
    payments: list[Payment] = field(default_factory=list)
    side_payments: list[SidePayment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reason: str | None = None
    reading: Reading | None = None
    readings_scored: int = 0
    waits: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        out: dict = {
            "rules": self.rules, "valid": self.valid, "total": self.total, "unit": self.unit,
            "items": [item.to_json() for item in self.items],
            "payments": [p.to_json() for p in self.payments],
            "side_payments": [p.to_json() for p in self.side_payments],
            "warnings": list(self.warnings),
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.reading is not None:
            out["reading"] = self.reading.to_json()
            out["readings_scored"] = self.readings_scored
            out["waits"] = list(self.waits)
        return out

    def to_text(self) -> str:
        """A readable table for the terminal."""
        if not self.valid:
            return f"rules: {self.rules}\nNOT A VALID WIN: {self.reason}"
        lines = [f"rules: {self.rules}"]
        if self.reading is not None and self.reading.shape == "flowers":
            lines.append(f"reading: {self.reading.describe()}")
        elif self.reading is not None:
            lines.append(f"reading: {self.reading.describe()}   (* = winning tile; {self.readings_scored} "
                         f"reading(s) scored)")
            if self.waits:
                lines.append(f"waits before the win: {' '.join(self.waits)}")
        width = max([display_width(_label(i)) for i in self.items] + [20])
        lines.append("")
        for item in self.items:
            tiles = " ".join(item.tiles)
            lines.append(f"  {pad(_label(item), width)}  {item.value:>5}   {tiles}")
        lines.append(f"  {'-' * width}  -----")
        lines.append(f"  {pad('TOTAL', width)}  {self.total:>5} {self.unit}")
        if self.payments:
            lines.append("")
            lines.append("payments:")
            for p in self.payments:
                lines.append(f"  {_who(p.payer)} pays {_who(p.payee)} {p.amount}  ({p.note})")
        if self.side_payments:
            lines.append("")
            lines.append("side payments (paid at once, outside the hand total):")
            for s in self.side_payments:
                lines.append(f"  {s.name}: {_who(s.payer)} pays {_who(s.payee)} {s.amount}")
        for warning in self.warnings:
            lines.append(f"warning: {warning}")
        return "\n".join(lines)


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: Chinese characters are two columns wide."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns."""
    return text + " " * max(0, width - display_width(text))


def _label(item: ScoreItem) -> str:
    name = f"{item.name} {item.name_zh}".strip()
    return f"{name} x{item.count}" if item.count > 1 else name


def _who(seat: str) -> str:
    return WIND_NAMES.get(seat, seat)
