"""Kong and concealed-pung detectors."""

from __future__ import annotations

from scoring.patterns.registry import STANDARD, Hits, hand_level, reading_level, tiles_of
from scoring.readings import Group, HandFacts, Reading


@hand_level
def exposed_kong(f: HandFacts, p: dict) -> Hits:
    """1.4 Exposed kong 明槓, each."""
    return [m.tiles for m in f.exposed_kongs] or None


@hand_level
def concealed_kong(f: HandFacts, p: dict) -> Hits:
    """1.4 Concealed kong 暗槓, each (LRC/DXB also collect 5 from every player: a side payment row)."""
    return [m.tiles for m in f.concealed_kongs] or None


def _concealed_pungs(r: Reading, f: HandFacts) -> list[Group]:
    memo = r.memo()
    if "concealed_pungs" not in memo:
        open_kong = f.options.get("open_kong_counts_concealed", False)
        memo["concealed_pungs"] = [g for g in r.pungs
                                   if g.hidden or (open_kong and g.kind == "kong" and g.exposed)]
    return memo["concealed_pungs"]


@reading_level(pungs="count", shapes=STANDARD)
def concealed_pungs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.4 Two/three/four/five concealed pungs 暗刻 (``params.count``; tiers supersede each other).

    Concealed kongs count; an exposed kong counts only where the rule set says "1x Open Kong =
    1x Concealed Pong" (option ``open_kong_counts_concealed``); a pung finished by the winning
    discard does not (R-9). Seven pairs + a pung is not read as concealed pungs.
    """
    if r.shape != "standard":
        return None
    found = _concealed_pungs(r, f)
    return [tiles_of(found)] if len(found) == p["count"] else None


@reading_level(pungs=5, shapes=STANDARD)
def five_concealed_pungs_strict(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.4 DXB: five concealed pungs with no kong and no self-draw."""
    if r.shape != "standard" or f.self_drawn or any(g.kind == "kong" for g in r.pungs):
        return None
    found = _concealed_pungs(r, f)
    return [tiles_of(found)] if len(found) == 5 else None
