"""Wait detectors: which tile kinds the hand waited on and the role the winning tile filled."""

from __future__ import annotations

from scoring.patterns.registry import Hits, reading_level
from scoring.readings import HandFacts, Reading


@reading_level
def single_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Single wait: exactly one tile kind completed the 16 tiles (A-GEN-2).

    ``params.roles`` limits it to the winning tile's role in the reading: ``pair`` (單吊 / Out on
    a pair), ``closed``/``edge`` (間聽 / one-chance chow); empty = any role (LRC True Single Wait,
    allmj Waiting for One). ``params.edge_when`` names an option that must be on for an edge wait
    (12 waiting on 3) to count as closed (taiwan, A-GEN-2).
    """
    if len(f.waits) != 1 or r.shape == "flowers":
        return None
    roles = p.get("roles")
    if roles and r.wait not in roles:
        return None
    if r.wait == "edge" and p.get("edge_when") and not f.options.get(p["edge_when"]):
        return None
    return [(f.hand.winning_tile,)]


@reading_level
def false_single_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 LRC False Single Wait (R-7): the winning tile filled a pair, edge or closed wait in this
    reading, but more than one tile kind would have won. Never on 13/16 orphans."""
    if r.shape in ("thirteen_orphans", "sixteen_orphans", "flowers") or len(f.waits) < 2:
        return None
    return [(f.hand.winning_tile,)] if r.wait in ("pair", "edge", "closed") else None


@reading_level
def two_pair_wait(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Calling by Pairs 對碰: two pairs waiting, the winning tile made one of them a pung."""
    if r.wait != "pung" or r.shape != "standard" or len(f.waits) != 2:
        return None
    return [(f.hand.winning_tile,)]


@reading_level
def good_eyes(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.5 Good Eyes 將眼: the pair is 2, 5 or 8 of a suit. In Nico Nico the *winning tile*
    must be a 2, 5 or 8."""
    if r.shape == "seven_pairs_pung":
        win = f.hand.winning_tile
        return [(win, win)] if win[1] != "z" and win[0] in "258" and r.wait == "pair" else None
    pair = r.pair
    if pair is None or pair.suit == "z" or pair.rank not in (2, 5, 8):
        return None
    return [pair.tiles]
