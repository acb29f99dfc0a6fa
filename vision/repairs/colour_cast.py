"""A photo lit in one strong colour, read in grey balanced on the tiles' own faces.

Why: mahjong parlours light tables with coloured lamps. Under a magenta one (real validation photo
group 420233498) the faces' green channel is nearly gone (their paper reads BGR 184, 12, 208), a
1m's face is an almost even magenta with a few marks, and the classifier reads it as a coloured
tile back (five tiles of that group at up to 0.99). The training crops' hue shifts do not reach so
far. Tile faces are the one thing in the photo known to be white, so the faces themselves give the
light's colour: each channel is divided by the faces' paper colour and the channels are averaged,
weighted by how much light each still carries (a channel the lamp left dark is mostly noise). The
classifier reads grey photos (a share of its training crops is grey).

Only for a strong cast: the paper colour of every other labelled real photo and of 200 held-out
renders has a chroma of at most 0.38 (warm lamps on ivory tiles; renders at most 0.27), the
magenta group's 0.93. Milder casts are left to the classifier, which was trained on them.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.types import Quad

#: (max - min) / max of the faces' paper colour from which the photo is read in balanced grey.
STRONG_CAST = 0.6
#: The paper's pixels: the brightest share of a face's pixels (the rest is ink and picture).
PAPER_SHARE = 0.4
#: The grey the paper is mapped to.
PAPER_LEVEL = 235.0
#: Each face is sampled on a grid of this size (width, height)...
_SAMPLE = (12, 16)
#: ...and at most this many faces, spread over the photo's tiles (a median needs no more; the live
#: mode asks on every frame it processes).
MAX_FACES = 12


def paper_colour(image_bgr: np.ndarray, faces: Sequence[Quad]) -> np.ndarray | None:
    """The faces' paper colour (BGR float): per face the mean of its brightest pixels, then the
    median over faces (a few backs or misplaced outlines do not move it). None without faces."""
    target = np.float32([[0, 0], [_SAMPLE[0], 0], [_SAMPLE[0], _SAMPLE[1]], [0, _SAMPLE[1]]])
    colours = []
    step = max(1, -(-len(faces) // MAX_FACES))
    for quad in list(faces)[::step]:
        matrix = cv2.getPerspectiveTransform(np.float32(quad), target)
        pixels = cv2.warpPerspective(image_bgr, matrix, _SAMPLE).reshape(-1, 3).astype(np.float32)
        brightness = pixels.sum(axis=1)
        paper = pixels[brightness >= np.quantile(brightness, 1.0 - PAPER_SHARE)]
        colours.append(paper.mean(axis=0))
    return np.median(np.asarray(colours), axis=0) if colours else None


def cast_strength(paper: np.ndarray) -> float:
    """How coloured the paper looks: (max - min) / max of its channels (0 for grey, 1 for one hue)."""
    brightest = float(paper.max())
    return (brightest - float(paper.min())) / brightest if brightest > 0 else 0.0


def neutralised(image_bgr: np.ndarray, faces: Sequence[Quad]) -> np.ndarray | None:
    """``image_bgr`` in grey (three equal channels) balanced on the faces' paper, when the light's
    cast is strong (:data:`STRONG_CAST`); None otherwise (read the photo as it is)."""
    paper = paper_colour(image_bgr, faces)
    if paper is None or cast_strength(paper) < STRONG_CAST:
        return None
    paper = np.maximum(paper, 1.0)
    weights = paper / paper.sum()
    # grey = PAPER_LEVEL * sum_c weight_c * pixel_c / paper_c, one linear map of the three channels.
    coefficients = (PAPER_LEVEL * weights / paper).astype(np.float32)
    grey = cv2.transform(image_bgr, coefficients.reshape(1, 3))
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
