"""The hand decoded from the most plausible layout of the tiles, or the next ones, or with a lone
tile in front of the row taken as the winning tile whose turn the detector missed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from scoring.hand import WinContext
from scoring.rules import RuleSet
from scoring.table import TableSettings
from vision.decode import HandReading, decode_reading
from vision.decode.budget import Budget
from vision.layout import layouts_of
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.types import GroupRole, Layout, Refusal, TileReading

#: A hand decoded from one layout of the tiles.
Decoded = tuple[Layout, HandReading]


def decode_best_layout(readings: list[TileReading], rules: RuleSet, table: TableSettings | None,
                       context: WinContext, infer_unseen: bool, named: NamedTiles = NOTHING_NAMED,
                       budget: Budget | None = None) -> Decoded | Refusal:
    """Decode the most plausible layout; if no legal hand reads from it, the next ones (another row
    may be the concealed one). A layout read with every tile seen beats one that needs an unseen tile
    (a wrong choice of row can be one tile short too), so a photo that read before unseen tiles were
    inferred reads the same. The first layout's refusal is the one given if none reads."""
    size = rules.hand_tiles + 1
    layouts = layouts_of(readings, complete_kongs=infer_unseen, hand_size=size)
    if isinstance(layouts, Refusal):
        return layouts
    first_refusal: Refusal | None = None
    with_unseen: Decoded | None = None
    for layout in layouts:
        decoded = _decoded(readings, layout, rules, table, context, infer_unseen, named, budget)
        if isinstance(decoded, Refusal):
            first_refusal = first_refusal or decoded
            continue
        if decoded.unseen is None:
            return layout, decoded
        with_unseen = with_unseen or (layout, decoded)
    if infer_unseen and any(_one_short(layout, size) for layout in layouts):
        in_front = winning_tile_in_front(readings, layouts[0], rules, table, context, named, budget)
        if in_front is not None:
            return in_front
    if with_unseen is not None:
        return with_unseen
    return first_refusal or Refusal("no tiles found in the photo")


def _decoded(readings: list[TileReading], layout: Layout, rules: RuleSet, table: TableSettings | None,
             context: WinContext, infer_unseen: bool, named: NamedTiles,
             budget: Budget | None) -> HandReading | Refusal:
    return decode_reading(readings, layout, rules=rules, table=table, context=context,
                          infer_unseen=infer_unseen, kong_faces=named.kong_faces, budget=budget)


def _one_short(layout: Layout, hand_size: int) -> bool:
    """Whether the layout's hand of ``hand_size`` tiles is one short: 16 tiles in its row and sets
    for a hand of 17 (more with kongs among its sets), 13 for one of 14. A tile in front of the row
    can make the hand whole only then (:func:`winning_tile_in_front`); the row and the sets may be
    grouped anew once it is taken, so their tiles are counted together. A photo of no hand, a rack
    of 15 or 18, would otherwise be laid out and decoded again for every tile near it, for nothing
    (29 s for one real table photo)."""
    sets = [g for g in layout.groups if g.role is not GroupRole.FLOWERS]
    tiles = sum(len(g.tile_indices) for g in sets)
    kongs = sum(len(g.tile_indices) // 4 for g in sets if g.role is not GroupRole.CONCEALED)
    return hand_size - 1 <= tiles <= hand_size - 1 + kongs


#: Ignored tiles at most this many tile sizes (centre to centre) from a concealed tile are tried as
#: the winning tile, the nearest first, at most :data:`IN_FRONT_TRIES` of them.
IN_FRONT_REACH = 4.5
IN_FRONT_TRIES = 3


def winning_tile_in_front(readings: list[TileReading], layout: Layout, rules: RuleSet,
                          table: TableSettings | None, context: WinContext,
                          named: NamedTiles = NOTHING_NAMED,
                          budget: Budget | None = None) -> Decoded | Refusal | None:
    """The hand read with an ignored tile lying close to the concealed row taken as the winning tile,
    when that makes it whole with every tile seen; else None (or the layout's refusal of the tiles
    with that tile turned).

    Why: players push the winning tile out in front of a standing row. The layout takes a lone tile
    there for the winning tile only when the detector saw it turned (``vision.layout``); but a tile
    lying flat seen from above looks nearly square, and its turn is often missed. It is then
    ignored as a discard, and the hand is read a tile short. Here each such tile near the row is
    read again as turned; the layout's own rules still decide whether it lies where a winning tile
    lies.
    """
    concealed = next((g.tile_indices for g in layout.groups if g.role is GroupRole.CONCEALED), ())
    candidates = [i for i in layout.ignored if i not in layout.set_aside
                  and not readings[i].detection.rotated and not readings[i].detection.face_down]
    if not concealed or not candidates:
        return None
    centres = np.array([readings[i].detection.center for i in concealed])
    size = float(np.median([max(readings[i].detection.width, readings[i].detection.height)
                            for i in concealed]))
    distance = {i: float(np.min(np.hypot(*(centres - np.array(readings[i].detection.center)).T))) / size
                for i in candidates}
    nearest = sorted((i for i in candidates if distance[i] <= IN_FRONT_REACH), key=distance.get)
    for index in nearest[:IN_FRONT_TRIES]:
        turned = list(readings)
        turned[index] = replace(readings[index], detection=replace(readings[index].detection, rotated=True))
        layouts = layouts_of(turned, complete_kongs=True, hand_size=rules.hand_tiles + 1)
        if isinstance(layouts, Refusal):
            return layouts
        for layout_turned in layouts:
            if layout_turned.winning_index != index:
                continue
            decoded = _decoded(turned, layout_turned, rules, table, context, True, named, budget)
            if not isinstance(decoded, Refusal) and decoded.unseen is None:
                warning = ("a tile lying alone beside the concealed row was taken for the winning tile (the "
                           "detector did not see it turned)")
                return layout_turned, replace(decoded, warnings=[*decoded.warnings, warning])
    return None
