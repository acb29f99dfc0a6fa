"""The folder being labelled: its images, its manifest, atomic saves, and per-image undo.

One manifest (JSON lines, ``vision.dataset.manifest``) holds every label. Each change the page
makes replaces one image's record and rewrites the whole manifest through ``write_manifest``
(temp file + ``os.replace``), so a crash or a killed server loses at most the edit being written
and never leaves a half-written file. Records for images that are not under the folder (or no
longer exist) are kept verbatim: nothing a person labelled is dropped because a file moved.

Image keys are POSIX paths relative to the folder; the page addresses images by their index in
the sorted list, so no path from the network ever reaches the file system.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from vision.dataset.files import IMAGE_SUFFIXES, atomic_write_bytes
from vision.dataset.manifest import (
    ManifestRecord,
    TileLabel,
    image_path,
    read_manifest,
    write_manifest,
)
from vision.imageio import header_of, open_image
from vision.label.hand import hand_from_labels, hand_signature, validate_context
from vision.upload_check import UploadLimits, check_photo

#: Sidecar folder (proposal cache), beside the manifest; never listed as images.
SIDECAR_NAME = ".taicam-label"
DEFAULT_MANIFEST_NAME = "manifest.jsonl"
#: Undo steps kept per image (in memory; the manifest itself always holds the latest state).
UNDO_DEPTH = 200
#: Photos larger than this many pixels are refused (decompression bombs, mistaken panoramas).
MAX_IMAGE_PIXELS = 60_000_000
#: Largest photo the page may upload; a phone photo is 2-8 MB.
MAX_UPLOAD_BYTES = 30 * 1024 * 1024
#: What the page may upload: the formats a label folder lists, at most these bytes and pixels.
UPLOAD_LIMITS = UploadLimits(frozenset({"JPEG", "PNG", "BMP", "WEBP"}), MAX_UPLOAD_BYTES, MAX_IMAGE_PIXELS)
#: Uploaded photos land here, inside the folder being labelled.
UPLOAD_FOLDER = "uploads"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class StaleEditError(Exception):
    """The page edited an older revision of a record than the one saved (two tabs, a lost reply)."""


@dataclass
class _ImageState:
    """What the workspace knows about one image: its record (if labelled) and its undo history."""

    key: str
    record: ManifestRecord | None = None
    revision: int = 0
    undo: list[ManifestRecord | None] = field(default_factory=list)
    redo: list[ManifestRecord | None] = field(default_factory=list)


def find_images(root: Path) -> list[str]:
    """Every image under ``root`` (recursively, hidden folders skipped), as sorted relative keys.

    A symbolic link that leads outside ``root`` is skipped: the server shows files from the
    folder it was given and nothing else.
    """
    keys: list[str] = []
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        for name in filenames:
            if Path(name).suffix.lower() not in IMAGE_SUFFIXES or name.startswith("."):
                continue
            path = Path(dirpath, name)
            if path.resolve().is_relative_to(real_root):
                keys.append(path.relative_to(root).as_posix())
    return sorted(keys)


def upright_size(path: Path) -> tuple[int, int]:
    """(width, height) of the image as displayed, i.e. after its EXIF orientation is applied.

    Reads only the header (``vision.imageio.open_image``: a file too large is refused before its
    EXIF is read). Raises InputError for a file that is not a readable image or is huge.
    """
    with open_image(path) as image:
        header = header_of(image)
    width, height = header.upright_size
    if width * height > MAX_IMAGE_PIXELS:
        raise InputError(f"image {path.name} is too large ({width}x{height} pixels)")
    return width, height


class LabelWorkspace:
    """The labels of one folder of photos. Thread-safe: the HTTP server calls it from many threads."""

    def __init__(self, root: Path | str, manifest_path: Path | str | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise InputError(f"not a folder: {root}")
        self.manifest_path = (Path(manifest_path).expanduser().resolve() if manifest_path
                              else self.root / DEFAULT_MANIFEST_NAME)
        if self.manifest_path.is_dir():
            raise InputError(f"manifest path is a folder: {self.manifest_path}")
        self.sidecar_dir = self.manifest_path.parent / SIDECAR_NAME
        self._lock = threading.RLock()
        self.keys: list[str] = find_images(self.root)
        self._index = {key: i for i, key in enumerate(self.keys)}
        self._states = [_ImageState(key) for key in self.keys]
        self._sizes: dict[str, tuple[int, int]] = {}
        # Manifest order: a key marks the slot of an image here, a record is kept verbatim.
        self._order: list[ManifestRecord | str] = []
        self._placed: set[str] = set()
        self._load()

    # ----------------------------------------------------------------- loading / saving
    def _load(self) -> None:
        # A write killed half-way leaves its temp file (the manifest itself is intact): clear it.
        for stale in self.manifest_path.parent.glob(f".{self.manifest_path.name}.*.tmp"):
            stale.unlink(missing_ok=True)
        self._disk_stamp = self._stamp()
        if not self.manifest_path.exists():
            return
        for record in read_manifest(self.manifest_path):
            key = self._key_of(record)
            if key is None or self._states[self._index[key]].record is not None:
                self._order.append(record)  # foreign or duplicate: kept verbatim, never shown
                continue
            self._states[self._index[key]].record = record
            self._place(key)

    def _key_of(self, record: ManifestRecord) -> str | None:
        path = image_path(record, self.manifest_path).resolve()
        try:
            key = path.relative_to(self.root).as_posix()
        except ValueError:
            return None
        return key if key in self._index else None

    def _record_image_name(self, key: str) -> str:
        """The ``image`` field for ``key``: relative to the manifest's folder, as the format says."""
        return Path(os.path.relpath(self.root / key, self.manifest_path.parent)).as_posix()

    def _stamp(self) -> tuple[int, int] | None:
        """Identity of the manifest on disk (mtime, size), None when there is none."""
        try:
            stat = self.manifest_path.stat()
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_size)

    def _check_disk(self) -> None:
        """Refuse to overwrite a manifest another program changed since it was read or written here."""
        if self._stamp() != self._disk_stamp:
            raise InputError(f"{self.manifest_path} was changed by another program while labelling; "
                             "not overwriting it: restart taicam label to load the new version")

    def _write(self) -> None:
        self._check_disk()
        records: list[ManifestRecord] = []
        for entry in self._order:
            if isinstance(entry, str):
                record = self._states[self._index[entry]].record
                if record is not None:
                    records.append(record)
            else:
                records.append(entry)
        write_manifest(self.manifest_path, records)
        self._disk_stamp = self._stamp()

    # ----------------------------------------------------------------- queries
    def __len__(self) -> int:
        return len(self.keys)

    def key(self, index: int) -> str:
        if not 0 <= index < len(self.keys):
            raise InputError(f"no image number {index} (the folder has {len(self.keys)})")
        return self.keys[index]

    def image_file(self, index: int) -> Path:
        return self.root / self.key(index)

    def image_size(self, index: int) -> tuple[int, int]:
        key = self.key(index)
        with self._lock:
            record = self._states[index].record
            if record is not None:
                return record.width, record.height
            if key not in self._sizes:
                self._sizes[key] = upright_size(self.root / key)
            return self._sizes[key]

    def record(self, index: int) -> ManifestRecord | None:
        self.key(index)
        with self._lock:
            return self._states[index].record

    def revision(self, index: int) -> int:
        self.key(index)
        with self._lock:
            return self._states[index].revision

    def records(self) -> list[tuple[int, ManifestRecord]]:
        """(index, record) of every labelled image in the folder, in folder order."""
        with self._lock:
            return [(i, s.record) for i, s in enumerate(self._states) if s.record is not None]

    def can_undo(self, index: int) -> tuple[bool, bool]:
        with self._lock:
            state = self._states[index]
            return bool(state.undo), bool(state.redo)

    # ----------------------------------------------------------------- edits
    def build_record(self, index: int, edit: dict[str, Any]) -> tuple[ManifestRecord, list[str]]:
        """Turn the page's edit (``tiles``, ``reviewed``, ``context``) into a validated record.

        Every key of the saved record the page does not edit (split, set_id, source, anything
        another tool wrote) is carried over. Returns the record and the hand's warnings.
        """
        if not isinstance(edit, dict):
            raise InputError("an edit must be a JSON object")
        tiles_obj = edit.get("tiles", [])
        if not isinstance(tiles_obj, list):
            raise InputError("'tiles' must be a list")
        tiles: list[TileLabel] = []
        for number, tile in enumerate(tiles_obj):
            try:
                tiles.append(TileLabel.from_json(tile))
            except InputError as error:
                raise InputError(f"tile {number}: {error}") from None
        context = validate_context(edit.get("context") or {})
        reviewed = edit.get("reviewed", False)
        if not isinstance(reviewed, bool):
            raise InputError("'reviewed' must be true or false")
        width, height = self.image_size(index)
        previous = self.record(index)
        previous_hand = previous.hand if previous else None
        if previous_hand is not None and hand_signature(previous.tiles) == hand_signature(tiles):
            # The hand-relevant labels did not change: keep the saved hand (it may know more than
            # the photo shows, e.g. a face-down kong's face) and only take the new context.
            hand, warnings = {**previous_hand, "context": context}, []
        else:
            hand, warnings = hand_from_labels(tiles, context, previous_hand)
        record = ManifestRecord(
            image=previous.image if previous else self._record_image_name(self.key(index)),
            width=width,
            height=height,
            tiles=tiles,
            hand=hand,
            split=previous.split if previous else None,
            set_id=previous.set_id if previous else None,
            source=previous.source if previous else None,
            reviewed=reviewed,
            extra=dict(previous.extra) if previous else {},
        )
        return record, warnings

    def save(self, index: int, edit: dict[str, Any], base_revision: int | None) -> list[str]:
        """Replace image ``index``'s labels with ``edit`` and write the manifest; returns warnings.

        ``base_revision`` is the revision the page edited; a mismatch raises StaleEditError so a
        second tab cannot silently overwrite newer work.
        """
        record, warnings = self.build_record(index, edit)
        with self._lock:
            state = self._states[index]
            if base_revision is not None and base_revision != state.revision:
                raise StaleEditError(f"image {index} is at revision {state.revision}, "
                                     f"the edit was made on {base_revision}")
            previous = self._replace(state, record)
            state.undo.append(previous)
            del state.undo[:-UNDO_DEPTH]
            state.redo.clear()
        return warnings

    def undo(self, index: int) -> bool:
        """Restore image ``index``'s labels before its last change; False if there is none."""
        return self._step(index, forward=False)

    def redo(self, index: int) -> bool:
        return self._step(index, forward=True)

    def _step(self, index: int, forward: bool) -> bool:
        self.key(index)
        with self._lock:
            state = self._states[index]
            source, target = (state.redo, state.undo) if forward else (state.undo, state.redo)
            if not source:
                return False
            target.append(self._replace(state, source.pop()))
            return True

    def _replace(self, state: _ImageState, record: ManifestRecord | None) -> ManifestRecord | None:
        """Swap a record in and write the manifest; returns the old one (kept if the write fails)."""
        previous = state.record
        state.record = record
        self._place(state.key)
        try:
            self._write()
        except InputError:
            state.record = previous
            raise
        except OSError as error:
            state.record = previous
            raise InputError(f"cannot write {self.manifest_path}: {error.strerror or error}") from None
        state.revision += 1
        return previous

    def _place(self, key: str) -> None:
        """Give ``key`` a slot in the manifest order (new labels go at the end)."""
        if key not in self._placed:
            self._placed.add(key)
            self._order.append(key)

    def import_records(self, records: Iterable[tuple[int, ManifestRecord]]) -> int:
        """Put imported records (YOLO/COCO) in place as one undoable change each; returns the count."""
        count = 0
        with self._lock:
            self._check_disk()
            for index, record in records:
                state = self._states[index]
                record.image = state.record.image if state.record else self._record_image_name(state.key)
                state.undo.append(state.record)
                state.record = record
                self._place(state.key)
                state.revision += 1
                count += 1
            if count:
                self._write()
        return count

    def add_upload(self, name: str, data: bytes) -> int:
        """Store an uploaded photo in ``uploads/`` (atomically, never over another file); its index.

        The bytes must be a readable image of a known type and sane size; the name is reduced to
        a plain file name, so nothing can be written outside the folder.
        """
        suffix = Path(name).suffix.lower()
        if suffix not in IMAGE_SUFFIXES:
            raise InputError(f"not a photo name: {name!r} (expected {', '.join(sorted(IMAGE_SUFFIXES))})")
        check_photo(data, UPLOAD_LIMITS, repr(name))
        stem = _SAFE_NAME.sub("_", Path(name).stem).strip("._") or "photo"
        folder = self.root / UPLOAD_FOLDER
        with self._lock:
            folder.mkdir(exist_ok=True)
            target, n = folder / f"{stem}{suffix}", 1
            while target.exists():
                n += 1
                target = folder / f"{stem}-{n}{suffix}"
            atomic_write_bytes(target, data)
            key = target.relative_to(self.root).as_posix()
            # Appended, not sorted in: the page's numbers for the other photos stay valid.
            self.keys.append(key)
            self._index[key] = len(self.keys) - 1
            self._states.append(_ImageState(key))
            return len(self.keys) - 1

    def index_of(self, key: str) -> int | None:
        return self._index.get(key)
