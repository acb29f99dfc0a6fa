"""The hand JSON (README.md, "Hand JSON") of a labelled photo, derived from its tiles' groups and roles.

A person marks which tiles form each exposed set (``role`` meld / concealed_kong, shared
``group``), which are flowers, which is the winning tile, and which are not part of the hand
(``distractor``); everything else standing in the photo is the concealed row. The derivation is
deliberately literal: it never guesses a set the person did not mark, and it reports what keeps
the hand from being complete as warnings the page shows next to the form.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

from scoring import WinContext, hand_from_json, score_hand
from scoring.errors import InputError
from scoring.hand import BOOL_CONTEXT_KEYS, INT_CONTEXT_KEYS, WIND_CONTEXT_KEYS
from scoring.tiles import BACK, WIND_CODES, is_flower, next_in_suit, sort_key
from vision.dataset.manifest import UNKNOWN_CODE, TileLabel


def _context_fields() -> dict[str, str]:
    """The win context the page asks for: every field of ``scoring.WinContext``, with its kind.

    Taken from the scoring API itself (the key groups its JSON reader checks), so the form always
    matches what the scorer reads (a key not given did not happen). Kinds: ``bool``,
    ``count``, ``wind``.
    """
    kinds = {**dict.fromkeys(BOOL_CONTEXT_KEYS, "bool"), **dict.fromkeys(INT_CONTEXT_KEYS, "count"),
             **dict.fromkeys(WIND_CONTEXT_KEYS, "wind")}
    return {f.name: kinds[f.name] for f in dataclasses.fields(WinContext) if f.name in kinds}


CONTEXT_FIELDS: dict[str, str] = _context_fields()

_MELD_ROLES = ("meld", "concealed_kong")


def validate_context(context: Any) -> dict[str, Any]:
    """Check the page's win context; drop unset values (None, ""), raise InputError on bad ones."""
    if not isinstance(context, dict):
        raise InputError("'context' must be a JSON object")
    clean: dict[str, Any] = {}
    for key, value in context.items():
        kind = CONTEXT_FIELDS.get(key)
        if kind is None:
            raise InputError(f"unknown win-context key {key!r}")
        if value is None or value == "":
            continue
        if kind == "bool" and not isinstance(value, bool):
            raise InputError(f"context {key} must be true or false, got {value!r}")
        if kind == "wind" and value not in WIND_CODES:
            raise InputError(f"context {key} must be a wind code 1z..4z, got {value!r}")
        if kind == "count" and (not isinstance(value, int) or isinstance(value, bool)
                                or not 0 <= value <= 200):
            raise InputError(f"context {key} must be a small whole number, got {value!r}")
        clean[key] = value
    return clean


def meld_kind(codes: list[str]) -> str | None:
    """``chow``/``pung``/``kong`` for a legal exposed set of face codes, else None."""
    if any(code in (BACK, UNKNOWN_CODE) for code in codes):
        return None
    if len(codes) == 4 and len(set(codes)) == 1:
        return "kong"
    if len(codes) != 3:
        return None
    if len(set(codes)) == 1:
        return "pung"
    low, mid, high = sorted(codes, key=sort_key)
    return "chow" if next_in_suit(low) == mid and next_in_suit(mid) == high else None


def hand_signature(tiles: list[TileLabel]) -> list[tuple[Any, ...]]:
    """What the hand JSON depends on; moving or resizing a box does not change it."""
    return sorted((t.code, t.group if t.group is not None else -1, t.role or "", t.face_down) for t in tiles)


