"""The photos the table sends: checked, kept under their content's hash, read, and read again with fixes.

Why by hash: the page names a photo only by the id the server gave it (hex digits and a known
suffix), so no name from the network reaches the file system, and the same photo sent twice is kept
once. A reading is the photo pipeline's (``vision.pipeline``), with the player's fixes given as
``--fix`` gives them (``vision.tile_fixes``); the last few readings are kept in memory, so scoring a
hand after fixing it does not read the photo again.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

import cv2

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.named_tiles import named_tiles
from vision.upload_check import UploadLimits, check_photo

if TYPE_CHECKING:
    from vision.pipeline import PhotoPipeline

#: What the page takes: a phone's JPEG, PNG or HEIC, up to 20 MB and 12 MP (4032x3024 is 12.2 M
#: pixels; the limit leaves room for a 4096x3072 sensor).
UPLOAD_LIMITS = UploadLimits(frozenset({"JPEG", "PNG", "HEIF"}), 20 * 1024 * 1024, 12_600_000)
#: The long side of the picture the page draws the tiles on.
PREVIEW_SIDE = 1280
#: Readings kept in memory (each a few kB of JSON).
KEPT_READINGS = 32
#: Fixes one reading may carry.
MAX_FIXES = 8
_PHOTO_ID = re.compile(r"^[0-9a-f]{24}\.(jpg|png|heic)$")
#: Candidates shown for a tapped tile.
TOP_K = 5


class PhotoDesk:
    """The photo folder and the models. One reading at a time (the models use every core)."""

    def __init__(self, folder: Path, pipeline: PhotoPipeline | None = None) -> None:
        from vision.pipeline import PhotoPipeline

        self.folder = Path(folder)
        self.pipeline = pipeline or PhotoPipeline()
        self._lock = threading.Lock()
        self._readings: OrderedDict[tuple[str, tuple[str, ...]], dict] = OrderedDict()

    def keep(self, data: bytes) -> str:
        """Check ``data`` (InputError with the reason) and keep it; its photo id."""
        checked = check_photo(data, UPLOAD_LIMITS)
        photo_id = hashlib.sha256(data).hexdigest()[:24] + checked.suffix
        path = self.folder / photo_id
        if not path.exists():
            atomic_write_bytes(path, data)
        return photo_id

    def path(self, photo_id: str) -> Path:
        """The file of a photo id this server gave out; InputError for anything else."""
        if not isinstance(photo_id, str) or not _PHOTO_ID.match(photo_id):
            raise InputError("no such photo")
        path = self.folder / photo_id
        if not path.is_file():
            raise InputError("no such photo (it may have been read by another server)")
        return path

    def preview(self, photo_id: str) -> bytes:
        """The photo as a JPEG of at most :data:`PREVIEW_SIDE` pixels, upright (kept beside it)."""
        from vision.imageio import PhotoSource

        path = self.path(photo_id)
        cached = self.folder / f"{path.stem}.preview.jpg"
        if cached.is_file():
            return cached.read_bytes()
        picture, _ = PhotoSource(path).image(PREVIEW_SIDE)
        ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise InputError("the photo cannot be shown")
        atomic_write_bytes(cached, encoded.tobytes())
        return encoded.tobytes()

    def read(self, photo_id: str, fixes: tuple[str, ...] = ()) -> dict:
        """The page's reading of a photo with ``fixes`` (``READ=TRUE``): every tile with its top-k,
        the groups, the hand, the confidence report; a refused photo says why and what to do."""
        from vision.imageio import read_header
        from vision.pipeline import PhotoReadError, failed_result

        if len(fixes) > MAX_FIXES:
            raise InputError(f"at most {MAX_FIXES} fixes a photo")
        named = named_tiles(fixes=list(fixes))
        path = self.path(photo_id)
        key = (photo_id, fixes)
        with self._lock:
            if key in self._readings:
                self._readings.move_to_end(key)
                return self._readings[key]
            try:
                result = self.pipeline.read_photo(path, named=named)
                doc, readings = result.to_json(), result.readings
                doc["ok"] = True
            except PhotoReadError as error:
                doc, readings = failed_result(photo_id, error, error.readings).to_json(), error.readings
                doc["ok"] = False
                doc["advice"] = refusal_advice(doc)
            except InputError as error:
                doc, readings = failed_result(photo_id, error).to_json(), []
                doc["ok"] = False
                doc["advice"] = refusal_advice(doc)
            width, height = read_header(path).upright_size
            for tile, reading in zip(doc["tiles"], readings, strict=True):
                tile["topk"] = [{"code": code, "p": round(p, 4)} for code, p in reading.candidates[:TOP_K]]
            doc.update({"image": photo_id, "photo": photo_id, "fixes": list(fixes),
                        "width": width, "height": height})
            self._readings[key] = doc
            while len(self._readings) > KEPT_READINGS:
                self._readings.popitem(last=False)
            return doc


def refusal_advice(doc: dict) -> str:
    """What the player can do about a photo that reads as no winning hand."""
    if not doc["tiles"]:
        return ("No tiles were found. Take the photo again from above, closer, with the whole hand in "
                "the picture, or type the hand instead.")
    fixes = doc.get("suggested_fixes") or []
    tried = f" The nearest winning hand needs: {', '.join(fixes)} (tap one to try it)." if fixes else ""
    return ("These tiles do not make a winning hand. Tap a tile that is read wrong and pick what it is; "
            f"the hand is then read again.{tried} Or take the photo again, or type the hand.")
