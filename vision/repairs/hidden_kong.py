"""A concealed kong lying as four backs: score every face it could hide, or the face the player names.

Why: no photo shows such a kong's face, yet the face can change the total (a dragon kong is also a
dragon pung, a seat-wind kong a wind pung, a face can make or break a one-suit hand). The decoder
takes any face the rest of the hand allows. As with a winning tile the photo does not show
(``vision.report.confidence.choose_winning_tile``), the lowest valid total over the faces is reported, so
nobody is overpaid on a guess, and each other total is listed with the faces that give it: a
player who knows the face reads off the right score, or turns two tiles up and photographs again.
Or says it: ``taicam photo --kong-face 5z`` (``vision.named_tiles``, :func:`give_kong_faces`), like
any other context the photo cannot show, and the kong is scored with that face and no guess.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from scoring.hand import Meld
from scoring.tiles import BACK, SET_TILE_CODES
from vision.decode import LegalReading
from vision.report.confidence import ScoredAlternative, lowest_first, score_reading
from vision.types import GroupRole

if TYPE_CHECKING:
    from scoring import Hand, RuleSet, ScoreReport, TableSettings, WinContext

#: How an alternative names a hidden kong's faces (its description starts so; the warning quotes the rest).
KONG_FACES = "the concealed kong of four backs is "


def hidden_kong_melds(reading: LegalReading) -> list[int]:
    """Positions in ``reading.hand.melds`` of the concealed kongs whose four tiles all read as backs.

    The decoder writes one concealed meld per concealed-kong group, in the groups' order."""
    kongs = [g for g in reading.groups if g.role is GroupRole.CONCEALED_KONG]
    concealed = [n for n, meld in enumerate(reading.hand.melds) if meld.concealed]
    return [position for group, position in zip(kongs, concealed, strict=True)
            if all(code == BACK for code in group.codes)]


def possible_faces(hand: Hand, position: int) -> list[str]:
    """The faces the kong at ``position`` can hide: a kong holds all four copies of its face, so any
    face not seen elsewhere in the hand (standing tiles and other sets)."""
    seen = Counter(hand.concealed)
    for number, meld in enumerate(hand.melds):
        if number != position:
            seen.update(meld.tiles)
    return [code for code in SET_TILE_CODES if not seen[code]]


def _with_face(hand: Hand, position: int, face: str) -> Hand:
    melds = list(hand.melds)
    melds[position] = Meld(melds[position].kind, (face,) * 4, melds[position].concealed)
    return replace(hand, melds=tuple(melds))


def _faces_text(faces: list[str]) -> str:
    return faces[0] if len(faces) == 1 else ", ".join(faces[:-1]) + " or " + faces[-1]


def give_kong_faces(hand: Hand, positions: list[int], faces: list[str]) -> tuple[Hand, list[int], list[str]]:
    """``hand`` with the hidden kongs (``positions``) given the player's ``faces`` in turn, the
    positions still hidden, and a warning for each face not used. A face the hand as read already
    holds elsewhere cannot hide under four backs (the photo may have misread that tile): it is left
    out, and that kong is scored as if no face were given. Which kong gets which face does not
    change the total, so the faces are taken in the order given."""
    warnings: list[str] = []
    remaining = list(positions)
    for face in faces:
        if not remaining:
            shown = len(positions)
            warnings.append(f"--kong-face {face} not used: the photo shows {shown} concealed kong(s) of four "
                            "backs" + (", and the faces given fill them" if shown else ""))
            continue
        if face not in possible_faces(hand, remaining[0]):
            warnings.append(f"--kong-face {face} not used: the hand as read holds a {face} outside the kong, "
                            "so the kong cannot hide it")
            continue
        hand = _with_face(hand, remaining.pop(0), face)
    return hand, remaining, warnings


def choose_hidden_kong_faces(hand: Hand, positions: list[int], context: WinContext,
                             rules: RuleSet | str, table: TableSettings | None
                             ) -> tuple[Hand, ScoreReport, list[ScoredAlternative]]:
    """``hand`` with each hidden kong (``positions``, from :func:`hidden_kong_melds`) given the face of
    the lowest valid total, its score report, and one alternative per other total (its faces named).

    Several hidden kongs are chosen one after the other, each with the others as already chosen."""
    alternatives: list[ScoredAlternative] = []
    report = None
    for position in positions:
        scored = [(face, score_reading(_with_face(hand, position, face), context, rules, table))
                  for face in possible_faces(hand, position)]
        if not scored:
            continue
        ranked = lowest_first(scored)
        chosen, report = ranked[0]
        hand = _with_face(hand, position, chosen)
        by_total: dict[int | None, list[tuple[str, ScoreReport]]] = {}
        for face, other in ranked[1:]:
            if other.total != report.total:
                by_total.setdefault(other.total, []).append((face, other))
        for total, scored_faces in by_total.items():
            faces = [face for face, _ in scored_faces]
            alternatives.append(ScoredAlternative(f"{KONG_FACES}{_faces_text(faces)}", None, total,
                                                  bool(scored_faces[0][1].valid),
                                                  _with_face(hand, position, faces[0])))
    if report is None:  # no kong had a face left to hide (the hand holds a copy of every face)
        report = score_reading(hand, context, rules, table)
    return hand, report, alternatives


def hidden_kong_warning(hand: Hand, positions: list[int], alternatives: list[ScoredAlternative]
                        ) -> str:
    """What the player is told: which face was scored, and that the others may total otherwise."""
    faces = ", ".join(hand.melds[p].tiles[0] for p in positions)
    one = len(positions) == 1
    its = "its" if one else "their"
    told = (f"{'a concealed kong shows' if one else 'concealed kongs show'} four backs: "
            f"{its} {'face' if one else 'faces'} cannot be seen (scored as {faces}, "
            f"the lowest total of the faces {'it' if one else 'they'} may hide")
    if alternatives:
        told += "; " + "; ".join(f"{a.description.removeprefix(KONG_FACES)} would total {a.total}"
                                 for a in alternatives)
    return told + f"); turn two of {its} tiles up"
