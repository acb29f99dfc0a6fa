"""``taicam sets``: learn a player's own tile set from photos, and keep the profiles.

``learn NAME PHOTO...`` (the documented order, ``--rows``, or ``--labels``), ``list``,
``show NAME``, ``remove NAME``, ``export NAME FILE``, ``import FILE``. Nothing is written unless
every photo given fits; a profile is replaced only once the new one is whole.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.sets.order import ORDER_TEXT, parse_rows

sets_app = typer.Typer(help="Learn your own tile set from one photo, and manage the learned sets.",
                       no_args_is_help=True)


def _annotate_path(target: Path, photo: Path, many: bool) -> Path:
    if many or target.is_dir():
        if not target.is_dir():
            raise InputError(f"--annotate {target}: with several photos, give an existing folder")
        return target / f"{photo.stem}.set.png"
    return target


@sets_app.command("learn")
def learn(
    name: Annotated[str, typer.Argument(help="The set's name (letters, digits, _ . -).")],
    photos: Annotated[list[Path], typer.Argument(
        help=f"Photo(s) of the set laid out in rows: {ORDER_TEXT}.")],
    rows: Annotated[list[str] | None, typer.Option(
        "--rows", help="The photo's layout instead: each row's codes left to right as the photo shows "
        "them (e.g. --rows 123456789m --rows 1234567z); one photo only.")] = None,
    labels: Annotated[Path | None, typer.Option(
        "--labels", help="A labelled manifest (as taicam label writes it) naming the photo's tiles; "
        "one photo only.")] = None,
    annotate: Annotated[Path | None, typer.Option(
        "--annotate", help="Draw the codes assigned on the photo here (a folder for several "
        "photos).")] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Start the set afresh instead of adding.")] = False,
) -> None:
    """Learn (or add to) a set from photos of its tiles: no training, a few seconds."""
    from vision.models.classifier import TileClassifier
    from vision.models.detector import TileDetector
    from vision.report.overlay import write_image
    from vision.sets.learn import (
        RefusedLayout,
        annotated,
        annotated_refusal,
        learn_labelled,
        learn_photo,
        table_lines,
    )
    from vision.sets.profile import check_name
    from vision.sets.reading import add_views

    check_name(name)
    if (rows or labels is not None) and len(photos) != 1:
        raise InputError("--rows and --labels describe one photo: give exactly one with them")
    if rows and labels is not None:
        raise InputError("give --rows or --labels, not both")
    for photo in photos:
        if not photo.is_file():
            raise InputError(f"photo not found: {photo}")
    layout = parse_rows(rows) if rows else None
    classifier = TileClassifier()
    detector = None if labels is not None else TileDetector()
    learned = []
    for photo in photos:
        if labels is not None:
            result = learn_labelled(photo, labels, classifier)
        else:
            try:
                result = learn_photo(photo, classifier, detector, layout)
            except RefusedLayout as refused:
                if annotate is not None:  # the tiles found and their rows show what did not fit
                    write_image(_annotate_path(annotate, photo, len(photos) > 1), annotated_refusal(refused))
                raise
        learned.append(result)
        print("\n".join(table_lines(result)))
        if annotate is not None:
            write_image(_annotate_path(annotate, photo, len(photos) > 1), annotated(result))
    views = [view for result in learned for view in result.views]
    profile = add_views(name, views, classifier, replace=replace)
    faces = profile.faces()
    print(f"set {name!r}: learned {len(views)} tiles; it now holds {len(profile.views)} views of "
          f"{len(faces)} faces")


@sets_app.command("list")
def list_sets() -> None:
    """The learned sets, with how many views and faces each holds."""
    from vision.sets.store import load_profile, profile_names, profile_path, sets_dir

    names = profile_names()
    if not names:
        print(f"no sets learned yet (they are kept in {sets_dir()})")
        return
    for name in names:
        profile = load_profile(profile_path(name))
        print(f"{name}: {len(profile.views)} views of {len(profile.faces())} faces")


@sets_app.command("show")
def show(name: Annotated[str, typer.Argument(help="The set's name.")]) -> None:
    """What a set holds: its faces and views, which faces it lacks, the model it was learned with."""
    from vision.models import models_dir
    from vision.models.classifier import DEFAULT_MODEL_NAME
    from vision.sets.profile import model_digest
    from vision.sets.store import load_profile, profile_path

    path = profile_path(name)
    profile = load_profile(path)
    faces = profile.faces()
    shipped = models_dir() / DEFAULT_MODEL_NAME
    current = shipped.is_file() and model_digest(shipped) == profile.model_sha256
    print(f"set {profile.name!r} ({path}, {path.stat().st_size / 1e6:.2f} MB)")
    print(f"  learned with classifier {profile.model_sha256[:12]}"
          + (" (the current one)" if current else " (not the current one: re-read on next use)"))
    print(f"  {len(profile.views)} views of {len(faces)} faces: "
          + " ".join(f"{code}x{count}" if count > 1 else code for code, count in faces.items()))
    lacking = [code for code in VISION_CODES if code != "back" and code not in faces]
    if lacking:
        print(f"  read with the shipped models alone: {' '.join(lacking)}")
    sources = sorted({view.source for view in profile.views})
    print(f"  learned from: {', '.join(sources)}")


@sets_app.command("remove")
def remove(name: Annotated[str, typer.Argument(help="The set's name.")]) -> None:
    """Forget a set."""
    from vision.sets.store import profile_path

    path = profile_path(name)
    if not path.is_file():
        raise InputError(f"no set named {name!r}")
    path.unlink()
    print(f"removed set {name!r}")


@sets_app.command("export")
def export(name: Annotated[str, typer.Argument(help="The set's name.")],
           file: Annotated[Path, typer.Argument(help="The file to write (e.g. NAME.taiset).")]) -> None:
    """Write a set to a file, to share it or move it to another computer."""
    from vision.dataset.files import atomic_write_bytes
    from vision.sets.store import load_profile, profile_bytes, profile_path

    profile = load_profile(profile_path(name))
    if file.is_dir():
        raise InputError(f"{file} is a folder; give a file name")
    atomic_write_bytes(file, profile_bytes(profile))
    print(f"wrote set {name!r} to {file}")


@sets_app.command("import")
def import_set(
    file: Annotated[Path, typer.Argument(help="A set file written by 'taicam sets export'.")],
    name: Annotated[str | None, typer.Option("--name", help="Keep it under this name instead.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a set of that name.")] = False,
) -> None:
    """Take a set from a file (checked whole before anything is written)."""
    from dataclasses import replace as with_fields

    from vision.sets.profile import check_name
    from vision.sets.store import load_profile, profile_path, save_profile

    profile = load_profile(file)
    if name is not None:
        profile = with_fields(profile, name=check_name(name))
    target = profile_path(profile.name)
    if target.exists() and not replace:
        raise InputError(f"a set named {profile.name!r} exists; give --replace or --name")
    save_profile(profile, target)
    print(f"imported set {profile.name!r} ({len(profile.views)} views)", file=sys.stdout)


def register(app: typer.Typer) -> None:
    """Add ``taicam sets`` to the root app."""
    app.add_typer(sets_app, name="sets")
