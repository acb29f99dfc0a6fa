"""Which flower or season a flower tile is: the flower model's share of the main classifier's reading.

The main classifier tells flowers from the other tiles well, but picks *which* flower mostly by
the picture, and every tile set paints its own: on held-out renders it read 83% of the flower
tiles right, against 96% of the rest. The flower model (``models/flowers.onnx``, same network and
label list) was trained with a third of its flower draws drawn procedurally, a real flower crop's
picture of *any* face under the face's own number and name, so that the picture tells it nothing
and it must read the number and the name. Alone it loses table-photo tiles the main model reads
(cuts of other tiles taken for flowers), so it is asked only which flower: a tile to which the
main model gives at least :data:`FLOWER_GATE` of flower mass keeps that mass, split among the
eight flowers as the flower model says; so does one given :data:`LOW_FLOWER_GATE` that the flower
model itself is sure is a flower. Everything else stays as the main model read it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring.errors import InputError
from scoring.tiles import FLOWER_CODES

FLOWER_MODEL_NAME = "flowers.onnx"
#: The main model's flower mass from which the flower model says which flower (as the layout takes a
#: tile for a flower from half the mass, ``vision.layout.FLOWER_MASS``).
FLOWER_GATE = 0.5
#: Below that gate, from this much flower mass, the flower model still says which flower when it is
#: itself at least :data:`SURE_FLOWER_MASS` sure the tile is a flower. A flower of a set unlike any
#: the main model knows can spread its mass over flowers and dots while the flower model is sure of
#: it. Gated at 0.2 alone, the split would also turn right flowers wrong where the flower model is
#: unsure itself.
LOW_FLOWER_GATE = 0.2
SURE_FLOWER_MASS = 0.9


def flower_columns(labels: Sequence[str], source: str) -> np.ndarray:
    """Column of each flower code (in ``FLOWER_CODES`` order) in a model's label list."""
    missing = [code for code in FLOWER_CODES if code not in labels]
    if missing:
        raise InputError(f"{source}: the label list lacks the flower codes {', '.join(missing)}")
    return np.array([list(labels).index(code) for code in FLOWER_CODES])


def gated_rows(probabilities: np.ndarray, columns: np.ndarray, gate: float = FLOWER_GATE) -> np.ndarray:
    """Rows whose flower mass (main model) reaches ``gate``."""
    return np.flatnonzero(probabilities[:, columns].sum(axis=1) >= gate)


def trusted_rows(probabilities: np.ndarray, columns: np.ndarray, rows: np.ndarray,
                 flower_probabilities: np.ndarray, flower_model_columns: np.ndarray) -> np.ndarray:
    """Which of ``rows`` (read by the flower model, one row of ``flower_probabilities`` each) the
    flower model may split: those the main model gives :data:`FLOWER_GATE` of flower mass, and those
    from :data:`LOW_FLOWER_GATE` that the flower model is :data:`SURE_FLOWER_MASS` sure are flowers."""
    main = probabilities[rows][:, columns].sum(axis=1)
    own = flower_probabilities[:, flower_model_columns].sum(axis=1)
    return (main >= FLOWER_GATE) | (own >= SURE_FLOWER_MASS)


def split_flower_mass(probabilities: np.ndarray, columns: np.ndarray, rows: np.ndarray,
                      flower_probabilities: np.ndarray, flower_model_columns: np.ndarray) -> np.ndarray:
    """``probabilities`` with, in ``rows``, the flower mass shared out as ``flower_probabilities`` (one
    row per entry of ``rows``, the flower model's own columns) share it among the flowers. Each row
    still sums to one, and its non-flower entries are untouched."""
    out = probabilities.copy()
    if not len(rows):
        return out
    mass = out[rows][:, columns].sum(axis=1, keepdims=True)
    within = flower_probabilities[:, flower_model_columns]
    within = within / np.maximum(within.sum(axis=1, keepdims=True), 1e-12)
    out[np.ix_(rows, columns)] = mass * within
    return out
