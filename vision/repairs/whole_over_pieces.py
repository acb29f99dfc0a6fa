"""A tile the detector split into pieces at its own input, taken whole from a coarser look.

Why: on tile sets unlike its training, the detector splits a large character tile into its
numeral and its 萬 (each then read as another tile: 三 as 2m, 萬 as 6z), most often at 80-120 px
at its 512 input, below the size at which the farther look (``vision.repairs.farther_look``)
takes over. At a smaller input the same tile comes out whole. So a first look whose tiles are
large enough to stay findable smaller, and where the farther look's probe already holds two of
its detections, not side by side, in one tile, is run again at :data:`COARSE_INPUT`; a coarse
tile that holds two or more of the first look's detections, and no more than their extent,
replaces them. The input was
chosen on the roboflow-chinese *training* sources (384 px: 53 more tiles read right on the images
with a join, 320 px 53, 448 px 30; asking the probe first runs the coarse look on 114 of their
262 photos with large tiles and keeps 71 of its 76 tiles gained; without the detector's mirror
view, at half the cost, 63).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.geometry import box_area, intersection_area
from vision.types import Detection

#: The coarser look's network input (long side).
COARSE_INPUT = 384
#: Only a first look whose median tile is at least this long (pixels at the detector's input) is
#: looked at coarser: smaller tiles would shrink below the sizes the detector finds.
FIRST_LOOK_TILE = 40.0
#: A first-look detection is a piece of a coarse tile when this share of its box lies inside it.
INSIDE_SHARE = 0.7
#: The coarse tile and the pieces' joint extent may differ in area at most this much either way.
EXTENT_RATIO = 1.4
#: A coarse tile replaces at least this many first-look detections.
FEWEST_PIECES = 2
#: Two boxes are row neighbours, not a tile's pieces, when they share this much of the lower's
#: height and at most this much of the narrower's width.
LEVEL_SHARE = 0.7
ACROSS_SHARE = 0.3


def worth_coarser(first: Sequence[Detection], image_size: tuple[int, int], network_side: int) -> bool:
    """Whether the first look (on an image of ``image_size``, width and height, seen at
    ``network_side``) holds tiles large enough to be looked at coarser."""
    sure = [d for d in first if not d.spare]
    if len(sure) < FEWEST_PIECES:
        return False
    tile = float(np.median([max(d.width, d.height) for d in sure]))
    return tile * network_side / max(image_size) >= FIRST_LOOK_TILE and network_side > COARSE_INPUT


def _wholes(first: Sequence[Detection], coarse: Sequence[Detection]) -> list[tuple[Detection, list[int]]]:
    """The sure ``coarse`` tiles that each hold pieces of ``first`` (surest first; a piece is taken
    once), each with the indices in ``first`` of the pieces it holds."""
    taken: set[int] = set()
    wholes: list[tuple[Detection, list[int]]] = []
    for whole in sorted((d for d in coarse if not d.spare), key=lambda d: -d.score):
        pieces = [k for k, d in enumerate(first) if k not in taken
                  and intersection_area(d.box, whole.box) >= INSIDE_SHARE * box_area(d.box)]
        if len(pieces) < FEWEST_PIECES:
            continue
        extent = (min(first[k].box[0] for k in pieces), min(first[k].box[1] for k in pieces),
                  max(first[k].box[2] for k in pieces), max(first[k].box[3] for k in pieces))
        whole_area, extent_area = box_area(whole.box), box_area(extent)
        if whole_area > EXTENT_RATIO * extent_area or extent_area > EXTENT_RATIO * whole_area:
            continue
        taken.update(pieces)
        wholes.append((whole, pieces))
    return wholes


def _side_by_side(a: Detection, b: Detection) -> bool:
    """Whether two boxes lie level and apart across the image, as neighbours in an upright row do."""
    level = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    across = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    return (level >= LEVEL_SHARE * min(a.height, b.height)
            and across <= ACROSS_SHARE * min(a.width, b.width))


def holds_pieces(first: Sequence[Detection], other: Sequence[Detection]) -> bool:
    """Whether some sure tile of ``other`` (another look at the same image) holds two or more of
    ``first``'s detections not merely side by side: a sign that the first look split tiles. (A
    coarse look at a row often takes two neighbours for one tile; a tile's pieces lie stacked.)"""
    return any(not all(_side_by_side(first[i], first[j]) for i in pieces for j in pieces if i < j)
               for _, pieces in _wholes(first, other))


def whole_over_pieces(first: Sequence[Detection], coarse: Sequence[Detection]) -> list[Detection]:
    """``first`` with each group of pieces that one sure ``coarse`` detection holds replaced by it
    (coarse tiles surest first; a piece is taken once). The rest keep their order."""
    wholes = _wholes(first, coarse)
    if not wholes:
        return list(first)
    taken = {k for _, pieces in wholes for k in pieces}
    return [d for k, d in enumerate(first) if k not in taken] + [whole for whole, _ in wholes]
