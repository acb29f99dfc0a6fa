"""``python scripts/benchmark.py synth``: how fast scenes render (target: 10 scenes/s at 1280x960 on 2 cores).

Measures, after a warm-up that loads the face textures:
- one process: wall time and CPU time per scene of ``render_scene`` (in memory, JPEG round trip);
- ``--workers N`` processes writing a dataset to a temporary folder (``taicam synth``'s path,
  JPEG files included), wall-clock scenes per second.
CPU time per scene is the figure to compare across runs on a busy machine: wall time depends on
what else shares the two cores.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.synth.scene import SceneConfig, render_scene
from vision.synth.writer import write_scenes

TARGET_SCENES_PER_SECOND = 10.0


def measure_single(count: int, config: SceneConfig, seed: int) -> dict[str, float]:
    render_scene(np.random.default_rng([seed, 10_000]), config)  # warm-up: textures, caches
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    tiles = 0
    for index in range(count):
        _, record = render_scene(np.random.default_rng([seed, index]), config)
        tiles += len(record.tiles)
    wall = time.perf_counter() - wall_start
    cpu = time.process_time() - cpu_start
    return {"scenes": count, "wall_ms_per_scene": 1000 * wall / count, "cpu_ms_per_scene": 1000 * cpu / count,
            "scenes_per_s": count / wall, "tiles_per_scene": tiles / count}


def measure_workers(count: int, config: SceneConfig, seed: int, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="taicam-synth-bench-") as folder:
        started = time.perf_counter()
        write_scenes(Path(folder) / "out", count, seed, config, workers=workers)
        wall = time.perf_counter() - started
    return {"scenes": count, "workers": workers, "wall_s": wall, "scenes_per_s": count / wall}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py synth", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="scenes per measurement")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=960)
    parser.add_argument("--workers", type=int, default=2, help="processes writing a dataset (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    config = SceneConfig.like_real_photos(width=args.width, height=args.height)  # as taicam synth
    single = measure_single(args.count, config, args.seed)
    result: dict[str, object] = {"size": f"{args.width}x{args.height}", "single_process": single,
                                 "target_scenes_per_s": TARGET_SCENES_PER_SECOND}
    if args.workers > 0:
        result["dataset_writer"] = measure_workers(args.count, config, args.seed, args.workers)
    result["cpu_bound_scenes_per_s_on_2_cores"] = round(2000.0 / single["cpu_ms_per_scene"], 1)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"synth benchmark, {result['size']}, {args.count} scenes per run")
    print(f"  one process : {single['wall_ms_per_scene']:.1f} ms/scene wall, "
          f"{single['cpu_ms_per_scene']:.1f} ms/scene CPU, {single['scenes_per_s']:.1f} scenes/s, "
          f"{single['tiles_per_scene']:.1f} tiles/scene")
    if "dataset_writer" in result:
        writer = result["dataset_writer"]
        print(f"  taicam synth, {writer['workers']} workers: {writer['scenes_per_s']:.1f} scenes/s "
              f"(JPEG files written, wall clock)")
    print(f"  CPU-bound rate on 2 free cores: {result['cpu_bound_scenes_per_s_on_2_cores']} scenes/s "
          f"(target {TARGET_SCENES_PER_SECOND})")
    print(f"  peak RSS of the measuring process: {result['peak_rss_mb']} MB")
    return 0
