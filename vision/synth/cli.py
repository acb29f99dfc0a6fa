"""``taicam synth OUT`` (render scenes) and ``taicam data stats|preview|export DIR`` (dataset toolkit)."""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from scoring.errors import InputError

DATASET_HELP = "Dataset folder or file (manifest.jsonl, COCO JSON, YOLO)."
data_app = typer.Typer(help="Inspect and convert datasets (manifest, YOLO or COCO).", no_args_is_help=True)


def read_hands(path: Path) -> list[dict]:
    """Hand JSON objects from a file: one object, a JSON array, or JSON lines (read as ``taicam score
    --hand`` reads them); unlike scoring, a bad line stops the run: a scene needs a hand to draw."""
    from scoring.cli import read_hand_documents

    hands, _ = read_hand_documents(str(path))
    for hand in hands:
        if isinstance(hand, InputError):
            raise InputError(f"hand file {path}: {hand}")
    if not hands:
        raise InputError(f"no hands in {path}")
    if not all(isinstance(hand, dict) for hand in hands):
        raise InputError(f"{path}: every hand must be a JSON object")
    return hands


def _synth(out: Path, count: int | None, seed: int, width: int, height: int, split: str, workers: int,
           force: bool, no_distractors: bool, quiet: bool, hand_file: Path | None) -> None:
    from vision.synth.scene import SceneConfig
    from vision.synth.writer import write_scenes

    if split not in ("train", "val"):
        raise InputError(f"--split must be train or val, got {split!r}")
    config = SceneConfig.like_real_photos(width=width, height=height, split=split,
                                          distractors=not no_distractors)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if not quiet and (done == total or done % 50 == 0):
            rate = done / max(time.perf_counter() - started, 1e-9)
            print(f"\r{done}/{total} scenes ({rate:.1f}/s)", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)

    hands = read_hands(hand_file) if hand_file else None
    count = count if count is not None else (len(hands) if hands else 100)
    summary = write_scenes(out, count, seed, config, workers=workers, force=force, progress=progress,
                           hands=hands)
    print(f"wrote {summary.scenes} scenes, {summary.tiles} labelled tiles, to {summary.manifest}")


@data_app.command("stats")
def stats_command(
    dataset: Annotated[Path, typer.Argument(help=DATASET_HELP)],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    look: Annotated[int, typer.Option(
        help="Also measure brightness, colourfulness and sharpness on this many images.")] = 0,
) -> None:
    """Class, role, layout and hand counts of a dataset, and label problems."""
    from vision.dataset.formats import iter_dataset, load_dataset
    from vision.dataset.stats import dataset_stats, format_stats, image_look

    records, anchor = iter_dataset(dataset)
    stats = dataset_stats(records)
    if look > 0:
        stats.image_look = image_look(load_dataset(dataset)[0], anchor, look)
    print(json.dumps(stats.to_json(), ensure_ascii=False) if as_json else format_stats(stats))


@data_app.command("preview")
def preview_command(
    dataset: Annotated[Path, typer.Argument(help=DATASET_HELP)],
    out: Annotated[Path | None, typer.Option(help="PNG to write (default DATASET/preview.png).")] = None,
    count: Annotated[int, typer.Option(help="How many images.")] = 12,
    columns: Annotated[int, typer.Option(help="Images per row.")] = 4,
    cell: Annotated[int, typer.Option(help="Width of each image on the sheet, pixels.")] = 480,
    seed: Annotated[int | None, typer.Option(help="Pick images at random with this seed.")] = None,
    hide_distractors: Annotated[bool, typer.Option(help="Draw only the hand's tiles.")] = False,
) -> None:
    """A contact sheet PNG of the dataset's images with boxes and codes drawn."""
    from vision.dataset.formats import iter_dataset, load_dataset
    from vision.dataset.preview import contact_sheet, write_png

    if count < 1:
        raise InputError(f"--count must be at least 1, got {count}")
    if seed is not None:
        records, anchor = load_dataset(dataset)
        order = np.random.default_rng(seed).permutation(len(records))[:count]
        chosen = [records[i] for i in sorted(order)]
    else:  # the first images: no need to read a huge manifest to the end
        stream, anchor = iter_dataset(dataset)
        chosen = list(itertools.islice(stream, count))
    sheet = contact_sheet(chosen, anchor, columns=columns, cell_width=cell,
                          show_distractors=not hide_distractors)
    target = out or (dataset if dataset.is_dir() else dataset.parent) / "preview.png"
    print(f"wrote {write_png(target, sheet)} ({len(chosen)} images)")


@data_app.command("export")
def export_command(
    dataset: Annotated[Path, typer.Argument(help=DATASET_HELP)],
    out: Annotated[Path, typer.Argument(help="Folder to write.")],
    to: Annotated[str, typer.Option("--to", help="Format: manifest, yolo or coco.")] = "yolo",
    link: Annotated[bool, typer.Option("--link", help="Symlink images instead of copying them.")] = False,
) -> None:
    """Convert a dataset to another format (images are hard-linked or copied)."""
    from vision.dataset.formats import export_dataset, load_dataset

    records, anchor = load_dataset(dataset)
    written = export_dataset(records, anchor, out, to, link=link)
    print(f"wrote {len(records)} images as {to}: {written}")


def register(app: typer.Typer) -> None:
    @app.command("synth")
    def synth(
        out: Annotated[Path, typer.Argument(help="Folder to write images/ and manifest.jsonl into.")],
        count: Annotated[int | None, typer.Option(
            help="Number of scenes (default 100, or one per hand with --hand).")] = None,
        seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same scenes.")] = 0,
        width: Annotated[int, typer.Option(help="Image width in pixels.")] = 1280,
        height: Annotated[int, typer.Option(help="Image height in pixels.")] = 960,
        split: Annotated[str, typer.Option(
            help="Real tile sets to render: train, or val (the held-out sets only).")] = "train",
        workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
        force: Annotated[bool, typer.Option("--force", help="Replace an existing manifest in OUT.")] = False,
        no_distractors: Annotated[bool, typer.Option(
            "--no-distractors", help="Only the hand: no discards, walls, phones or hands.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
        hand: Annotated[Path | None, typer.Option(
            "--hand", help="Lay out these hands in turn (an object, an array or JSON lines).")] = None,
    ) -> None:
        """Render synthetic table scenes of random legal winning hands (or given ones), with full labels."""
        _synth(out, count, seed, width, height, split, workers, force, no_distractors, quiet, hand)

    app.add_typer(data_app, name="data")