def hand_from_labels(
    tiles: list[TileLabel], context: dict[str, Any], previous: dict[str, Any] | None = None
) -> tuple[dict[str, Any] | None, list[str]]:
    """The hand JSON for ``tiles`` (None when the person has not described a hand) and warnings.

    A hand is described once any tile has a role or a group, or a win context is given. A set
    that holds the winning tile (laid sideways across it) is the set the win completed, so its
    tiles count as standing in the hand, as the hand JSON's ``concealed`` says. A concealed kong laid
    as four backs shows no face: it takes the face of a concealed kong in ``previous`` (the hand
    saved before, e.g. a synthetic scene's truth) rather than be dropped.
    """
    if not context and not any(t.role is not None or t.group is not None for t in tiles):
        return None, []
    warnings: list[str] = []
    winners = [i for i, t in enumerate(tiles) if t.role == "winning"]
    if len(winners) > 1:
        warnings.append(f"{len(winners)} tiles are marked as the winning tile; the first counts")
    winning_index = winners[0] if winners else None

    groups: dict[int, list[int]] = defaultdict(list)
    for i, tile in enumerate(tiles):
        if tile.group is not None and tile.role in (*_MELD_ROLES, "winning"):
            groups[tile.group].append(i)

    hidden_kongs = [meld["tiles"][0] for meld in (previous or {}).get("melds", [])
                    if isinstance(meld, dict) and meld.get("kind") == "kong" and meld.get("concealed")
                    and meld.get("tiles")]
    melds: list[dict[str, Any]] = []
    in_meld: set[int] = set()
    left_out: set[int] = set()
    for group_id, members in sorted(groups.items()):
        if winning_index in members or not any(tiles[i].role in _MELD_ROLES for i in members):
            continue  # the set the winning tile completed stands in the hand (concealed row)
        concealed = any(tiles[i].role == "concealed_kong" for i in members)
        codes = [tiles[i].code for i in members]
        faces = {c for c in codes if c not in (BACK, UNKNOWN_CODE)}
        if concealed and len(faces) == 1 and len(codes) == 4:
            codes = [next(iter(faces))] * 4  # face-down tiles of a concealed kong share its face
            if codes[0] in hidden_kongs:
                hidden_kongs.remove(codes[0])
        elif concealed and not faces and len(codes) == 4 and hidden_kongs:
            codes = [hidden_kongs.pop(0)] * 4
        kind = meld_kind(codes)
        if kind is None or (concealed and kind != "kong"):
            warnings.append(f"group {group_id} ({' '.join(codes)}) is not a legal "
                            f"{'concealed kong' if concealed else 'set'}; left out of the hand")
            left_out.update(members)
            continue
        melds.append({"kind": kind, "tiles": sorted(codes, key=sort_key), "concealed": concealed})
        in_meld.update(members)

    concealed_tiles: list[str] = []
    flowers: list[str] = []
    for i, tile in enumerate(tiles):
        if i in in_meld or i in left_out or tile.role == "distractor":
            continue
        if tile.role in _MELD_ROLES and tile.group is None:
            warnings.append(f"tile {i} ({tile.code}) is marked {tile.role} but is in no group")
            continue
        if tile.code in (BACK, UNKNOWN_CODE):
            what = "face-down" if tile.code == BACK else "not identified yet"
            warnings.append(f"tile {i} is {what}; left out of the hand")
            continue
        if tile.role == "flower" or (is_flower(tile.code) and i != winning_index):
            flowers.append(tile.code)
        else:
            concealed_tiles.append(tile.code)

    hand: dict[str, Any] = {
        "concealed": sorted(concealed_tiles, key=sort_key),
        "melds": melds,
        "flowers": sorted(flowers, key=sort_key),
    }
    if winning_index is None:
        warnings.append("no winning tile marked (select it and press w)")
    elif tiles[winning_index].code in (BACK, UNKNOWN_CODE):
        warnings.append("the winning tile has no face code yet")
    else:
        hand["winning_tile"] = tiles[winning_index].code
    hand["context"] = dict(context)
    return hand, warnings


def hand_check(hand: dict[str, Any] | None) -> str | None:
    """One line on what the labelled hand scores (default rules), or why it is not a winning hand.

    A label mistake (a wrong code, a set grouped wrongly) usually makes the hand illegal, so the
    page shows this next to the hand; None while no complete hand is described.
    """
    if not hand or "winning_tile" not in hand:
        return None
    try:
        report = score_hand(hand_from_json(hand))
    except InputError as error:
        return f"not a hand the scorer takes: {error}"
    if not report.valid:
        return f"not a legal winning hand: {report.reason}"
    names = ", ".join(item.name for item in report.items[:6])
    return f"scores {report.total} {report.unit} under {report.rules}" + (f" ({names})" if names else "")
