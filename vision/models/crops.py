"""Cutting a tile's face out of a photo and making the batch a classifier reads.

One definition for training and run time, so a model is always fed crops cut the way it learned:
an outline (``quad``) is warped upright, a box is cut with a small margin and a sideways tile is
turned a quarter; crops are resized to the model's own :class:`InputSize` and normalised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from scoring.errors import InputError
from vision.types import Detection

#: Per-channel normalisation applied after scaling RGB to [0, 1].
PIXEL_MEAN = 0.5
PIXEL_STD = 0.25
#: Margin added around a box before cropping, as a fraction of its size (boxes are often tight).
BOX_MARGIN = 0.04
#: A tile whose box is this much wider than tall is treated as lying sideways.
SIDEWAYS_ASPECT = 1.15
#: Smallest input side a label file may declare (four stride-2 stages need a few pixels left).
MIN_INPUT_SIDE = 16


@dataclass(frozen=True)
class InputSize:
    """A classifier's input crop in pixels (height, width); tiles are about 3:4, taller than wide."""

    height: int
    width: int

    @classmethod
    def for_height(cls, height: int) -> InputSize:
        """The 3:4 input of a given height (the training option ``--input-height``)."""
        if height < MIN_INPUT_SIDE or height % 4:
            raise ValueError(f"input height must be a multiple of 4 and at least {MIN_INPUT_SIDE}, "
                             f"got {height}")
        return cls(height, height * 3 // 4)


#: The size of models whose label file does not record one (the first models were all 64x48).
DEFAULT_INPUT_SIZE = InputSize(64, 48)


def preprocess_crops(crops_bgr: Sequence[np.ndarray], *, size: InputSize) -> np.ndarray:
    """BGR crops of any size -> the float32 NCHW batch a model of input ``size`` takes (RGB, normalised).

    ``size`` has no default on purpose: it belongs to the model (``TileClassifier.input_size``, or
    the training config), and a crop scaled to another model's size would be read wrongly.
    """
    batch = np.empty((len(crops_bgr), 3, size.height, size.width), dtype=np.float32)
    for index, crop in enumerate(crops_bgr):
        if crop.ndim == 2:
            crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
        elif crop.shape[2] == 4:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
        small = cv2.resize(crop, (size.width, size.height), interpolation=_interpolation(crop, size))
        rgb = small[:, :, ::-1].astype(np.float32) / 255.0
        batch[index] = ((rgb - PIXEL_MEAN) / PIXEL_STD).transpose(2, 0, 1)
    return batch


def _interpolation(crop: np.ndarray, size: InputSize) -> int:
    shrinking = crop.shape[0] > size.height or crop.shape[1] > size.width
    return cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR


def crop_detection(
    image_bgr: np.ndarray, detection: Detection, size: InputSize = DEFAULT_INPUT_SIZE
) -> np.ndarray:
    """The tile face of ``detection`` cut from the image, upright as far as the detection says.

    ``size`` is the input of the model that will read the crop; only a warped outline depends on it
    (it is warped at twice that size). Tools that just show crops may keep the default.
    """
    if detection.quad is not None and len(detection.quad) == 4:
        return _warp_quad(image_bgr, np.asarray(detection.quad, dtype=np.float32), size)
    height, width = image_bgr.shape[:2]
    x1, y1, x2, y2 = detection.box
    margin_x, margin_y = (x2 - x1) * BOX_MARGIN, (y2 - y1) * BOX_MARGIN
    left, top = max(0, int(np.floor(x1 - margin_x))), max(0, int(np.floor(y1 - margin_y)))
    right, bottom = min(width, int(np.ceil(x2 + margin_x))), min(height, int(np.ceil(y2 + margin_y)))
    if right - left < 2 or bottom - top < 2:
        raise InputError(f"detection box {detection.box} lies outside the {width}x{height} image")
    crop = image_bgr[top:bottom, left:right]
    if detection.rotated or crop.shape[1] > crop.shape[0] * SIDEWAYS_ASPECT:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def _warp_quad(image_bgr: np.ndarray, quad: np.ndarray, size: InputSize) -> np.ndarray:
    """Perspective-warp a tile outline (corner 0 = top-left of the face as read, clockwise) upright.

    The output has the tile's usual 3:4 shape whatever the outline's apparent proportions: a tile
    lying flat and seen at a low angle looks wider than tall, but it is still read upright, so
    the quad's corner order, not its aspect, decides the orientation. Twice the model input, so
    the final resize shrinks (area averaging) rather than samples the warp's interpolation.
    """
    out_w, out_h = 2 * size.width, 2 * size.height
    target = np.array([[0, 0], [out_w - 1, 0], [out_w - 1, out_h - 1], [0, out_h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(quad, target)
    return cv2.warpPerspective(image_bgr, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
