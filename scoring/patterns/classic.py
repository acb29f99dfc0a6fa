"""Classic (seed 002) detectors: per-set points, scoring pairs and the own-wind double."""

from __future__ import annotations

from scoring.patterns.honours import wind_pungs
from scoring.patterns.registry import Hits, reading_level
from scoring.readings import Group, HandFacts, Reading
from scoring.tiles import DRAGON_CODES


def _classic_class(g: Group) -> str:
    if g.suit == "z":
        return "wind" if g.rank <= 4 else "dragon"
    return "terminal" if g.rank in (1, 9) else "simple"


@reading_level(pungs=1)
def set_points(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002 per-set points: a ``params.kind`` (pung|kong) of ``params.classes`` (simple, terminal,
    wind, dragon), exposed ("retired") or concealed ("on hand", ``params.concealed``)."""
    classes = p["classes"]
    want_hidden = p["concealed"]
    hits = [g.tiles for g in r.pungs
            if (g.kind == "kong") == (p["kind"] == "kong") and _classic_class(g) in classes
            and (g.hidden or False) == want_hidden]
    return hits or None


@reading_level
def scoring_pair(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002: pair of dragons ("primes") or of the player's own wind (``params.round_wind`` adds
    the round wind, S2-2 option)."""
    pair = r.pair
    if pair is None or pair.suit != "z":
        return None
    code = pair.tiles[0]
    if code in DRAGON_CODES or code == f.context.seat_wind:
        return [pair.tiles]
    if p.get("round_wind") and code == f.context.round_wind:
        return [pair.tiles]
    return None


@reading_level(honour_pungs=1)
def own_wind_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """Seed 002 double: three or four of the player's own wind (``params.round_wind``: also the
    round wind, S2-6 option)."""
    winds = {f.context.seat_wind}
    if p.get("round_wind"):
        winds.add(f.context.round_wind)
    return [g.tiles for g in wind_pungs(r) if g.tiles[0] in winds] or None
