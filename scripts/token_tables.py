#!/usr/bin/env python3
"""docs/perf/tokens.md's tables from a run of scripts/device_tokens.sh:
for each logit type and truncation, warpsim's time (ms), its distance from
the read-once floor, PyTorch's reference (ms) and the ratio, over the (M, K)
grid. Usage: token_tables.py RUN_DIR (holding bench_gpu_token.jsonl and
torch_token.jsonl) > tables.md"""
import json
import sys
from pathlib import Path


def load(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        d = json.loads(line)
        if "mode" in d and "ms" in d:
            out[(d["dtype"], d["mode"], d["M"], d["K"])] = d
    return out


def main():
    run = Path(sys.argv[1])
    ours, ref = load(run / "bench_gpu_token.jsonl"), load(run / "torch_token.jsonl")
    ms = sorted({k[2] for k in ours})
    ks = sorted({k[3] for k in ours})
    modes = ["temperature", "min-p 0.05", "top-k 50", "top-p 0.9", "all three"]
    ratios = []
    for dtype in ("fp32", "bf16"):
        for mode in modes:
            print(f"\n**{dtype}, {mode}** (temperature 0.7): warpsim ms (x floor) / PyTorch's reference ms (ratio)\n")
            print("| M \\ K | " + " | ".join(f"{k:,}" for k in ks) + " |")
            print("| --- |" + " --- |" * len(ks))
            for m in ms:
                cells = []
                for k in ks:
                    o, r = ours.get((dtype, mode, m, k)), ref.get((dtype, mode, m, k))
                    if not o:
                        cells.append("--")
                        continue
                    cell = f"{o['ms']:.3f} ({o['x_floor']:.1f}x)"
                    if r:
                        ratios.append((r["ms"] / o["ms"], dtype, mode, m, k))
                        cell += f" / {r['ms']:.3f} ({r['ms'] / o['ms']:.1f}x)"
                    cells.append(cell)
                print(f"| {m:,} | " + " | ".join(cells) + " |")
    ten = sum(1 for r in ratios if r[0] >= 10)
    print(f"\n{ten} of {len(ratios)} points at 10x PyTorch's reference or more; the least ratio {min(ratios)[0]:.1f}x "
          f"({min(ratios)[1]}, {min(ratios)[2]}, M {min(ratios)[3]:,}, K {min(ratios)[4]:,}).")


if __name__ == "__main__":
    main()
