"""Benchmarks (not timed tests): ``python scripts/benchmark.py NAME [...]`` (NAME: see BENCHMARKS).

Thin on purpose: each benchmark lives beside the code it measures and exposes ``main(argv) -> int``.
Results are printed as a table and, with ``--json``, as one JSON document; the README records them.
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS: dict[str, str] = {
    "scoring": "scoring.benchmark",
    "synth": "vision.synth.benchmark",
    "models": "vision.models.benchmark",
    "photo": "vision.photo_benchmark",
    "live": "vision.live.benchmark",
    "label": "vision.label.benchmark",
    "serve": "vision.serve.benchmark",
    "sets": "vision.sets.benchmark",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHMARKS:
        print(f"usage: benchmark.py {{{','.join(BENCHMARKS)}}} [options]", file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHMARKS[argv[0]])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
