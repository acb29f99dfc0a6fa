"""A second cut for tiles whose outline is turned against their neighbours'.

The detector predicts each tile's up axis on its own. Now and then, mostly for the sideways
winning tile, that axis is 15-45 degrees off: the face is then cut out turned by that much and
read wrongly, often at probability 1.0 (a 4p cut at a slant reads as 2p). On the table, tiles lie
parallel to their neighbours or across them, so such a tile is also cut along its neighbours'
axis. Perspective bends right angles in the image, though, and some tiles really do lie at a
slant, so the turned cut is not always the better one. The classifier reads both and averages
their logits (``TileClassifier.classify(..., second_outlines=...)``).

On held-out renders the two cuts averaged read more of such tiles right than either alone, and
more whole hands exactly (``models/EXPERIMENTS.md``). The mean, rather than the surer of the two
cuts (about as good), keeps a logit a logit, which the label file's temperature calibrates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vision.types import Detection, Quad

#: A tile whose axis is at least this far (degrees, modulo a quarter turn) from its neighbours'
#: common axis gets a second, squared cut.
SQUARING_DEGREES = 10.0
#: How many of the nearest tiles give the common axis.
NEIGHBOURS = 3


def squaring_angles(detections: Sequence[Detection], neighbours: int = NEIGHBOURS) -> np.ndarray:
    """Per tile, the signed turn (degrees, in [-45, 45)) from the nearest tiles' common axis to its own.

    Lying across the neighbours is as square as lying along them, so axes are compared modulo a
    quarter turn: the common axis is the mean of the ``neighbours`` nearest tiles' quadrupled
    angles, and a sideways neighbour agrees with the rest instead of cancelling them. Fewer than
    two tiles: no neighbours, all zero.
    """
    count = len(detections)
    if count < 2:
        return np.zeros(count)
    centres = np.array([d.center for d in detections], dtype=np.float64)
    angles = np.radians([d.angle for d in detections])
    distance = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(distance, np.inf)
    nearest = np.argsort(distance, axis=1)[:, :min(neighbours, count - 1)]
    quadrupled = 4 * angles[nearest]
    common = np.arctan2(np.sin(quadrupled).sum(axis=1), np.cos(quadrupled).sum(axis=1)) / 4
    quarter = math.pi / 2
    turn = (angles - common + quarter / 2) % quarter - quarter / 2
    return np.degrees(turn)


def turned_quad(quad: Quad, degrees: float) -> Quad:
    """``quad`` turned by ``degrees`` (image coordinates, y down) about its centre, corner order kept."""
    points = np.asarray(quad, dtype=np.float64)
    centre = points.mean(axis=0)
    angle = math.radians(degrees)
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    turned = (points - centre) @ rotation.T + centre
    return tuple((float(x), float(y)) for x, y in turned)


def second_outlines(detections: Sequence[Detection],
                    limit_degrees: float = SQUARING_DEGREES) -> list[Quad | None]:
    """Per tile, its outline squared onto the neighbours' axis, or None where it is square enough.

    Detections without an outline (a boxes-only model) get None: their cut is already along the rows.
    """
    turns = squaring_angles(detections)
    return [turned_quad(d.quad, -float(turn)) if d.quad is not None and abs(turn) >= limit_degrees else None
            for d, turn in zip(detections, turns, strict=True)]
