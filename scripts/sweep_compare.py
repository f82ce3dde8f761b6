#!/usr/bin/env python3
"""The plan's times at the same points in two bench_gpu_rows logs (issue 16).

Usage: python3 scripts/sweep_compare.py NEW.jsonl OLD.jsonl [OLD2.jsonl ...]

Each OLD's plan time is averaged over the OLD logs (passes of one call).
Prints each point, then for the points whose plan changed and those whose
plan did not: how many, the range and median of NEW / OLD, and the points
that miss their target in NEW and in the first OLD. docs/PERF.md, "Fast
memory": NEW = rows-h200-fast-memory-cached/sweep_plan.jsonl, OLD =
rows-h200-cluster-sweep/sweep_1.jsonl and sweep_2.jsonl.
"""
import json
import statistics
import sys


def plans(path):
    out = {}
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("what") == "sum-tree":
                out[(r["dtype"], r["M"], r["K"], r["S"])] = r
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    new, olds = plans(sys.argv[1]), [plans(p) for p in sys.argv[2:]]
    groups = {"changed": [], "unchanged": []}
    misses_new = misses_old = 0
    for key in sorted(k for k in new if all(k in o for o in olds)):
        n = new[key]
        old_ms = sum(o[key]["ms"] for o in olds) / len(olds)
        changed = n["plan"] != olds[0][key]["plan"]
        ratio = n["ms"] / old_ms
        groups["changed" if changed else "unchanged"].append(ratio)
        misses_new += n["ms"] > n["target_ms"]
        misses_old += olds[0][key]["ms"] > olds[0][key]["target_ms"]
        print(f"{key}: {old_ms:.4f} -> {n['ms']:.4f} ms ({ratio:.2f}x){'  ' + n['plan'] if changed else ''}")
    for name, ratios in groups.items():
        if ratios:
            print(f"{name}: {len(ratios)} points, {min(ratios):.2f}-{max(ratios):.2f}x, median {statistics.median(ratios):.2f}")
    print(f"missing their target: {misses_old} before, {misses_new} now")


if __name__ == "__main__":
    main()
