"""Special-shape detectors: seven pairs and a pung, 13 and 16 orphans."""

from __future__ import annotations

from collections import Counter

from scoring.patterns.registry import Hits, reading_level, whole_hand
from scoring.readings import HandFacts, Reading
from scoring.shapes import CODE


@reading_level(shapes=("seven_pairs_pung",))
def seven_pairs_pung(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 Seven pairs and a pung (Nico Nico / 嚦咕嚦咕 / 八對半 / 七對). ``params.pung_by_discard``
    false: the winning discard may not finish the pung (allmj R-13 option)."""
    if r.shape != "seven_pairs_pung":
        return None
    if not p.get("pung_by_discard", True) and r.wait == "pung" and not f.self_drawn:
        return None
    return whole_hand(f)


@reading_level(shapes=("seven_pairs_pung",))
def nico_kongs(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 Nico Nico + 1 or 2 Kongs: four of a kind standing as two pairs (``params.count``)."""
    if r.shape != "seven_pairs_pung":
        return None
    pairs = Counter(g.first for g in r.groups if g.kind == "pair")
    doubled = [first for first, n in pairs.items() if n == 2]
    if len(doubled) != p["count"]:
        return None
    return [tuple(CODE[i] for i in doubled for _ in range(4))]


@reading_level(shapes=("thirteen_orphans",))
def thirteen_orphans(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 13 Orphans, 16-tile form: each terminal and honour, an orphan pair and one more set."""
    return whole_hand(f) if r.shape == "thirteen_orphans" else None


@reading_level(shapes=("sixteen_orphans",))
def sixteen_orphans(r: Reading, f: HandFacts, p: dict) -> Hits:
    """1.9 LRC 16 Orphans, read as 十六不搭 (A-LRC-10)."""
    return whole_hand(f) if r.shape == "sixteen_orphans" else None
