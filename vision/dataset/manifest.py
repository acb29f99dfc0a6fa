"""The manifest: one JSON line per image listing every labelled tile (see ../shared/data/README.md).

``{"image": "images/12.jpg", "width": W, "height": H, "tiles": [{"code": "5p", "box": [x1,y1,x2,y2]}]}``

Every dataset in taicam (real crops, table photos, synthetic scenes, the labelling tool's output)
is read and written through this module, so all tools agree on one format. Keys the team uses
beyond the shared README are typed fields here; any other key is kept verbatim in ``extra`` and
written back unchanged, so a round trip never loses what a person or another tool wrote.

Writes are atomic (temp file in the same folder, then ``os.replace``): labels are never
half-written, even if the process dies mid-write.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.files import atomic_write_text
from vision.types import Detection

#: Code for a box whose tile has not been identified yet (e.g. table photos with garbled classes).
UNKNOWN_CODE = "unknown"
#: Every code a label may carry.
LABEL_CODES: frozenset[str] = frozenset(VISION_CODES) | {UNKNOWN_CODE}

#: Where a tile sits in the laid-out hand (``role`` of a tile label).
ROLES: tuple[str, ...] = ("concealed", "meld", "concealed_kong", "flower", "winning", "distractor")
#: Dataset splits.
SPLITS: tuple[str, ...] = ("train", "val", "test")

_TILE_KEYS = ("code", "box", "quad", "rotated", "face_down", "group", "role", "source_label")
_RECORD_KEYS = ("image", "width", "height", "tiles", "hand", "split", "set_id", "source", "reviewed")

Box = tuple[float, float, float, float]
Quad = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


@dataclass
class TileLabel:
    """One tile in an image.

    ``box`` is axis-aligned in pixels ``(x1, y1, x2, y2)``. ``quad`` is the tile's outline as four
    corners, corner 0 the top-left of the face *as the tile is read* (so a sideways tile's quad
    starts at a different image corner than an upright one). ``group`` is an id shared by tiles of
    one hand group (a meld, a concealed kong, the concealed row, the flowers).
    """

    code: str
    box: Box
    quad: Quad | None = None
    rotated: bool = False
    face_down: bool = False
    group: int | None = None
    role: str | None = None
    source_label: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"code": self.code, "box": [_round(v) for v in self.box]}
        if self.quad is not None:
            obj["quad"] = [[_round(x), _round(y)] for x, y in self.quad]
        if self.rotated:
            obj["rotated"] = True
        if self.face_down:
            obj["face_down"] = True
        if self.group is not None:
            obj["group"] = self.group
        if self.role is not None:
            obj["role"] = self.role
        if self.source_label is not None:
            obj["source_label"] = self.source_label
        for key, value in self.extra.items():
            obj.setdefault(key, value)
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> TileLabel:
        """Parse one tile object; raises InputError (with the reason) on anything malformed."""
        if not isinstance(obj, dict):
            raise InputError("a tile must be a JSON object")
        code = obj.get("code")
        if code not in LABEL_CODES:
            raise InputError(f"unknown tile code {code!r}")
        box = _parse_box(obj.get("box"))
        quad = _parse_quad(obj["quad"]) if obj.get("quad") is not None else None
        role = obj.get("role")
        if role is not None and role not in ROLES:
            raise InputError(f"unknown tile role {role!r} (expected one of {', '.join(ROLES)})")
        group = obj.get("group")
        if group is not None and (not isinstance(group, int) or isinstance(group, bool)):
            raise InputError(f"tile group must be an integer, got {group!r}")
        source_label = obj.get("source_label")
        return cls(
            code=code,
            box=box,
            quad=quad,
            rotated=_parse_bool(obj.get("rotated", False), "rotated"),
            face_down=_parse_bool(obj.get("face_down", False), "face_down"),
            group=group,
            role=role,
            source_label=None if source_label is None else str(source_label),
            extra={k: v for k, v in obj.items() if k not in _TILE_KEYS},
        )


@dataclass
class ManifestRecord:
    """One image and its tiles. ``image`` is relative to the manifest's folder (or absolute)."""

    image: str
    width: int
    height: int
    tiles: list[TileLabel] = field(default_factory=list)
    hand: dict[str, Any] | None = None
    split: str | None = None
    set_id: str | None = None
    source: str | None = None
    reviewed: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "image": self.image,
            "width": self.width,
            "height": self.height,
            "tiles": [tile.to_json() for tile in self.tiles],
        }
        for key in ("hand", "split", "set_id", "source", "reviewed"):
            value = getattr(self, key)
            if value is not None:
                obj[key] = value
        for key, value in self.extra.items():
            obj.setdefault(key, value)
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> ManifestRecord:
        if not isinstance(obj, dict):
            raise InputError("a manifest line must be a JSON object")
        image = obj.get("image")
        if not isinstance(image, str) or not image:
            raise InputError("missing or empty 'image'")
        width, height = obj.get("width"), obj.get("height")
        for name, value in (("width", width), ("height", height)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise InputError(f"'{name}' must be a positive integer, got {value!r}")
        tiles_obj = obj.get("tiles", [])
        if not isinstance(tiles_obj, list):
            raise InputError("'tiles' must be a list")
        tiles = []
        for index, tile in enumerate(tiles_obj):
            try:
                tiles.append(TileLabel.from_json(tile))
            except InputError as error:
                raise InputError(f"tile {index}: {error}") from None
        hand = obj.get("hand")
        if hand is not None and not isinstance(hand, dict):
            raise InputError("'hand' must be a JSON object")
        split = obj.get("split")
        if split is not None and split not in SPLITS:
            raise InputError(f"unknown split {split!r} (expected one of {', '.join(SPLITS)})")
        reviewed = obj.get("reviewed")
        if reviewed is not None:
            reviewed = _parse_bool(reviewed, "reviewed")
        set_id, source = obj.get("set_id"), obj.get("source")
        return cls(
            image=image,
            width=width,
            height=height,
            tiles=tiles,
            hand=hand,
            split=split,
            set_id=None if set_id is None else str(set_id),
            source=None if source is None else str(source),
            reviewed=reviewed,
            extra={k: v for k, v in obj.items() if k not in _RECORD_KEYS},
        )


def iter_manifest(path: str | os.PathLike[str]) -> Iterator[ManifestRecord]:
    """Yield records one by one (large manifests need not fit in memory). Blank lines are skipped."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read manifest {path}: {error.strerror or error}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            try:
                yield ManifestRecord.from_json(obj)
            except InputError as error:
                raise InputError(f"{path}:{number}: {error}") from None


def read_manifest(path: str | os.PathLike[str]) -> list[ManifestRecord]:
    """Read a whole manifest; a malformed line raises InputError naming the file and line."""
    return list(iter_manifest(path))


def write_manifest(path: str | os.PathLike[str], records: Iterable[ManifestRecord]) -> None:
    """Write ``records`` as JSON lines, atomically: the old file stays intact until the new one is whole."""
    lines = [json.dumps(record.to_json(), ensure_ascii=False, separators=(", ", ": ")) + "\n"
             for record in records]
    atomic_write_text(Path(path), "".join(lines))


def image_path(record: ManifestRecord, manifest_path: str | os.PathLike[str]) -> Path:
    """The image file of ``record``: relative paths are relative to the manifest's folder."""
    image = Path(record.image)
    return image if image.is_absolute() else Path(manifest_path).parent / image


def quad_to_box(quad: Iterable[Iterable[float]]) -> Box:
    """Axis-aligned box that encloses a quad."""
    points = [tuple(point) for point in quad]
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def record_problems(record: ManifestRecord) -> list[str]:
    """What is wrong with a record's labels (box outside the image, flag mismatch), for checks."""
    problems: list[str] = []
    for index, tile in enumerate(record.tiles):
        x1, y1, x2, y2 = tile.box
        if not (0 <= x1 < x2 <= record.width and 0 <= y1 < y2 <= record.height):
            problems.append(f"tile {index} ({tile.code}): box {tile.box} not inside "
                            f"{record.width}x{record.height}")
        if tile.face_down != (tile.code == "back"):
            problems.append(f"tile {index}: face_down={tile.face_down} but code {tile.code}")
    return problems


def _parse_box(value: Any) -> Box:
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise InputError(f"box must be [x1, y1, x2, y2], got {value!r}")
    numbers = tuple(_parse_number(v, "box") for v in value)
    x1, y1, x2, y2 = numbers
    if x2 <= x1 or y2 <= y1:
        raise InputError(f"box {list(value)} is empty (need x1 < x2 and y1 < y2)")
    return (x1, y1, x2, y2)


def _parse_quad(value: Any) -> Quad:
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise InputError(f"quad must be four [x, y] corners, got {value!r}")
    corners = []
    for corner in value:
        if not isinstance(corner, list | tuple) or len(corner) != 2:
            raise InputError(f"quad corner must be [x, y], got {corner!r}")
        corners.append((_parse_number(corner[0], "quad"), _parse_number(corner[1], "quad")))
    return tuple(corners)  # type: ignore[return-value]


def _parse_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"{what} coordinates must be finite numbers, got {value!r}")
    return float(value)


def _parse_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"'{what}' must be true or false, got {value!r}")
    return value


def _round(value: float) -> float | int:
    """Short, stable numbers in the file: integers stay integers, others keep 2 decimals."""
    rounded = round(float(value), 2)
    return int(rounded) if rounded.is_integer() else rounded


def detection_of(tile: TileLabel) -> Detection:
    """The classifier's view of a labelled tile (its box, outline and flags)."""
    return Detection(box=tuple(tile.box), score=1.0, rotated=tile.rotated, face_down=tile.face_down,
                     quad=tuple(tuple(corner) for corner in tile.quad) if tile.quad else None)
