"""Where an unlabelled image's first tiles come from: the model proposes, a person corrects.

In order of preference: the detector (each tile read by the classifier, groups proposed by the
photo pipeline's layout); else YOLO boxes lying beside the image (``images/x.jpg`` with
``labels/x.txt``, the layout of the shared table photos), whose codes the classifier proposes
when one is there; else nothing. Nothing here is saved until the person changes something or
accepts the image.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from scoring.errors import InputError
from vision.dataset.manifest import UNKNOWN_CODE, TileLabel, detection_of
from vision.label.hand import meld_kind
from vision.label.proposals import ProposalCache
from vision.label.workspace import LabelWorkspace
from vision.types import GroupRole, TileReading


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
    """Every image's YOLO boxes in ``folder``, by path relative to it (read once per server run)."""
    from vision.dataset.yolo import read_yolo

    return {Path(record.image).as_posix(): record.tiles for record in read_yolo(folder)}


_ROLE_OF_GROUP = {GroupRole.CONCEALED: "concealed", GroupRole.MELD: "meld",
                  GroupRole.CONCEALED_KONG: "concealed_kong", GroupRole.FLOWERS: "flower"}


def split_touching_sets(indices: list[int], tiles: list[dict[str, Any]]) -> list[list[int]]:
    """Cut a run of touching exposed sets (the layout keeps 6-8 such tiles as one group) into legal
    sets of 3 or 4 along the run, reading the proposed codes; the run stays whole if no cut works.
    """
    if len(indices) <= 4:
        return [indices]
    boxes = {i: tiles[i]["box"] for i in indices}
    centres = {i: ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for i, b in boxes.items()}
    xs, ys = [c[0] for c in centres.values()], [c[1] for c in centres.values()]
    axis = 0 if max(xs) - min(xs) >= max(ys) - min(ys) else 1
    along = sorted(indices, key=lambda i: centres[i][axis])
    codes = [tiles[i]["code"] for i in along]

    def cut(start: int) -> list[list[int]] | None:
        if start == len(along):
            return []
        for size in (3, 4):
            if start + size <= len(along) and meld_kind(codes[start:start + size]):
                rest = cut(start + size)
                if rest is not None:
                    return [along[start:start + size], *rest]
        return None

    return cut(0) or [indices]


def propose_groups(tiles: list[dict[str, Any]]) -> bool:
    """Add the photo pipeline's layout (groups, roles, winning tile) to proposed tiles, in place.

    Used for the detector's proposals, where every tile of the scene was found and read; the
    person then corrects groups as they correct codes. Returns False (tiles untouched) when the
    tiles have no readings or the layout cannot place them (e.g. no hand in the photo).
    """
    from vision.layout import layout_tiles

    if not tiles or not all(tile.get("candidates") for tile in tiles):
        return False
    readings = [TileReading(detection_of(TileLabel.from_json({k: v for k, v in tile.items()
                                                               if k not in ("candidates", "score")})),
                            tuple((code, float(p)) for code, p in tile["candidates"]))
                for tile in tiles]
    try:
        layout = layout_tiles(readings)
    except InputError:
        return False
    group_id = 0
    for group in layout.groups:
        parts = (split_touching_sets(list(group.tile_indices), tiles) if group.role == GroupRole.MELD
                 else [list(group.tile_indices)])
        for part in parts:
            for index in part:
                tiles[index]["group"] = group_id
                tiles[index]["role"] = _ROLE_OF_GROUP[group.role]
            group_id += 1
    if layout.winning_index is not None:
        tiles[layout.winning_index]["role"] = "winning"
    for index in layout.ignored:
        tiles[index]["role"] = "distractor"
        tiles[index].pop("group", None)
    return True


def seed_tiles(
    workspace: LabelWorkspace, cache: ProposalCache, index: int
) -> tuple[list[dict[str, Any]], str]:
    """Proposed tiles (manifest tile objects + ``candidates``) for an unlabelled image, and their source."""
    key, path = workspace.key(index), workspace.image_file(index)
    detections = cache.detections(key, path)
    if detections is not None:
        tiles = [dict(tile) for tile in detections]
        propose_groups(tiles)
        return tiles, "detector"
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
