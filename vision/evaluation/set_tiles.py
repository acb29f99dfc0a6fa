"""The tiles of one held-out physical set, as ``scripts/evaluate.py sets`` learns from and reads them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.sets.profile import View


@dataclass(frozen=True)
class Tile:
    """One labelled tile of a held-out set: which photo (copies of one photo share the number), its
    code, its crop for the classifier."""

    photo: int
    code: str
    crop: np.ndarray
    view: View


@dataclass(frozen=True)
class HeldOutSet:
    name: str
    tiles: tuple[Tile, ...]
