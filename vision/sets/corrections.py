"""Learning from what the player corrected: a read hand's ``--fix``'ed tiles, a reviewed labelled photo.

``taicam photo ... --set NAME --fix READ=TRUE --learn`` adds the tiles the fixes took, cut from the
photo as views, to set NAME (:func:`fixed_views`); ``taicam label DIR --add-to-set NAME`` adds the
face tiles of the folder's reviewed photos (:func:`reviewed_views`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vision.imageio import PhotoSource
from vision.label.workspace import LabelWorkspace
from vision.sets.learn import cut_views
from vision.sets.profile import View
from vision.tile_fixes import Fix
from vision.types import TileReading


def fixed_tiles(readings: Sequence[TileReading], fixes: Sequence[Fix]) -> list[int]:
    """The readings a fix took: read as its true code for certain (``vision.tile_fixes.forced``)."""
    true_codes = {true for _, true in fixes}
    return [index for index, reading in enumerate(readings)
            if len(reading.candidates) == 1 and reading.candidates[0][1] == 1.0
            and reading.candidates[0][0] in true_codes]


def fixed_views(photo: Path, readings: Sequence[TileReading], fixes: Sequence[Fix]) -> list[View]:
    """Views of the face tiles the fixes took (boxes in the photo's full-resolution pixels)."""
    chosen = [index for index in fixed_tiles(readings, fixes) if readings[index].code != "back"]
    if not chosen:
        return []
    return cut_views(PhotoSource(photo), [readings[i].detection for i in chosen],
                     [readings[i].code for i in chosen], photo.name)


def reviewed_views(workspace: LabelWorkspace, only: str | None = None) -> tuple[list[View], int]:
    """Views of the face tiles of every reviewed photo in ``workspace`` (or only the photo named
    ``only``, by its key or file name), and how many photos they came from."""
    from vision.dataset.manifest import detection_of

    views: list[View] = []
    photos = 0
    for index, record in workspace.records():
        path = workspace.image_file(index)
        if not record.reviewed or (only is not None and only not in (workspace.key(index), path.name)):
            continue
        tiles = [tile for tile in record.tiles if tile.code != "back" and not tile.face_down]
        if tiles:
            views += cut_views(PhotoSource(path), [detection_of(tile) for tile in tiles],
                               [tile.code for tile in tiles], path.name)
            photos += 1
    return views, photos
