"""Write a folder of rendered scenes: ``images/NNNNNN.jpg`` and one ``manifest.jsonl``.

Scene ``i`` of a run with seed ``S`` is rendered from ``numpy.random.default_rng([S, i])``, so a
dataset is the same whatever the number of worker processes, and any single scene can be
re-rendered from its seed and index (both are stored in the record).
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring import hand_from_json
from scoring.errors import InputError
from vision.dataset.manifest import ManifestRecord
from vision.synth.scene import SceneConfig, render_scene

MANIFEST_NAME = "manifest.jsonl"
IMAGES_DIR = "images"
MAX_SCENES = 1_000_000
MAX_WORKERS = 64
Job = tuple[int, int, SceneConfig, str, dict[str, Any] | None]  # seed, index, config, out folder, hand


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of scene ``index`` in a run seeded ``seed``."""
    return np.random.default_rng([seed, index])


def _render_one(args: Job) -> ManifestRecord:
    seed, index, config, out, hand = args
    image, record = render_scene(scene_rng(seed, index), config, hand=hand)
    name = f"{IMAGES_DIR}/{index:06d}.jpg"
    quality = int(record.extra.get("jpeg_quality", 95))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for scene {index}")
    target = Path(out) / name
    temporary = target.with_suffix(".jpg.tmp")
    temporary.write_bytes(data.tobytes())
    os.replace(temporary, target)
    record.image = name
    record.extra.update({"seed": seed, "index": index})
    return record


def _init_worker() -> None:
    cv2.setNumThreads(1)


@dataclass
class WriteSummary:
    """What a run wrote."""

    scenes: int
    tiles: int
    manifest: Path


def write_scenes(out: Path, count: int, seed: int, config: SceneConfig | None = None, workers: int = 1,
                 force: bool = False, progress: Callable[[int, int], None] | None = None,
                 hands: list[dict[str, Any]] | None = None) -> WriteSummary:
    """Render ``count`` scenes into ``out`` (``images/`` + ``manifest.jsonl``).

    With ``hands`` (hand JSON objects), scene ``i`` lays out ``hands[i % len(hands)]`` instead of a
    random winning hand; every hand is checked before anything is rendered.

    Records are streamed to ``manifest.jsonl.partial`` as scenes finish (memory stays flat for
    50,000 scenes) and the file is renamed to ``manifest.jsonl`` when the run ends; an interrupted
    run still gets a manifest of the scenes it finished. Refuses to overwrite an existing manifest
    unless ``force`` (labels someone made are never lost).
    """
    if not 1 <= count <= MAX_SCENES:
        raise InputError(f"--count must be 1..{MAX_SCENES}, got {count}")
    if seed < 0:
        raise InputError(f"--seed must be >= 0, got {seed}")
    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be 1..{MAX_WORKERS}, got {workers}")
    for number, hand in enumerate(hands or [], start=1):
        try:
            hand_from_json(hand)
        except InputError as error:
            raise InputError(f"hand {number}: {error}") from None
    config = config or SceneConfig()
    if not (64 <= config.width <= 8192 and 64 <= config.height <= 8192):
        raise InputError(f"image size must be 64..8192 pixels a side, got {config.width}x{config.height}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder")
    manifest = out / MANIFEST_NAME
    if manifest.exists() and not force:
        raise InputError(f"{manifest} already exists (use --force to replace it)")
    try:
        (out / IMAGES_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {out}: {error.strerror or error}") from None
    # The JPEG is written once, at the scene's quality, instead of a round trip in memory.
    config = replace(config, jpeg_in_memory=False)
    jobs = [(seed, index, config, str(out), hands[index % len(hands)] if hands else None)
            for index in range(count)]
    partial = out / f"{MANIFEST_NAME}.partial"
    scenes = tiles = 0
    try:
        with partial.open("w", encoding="utf-8") as handle:
            for record in _run(jobs, workers):
                handle.write(json.dumps(record.to_json(), ensure_ascii=False, separators=(", ", ": ")) + "\n")
                handle.flush()
                scenes += 1
                tiles += len(record.tiles)
                if progress:
                    progress(scenes, count)
    finally:
        if scenes:
            os.chmod(partial, 0o644)
            os.replace(partial, manifest)
        else:
            partial.unlink(missing_ok=True)
    return WriteSummary(scenes, tiles, manifest)


def _run(jobs: list[Job], workers: int) -> Iterator[ManifestRecord]:
    if workers == 1:
        yield from map(_render_one, jobs)
        return
    # Spawned, not forked: a child forked from a parent that ran OpenCV's thread pool can deadlock.
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_init_worker) as pool:
        yield from pool.imap(_render_one, jobs, chunksize=4)
