"""HEIC photos as an iPhone saves them, made from the bundled samples with pillow-heif: the pixels
stored turned a quarter, and the orientation saying how to show them upright."""

from __future__ import annotations

from pathlib import Path

import pillow_heif
from PIL import Image

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"

#: EXIF orientation 6: the stored pixels are shown turned 90 degrees clockwise.
TURN_CLOCKWISE = 6


def write_heic(path: Path, sample: str = "hand-overhead.jpg") -> Image.Image:
    """``datasets/samples/<sample>`` saved as a HEIC at ``path``, stored turned a quarter
    anticlockwise with the orientation that turns it back; the upright picture (RGB) is returned."""
    pillow_heif.register_heif_opener()
    with Image.open(SAMPLES / sample) as opened:
        upright = opened.convert("RGB")
    exif = Image.Exif()
    exif[0x0112] = TURN_CLOCKWISE
    # x265's fastest preset: a test photo need not be small, only quick to make.
    upright.transpose(Image.Transpose.ROTATE_90).save(path, format="HEIF", quality=90, exif=exif.tobytes(),
                                                      enc_params={"preset": "ultrafast"})
    return upright
