#!/usr/bin/env python3
"""Renders the GPU tables of the performance pages from a device run's logs
(bench_gpu_matrix.jsonl, torch_baselines.jsonl, bench_gpu_lda.jsonl), between
the <!-- matrix-table -->, <!-- lda-table --> and <!-- lda-sweep-table -->
markers of each page named (a page without a marker keeps its text; a run
without bench_gpu_matrix.jsonl, e.g. scripts/device_lda_perf.sh's, leaves
the matrix table as it is).

    python3 scripts/perf_tables.py docs/device-logs/2026-11-21-s3 docs/perf/matrix.md docs/perf/lda.md
"""
import json
import os
import re
import sys


def load(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    for r in rows:  # the registry names the baseline kernel "baseline-binary" (logs before 2026-11-22: "baseline")
        for field in ("what", "algorithm"):
            if r.get(field) == "baseline-binary":
                r[field] = "baseline"
    return rows


def matrix_table(rows, torch):
    out = []
    for dt in ["fp32", "fp64"]:
        copy = [r for r in rows if r.get("dtype") == dt and r["what"] == "copy"][0]
        size = "1" if dt == "fp32" else "2"
        out.append(f"\n**{dt}** — {size} GiB matrix; device-to-device copy {copy['ms']:.3f} ms = {copy['bandwidth_TBps']:.2f} TB/s "
                   f"(bytes read + written); read-once floor {copy['roof_ms']:.3f} ms.\n")
        out.append("| K | M | baseline | transposed + register transpose | butterfly standard | butterfly add-subtract | x floor (best) "
                   "| torch.multinomial | cumsum + searchsorted | Gumbel-max | best PyTorch / ours |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for k in [32, 128, 1024]:
            g = {r["what"]: r for r in rows if r.get("dtype") == dt and r.get("K") == k}
            t = {r["what"]: r["ms"] for r in torch if r.get("dtype") == dt and r.get("K") == k}
            best = min(g[a]["ms"] for a in ["transposed-registers", "butterfly-standard", "butterfly-addsub"])
            out.append(f"| {k} | {g['baseline']['M']:,} | {g['baseline']['ms']:.3f} | {g['transposed-registers']['ms']:.3f} | "
                       f"{g['butterfly-standard']['ms']:.3f} | {g['butterfly-addsub']['ms']:.3f} | {best / copy['roof_ms']:.2f} | "
                       f"{t['torch.multinomial']:.2f} | {t['cumsum+searchsorted']:.2f} | {t['gumbel-max']:.2f} | {min(t.values()) / best:.1f}x |")
    return "\n".join(out) + "\n"


def sums(r):
    """", G" where the tuning keeps the block sums in global scratch (logs before 2026-11-30: never)."""
    return ", G" if r.get("global_sums") else ""


def tune(r):
    """A tuning as the tables print it: ring, tokens, G where the block sums are in global scratch, and the chunk where
    a warp takes chunks of groups (logs before 2026-12-01: whole groups, no chunk)."""
    return f"{r['ring']}, {r['tokens']}{sums(r)}" + (f", chunk {r['chunk']}" if r.get("chunk") else "")


def lda_table(lda):
    out = ["| dtype | K | baseline | transposed + register transpose | butterfly standard | butterfly add-subtract | "
           "add-subtract vs transposed | tuning: ring, tokens, chunk (transposed / butterfly) | bytes min / gather (MB) | add-subtract GB/s (gather) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for dt in ["fp32", "fp64"]:
        for k in [16, 32, 64, 128, 256, 512, 1024]:
            g = {r["what"]: r for r in lda if r.get("dtype") == dt and r.get("K") == k}
            a, t = g["butterfly-addsub"], g["transposed-registers"]
            # ring, tokens and block sums apply past shared memory only (gpu/lda_sampler.cu: a warp's theta_local and
            # running sums, 2 x 32 x K values, over 100 KiB), though the sweep runs them from K = 256 in both precisions
            past_shared = 2 * 32 * k * (4 if dt == "fp32" else 8) > 100 * 1024
            swept = past_shared and any(r.get("what") == "sweep" and "ring" in r and r.get("dtype") == dt and r.get("K") == k for r in lda)
            if swept:
                tuning = f"{tune(t)} / {tune(a)}"
            else:
                tuning = f"chunk {t['chunk']} / chunk {a['chunk']}" if t.get("chunk") or a.get("chunk") else "--"
            out.append(f"| {dt} | {k} | {g['baseline']['ms']:.2f} | {t['ms']:.2f} | {g['butterfly-standard']['ms']:.2f} | {a['ms']:.2f} | "
                       f"{t['ms'] / a['ms']:.2f}x | {tuning} | {a['bytes_min_MB']:.0f} / {a['bytes_gather_MB']:.0f} | {a['GBps_if_gathered']:.0f} |")
    return "\n".join(out) + "\n"


def lda_sweep_table(lda):
    """Every tuning past shared memory, the two algorithms under the same one; below it, every chunk."""
    sweep = [r for r in lda if r.get("what") == "sweep"]
    out = ["| dtype | K | ring | tokens | block sums | chunk | transposed | butterfly standard | butterfly add-subtract | add-subtract vs transposed |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for dt in ["fp32", "fp64"]:
        for k in sorted({r["K"] for r in sweep if r["dtype"] == dt}):
            tunings = []
            for r in sweep:
                key = (r.get("ring"), r.get("tokens"), bool(r.get("global_sums")), r.get("chunk", 0))
                if r["dtype"] == dt and r["K"] == k and key not in tunings:
                    tunings.append(key)
            for ring, tokens, g, chunk in tunings:
                ms = {r["algorithm"]: r["ms"] for r in sweep
                      if r["dtype"] == dt and r["K"] == k and (r.get("ring"), r.get("tokens"), bool(r.get("global_sums")), r.get("chunk", 0))
                      == (ring, tokens, g, chunk)}
                t, s_, a = ms["transposed-registers"], ms["butterfly-standard"], ms["butterfly-addsub"]
                if ring is None:  # below shared memory's limit: the chunk alone applies
                    ring, tokens, where = "--", "--", "--"
                else:
                    where = ("global" if g else "shared") if ring else "global"
                chunk_text = chunk if chunk else "whole groups"
                out.append(f"| {dt} | {k} | {ring} | {tokens} | {where} | {chunk_text} | {t:.2f} | {s_:.2f} | {a:.2f} | {t / a:.2f}x |")
    return "\n".join(out) + "\n"


def main():
    logs, pages = sys.argv[1], sys.argv[2:]
    m = matrix_table(load(f"{logs}/bench_gpu_matrix.jsonl"), load(f"{logs}/torch_baselines.jsonl")) if os.path.exists(f"{logs}/bench_gpu_matrix.jsonl") else None
    lda = load(f"{logs}/bench_gpu_lda.jsonl")
    l, ls = lda_table(lda), lda_sweep_table(lda)
    for page in pages:
        text = open(page).read()
        if m is not None:
            text = re.sub(r"<!-- matrix-table -->.*?<!-- /matrix-table -->", lambda _: f"<!-- matrix-table -->\n{m}<!-- /matrix-table -->", text, flags=re.S)
        text = re.sub(r"<!-- lda-table -->.*?<!-- /lda-table -->", lambda _: f"<!-- lda-table -->\n{l}<!-- /lda-table -->", text, flags=re.S)
        text = re.sub(r"<!-- lda-sweep-table -->.*?<!-- /lda-sweep-table -->", lambda _: f"<!-- lda-sweep-table -->\n{ls}<!-- /lda-sweep-table -->",
                      text, flags=re.S)
        open(page, "w").write(text)


if __name__ == "__main__":
    main()
