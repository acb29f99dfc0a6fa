"""Where an unlabelled image's first tiles come from: the model proposes, a person corrects.

In order of preference: the detector (each tile read by the classifier); else YOLO boxes lying
beside the image (``images/x.jpg`` with ``labels/x.txt``, the layout of the shared table photos),
whose codes the classifier proposes when one is there; else nothing. Nothing here is saved
until the person changes something or accepts the image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.dataset.manifest import UNKNOWN_CODE, TileLabel
from vision.label.proposals import ProposalCache
from vision.label.workspace import LabelWorkspace


def yolo_label_file(root: Path, key: str) -> Path | None:
    """``.../images/x.jpg`` -> ``.../labels/x.txt`` when that file exists (YOLO's own layout)."""
    parts = Path(key).parts
    if "images" not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index("images")
    candidate = root.joinpath(*parts[:at], "labels", *parts[at + 1:]).with_suffix(".txt")
    return candidate if candidate.is_file() else None


def seed_tiles(
    workspace: LabelWorkspace, cache: ProposalCache, index: int
) -> tuple[list[dict[str, Any]], str]:
    """Proposed tiles (manifest tile objects + ``candidates``) for an unlabelled image, and their source."""
    key, path = workspace.key(index), workspace.image_file(index)
    detections = cache.detections(key, path)
    if detections is not None:
        return [dict(tile) for tile in detections], "detector"
    label_file = yolo_label_file(workspace.root, key)
    if label_file is None:
        return [], "none"
    from vision.dataset.yolo import read_yolo_labels

    width, height = workspace.image_size(index)
    tiles: list[TileLabel] = read_yolo_labels(label_file, width, height)
    readings = cache.readings(key, path, tiles)
    seeded = []
    for tile, reading in zip(tiles, readings, strict=True):
        obj = tile.to_json()
        if reading:
            if obj["code"] == UNKNOWN_CODE:
                obj["code"] = reading[0][0]
            obj["face_down"] = obj["code"] == "back" or None
        obj = {k: v for k, v in obj.items() if v is not None}
        obj["candidates"] = reading or []
        seeded.append(obj)
    return seeded, "yolo"
