"""Scoring benchmark: hands scored per second on one core, and the slowest single hand.

``python scripts/benchmark.py scoring [--count 1000] [--seed 2026] [--rules taiwan,lrc] [--json]``

The hand set is fixed by the seed (:func:`scoring.samples.mixed_hands`): 40% simple, 25%
honour-heavy, 20% multi-reading (111222333-style runs) and 15% special shapes (seven pairs + a
pung, 13 and 16 orphans, as far as the rule set has them), all legal wins under the rule set;
the classic rule set gets 13-tile hands, its specials replaced by multi-reading hands.
The process is pinned to one CPU. Throughput is CPU time (``time.process_time``) so a busy
machine does not distort it; the first pass (cold suit caches) and the median of three warm
passes are both reported. A hand's latency is the best of three wall-clock runs (so a garbage
collection or a context switch is not blamed on the hand); the report gives the maximum and p99.
Targets (issue 2): at least 5,000 hands/s and no single hand above 5 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from scoring.engine import score_hand
from scoring.rules import RULESET_IDS, load_ruleset
from scoring.samples import mixed_hands

TARGET_HANDS_PER_SECOND = 5000
TARGET_MAX_MS = 5.0


def _pin_to_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"cpu {cpu}"
    except (AttributeError, OSError):
        return "not pinned"


def measure(rules: str, count: int, seed: int) -> dict:
    ruleset = load_ruleset(rules)
    hands = mixed_hands(count, seed, hand_tiles=ruleset.hand_tiles, shapes=ruleset.special_shapes)
    start = time.process_time()
    reports = [score_hand(hand, ruleset) for hand in hands]
    cold = time.process_time() - start
    warm = []
    for _ in range(3):
        start = time.process_time()
        for hand in hands:
            score_hand(hand, ruleset)
        warm.append(time.process_time() - start)
    latencies = []
    for hand in hands:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            score_hand(hand, ruleset)
            best = min(best, time.perf_counter() - t0)
        latencies.append(best * 1000)
    latencies.sort()
    warm_rate = len(hands) / statistics.median(warm)
    return {
        "rules": ruleset.id, "hands": len(hands), "valid": sum(r.valid for r in reports),
        "readings_scored": sum(r.readings_scored for r in reports),
        "cold_hands_per_s": round(len(hands) / cold), "hands_per_s": round(warm_rate),
        "max_ms": round(latencies[-1], 3), "p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 3),
        "median_ms": round(latencies[len(latencies) // 2], 3),
        "meets_target": warm_rate >= TARGET_HANDS_PER_SECOND and latencies[-1] <= TARGET_MAX_MS,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="benchmark.py scoring", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="hands in the fixed mixed set (default 1000)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the hand set (default 2026)")
    parser.add_argument("--rules", default=",".join(RULESET_IDS), help="comma-separated rule sets")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if args.count < 1:
        print("benchmark.py scoring: --count must be at least 1", file=sys.stderr)
        return 2
    pinned = _pin_to_one_core()
    names = [rules.strip() for rules in args.rules.split(",") if rules.strip()]
    results = [measure(rules, args.count, args.seed) for rules in names]
    if args.json:
        print(json.dumps({"benchmark": "scoring", "pinned": pinned, "seed": args.seed, "results": results}))
    else:
        print(f"scoring benchmark: {args.count} mixed hands, seed {args.seed}, {pinned}, python "
              f"{sys.version.split()[0]}")
        print(f"{'rules':<12} {'valid':>6} {'readings':>8} {'cold/s':>8} {'hands/s':>8} {'median ms':>9} "
              f"{'p99 ms':>7} {'max ms':>7}  target")
        for r in results:
            print(f"{r['rules']:<12} {r['valid']:>6} {r['readings_scored']:>8} {r['cold_hands_per_s']:>8} "
                  f"{r['hands_per_s']:>8} {r['median_ms']:>9} {r['p99_ms']:>7} {r['max_ms']:>7}  "
                  f"{'met' if r['meets_target'] else 'MISSED'}")
    return 0
