"""Small file helpers shared by the dataset exporters: unique image names, copy-or-link, atomic text."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scoring.errors import InputError


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


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
