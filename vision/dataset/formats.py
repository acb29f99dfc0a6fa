"""Open a dataset in any of the three formats (manifest, YOLO, COCO) as manifest records.

``load_dataset(path)`` accepts a manifest file, a COCO JSON, or a folder holding one of
``manifest.jsonl``, ``annotations.json`` or a YOLO layout (``images/`` + ``labels/`` + a YAML).
It returns the records and the *anchor*: the path their relative image paths are resolved against
(``vision.dataset.manifest.image_path(record, anchor)``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import InputError
from vision.dataset.coco import ANNOTATIONS_NAME, is_coco_file, read_coco, write_coco
from vision.dataset.manifest import ManifestRecord, image_path, iter_manifest, read_manifest, write_manifest
from vision.dataset.yolo import is_yolo_dir, read_yolo, write_yolo

FORMATS = ("manifest", "yolo", "coco")


def detect_format(path: Path) -> tuple[str, Path]:
    """(format, file or folder to read) for ``path``; InputError if it is none of the three."""
    if not path.exists():
        raise InputError(f"{path} does not exist")
    if path.is_file():
        if path.suffix.lower() == ".jsonl":
            return "manifest", path
        if is_coco_file(path):
            return "coco", path
        raise InputError(f"{path}: not a manifest (.jsonl) or a COCO JSON")
    if (path / "manifest.jsonl").is_file():
        return "manifest", path / "manifest.jsonl"
    if (path / ANNOTATIONS_NAME).is_file():
        return "coco", path / ANNOTATIONS_NAME
    if is_yolo_dir(path):
        return "yolo", path
    raise InputError(f"{path}: no manifest.jsonl, {ANNOTATIONS_NAME} or YOLO images/ + labels/ found")


def load_dataset(path: str | os.PathLike[str]) -> tuple[list[ManifestRecord], Path]:
    """The records of a dataset in any supported format, and the anchor for their image paths."""
    kind, target = detect_format(Path(path))
    if kind == "manifest":
        return read_manifest(target), target
    if kind == "coco":
        return read_coco(target), target
    return read_yolo(target), target / "manifest.jsonl"


def iter_dataset(path: str | os.PathLike[str]) -> tuple[Iterator[ManifestRecord], Path]:
    """Like :func:`load_dataset`, but a manifest is streamed line by line (for stats over huge sets)."""
    kind, target = detect_format(Path(path))
    if kind == "manifest":
        return iter_manifest(target), target
    records, anchor = load_dataset(path)
    return iter(records), anchor


def export_dataset(records: list[ManifestRecord], anchor: Path, out: str | os.PathLike[str], kind: str,
                   link: bool = False) -> Path:
    """Write ``records`` as ``kind`` into the folder ``out``; returns the main file written."""
    out = Path(out)
    if kind not in FORMATS:
        raise InputError(f"unknown format {kind!r} (expected one of {', '.join(FORMATS)})")
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder")
    if out.resolve() == anchor.parent.resolve():
        raise InputError("the export folder must differ from the dataset's own folder")
    if kind == "yolo":
        write_yolo(out, records, anchor, link)
        return out / "data.yaml"
    if kind == "coco":
        write_coco(out, records, anchor, link)
        return out / ANNOTATIONS_NAME
    from vision.dataset.files import place_image, unique_stem

    (out / "images").mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    copied = []
    for record in records:
        source = image_path(record, anchor)
        name = f"images/{unique_stem(Path(record.image), used)}{source.suffix.lower()}"
        place_image(source, out / name, link)
        copied.append(ManifestRecord(**{**record.__dict__, "image": name}))
    write_manifest(out / "manifest.jsonl", copied)
    return out / "manifest.jsonl"
