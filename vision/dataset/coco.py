"""COCO detection format: one ``annotations.json`` (images, annotations, categories) + ``images/``.

Categories are ``scoring.tiles.VISION_CODES`` (ids 1..43, name = code). Each annotation keeps the
tile's quad as its segmentation polygon and the team's extra keys (``rotated``, ``face_down``,
``group``, ``role``, and ``face``, ``visible``, ``angle``, ``standing``) under ``attributes``, and
each image keeps the hand JSON under ``taicam``, so a manifest -> COCO -> manifest round trip loses
nothing the models use.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.files import atomic_write_text, place_image, unique_stem
from vision.dataset.manifest import LABEL_CODES, UNKNOWN_CODE, ManifestRecord, TileLabel, image_path

ANNOTATIONS_NAME = "annotations.json"
_ATTRIBUTES = ("rotated", "face_down", "group", "role")
#: Extra tile keys carried in ``attributes`` too (the hidden face of a face-down tile, visibility...).
_EXTRA_ATTRIBUTES = ("face", "visible", "angle", "standing")


def is_coco_file(path: Path) -> bool:
    if not path.is_file() or path.suffix.lower() != ".json":
        return False
    try:
        head = path.read_text(encoding="utf-8")[:4096]
    except (OSError, UnicodeDecodeError):
        return False
    return '"annotations"' in head or '"images"' in head


def read_coco(path: str | os.PathLike[str]) -> list[ManifestRecord]:
    """Read a COCO JSON into manifest records (image paths relative to the JSON's folder)."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error.msg})") from None
    if not isinstance(document, dict) or not isinstance(document.get("images"), list):
        raise InputError(f"{path}: not a COCO file (no 'images' list)")
    categories = {c["id"]: str(c["name"]) for c in document.get("categories", []) if "id" in c}
    records: dict[Any, ManifestRecord] = {}
    for image in document["images"]:
        try:
            records[image["id"]] = ManifestRecord(
                image=str(image["file_name"]), width=int(image["width"]), height=int(image["height"]),
                source="coco", **_record_extras(image.get("taicam", {})))
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{path}: malformed image entry {str(image)[:80]}") from None
    for annotation in document.get("annotations", []):
        record = records.get(annotation.get("image_id"))
        if record is None:
            raise InputError(f"{path}: annotation {annotation.get('id')} refers to a missing image")
        record.tiles.append(_tile_from_annotation(annotation, categories, path))
    return list(records.values())


def _record_extras(extra: dict[str, Any]) -> dict[str, Any]:
    keys = ("hand", "split", "set_id", "reviewed")
    return {key: extra[key] for key in keys if key in extra}


def _tile_from_annotation(annotation: dict[str, Any], categories: dict[Any, str], path: Path) -> TileLabel:
    try:
        x, y, w, h = (float(v) for v in annotation["bbox"])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{path}: annotation {annotation.get('id')} has no valid bbox") from None
    name = categories.get(annotation.get("category_id"), "")
    code = name if name in LABEL_CODES else UNKNOWN_CODE
    attributes = annotation.get("attributes", {}) or {}
    quad = None
    segmentation = annotation.get("segmentation")
    if isinstance(segmentation, list) and segmentation and isinstance(segmentation[0], list) \
            and len(segmentation[0]) == 8:
        flat = [float(v) for v in segmentation[0]]
        quad = tuple((flat[i], flat[i + 1]) for i in range(0, 8, 2))
    return TileLabel(code=code, box=(x, y, x + w, y + h), quad=quad,  # type: ignore[arg-type]
                     rotated=bool(attributes.get("rotated", False)),
                     face_down=bool(attributes.get("face_down", code == "back")),
                     group=attributes.get("group"), role=attributes.get("role"),
                     extra={k: attributes[k] for k in _EXTRA_ATTRIBUTES if k in attributes},
                     source_label=None if code == name else name or None)


def write_coco(out: str | os.PathLike[str], records: list[ManifestRecord], source_manifest: Path,
               link: bool = False) -> None:
    """Export records to ``out/annotations.json`` + ``out/images/`` (copied, or symlinked with ``link``)."""
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    categories = [{"id": i + 1, "name": code, "supercategory": "tile"} for i, code in enumerate(VISION_CODES)]
    category_of = {code: i + 1 for i, code in enumerate(VISION_CODES)}
    images, annotations = [], []
    used: set[str] = set()
    for image_id, record in enumerate(records, start=1):
        source = image_path(record, source_manifest)
        name = f"images/{unique_stem(Path(record.image), used)}{source.suffix.lower()}"
        place_image(source, out / name, link)
        entry: dict[str, Any] = {"id": image_id, "file_name": name, "width": record.width,
                                 "height": record.height}
        extras = {k: v for k, v in (("hand", record.hand), ("split", record.split), ("set_id", record.set_id),
                                    ("reviewed", record.reviewed)) if v is not None}
        if extras:
            entry["taicam"] = extras
        images.append(entry)
        for tile in record.tiles:
            if tile.code not in category_of:
                continue
            x1, y1, x2, y2 = tile.box
            attributes = {k: getattr(tile, k) for k in _ATTRIBUTES
                          if getattr(tile, k) is not None and getattr(tile, k) is not False}  # keeps group 0
            attributes.update({k: tile.extra[k] for k in _EXTRA_ATTRIBUTES if k in tile.extra})
            annotation: dict[str, Any] = {
                "id": len(annotations) + 1, "image_id": image_id, "category_id": category_of[tile.code],
                "bbox": [round(x1, 2), round(y1, 2), round(x2 - x1, 2), round(y2 - y1, 2)],
                "area": round((x2 - x1) * (y2 - y1), 2), "iscrowd": 0,
                "attributes": attributes,
            }
            if tile.quad is not None:
                annotation["segmentation"] = [[round(v, 2) for point in tile.quad for v in point]]
            annotations.append(annotation)
    document = {"info": {"description": "taicam tiles", "version": "1"}, "images": images,
                "annotations": annotations, "categories": categories}
    atomic_write_text(out / ANNOTATIONS_NAME, json.dumps(document, ensure_ascii=False))
