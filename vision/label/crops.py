"""Cutting labelled tiles out of photos: the review's contact sheet and the classifier crop export.

Crops are cut exactly as the classifier cuts them at run time (``crop_detection``: a quad is
warped upright, a sideways box turned a quarter), so exported crops train the model on what it
will see.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.manifest import TileLabel, detection_of
from vision.imageio import load_image

#: Longest side of a contact-sheet thumbnail, in pixels.
THUMB_SIDE = 160


def cut_tile(image_bgr: np.ndarray, tile: TileLabel) -> np.ndarray:
    """The tile's face, upright as far as its label says."""
    from vision.models.crops import crop_detection

    return crop_detection(image_bgr, detection_of(tile))


@functools.lru_cache(maxsize=4)
def _decoded(image_path: Path, stamp: tuple[int, int]) -> np.ndarray:
    """A photo decoded once for all its crops (a contact sheet asks for many from each photo)."""
    return load_image(image_path)


def upright_jpeg(image_path: Path) -> bytes:
    """The whole photo, EXIF-upright, as a JPEG: for a browser that cannot show its own format (HEIC)."""
    ok, data = cv2.imencode(".jpg", load_image(image_path), [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise InputError(f"cannot encode {image_path.name} as JPEG")
    return data.tobytes()


def thumbnail_jpeg(image_path: Path, tile: TileLabel) -> bytes:
    """A small JPEG of one labelled tile for the contact sheet."""
    stat = image_path.stat()
    crop = cut_tile(_decoded(image_path, (stat.st_mtime_ns, stat.st_size)), tile)
    scale = THUMB_SIDE / max(crop.shape[:2])
    if scale < 1:
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 88])
    if not ok:
        raise InputError(f"cannot encode a crop of {image_path.name}")
    return data.tobytes()
