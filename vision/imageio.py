"""Loading photos safely: EXIF-upright BGR arrays, a clear error for anything that is not a usable image.

Every image taicam reads from a file or an upload is opened here (:func:`open_image`), so one check
guards them all: the size in the file's header is refused before anything is decoded, EXIF included
(a PNG's EXIF may follow its pixels, and Pillow decodes the whole image to find it). Phones write
12-50 MP JPEGs with the rotation in an EXIF tag, and iPhones HEIC (read through pillow-heif, which
hands the pixels over already turned upright). Detection needs only a reduced image: for JPEG,
PIL's ``draft`` decodes at 1/2, 1/4 or 1/8 scale straight from the DCT coefficients, which is both
faster and far lighter than decoding the full frame and shrinking it. :class:`PhotoSource` keeps
the file open in that spirit: one small image for the detector, a larger one only if the tiles are
too small to classify from it.
"""

from __future__ import annotations

import io
import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
import pillow_heif
from PIL import Image, ImageFile, UnidentifiedImageError

from scoring.errors import InputError

#: Larger images are refused before decoding (a 48 MP phone photo is 8000x6000; 100 MP is generous).
MAX_PIXELS = 100_000_000
#: Files larger than this are refused without reading them.
MAX_FILE_BYTES = 200 * 1024 * 1024

#: Reduced JPEG decoding may come out up to this much smaller than the size asked for.
DRAFT_SLACK = 0.85

ImageFile.LOAD_TRUNCATED_IMAGES = False
# HEIC/HEIF (an iPhone's default photo format) opens through Image.open like any other format.
pillow_heif.register_heif_opener()

_EXIF_ORIENTATION_TAG = 0x0112


@dataclass(frozen=True)
class ImageHeader:
    """What the file says about itself: stored size, EXIF orientation (1..8) and format."""

    stored_width: int
    stored_height: int
    orientation: int
    format: str

    @property
    def upright_size(self) -> tuple[int, int]:
        """(width, height) after the EXIF rotation is applied."""
        if self.orientation in (5, 6, 7, 8):
            return self.stored_height, self.stored_width
        return self.stored_width, self.stored_height


