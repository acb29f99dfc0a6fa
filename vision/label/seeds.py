"""Where an unlabelled image's first tiles come from: the model proposes, a person corrects.

In order of preference: the detector (each tile read by the classifier); else YOLO boxes lying
beside the image (``images/x.jpg`` with ``labels/x.txt``, the layout of the shared table photos),
whose codes the classifier proposes when one is there; else nothing. Nothing here is saved
until the person changes something or accepts the image.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from vision.dataset.manifest import UNKNOWN_CODE, TileLabel
from vision.label.proposals import ProposalCache
from vision.label.workspace import LabelWorkspace


def yolo_root(root: Path, key: str) -> Path | None:
    """The YOLO folder (holding ``images/`` and ``labels/``) an image key lies in, if any."""
    parts = Path(key).parts
    if "images" not in parts[:-1]:
        return None
    at = len(parts) - 1 - parts[::-1].index("images")
    folder = root.joinpath(*parts[:at])
    return folder if (folder / "labels").is_dir() else None


@functools.lru_cache(maxsize=8)
def _yolo_tiles(folder: Path) -> dict[str, list[TileLabel]]:
    """Every image's YOLO boxes in ``folder``, by path relative to it (read once per session)."""
    from vision.dataset.yolo import read_yolo

    return {Path(record.image).as_posix(): record.tiles for record in read_yolo(folder)}


def seed_tiles(
    workspace: LabelWorkspace, cache: ProposalCache, index: int
) -> tuple[list[dict[str, Any]], str]:
    """Proposed tiles (manifest tile objects + ``candidates``) for an unlabelled image, and their source."""
    key, path = workspace.key(index), workspace.image_file(index)
    detections = cache.detections(key, path)
    if detections is not None:
        return [dict(tile) for tile in detections], "detector"
    folder = yolo_root(workspace.root, key)
    if folder is None:
        return [], "none"
    relative = (workspace.root / key).relative_to(folder).as_posix()
    try:
        tiles = _yolo_tiles(folder).get(relative, [])
    except InputError as error:  # a foreign YOLO folder we cannot read: label from scratch
        return [], f"none (YOLO labels unreadable: {error})"
    if not tiles:
        return [], "none"
    readings = cache.readings(key, path, tiles)
    seeded = []
    for tile, reading in zip(tiles, readings, strict=True):
        obj = tile.to_json()
        if reading and obj["code"] == UNKNOWN_CODE:
            obj["code"] = reading[0][0]  # the classifier proposes what the YOLO file did not say
            if obj["code"] == "back":
                obj["face_down"] = True
        obj["candidates"] = reading or []
        seeded.append(obj)
    return seeded, "yolo"
