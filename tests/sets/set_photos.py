"""Rendered photos of a tile set in a style the shipped models misread (the Unicode art, mirrored),
laid out to be learned, and of a hand of it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth.faces import FaceStyle, load_art_styles
from vision.synth.set_layout import render_rows

#: A winning hand of the mirrored style whose 3p, 7p and 9m the shipped models read as 2p, 6p, 5m
#: (``taicam photo`` without the set refuses it), with a flower apart.
HAND = ["1p", "2p", "3p", "3p", "4p", "5p", "6p", "7p", "8p", "7m", "8m", "9m", "5m", "5m", "5m", "2s", "2s"]
HAND_FLOWER = "3f"


def mirrored_style() -> FaceStyle:
    styles = {style.name: style for style in load_art_styles()}
    if "art:uni" not in styles:
        pytest.skip("needs the shared tile art (../shared/data/art/unicode-set)")
    return styles["art:uni"]


def mirrored(face: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(face[:, ::-1])


def render(path: Path, rows: Sequence[Sequence[str]], seed: int, upside_down: bool = False) -> Path:
    image = render_rows(rows, mirrored_style(), np.random.default_rng(seed), upside_down=upside_down,
                        face=mirrored)
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def render_hand(path: Path, seed: int = 3) -> Path:
    """The hand in one row, its flower in a row of its own below."""
    return render(path, [HAND, [HAND_FLOWER]], seed)
