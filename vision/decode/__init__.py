"""Decoding: the most probable *legal* winning hand among the classifier's alternatives.

The classifier reads each tile alone; the game constrains them jointly: at most 4 of a face, each
flower once, exposed groups are chows, pungs or kongs, and the standing tiles with the sets form a
winning hand. The decoder enumerates whole-hand readings in decreasing probability (product of the
calibrated per-tile probabilities) and keeps the first legal one, then a few runners-up for the
confidence report.

Enumeration is exact best-first search over "variables": each standing tile, each exposed group
(whose options are already legal sets, so no search is wasted on illegal melds), each concealed
kong (one face for its 4 tiles) and each flower. Every variable's options are sorted by
probability; the classic successor rule (only increment variables at or after the one last
incremented) visits every combination once, in order, so the first legal reading found is the most
probable one. A budget bounds the work when the photo is hopeless.

One tile may be missing from the photo (``vision.decode.unseen`` says when and why): the hand then gets one
*unseen* tile. It has no detection, so it is no search variable: for each reading of the seen tiles,
every code that completes the hand is tried at the same prior. The search over the seen tiles is
unchanged.
"""

from __future__ import annotations

from vision.decode.budget import Budget, BudgetLimits
from vision.decode.hand import (
    MAX_CHANGES,
    MIN_LIKELIHOOD_RATIO,
    SEARCH_BUDGET,
    HandReading,
    TileChange,
    decode_hand,
    decode_reading,
    expected_standing_tiles,
    hand_size_of,
)
from vision.decode.judge import special_shape_possible
from vision.decode.options import FLOOR
from vision.decode.refusals import TileCountError, UnbelievedReadingError, refusal_error
from vision.decode.search import ALTERNATIVE_RATIO, MAX_ALTERNATIVES
from vision.types import DecodedGroup, LegalReading

__all__ = ["ALTERNATIVE_RATIO", "FLOOR", "MAX_ALTERNATIVES", "MAX_CHANGES", "MIN_LIKELIHOOD_RATIO",
           "SEARCH_BUDGET", "Budget", "BudgetLimits", "DecodedGroup", "HandReading", "LegalReading",
           "TileChange", "TileCountError", "UnbelievedReadingError", "decode_hand", "decode_reading",
           "expected_standing_tiles", "hand_size_of", "refusal_error", "special_shape_possible"]