def _check_file(path: Path) -> None:
    """Refuse a path that is not a plain, non-empty file of a sane size (InputError naming it)."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not an image")
    size = path.stat().st_size
    if size == 0:
        raise InputError(f"{path}: the file is empty (0 bytes)")
    if size > MAX_FILE_BYTES:
        raise InputError(f"{path}: the file is {size / 1e6:.0f} MB; "
                         f"the limit is {MAX_FILE_BYTES / 1e6:.0f} MB")


def open_image(path: str | os.PathLike[str]) -> Image.Image:
    """The image file opened lazily (no pixel decoded yet), its header size already checked: an
    InputError naming ``path`` for a missing, empty, unreadable or oversized file. Close it after use
    (``with open_image(path) as image``)."""
    path = Path(path)
    _check_file(path)
    return _open_checked(path, str(path), _is_heif(path))


def open_image_bytes(data: bytes, name: str) -> Image.Image:
    """Like :func:`open_image`, for an image held in memory (an upload); errors name ``name``."""
    if not data:
        raise InputError(f"{name}: the file is empty (0 bytes)")
    return _open_checked(io.BytesIO(data), name, _is_heif_head(data[:12]))


def _open_checked(source: Path | io.BytesIO, name: str, heif: bool) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning: our limit follows
            image = Image.open(source)
    except Image.DecompressionBombError:
        # Pillow refuses at twice its own limit, before we see the size.
        raise InputError(f"{name}: the image is over {2 * Image.MAX_IMAGE_PIXELS / 1e6:.0f} MP; "
                         f"the limit is {MAX_PIXELS / 1e6:.0f} MP") from None
    except UnidentifiedImageError:
        if heif:
            raise InputError(f"{name}: a HEIC/HEIF photo that cannot be read (truncated or corrupt)"
                             ) from None
        raise InputError(f"{name}: not an image (or a format taicam cannot read)") from None
    except (OSError, ValueError, SyntaxError) as error:
        raise InputError(f"{name}: cannot read the image header ({error})") from None
    width, height = image.size
    if width <= 0 or height <= 0:
        image.close()
        raise InputError(f"{name}: the image has no pixels ({width}x{height})")
    if width * height > MAX_PIXELS:
        image.close()
        raise InputError(f"{name}: the image is {width}x{height} pixels ({width * height / 1e6:.0f} MP); "
                         f"the limit is {MAX_PIXELS / 1e6:.0f} MP")
    return image


#: ISO base media file brands of HEIC/HEIF still images, to name a HEIC that does not open as one.
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}


def _is_heif_head(head: bytes) -> bool:
    """Whether a file's first 12 bytes start it as a HEIC/HEIF image does (an ``ftyp`` box naming a
    HEIF brand)."""
    return len(head) == 12 and head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS


def _is_heif(path: Path) -> bool:
    with path.open("rb") as file:
        return _is_heif_head(file.read(12))


def _orientation(image: Image.Image) -> int:
    try:
        value = image.getexif().get(_EXIF_ORIENTATION_TAG, 1)
    except Exception:  # noqa: BLE001 - a broken EXIF block must not make a readable photo unreadable
        return 1
    return int(value) if isinstance(value, int) and 1 <= value <= 8 else 1


def header_of(image: Image.Image) -> ImageHeader:
    """The header of an image from :func:`open_image` (its EXIF read only now that its size passed)."""
    return ImageHeader(image.width, image.height, _orientation(image), image.format or "?")


def read_header(path: str | os.PathLike[str]) -> ImageHeader:
    """Read size and orientation without decoding pixels; raise InputError for unusable files."""
    with open_image(path) as image:
        return header_of(image)


def apply_orientation(array: np.ndarray, orientation: int) -> np.ndarray:
    """Turn a stored pixel array upright according to its EXIF orientation value (1..8)."""
    if orientation == 2:
        return array[:, ::-1]
    if orientation == 3:
        return array[::-1, ::-1]
    if orientation == 4:
        return array[::-1, :]
    if orientation == 5:
        return np.swapaxes(array, 0, 1)
    if orientation == 6:
        return np.rot90(array, k=-1)
    if orientation == 7:
        return np.swapaxes(array, 0, 1)[::-1, ::-1]
    if orientation == 8:
        return np.rot90(array, k=1)
    return array


#: Pillow modes of greyscale pixels wider than 8 bits (16-bit PNG and TIFF scans, 32-bit integer or
#: float images), which ``Image.convert("RGB")`` clips at 255 instead of scaling: a 16-bit photo
#: came out white, and "no tiles found".
_WIDE_GREY_MODES = ("I", "I;16", "I;16B", "I;16L", "I;16N", "F")


def _as_rgb(image: Image.Image) -> Image.Image:
    """``image`` as 8-bit RGB; wide greyscale is scaled down to 8 bits (16-bit range when its values
    go past 255), not clipped."""
    if image.mode == "RGB":
        return image
    if image.mode in _WIDE_GREY_MODES:
        grey = np.asarray(image, dtype=np.float64)
        if grey.size and float(grey.max()) > 255.0:
            grey = grey / 257.0
        return Image.fromarray(np.clip(np.rint(grey), 0, 255).astype(np.uint8), "L").convert("RGB")
    return image.convert("RGB")


def _decode(path: Path, max_side: int | None) -> tuple[np.ndarray, ImageHeader]:
    with open_image(path) as image:
        header = header_of(image)
        if max_side is not None and image.format == "JPEG":
            # draft() picks the smallest DCT scale (1/2, 1/4, 1/8) still at least the requested size.
            # Asking for a little less than max_side lets a 4032-pixel photo decode at 1/4 (1008)
            # instead of 1/2 for a 1024 target; nobody downstream needs those last 16 pixels.
            longest = max(image.width, image.height)
            scale = max_side * DRAFT_SLACK / longest
            if scale <= 0.5:
                image.draft("RGB", (int(image.width * scale) + 1, int(image.height * scale) + 1))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                image.load()
                array = np.asarray(_as_rgb(image))
        except (OSError, ValueError, SyntaxError) as error:
            raise InputError(f"{path}: the image is truncated or corrupt ({error})") from None
    bgr = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    if max_side is not None and max(bgr.shape[:2]) > max_side:
        bgr = resize_by(bgr, max_side / max(bgr.shape[:2]))
    return np.ascontiguousarray(apply_orientation(bgr, header.orientation)), header


def resize_by(image: np.ndarray, factor: float) -> np.ndarray:
    """``image`` scaled by ``factor`` (area averaging, the filter for shrinking; at least 1 pixel a side)."""
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def load_image(path: str | os.PathLike[str], max_side: int | None = None) -> np.ndarray:
    """Load an image as an EXIF-upright BGR uint8 array, at most ``max_side`` pixels on its long side
    (a JPEG may come out up to DRAFT_SLACK smaller: it is decoded at a reduced DCT scale).

    Raises :class:`InputError` with a one-line reason for a missing, empty, non-image, truncated or
    oversized file, so callers never see a decoder traceback.
    """
    return _decode(Path(path), max_side)[0]


def read_bgr(path: str | os.PathLike[str], flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """``cv2.imread(path, flags)`` (the same pixels: training and the renders depend on them) once
    the header passed :func:`open_image`'s checks; InputError naming the file if OpenCV cannot decode
    it."""
    open_image(path).close()
    image = cv2.imread(str(path), flags)
    if image is None:
        raise InputError(f"{path}: OpenCV cannot decode this image")
    return image


class ImageSource(Protocol):
    """A photo offered at the resolutions a stage needs: ``image(max_side)`` gives the picture with its
    long side at most that (None = full) and its scale against ``full_size`` (width, height)."""

    full_size: tuple[int, int]

    def image(self, max_side: int | None = None) -> tuple[np.ndarray, float]: ...


class PhotoSource:
    """One photo, decoded at the resolutions a stage needs (small for detection, larger for crops).

    Coordinates handed out are always pixels of the full-resolution upright image, whatever
    resolution was decoded: ``scale`` converts (decoded = full * scale).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.header = read_header(self.path)
        self.full_size = self.header.upright_size
        self._cache: dict[int | None, np.ndarray] = {}

    def image(self, max_side: int | None = None) -> tuple[np.ndarray, float]:
        """The upright image with its long side at most ``max_side`` (None = full), and its scale.

        Only a JPEG shrunk to half size or less is decoded reduced; anything else is decoded once
        at full size and resized from that copy, so a second request never decodes again.
        """
        longest = max(self.full_size)
        key = None if max_side is None or max_side >= longest else int(max_side)
        reduced = key is not None and self.header.format == "JPEG" and key * DRAFT_SLACK / longest <= 0.5
        if key not in self._cache:
            if key is None or reduced:
                self._cache[key] = _decode(self.path, key)[0]
            else:
                self._cache[key] = resize_by(self.image(None)[0], key / longest)
        array = self._cache[key]
        return array, array.shape[1] / self.full_size[0]


