"""The winning tile: sideways in the concealed row, lying beside it, set apart at its end, or found
by its slant or shape when the detector did not flag it.
"""

from __future__ import annotations

import numpy as np

from vision.layout.hand import BESIDE_ROW
from vision.layout.rows import Frame, Tile

#: A tile this much longer (along the row, relative to its height) than its row's tiles lies sideways.
SIDEWAYS_RATIO = 1.45


def _looks_sideways(row: list[Tile]) -> Tile | None:
    """The one tile of a row whose proportions are turned against its neighbours', if exactly one:
    a sideways tile the detector did not flag."""
    if len(row) < 4:
        return None
    ratios = [t.lengthwise for t in row]
    reference = float(np.median(ratios))
    turned = [t for t, r in zip(row, ratios, strict=True) if r >= SIDEWAYS_RATIO * reference and not t.back]
    return turned[0] if len(turned) == 1 else None


#: A sideways tile is compared with this many upright tiles of its row nearest it
#: (:func:`_longer_than_neighbours`).
LENGTH_NEIGHBOURS = 2


def _longer_than_neighbours(tile: Tile, row: list[Tile], frame: Frame) -> float:
    """How much longer along the row ``tile`` is than the upright tiles nearest it in ``row``: a
    tile lying across shows its long side along the row, about 1.33 times an upright neighbour's.

    Why not the outline's own length against its depth (:attr:`Tile.lengthwise`): across the row
    a face is foreshortened by the camera and cut short where a neighbour hides it, so a half-hidden
    upright tile at the far end of a flat row can look as long as the tile lying across, while
    along the row against its neighbours the two differ clearly."""
    upright = sorted((t for t in row if not t.rotated),
                     key=lambda t: abs(frame.along(t) - frame.along(tile)))[:LENGTH_NEIGHBOURS]
    if not upright:
        return tile.lengthwise
    return tile.along / float(np.mean([t.along for t in upright]))


def winning_tile(concealed: list[Tile], frame: Frame, others: list[list[Tile]],
                  warnings: list[str]) -> tuple[Tile | None, list[Tile] | None]:
    """The winning tile and the run it came from (None if it is in the concealed row)."""
    sideways = [t for t in concealed if t.rotated]
    if len(sideways) == 1:
        return sideways[0], None
    if len(sideways) > 1:
        warnings.append(f"{len(sideways)} sideways tiles in the concealed row; the one lying most across "
                        "the row is taken as the winning tile")
        return max(sideways, key=lambda t: _longer_than_neighbours(t, concealed, frame)), None
    lying = lying_beside(frame, others)
    if lying is not None:
        return lying[0], lying
    apart = []
    for run in others:
        if len(run) != 1 or not run[0].plain or run[0].rotated:
            continue
        beyond, across = frame.position(run[0])
        if across <= 0.5 and 0.0 < beyond <= 3.0:
            apart.append((beyond, run))
    if apart:
        if len(apart) > 1:
            warnings.append("tiles are set apart at both ends of the concealed row; the nearer one is taken "
                            "as the winning tile")
        run = min(apart, key=lambda item: item[0])[1]
        return run[0], run
    askew = [t for t in concealed if t.askew]
    if len(askew) == 1:
        warnings.append("the winning tile was found by its slant in the concealed row, not flagged as "
                        "sideways by the detector")
        return askew[0], None
    turned = _looks_sideways(concealed)
    if turned is not None:
        warnings.append("the winning tile was found by its shape (lying across the row), not flagged by the "
                        "detector")
        return turned, None
    warnings.append("the photo does not show which tile won (no sideways tile, none set apart); "
                    "every possible winning tile is considered")
    return None, None


def lying_beside(frame: Frame, others: list[list[Tile]]) -> list[Tile] | None:
    """The lone sideways tile lying closest beside the concealed row (within its length and
    BESIDE_ROW tile heights of it), as its run: the winning tile pushed out in front; None if there
    is none."""
    lying = []
    for run in others:
        if len(run) == 1 and run[0].plain and run[0].rotated:
            beyond, across = frame.position(run[0])
            if beyond <= 1.0 and across <= BESIDE_ROW:
                lying.append((across, run))
    return min(lying, key=lambda item: item[0])[1] if lying else None
