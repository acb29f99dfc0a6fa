"""YOLO detection format: ``images/X.jpg`` + ``labels/X.txt`` (``class cx cy w h``, normalised) + a YAML.

The class list is ``scoring.tiles.VISION_CODES`` (42 faces + ``back``) in that order, written to
``data.yaml``. YOLO has no place for the sideways / face-down flags, groups or the hand, so an
export keeps only codes and boxes (face-down tiles are class ``back``); the manifest stays the
full record.

The reader also opens foreign YOLO folders (e.g. ``../shared/data/table-photos``): class names
that are not tile codes become ``unknown`` with the name kept as ``source_label``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.files import IMAGE_SUFFIXES, atomic_write_text, place_image, unique_stem
from vision.dataset.manifest import LABEL_CODES, UNKNOWN_CODE, ManifestRecord, TileLabel, image_path
from vision.imageio import read_header


def parse_names(text: str) -> list[str]:
    """Class names from a YOLO data YAML: ``names: [a, b]``, a ``- a`` block list, or a ``0: a`` mapping.

    A tiny parser for the one key we need, so reading a dataset does not pull in a YAML library.
    """
    lines = text.splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith("names:"):
            continue
        rest = stripped[len("names:"):].strip()
        if rest:
            try:
                value = ast.literal_eval(rest)
            except (ValueError, SyntaxError):
                raise InputError(f"cannot parse the YOLO class names: {rest[:60]!r}") from None
            if isinstance(value, dict):
                return [str(value[k]) for k in sorted(value)]
            return [str(v) for v in value]
        names: dict[int, str] = {}
        items: list[str] = []
        for item in lines[index + 1:]:
            if not item.startswith((" ", "\t", "-")) or not item.strip():
                if item.strip():
                    break
                continue
            entry = item.strip()
            if entry.startswith("-"):
                items.append(_unquote(entry[1:].strip()))
            elif ":" in entry:
                key, value = entry.split(":", 1)
                names[int(key.strip())] = _unquote(value.strip())
        return items or [names[k] for k in sorted(names)]
    raise InputError("no 'names:' in the YOLO data YAML")


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def find_yaml(folder: Path) -> Path | None:
    for name in ("data.yaml", "dataset.yaml"):
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    return candidates[0] if candidates else None


def is_yolo_dir(folder: Path) -> bool:
    return folder.is_dir() and (folder / "labels").is_dir() and (folder / "images").is_dir()


def read_yolo(folder: str | os.PathLike[str]) -> list[ManifestRecord]:
    """Read a YOLO folder into manifest records (image paths relative to ``folder``)."""
    folder = Path(folder)
    if not is_yolo_dir(folder):
        raise InputError(f"{folder} is not a YOLO folder (needs images/ and labels/)")
    yaml_path = find_yaml(folder)
    names = parse_names(yaml_path.read_text(encoding="utf-8")) if yaml_path else list(VISION_CODES)
    records = []
    for image in sorted(p for p in (folder / "images").rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES):
        relative = image.relative_to(folder / "images")
        label_file = (folder / "labels" / relative).with_suffix(".txt")
        header = read_header(image)
        width, height = header.stored_width, header.stored_height
        tiles = _read_label_file(label_file, names, width, height) if label_file.exists() else []
        records.append(ManifestRecord(image=str(Path("images") / relative), width=width, height=height,
                                      tiles=tiles, source="yolo"))
    return records


def _read_label_file(path: Path, names: list[str], width: int, height: int) -> list[TileLabel]:
    tiles = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        try:
            class_id = int(parts[0])
            cx, cy, w, h = (float(v) for v in parts[1:5])
        except (ValueError, IndexError):
            raise InputError(f"{path}:{number}: expected 'class cx cy w h', got {line.strip()!r}") from None
        if not 0 <= class_id < len(names):
            raise InputError(f"{path}:{number}: class {class_id} is not in the {len(names)} names")
        name = names[class_id]
        code = name if name in LABEL_CODES else UNKNOWN_CODE
        x1, y1 = max(0.0, (cx - w / 2) * width), max(0.0, (cy - h / 2) * height)
        x2, y2 = min(float(width), (cx + w / 2) * width), min(float(height), (cy + h / 2) * height)
        if x2 <= x1 or y2 <= y1:
            continue
        tiles.append(TileLabel(code=code, box=(x1, y1, x2, y2), face_down=code == "back",
                               source_label=None if code == name else name))
    return tiles


def write_yolo(out: str | os.PathLike[str], records: list[ManifestRecord], source_manifest: Path,
               link: bool = False) -> None:
    """Export records to a YOLO folder; images are copied (or symlinked with ``link``)."""
    out = Path(out)
    classes = {code: index for index, code in enumerate(VISION_CODES)}
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    for record in records:
        source = image_path(record, source_manifest)
        stem = unique_stem(Path(record.image), used)
        target = out / "images" / f"{stem}{source.suffix.lower()}"
        place_image(source, target, link)
        lines = []
        for tile in record.tiles:
            if tile.code not in classes:
                continue  # unknown tiles cannot be a YOLO class
            x1, y1, x2, y2 = tile.box
            lines.append(f"{classes[tile.code]} {(x1 + x2) / 2 / record.width:.6f} "
                         f"{(y1 + y2) / 2 / record.height:.6f} {(x2 - x1) / record.width:.6f} "
                         f"{(y2 - y1) / record.height:.6f}")
        atomic_write_text(out / "labels" / f"{stem}.txt", "\n".join(lines) + ("\n" if lines else ""))
    names = ", ".join(f'"{code}"' for code in VISION_CODES)
    yaml = (f"# taicam tile classes (scoring.tiles.VISION_CODES)\npath: .\ntrain: images\nval: images\n"
            f"nc: {len(VISION_CODES)}\nnames: [{names}]\n")
    atomic_write_text(out / "data.yaml", yaml)
