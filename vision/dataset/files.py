"""Small file helpers shared by the dataset and labelling tools: unique names, copy-or-link, atomic writes."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from scoring.errors import InputError

#: Photo files the dataset readers and the labelling tool pick up (by lower-case suffix).
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".heic", ".heif"})
#: Of those, the ones a browser cannot show (an iPhone's HEIC): the labelling page gets a JPEG of them.
BROWSER_UNREADABLE_SUFFIXES = frozenset({".heic", ".heif"})


def unique_stem(image: Path, used: set[str]) -> str:
    """A flat file stem for ``image`` (its folders joined by ``_``), made unique within ``used``."""
    stem = "_".join(part for part in image.with_suffix("").parts if part not in ("..", ".", "images", "/"))
    stem = stem or "image"
    candidate, n = stem, 1
    while candidate in used:
        n += 1
        candidate = f"{stem}_{n}"
    used.add(candidate)
    return candidate


def place_image(source: Path, target: Path, link: bool) -> None:
    """Put ``source`` at ``target``: a symlink with ``link``, else a hard link, else a copy."""
    if not source.is_file():
        raise InputError(f"image not found: {source}")
    if target.exists() or target.is_symlink():
        target.unlink()
    if link:
        target.symlink_to(source.resolve())
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that it is never half-written: a temp file in the same folder
    (``.NAME.*.tmp``), flushed to disk, then renamed over ``path``. The old file stays intact until
    the new one is whole; an existing file keeps its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _file_mode(path))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _file_mode(path: Path) -> int:
    """The existing file's mode, else the usual 0o666 less the umask (mkstemp alone gives 0o600)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
