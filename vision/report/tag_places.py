"""Where the annotated picture's tags go: beside what they name, over no tile and no other tag.

Along a tilted or low-angle row the tiles stand close and at different heights, so a tag drawn
straight above each tile lands on its neighbour's tag or face ("chow" under "4s win", group names
hidden). Here each tag takes, of the places near its tile or group, the nearest one that lies inside
the picture and clear of every tile box and every tag placed before it; a tag set off from what it
names gets a leader line. Pure geometry over plain boxes ``(x1, y1, x2, y2)`` in canvas pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Box = tuple[int, int, int, int]

#: Steps of half a tag's height tried above and below an anchor (far enough for three tiers of
#: tags over a row, and then some: a crowded corner gives way to open table further out).
MAX_STEPS = 24
#: Sideways shifts tried at each height, in tag widths.
SHIFTS = (0.0, -0.5, 0.5, -1.0, 1.0, -1.5, 1.5, -2.0, 2.0)
#: Candidates checked at a time, cheapest first.
CHUNK = 48
#: Below the anchor costs this much more than the same distance above (tags read above their tiles).
BELOW_COST = 1.15


@dataclass(frozen=True)
class PlacedTag:
    """A tag's rectangle and the box of what it names (a tile, or a group's bounding box)."""

    text: str
    rect: Box
    anchor: Box
    colour: tuple[int, int, int]

    @property
    def detached(self) -> bool:
        """Set off from its anchor by more than a few pixels: drawn with a leader line."""
        x1, y1, x2, y2 = self.rect
        ax1, ay1, ax2, ay2 = self.anchor
        gap_x = max(ax1 - x2, x1 - ax2, 0)
        gap_y = max(ay1 - y2, y1 - ay2, 0)
        return max(gap_x, gap_y) > max(4, (y2 - y1) // 3)


_STEPS = np.arange(MAX_STEPS, dtype=np.float64)
_SIDE_STEPS = np.arange(MAX_STEPS // 2, dtype=np.float64)
_SHIFT_ARRAY = np.asarray(SHIFTS)
#: Each above/below candidate's cost factor, in the order :func:`_candidates` makes them.
_GRID_COST = np.repeat(np.where(np.arange(2 * MAX_STEPS) < MAX_STEPS, 1.0, BELOW_COST), len(SHIFTS))


def _candidates(anchor: Box, size: tuple[int, int], gap: int, around: bool) -> np.ndarray:
    """Candidate rectangles (N x 4) for a tag of ``size`` near ``anchor``, with their cost in column 4:
    above and below at growing distance, shifted sideways; ``around`` adds left and right."""
    width, height = size
    ax1, ay1, ax2, ay2 = anchor
    centre_x, centre_y = (ax1 + ax2) / 2, (ay1 + ay2) / 2
    step = max(2, height // 2)
    tops = np.concatenate((ay1 - gap - height - _STEPS * step, ay2 + gap + _STEPS * step))
    left = np.tile(np.round(centre_x - width / 2 + _SHIFT_ARRAY * width), 2 * MAX_STEPS)
    top = np.repeat(np.round(tops), len(SHIFTS))
    factor = _GRID_COST
    if around:
        sides = np.round(np.concatenate((ax1 - gap - width - _SIDE_STEPS * step,
                                         ax2 + gap + _SIDE_STEPS * step)))
        left = np.concatenate((left, sides))
        top = np.concatenate((top, np.full(len(sides), round(centre_y - height / 2))))
        factor = np.concatenate((factor, np.ones(len(sides))))
    out = np.empty((len(left), 5))
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, left + width, top + height
    out[:, 4] = np.hypot(left + width / 2 - centre_x, top + height / 2 - centre_y) * factor
    return out


def _clear(candidates: np.ndarray, obstacles: np.ndarray, canvas: tuple[int, int]) -> np.ndarray:
    """Which candidates lie inside the canvas (width, height) and touch no obstacle."""
    width, height = canvas
    inside = ((candidates[:, 0] >= 0) & (candidates[:, 1] >= 0)
              & (candidates[:, 2] <= width) & (candidates[:, 3] <= height))
    if not len(obstacles):
        return inside
    c = candidates[:, None, :4]
    o = obstacles[None, :, :]
    overlap = ((np.minimum(c[..., 2], o[..., 2]) > np.maximum(c[..., 0], o[..., 0]))
               & (np.minimum(c[..., 3], o[..., 3]) > np.maximum(c[..., 1], o[..., 1])))
    return inside & ~overlap.any(axis=1)


def place_tags(texts: Sequence[str], sizes: Sequence[tuple[int, int]], anchors: Sequence[Box],
               colours: Sequence[tuple[int, int, int]], obstacles: Sequence[Box],
               canvas: tuple[int, int], gap: int, around: bool = False) -> list[PlacedTag]:
    """Place each tag (in the order given) at the cheapest candidate clear of ``obstacles`` and of
    the tags placed before it, inside ``canvas`` (width, height). A tag with no clear place (a
    picture filled with tiles) takes the candidate overlapping least, so it is still drawn."""
    blocked = [tuple(box) for box in obstacles]
    placed: list[PlacedTag] = []
    for text, size, anchor, colour in zip(texts, sizes, anchors, colours, strict=True):
        candidates = _candidates(anchor, size, gap, around)
        candidates = candidates[np.argsort(candidates[:, 4], kind="stable")]
        near = _near(np.array(blocked, dtype=np.float64).reshape(-1, 4), candidates)
        pick = None
        # Cheapest first, a chunk at a time: most tags find room among the first few candidates.
        for start in range(0, len(candidates), CHUNK):
            clear = np.flatnonzero(_clear(candidates[start:start + CHUNK], near, canvas))
            if len(clear):
                pick = candidates[start + clear[0]]
                break
        if pick is None:
            pick = candidates[np.argmin(_overlap_areas(candidates, blocked, canvas))]
        rect = tuple(int(v) for v in pick[:4])
        placed.append(PlacedTag(text, rect, tuple(int(v) for v in anchor), colour))
        blocked.append(rect)
    return placed


def _near(obstacles: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The obstacles that reach into the region the candidates span (the rest cannot block them)."""
    x1, y1 = candidates[:, 0].min(), candidates[:, 1].min()
    x2, y2 = candidates[:, 2].max(), candidates[:, 3].max()
    keep = (obstacles[:, 2] > x1) & (obstacles[:, 0] < x2) & (obstacles[:, 3] > y1) & (obstacles[:, 1] < y2)
    return obstacles[keep]


def _overlap_areas(candidates: np.ndarray, blocked: list[Box], canvas: tuple[int, int]) -> np.ndarray:
    """Each candidate's area over obstacles and outside the canvas (the fallback's measure)."""
    width, height = canvas
    boxes = np.array(blocked + [(-10**6, -10**6, 0, 10**6), (width, -10**6, 10**6, 10**6),
                                (-10**6, -10**6, 10**6, 0), (-10**6, height, 10**6, 10**6)], np.float64)
    c = candidates[:, None, :4]
    o = boxes[None]
    w = np.clip(np.minimum(c[..., 2], o[..., 2]) - np.maximum(c[..., 0], o[..., 0]), 0, None)
    h = np.clip(np.minimum(c[..., 3], o[..., 3]) - np.maximum(c[..., 1], o[..., 1]), 0, None)
    return (w * h).sum(axis=1) + candidates[:, 4] * 1e-6


def rects_overlap(a: Box, b: Box) -> bool:
    """Whether two boxes share any area (touching edges do not)."""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])
