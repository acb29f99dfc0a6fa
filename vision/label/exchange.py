"""Getting labels in and out of a labelling folder: classifier crops, YOLO and COCO.

The formats themselves are read and written by ``vision.dataset.yolo`` / ``vision.dataset.coco``
(one implementation for the whole team); this module only connects them to the workspace:
matching imported records to the folder's photos and writing crops into class folders.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import cv2

from scoring.errors import InputError
from vision.dataset.manifest import UNKNOWN_CODE
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


def _write_jpeg(path: Path, image) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise InputError(f"cannot encode {path.name}")
    fd, tmp = tempfile.mkstemp(prefix=".crop.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.tobytes())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
