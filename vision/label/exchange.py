"""Getting labels in and out of a labelling folder: classifier crops, YOLO and COCO.

The formats themselves are read and written by ``vision.dataset.yolo`` / ``vision.dataset.coco``
(one implementation for the whole team); this module only connects them to the workspace:
matching imported records to the folder's photos and writing crops into class folders.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.dataset.manifest import UNKNOWN_CODE, ManifestRecord
from vision.imageio import load_image
from vision.label.crops import cut_tile
from vision.label.workspace import LabelWorkspace


def export_crops(workspace: LabelWorkspace, out_dir: Path, reviewed_only: bool = False) -> Counter[str]:
    """Write every labelled tile as ``OUT/<code>/<photo>-<n>.jpg`` (the classifier's folder layout).

    Tiles still ``unknown`` are skipped. Files are written to a temp name and renamed, so a
    crop is either whole or absent. Returns the number of crops per code.
    """
    counts: Counter[str] = Counter()
    for index, record in workspace.records():
        if reviewed_only and not record.reviewed:
            continue
        tiles = [(n, tile) for n, tile in enumerate(record.tiles) if tile.code != UNKNOWN_CODE]
        if not tiles:
            continue
        image = load_image(workspace.image_file(index))
        stem = Path(workspace.key(index)).with_suffix("").as_posix().replace("/", "__")
        for number, tile in tiles:
            try:
                crop = cut_tile(image, tile)
            except InputError:
                continue  # a box outside the photo: nothing to cut
            target = out_dir / tile.code / f"{stem}-{number:03d}.jpg"
            _write_jpeg(target, crop)
            counts[tile.code] += 1
    return counts


def labelled_records(workspace: LabelWorkspace, reviewed_only: bool = False) -> list[ManifestRecord]:
    return [record for _, record in workspace.records() if record.reviewed or not reviewed_only]


def export_yolo(workspace: LabelWorkspace, out_dir: Path, reviewed_only: bool = False) -> int:
    """The folder's labels as a YOLO dataset (``vision.dataset.yolo``); returns the image count."""
    from vision.dataset.yolo import write_yolo

    records = labelled_records(workspace, reviewed_only)
    write_yolo(out_dir, records, workspace.manifest_path)
    return len(records)


def export_coco(workspace: LabelWorkspace, out_dir: Path, reviewed_only: bool = False) -> int:
    """The labels as COCO (``vision.dataset.coco``, flags and hands kept); returns the image count."""
    from vision.dataset.coco import write_coco

    records = labelled_records(workspace, reviewed_only)
    write_coco(out_dir, records, workspace.manifest_path)
    return len(records)


def read_foreign(source: Path) -> tuple[list[ManifestRecord], Path]:
    """Records from a YOLO folder or a COCO JSON, and the folder their image paths are relative to."""
    from vision.dataset.coco import is_coco_file, read_coco
    from vision.dataset.yolo import is_yolo_dir, read_yolo

    if is_yolo_dir(source):
        return read_yolo(source), source
    if is_coco_file(source):
        return read_coco(source), source.parent
    raise InputError(f"{source} is neither a YOLO folder (images/ + labels/) nor a COCO JSON file")


def import_labels(workspace: LabelWorkspace, source: Path, replace: bool = False) -> tuple[int, int, int]:
    """Put YOLO/COCO labels on the folder's photos; returns (imported, kept existing, unmatched).

    Photos are matched by path, else by file name when that is unique in the folder. Photos that
    already have labels keep them unless ``replace`` (labels a person made are not overwritten
    by accident).
    """
    records, base = read_foreign(Path(source))
    by_name: dict[str, list[int]] = {}
    for index, key in enumerate(workspace.keys):
        by_name.setdefault(Path(key).name, []).append(index)
    chosen: list[tuple[int, ManifestRecord]] = []
    kept = unmatched = 0
    for record in records:
        index = _match(workspace, base / record.image, by_name)
        if index is None:
            unmatched += 1
        elif workspace.record(index) is not None and not replace:
            kept += 1
        else:
            width, height = workspace.image_size(index)
            if (record.width, record.height) != (width, height):
                _rescale(record, width, height)
            chosen.append((index, record))
    return workspace.import_records(chosen), kept, unmatched


def _match(workspace: LabelWorkspace, image: Path, by_name: dict[str, list[int]]) -> int | None:
    try:
        key = image.resolve().relative_to(workspace.root).as_posix()
    except ValueError:
        key = None
    index = workspace.index_of(key) if key else None
    if index is None and len(by_name.get(image.name, [])) == 1:
        index = by_name[image.name][0]
    return index


def _rescale(record: ManifestRecord, width: int, height: int) -> None:
    """Labels made on a resized copy of the photo: scale boxes and quads to this one."""
    sx, sy = width / record.width, height / record.height
    for tile in record.tiles:
        x1, y1, x2, y2 = tile.box
        tile.box = (x1 * sx, y1 * sy, x2 * sx, y2 * sy)
        if tile.quad:
            tile.quad = tuple((x * sx, y * sy) for x, y in tile.quad)
    record.width, record.height = width, height


def _write_jpeg(path: Path, image: np.ndarray) -> None:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise InputError(f"cannot encode {path.name}")
    atomic_write_bytes(path, data.tobytes())
