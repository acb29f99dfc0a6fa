"""``--set NAME`` (and ``--learn``) for ``taicam photo``, ``live`` and ``label``: the classifier and
pipeline that read with a learned set, and the step that learns a photo's fixed tiles."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from scoring.errors import InputError
from vision.models.classifier import TileClassifier
from vision.pipeline import PhotoPipeline, PhotoResult
from vision.sets.corrections import fixed_views
from vision.sets.reading import add_views, relearned_note, set_classifier
from vision.tile_fixes import Fix

#: Called with each photo read and its result.
AfterPhoto = Callable[[Path, PhotoResult], None]


def reading_classifier(name: str, classifier: TileClassifier | None = None) -> TileClassifier:
    """The shipped classifier reading with set ``name``; says on stderr when the set was re-read
    for a changed classifier."""
    reader, current = set_classifier(name, classifier)
    if current.relearned:
        print(f"taicam: {relearned_note(current)}", file=sys.stderr)
    return reader


def photo_reading(name: str | None, learn: bool, fixes: Sequence[Fix]
                  ) -> tuple[PhotoPipeline | None, AfterPhoto | None]:
    """The pipeline for ``taicam photo --set name`` (None without a set) and, with ``learn``, what
    adds each read photo's fixed tiles to the set."""
    if learn and (name is None or not fixes):
        raise InputError("--learn adds the tiles fixed with --fix to the set named by --set: give both")
    if name is None:
        return None, None
    classifier = reading_classifier(name)
    pipeline = PhotoPipeline(classifier=classifier)
    if not learn:
        return pipeline, None

    def after(photo: Path, result: PhotoResult) -> None:
        views = fixed_views(photo, result.readings, fixes)
        if not views:
            print(f"taicam: {photo.name}: no fixed tile to learn (no --fix was taken)", file=sys.stderr)
            return
        profile = add_views(name, views, classifier)
        print(f"taicam: set {name!r} learned {len(views)} fixed tile(s) from {photo.name} "
              f"({len(profile.views)} views now)", file=sys.stderr)

    return pipeline, after


def add_reviewed(folder: Path, manifest: Path | None, name: str) -> str:
    """``taicam label DIR --add-to-set NAME``: the face tiles of the reviewed photos added to set
    ``name``; the line that says so."""
    from vision.label.workspace import LabelWorkspace
    from vision.sets.corrections import reviewed_views
    from vision.sets.profile import check_name

    check_name(name)
    views, photos = reviewed_views(LabelWorkspace(folder, manifest))
    if not views:
        raise InputError(f"no reviewed photo with labelled face tiles in {folder} to add to set {name!r}")
    profile = add_views(name, views, TileClassifier())
    return (f"taicam label: set {name!r} learned {len(views)} tiles from {photos} reviewed photo(s) "
            f"({len(profile.views)} views of {len(profile.faces())} faces now)")
