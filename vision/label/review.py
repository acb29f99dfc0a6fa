"""The review view's numbers: per-class counts, unreviewed images, model/label disagreements.

Disagreements are how label mistakes get caught: the classifier reads every labelled box and
each box whose saved code is not the model's top-1 is listed, most confident model first (a
confident model that disagrees is the likeliest label error). With a detector, boxes the model
finds that no label covers (a missed tile) and labels no detection covers are listed too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scoring.tiles import VISION_CODES
from vision.dataset.manifest import UNKNOWN_CODE, ManifestRecord, TileLabel
from vision.geometry import box_iou as iou
from vision.label.proposals import ProposalCache
from vision.label.workspace import LabelWorkspace

#: A detection and a label are the same tile above this overlap.
MATCH_IOU = 0.5


def reading_positions(tiles: list[TileLabel]) -> list[int]:
    """1-based place of each tile counted left to right, as the page's tab order and strip count."""
    order = sorted(range(len(tiles)), key=lambda i: ((tiles[i].box[0] + tiles[i].box[2]) / 2,
                                                     (tiles[i].box[1] + tiles[i].box[3]) / 2))
    positions = [0] * len(tiles)
    for place, i in enumerate(order, start=1):
        positions[i] = place
    return positions


def class_counts(records: list[ManifestRecord]) -> dict[str, int]:
    """Labelled tiles per code, every code listed (zeros show what the dataset still lacks)."""
    counts = Counter(tile.code for record in records for tile in record.tiles)
    order = (*VISION_CODES, UNKNOWN_CODE)
    return {code: counts.get(code, 0) for code in order}


def unreviewed(workspace: LabelWorkspace) -> list[dict[str, Any]]:
    """Images whose labels nobody has marked reviewed (no labels at all counts as unreviewed)."""
    rows = []
    for index, key in enumerate(workspace.keys):
        record = workspace.record(index)
        if record is None or not record.reviewed:
            rows.append({"index": index, "image": key,
                         "tiles": len(record.tiles) if record is not None else None})
    return rows


def disagreements(workspace: LabelWorkspace, cache: ProposalCache) -> list[dict[str, Any]]:
    """Every labelled tile the model reads differently, plus (with a detector) unmatched boxes."""
    rows: list[dict[str, Any]] = []
    for index, record in workspace.records():
        key = workspace.key(index)
        path = workspace.image_file(index)
        readings = cache.readings(key, path, record.tiles)
        position = reading_positions(record.tiles)
        for number, (tile, reading) in enumerate(zip(record.tiles, readings, strict=True)):
            if not reading or tile.code == UNKNOWN_CODE:
                continue
            model_code, probability = reading[0]
            if model_code != tile.code:
                rows.append({"index": index, "image": key, "tile": number, "position": position[number],
                             "kind": "code", "label": tile.code, "model": model_code,
                             "confidence": probability})
        detections = cache.detections(key, path)
        if detections is not None:
            rows.extend(_unmatched(index, key, record.tiles, detections))
    rows.sort(key=lambda row: -row.get("confidence", 0.0))
    return rows


def _unmatched(index: int, key: str, tiles: list[TileLabel], detections: list[dict[str, Any]]) -> list[dict]:
    rows = []
    for detection in detections:
        if not any(iou(detection["box"], tile.box) >= MATCH_IOU for tile in tiles):
            rows.append({"index": index, "image": key, "tile": None, "kind": "missed",
                         "label": None, "model": detection["code"], "box": detection["box"],
                         "confidence": detection.get("score", 0.0)})
    position = reading_positions(tiles)
    for number, tile in enumerate(tiles):
        if not any(iou(detection["box"], tile.box) >= MATCH_IOU for detection in detections):
            rows.append({"index": index, "image": key, "tile": number, "position": position[number],
                         "kind": "no detection",
                         "label": tile.code, "model": None, "confidence": 0.0})
    return rows


def crops_of_code(workspace: LabelWorkspace, code: str) -> list[dict[str, Any]]:
    """Where every tile labelled ``code`` is: the contact sheet's entries."""
    return [{"index": index, "tile": number, "image": workspace.key(index)}
            for index, record in workspace.records()
            for number, tile in enumerate(record.tiles) if tile.code == code]