class ArraySource:
    """An in-memory upright image (a camera frame) offered like :class:`PhotoSource`."""

    def __init__(self, array: np.ndarray) -> None:
        self.full = image_from_array(array)
        self.full_size = (self.full.shape[1], self.full.shape[0])

    def image(self, max_side: int | None = None) -> tuple[np.ndarray, float]:
        """The image with its long side at most ``max_side`` (None = full), and its scale."""
        longest = max(self.full_size)
        if max_side is None or max_side >= longest:
            return self.full, 1.0
        factor = max_side / longest
        return resize_by(self.full, factor), factor


class RegionSource:
    """A window of another source (:class:`PhotoSource`, :class:`ArraySource`), offered like it: the
    closer look at a hand far off in a big photo (``vision.repairs.closer_look``).

    Coordinates handed out are full-resolution pixels of the window; ``offset`` (its top-left corner
    in the photo's full-resolution pixels) places them in the photo.
    """

    def __init__(self, source: ImageSource, region: tuple[int, int, int, int]) -> None:
        x1, y1, x2, y2 = region
        width, height = source.full_size
        if not (0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height):
            raise ValueError(f"window {region} is not inside the {width}x{height} photo")
        self.source = source
        self.offset = (x1, y1)
        self.full_size = (x2 - x1, y2 - y1)

    def image(self, max_side: int | None = None) -> tuple[np.ndarray, float]:
        """The window with its long side at most ``max_side`` (None = full), and its scale; cut from
        the photo decoded no larger than that needs."""
        longest = max(self.full_size)
        side = None if max_side is None or max_side >= longest else int(max_side)
        decode_side = None if side is None else math.ceil(side * max(self.source.full_size) / longest)
        photo, scale = self.source.image(decode_side)
        (x1, y1), (width, height) = self.offset, self.full_size
        left, top = int(round(x1 * scale)), int(round(y1 * scale))
        right = min(photo.shape[1], max(left + 1, int(round((x1 + width) * scale))))
        bottom = min(photo.shape[0], max(top + 1, int(round((y1 + height) * scale))))
        window = photo[top:bottom, left:right]
        if side is not None and max(window.shape[:2]) > side:
            window = resize_by(window, side / max(window.shape[:2]))
        return np.ascontiguousarray(window), window.shape[1] / width


def image_from_array(array: np.ndarray) -> np.ndarray:
    """Validate an in-memory image (e.g. a camera frame) the way files are validated."""
    if not isinstance(array, np.ndarray) or array.ndim not in (2, 3) or array.size == 0:
        raise InputError("not an image array")
    if array.shape[0] * array.shape[1] > MAX_PIXELS:
        raise InputError(f"the image is {array.shape[1]}x{array.shape[0]} pixels; "
                         f"the limit is {MAX_PIXELS / 1e6:.0f} MP")
    if array.ndim == 2:
        array = cv2.cvtColor(array, cv2.COLOR_GRAY2BGR)
    elif array.shape[2] == 4:
        array = cv2.cvtColor(array, cv2.COLOR_BGRA2BGR)
    if array.dtype != np.uint8:
        raise InputError(f"expected an 8-bit image, got {array.dtype}")
    return array
