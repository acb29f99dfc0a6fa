"""Which detection is which labelled tile, by centres: for labels whose boxes do not hug their tiles.

A detection matches a labelled tile when its centre lies within :data:`CENTRE_REACH` of the label
box's shorter side of the box's centre and its longer side is at least :data:`WHOLE_SHARE` of the
label's (one to one, nearest pairs first). IoU undercounts where a label box and a detection box
frame one tile differently: a turned tile's loose label box, a tile at a slant whose label holds
its face and whose detection its body too. A tile found as two halves is still missed: each half's
centre lies a quarter of the tile's length (a third of its width) off, beyond the reach, and a
smaller piece is too short.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Loose boxes: how near (a share of the box's shorter side) a detection's centre must be.
CENTRE_REACH = 0.3
#: A detection shorter than this share of the label's longer side is a piece of the tile, not the tile.
WHOLE_SHARE = 0.6


def match_centres(pred: np.ndarray, scores: Sequence[float], truth: np.ndarray) -> dict[int, int]:
    """Truth index -> prediction index, matched by centres (module docstring): nearest pairs
    first, the surer detection first at equal distance."""
    pred = np.asarray(pred, np.float64).reshape(-1, 4)
    truth = np.asarray(truth, np.float64).reshape(-1, 4)
    if not len(pred) or not len(truth):
        return {}
    centres = (pred[:, :2] + pred[:, 2:]) / 2
    truth_centres = (truth[:, :2] + truth[:, 2:]) / 2
    sides = truth[:, 2:] - truth[:, :2]
    long_pred = np.max(pred[:, 2:] - pred[:, :2], axis=1)
    distance = np.linalg.norm(centres[:, None] - truth_centres[None], axis=2)
    near = ((distance <= CENTRE_REACH * sides.min(axis=1)[None])
            & (long_pred[:, None] >= WHOLE_SHARE * sides.max(axis=1)[None]))
    rows, cols = np.nonzero(near)
    order = np.lexsort((-np.asarray(scores, np.float64)[rows], distance[rows, cols]))
    taken: dict[int, int] = {}
    used: set[int] = set()
    for k in order:
        i, j = int(rows[k]), int(cols[k])
        if j not in taken and i not in used:
            taken[j] = i
            used.add(i)
    return taken
