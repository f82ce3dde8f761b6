#!/usr/bin/env python3
"""The medians of scripts/device_before_after.sh's runs, before and after,
point by point: a Markdown table and a summary line.

    python3 scripts/before_after.py DIR   (DIR: its before-after/ folder)
"""
import json
import pathlib
import statistics
import sys


def key(r):
    what = r.get("what", "")
    if what in ("sum-tree",):
        return ("rows", r["dtype"], r["M"], r["K"], r["S"])
    if what == "construction":
        return ("alias build", r["method"], r["dtype"], r["n"])
    if what == "sampling":
        return ("alias draw", r.get("method"), r.get("dtype"), r.get("n"))
    if "M" in r and "K" in r and what not in ("copy", "device"):
        return ("matrix", what, r["dtype"], r["M"], r["K"])
    return None


def read(path):
    rows = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        k = key(r)
        if k is not None and "ms" in r:
            rows[k] = r["ms"]
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = pathlib.Path(sys.argv[1])
    times = {"before": {}, "after": {}}
    for f in sorted(d.glob("*_*_*.jsonl")):
        kind, side, _ = f.stem.split("_")
        for k, ms in read(f).items():
            times[side].setdefault(k, []).append(ms)
    common = sorted(set(times["before"]) & set(times["after"]), key=str)
    if not common:
        sys.exit(f"{d}: no point measured on both sides")
    print("| workload | point | before (ms) | after (ms) | after / before |")
    print("| --- | --- | ---: | ---: | ---: |")
    ratios = []
    for k in common:
        b = statistics.median(times["before"][k])
        a = statistics.median(times["after"][k])
        ratios.append(a / b)
        print(f"| {k[0]} | {', '.join(str(x) for x in k[1:])} | {b:.4f} | {a:.4f} | {a / b:.3f} |")
    print()
    print(f"{len(ratios)} points: after / before median {statistics.median(ratios):.3f}, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main()
