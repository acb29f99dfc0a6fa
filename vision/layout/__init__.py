"""Layout: which detected tiles form the hand, and how (concealed row, exposed sets, flowers, winning tile).

How a winning hand lies on the table (seed 000): the concealed tiles stand (or lie) in one row;
exposed sets and flowers lie in front of it, each set a tight run of 3 or 4 tiles with a gap to
the next; a concealed kong lies face-down (revealed at the end, often with two tiles turned up);
a claimed tile sits in the middle of its set, and the winning tile is "placed horizontally across
the completed set" (sideways: inside a flat row, or lying beside a standing row) or set apart
at the end of the row. Around the hand: discards, walls and other racks, which are not the hand.

The camera may be turned any way and see the table in perspective, so nothing here uses image axes
or one global scale:

1. the row direction comes from the vectors between touching face-up neighbours (tiles in a row
   touch; walls of backs are left out so they cannot outvote the hand);
2. each tile's extent along and across the row is measured from its own outline (near tiles are
   bigger than far ones), and touching neighbours along the row are chained into *runs*;
3. the concealed row is the run of standing tiles whose length fits the tile count left by the
   other sets (17 - 3 per set; 14 - 3 per set under a 13-tile rule set), else simply the longest;
   sets, kongs and flowers are the runs near it; the winning tile is found by the table conventions above.

The modules follow what they decide: :mod:`~vision.layout.rows` (tiles, row direction, runs),
:mod:`~vision.layout.concealed` (the concealed row), :mod:`~vision.layout.hand` (which runs are
the hand's), :mod:`~vision.layout.winning` (the winning tile), :mod:`~vision.layout.sets` (flowers,
sets and kongs) and :mod:`~vision.layout.candidates` (the layouts, put together).
"""

from vision.layout.candidates import (
    FACE_DOWN_ROW,
    concealed_row_in,
    concealed_row_of_sure_tiles,
    layout_candidates,
    layout_tiles,
    layouts_of,
)
from vision.layout.rows import (
    FLOWER_MASS,
    TILE_ASPECT,
    back_mass,
    estimate_row_direction,
    face_outline,
    flower_mass,
    looks_like_flower,
    row_angle,
)

__all__ = [
    "FLOWER_MASS",
    "TILE_ASPECT",
    "FACE_DOWN_ROW",
    "back_mass",
    "concealed_row_in",
    "concealed_row_of_sure_tiles",
    "estimate_row_direction",
    "face_outline",
    "flower_mass",
    "layout_candidates",
    "layout_tiles",
    "layouts_of",
    "looks_like_flower",
    "row_angle",
]
