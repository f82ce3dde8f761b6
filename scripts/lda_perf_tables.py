#!/usr/bin/env python3
"""docs/perf/lda.md's gamma and iteration tables from runs of
scripts/device_lda_perf.sh:

    python3 scripts/lda_perf_tables.py [GAMMA_RUN [ITERATION_RUN]]

The gamma table from GAMMA_RUN (default: docs/device-logs/2026-11-30/lda-perf):
its bench_gamma_grid.jsonl and torch_gamma_grid.jsonl, against
previous/bench_gamma_grid.jsonl, the reference run before it. The iteration
table from ITERATION_RUN (default: the same run): its bench_gamma_grid.jsonl's
iteration and torch_lda_gibbs.jsonl, against GAMMA_RUN's iteration where the
two differ (else previous/'s). Writes the tables between their markers;
prints theta and phi against PyTorch's."""
import json
import re
import sys

FOLDER = sys.argv[1] if len(sys.argv) > 1 else "docs/device-logs/2026-11-30/lda-perf"
ITERATION = sys.argv[2] if len(sys.argv) > 2 else FOLDER
PAGE = "docs/perf/lda.md"


def rows(name, folder=FOLDER):
    with open(f"{folder}/{name}") as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def commit_of(folder):
    """The commit a run's binaries were built from (the first word after "of" in its commit.txt)."""
    with open(f"{folder}/commit.txt") as f:
        return re.search(r"of ([0-9a-f]{7,})", f.read()).group(1)


def gamma_table(ours, torch, before):
    bw = next(r for r in ours if r["what"] == "device")["copy_bandwidth_gbs"]
    theirs = {(r["dtype"], float(r["shape"])): r for r in torch if r["what"] == "torch gamma"}
    old = {(r["dtype"], float(r["shape"])): r for r in before if r["what"] == "gamma"}
    lines = ["| dtype | shape | ours ms | GS/s | torch._standard_gamma GS/s | ours / torch | before (cb161d0) GS/s | floor ms (read shape + write variate) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for dtype in ("f32", "f64"):
        for r in (r for r in ours if r["what"] == "gamma" and r["dtype"] == dtype):
            key = (dtype, float(r["shape"]))
            floor_ms = r["draws"] * 2 * (4 if dtype == "f32" else 8) / (bw * 1e9) * 1e3
            ratio = r["gsamples_per_s"] / theirs[key]["gsamples_per_s"]
            lines.append(f"| {dtype} | {r['shape']:g} | {r['ms']:.3f} | {r['gsamples_per_s']:.1f} | {theirs[key]['gsamples_per_s']:.1f} | "
                         f"{ratio:.2f}x | {old[key]['gsamples_per_s']:.1f} | {floor_ms:.3f} |")
    return "\n".join(lines)


def iteration_table(ours, gibbs, before, before_commit):
    lines = ["| dtype | z draw (butterfly) ms | theta and phi ms | iteration ms | PyTorch iteration ms (multinomial / exponential race) | "
             f"PyTorch z / theta-phi ms (race) | iteration vs PyTorch's best | before ({before_commit}): z / theta-phi / iteration ms |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in (r for r in ours if r["what"] == "lda gibbs iteration"):
        m = next(x for x in gibbs if x.get("dtype") == r["dtype"] and x.get("z_draw") == "multinomial")
        e = next(x for x in gibbs if x.get("dtype") == r["dtype"] and x.get("z_draw") == "exponential race")
        b = next(x for x in before if x["what"] == "lda gibbs iteration" and x["dtype"] == r["dtype"])
        best = min(m["iteration_ms"], e["iteration_ms"])
        lines.append(f"| {r['dtype']} | {r['z_ms']:.2f} | {r['theta_phi_ms']:.2f} | {r['iteration_ms']:.2f} | {m['iteration_ms']:.1f} / "
                     f"{e['iteration_ms']:.1f} | {e['z_ms']:.1f} / {e['theta_phi_ms']:.2f} | {best / r['iteration_ms']:.1f}x | "
                     f"{b['z_ms']:.2f} / {b['theta_phi_ms']:.2f} / {b['iteration_ms']:.2f} |")
    return "\n".join(lines)


def main():
    ours, torch, before = rows("bench_gamma_grid.jsonl"), rows("torch_gamma_grid.jsonl"), rows("previous/bench_gamma_grid.jsonl")
    if ITERATION == FOLDER:
        iteration = iteration_table(ours, rows("torch_lda_gibbs.jsonl"), before, commit_of(f"{FOLDER}/previous"))
    else:
        iteration = iteration_table(rows("bench_gamma_grid.jsonl", ITERATION), rows("torch_lda_gibbs.jsonl", ITERATION), ours, commit_of(FOLDER))
    tables = {"gamma-table": gamma_table(ours, torch, before), "lda-iteration-table": iteration}
    with open(PAGE) as f:
        doc = f.read()
    for name, table in tables.items():
        doc = re.sub(rf"<!-- {name} -->.*?<!-- /{name} -->", lambda _: f"<!-- {name} -->\n{table}\n<!-- /{name} -->", doc, flags=re.S)
    with open(PAGE, "w") as f:
        f.write(doc)
    stand_in = next(r for r in rows("torch_gamma_grid.jsonl", ITERATION) if r["what"] == "torch lda theta phi")["ms"]
    mine = next(r for r in rows("bench_gamma_grid.jsonl", ITERATION) if r["what"] == "lda gibbs iteration" and r["dtype"] == "f32")["theta_phi_ms"]
    print(f"theta and phi (f32): {mine} ms against PyTorch's stand-in {stand_in} ms: {stand_in / mine:.2f}x")


if __name__ == "__main__":
    main()
