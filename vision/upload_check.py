"""Checking a photo sent over the network before anything keeps or decodes it.

Why: the web tools take photos from a browser, so the bytes may be anything: a text file, a photo
too large to read in time, or a decompression bomb (a small PNG whose header claims gigapixels).
The bytes are identified by their first bytes (never by the name they came with), the header is
read without decoding pixels, the pixel count is checked against a limit, and only then is the file
verified. Each refusal is one line naming what is wrong.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from scoring.errors import InputError

# Importing vision.imageio registers pillow-heif's HEIC opener with Pillow, once for the whole program.
from vision import imageio  # noqa: F401

#: ISO base media brands of HEIC/HEIF still images (an iPhone's default format).
_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")
#: The file suffix kept for each format.
SUFFIXES = {"JPEG": ".jpg", "PNG": ".png", "HEIF": ".heic", "BMP": ".bmp", "WEBP": ".webp"}


@dataclass(frozen=True)
class UploadLimits:
    """What one tool accepts: formats (keys of :data:`SUFFIXES`), bytes and pixels."""

    formats: frozenset[str]
    max_bytes: int
    max_pixels: int


@dataclass(frozen=True)
class CheckedPhoto:
    """A photo that passed: its format, the suffix to keep it under, its stored size."""

    format: str
    suffix: str
    width: int
    height: int


def sniff_format(data: bytes) -> str | None:
    """The format the bytes start as, None for anything else."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if len(data) >= 12 and data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "HEIF"
    if data.startswith(b"BM"):
        return "BMP"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def check_photo(data: bytes, limits: UploadLimits, name: str = "the photo") -> CheckedPhoto:
    """``data`` as a photo ``limits`` allow, or InputError with the reason (not a photo, too large
    in bytes or pixels, a format not taken, unreadable)."""
    accepted = ", ".join(sorted("HEIC" if f == "HEIF" else f for f in limits.formats))
    if len(data) > limits.max_bytes:
        raise InputError(f"{name} is {len(data) / 1e6:.1f} MB; the limit is "
                         f"{limits.max_bytes // (1024 * 1024)} MB")
    if not data:
        raise InputError(f"{name} is empty")
    kind = sniff_format(data)
    if kind is None or kind not in limits.formats:
        raise InputError(f"{name} is not a photo this page reads ({accepted})")
    too_large = f"{name} has too many pixels; the limit is {limits.max_pixels / 1e6:.1f} MP"
    unreadable = f"{name} is not a readable {kind} image (damaged or cut short)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError:
            raise InputError(too_large) from None
        except (OSError, UnidentifiedImageError, ValueError, SyntaxError):
            raise InputError(unreadable) from None
        with image:
            width, height = image.size
            if width * height > limits.max_pixels:
                raise InputError(f"{name} is {width}x{height} pixels ({width * height / 1e6:.0f} MP); "
                                 f"the limit is {limits.max_pixels / 1e6:.1f} MP")
            try:
                image.verify()
            except (OSError, ValueError, SyntaxError):
                raise InputError(unreadable) from None
    return CheckedPhoto(kind, SUFFIXES[kind], width, height)
