#!/usr/bin/env python3
"""The (M, K) plane of issue 16 from one device run's logs
(bench_gpu_rows.jsonl and torch_rows_baselines.jsonl, written by
scripts/device_rows.sh): the table docs/PERF.md holds, printed as Markdown,
and the picture of time against K for several M (ours and the best PyTorch
method at each point, fp32), written as SVG.

    python3 scripts/rows_report.py docs/device-logs/<run> docs/rows-grid.svg > table.md

The table ends with how many points meet their target, which is taken
from the floor of the bytes a draw must move: the matrix read once and
its M x S 4-byte indices written (docs/PERF.md, "Definitions"); the read
floor alone is shown beside it. --launch-us X
counts them again with the small-M targets, 2 x (launch + floor), taken
from an empty launch of X us instead of the run's own (runs on different
machines measured 5.0-6.9 us), and prints only that count.

    python3 scripts/rows_report.py --s-draws docs/device-logs/<run>

prints the table of many draws of few rows instead (bench_s.jsonl and
torch_s.jsonl of the same run: torch.multinomial's num_samples = S), and

    python3 scripts/rows_report.py --short-s docs/device-logs/<run>

the table of S = 2-32 draws of short rows at M x K = 2^28 (short_s.jsonl
and torch_short_s.jsonl).
"""
import json
import math
import sys


def load(path):
    return [json.loads(line) for line in open(path) if line.strip().startswith("{")]


def key(r):
    return (r["dtype"], r["M"], r["K"], r["S"])


def best_torch(torch):
    best = {}
    for r in torch:
        if "ms" not in r:
            continue
        k = key(r)
        if k not in best or r["ms"] < best[k][0]:
            best[k] = (r["ms"], r["what"])
    return best


def write_ms(r, gbs):
    """The time the draws' M x S 4-byte indices take to write at the run's
    copy bandwidth, gbs (GB/s)."""
    return 4 * r["M"] * r["S"] / (gbs * 1e6)


def rw_floor_ms(r, gbs):
    """The floor of the bytes a draw must move: the matrix read once and its
    M x S 4-byte indices written (logs before the bench printed it: the
    read floor, from the matrix's bytes, plus write_ms)."""
    if "rw_floor_ms" in r:
        return r["rw_floor_ms"]
    size = 4 if r["dtype"] == "fp32" else 8
    return size * r["M"] * r["K"] / (gbs * 1e6) + write_ms(r, gbs)


def own_target_ms(r, gbs):
    """The run's own target, from the read + write floor: the bench's
    target_ms where it printed that floor; in earlier logs, whose target_ms
    was from the read floor, that target moved by write_ms times its
    factor (the launch the bench timed, unrounded, stays)."""
    if "rw_floor_ms" in r:
        return r["target_ms"]
    return r["target_ms"] + (1.2 if r["floor_ms"] > 0.05 else 2) * write_ms(r, gbs)


def target_ms(r, launch_ms, gbs):
    """The target: 1.2 x the read + write floor above 50 us, else 2 x
    (launch + that floor)."""
    floor = rw_floor_ms(r, gbs)
    return 1.2 * floor if floor > 0.05 else 2 * (launch_ms + floor)


def met_count(rows, torch, gbs, launch_ms=None):
    """Points meeting their target: the run's own (from the launch it
    timed, unrounded), or the one for launch_ms where given."""
    best = best_torch(torch)
    ours = [r for r in rows if r.get("what") == "sum-tree"]
    target = (lambda r: own_target_ms(r, gbs)) if launch_ms is None else (lambda r: target_ms(r, launch_ms, gbs))
    met = sum(1 for r in ours if r["ms"] <= target(r) and (key(r) not in best or best[key(r)][0] / r["ms"] >= 2))
    return met, len(ours)


def table(rows, torch, header):
    gbs = header["copy_bandwidth_GBps"]
    best = best_torch(torch)
    seed = {key(r): r["ms"] for r in rows if r.get("what") == "butterfly-addsub"}
    out = [f"{header['device']}: copy bandwidth {header['copy_bandwidth_GBps']:.0f} GB/s, an empty kernel's launch "
           f"{1000 * header['empty_launch_ms']:.1f} us (CUDA events, the same rule as every row).", "",
           "| dtype | M | K | S | layout | ours (ms) | read floor (ms) | x read floor | read + write floor (ms) | x read + write "
           "| target (ms) | met | best PyTorch (ms, which) | PyTorch / ours | seed 000 butterfly (ms) |",
           "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |"]
    for r in rows:
        if r.get("what") != "sum-tree":
            continue
        t = best.get(key(r))
        ratio = t[0] / r["ms"] if t else float("nan")
        target, rw = own_target_ms(r, gbs), rw_floor_ms(r, gbs)
        met = r["ms"] <= target and (t is None or ratio >= 2)
        out.append(f"| {r['dtype']} | {r['M']:,} | {r['K']:,} | {r['S']} | {r['plan']} | {r['ms']:.4f} | {r['floor_ms']:.4f} | "
                   f"{r['x_floor']:.2f} | {rw:.4f} | {r['ms'] / rw:.2f} | {target:.4f} | {'yes' if met else '**no**'} | "
                   + (f"{t[0]:.4f} ({t[1]})" if t else "--") + f" | {ratio:.1f}x | "
                   + (f"{seed[key(r)]:.4f}" if key(r) in seed else "--") + " |")
    met, total = met_count(rows, torch, gbs)  # (the rows' own targets: the count is the table's "yes" rows)
    out += ["", f"Met: {met} of {total}."]
    return "\n".join(out) + "\n"


def s_table(rows, torch, header):
    """Many draws of few rows: ours against the best PyTorch method with S draws."""
    best = best_torch(torch)
    out = [f"{header['device']}, an empty kernel's launch {1000 * header['empty_launch_ms']:.1f} us.", "",
           "| dtype | M | K | S | layout | ours (ms) | best PyTorch (ms, which) | PyTorch / ours |",
           "| --- | ---: | ---: | ---: | --- | ---: | --- | ---: |"]
    twice = total = 0
    for r in rows:
        if r.get("what") != "sum-tree":
            continue
        t = best.get(key(r))
        ratio = t[0] / r["ms"] if t else float("nan")
        total += 1
        twice += ratio >= 2
        out.append(f"| {r['dtype']} | {r['M']:,} | {r['K']:,} | {r['S']:,} | {r['plan']} | {r['ms']:.4f} | "
                   + (f"{t[0]:.4f} ({t[1]})" if t else "--") + f" | {ratio:.2f}x |")
    out += ["", f"At least 2x PyTorch's speed: {twice} of {total}."]
    return "\n".join(out) + "\n"


def short_s_table(rows, torch, header):
    """S draws of short rows at M x K = 2^28: the plan's layout beside lanes
    a row and a thread a row forced, against the read floor and the read +
    write floor (the draws' 4 bytes each), and PyTorch where it was timed."""
    best = best_torch(torch)
    forced = {}
    for r in rows:
        if r.get("what") == "sum-tree forced":
            forced[key(r) + (r["plan"],)] = r["ms"]
    out = [f"{header['device']}: copy bandwidth {header['copy_bandwidth_GBps']:.0f} GB/s.", "",
           "| dtype | M | K | S | layout | ours (ms) | x floor | x read + write floor | lanes a row (ms) | a thread a row (ms) "
           "| best PyTorch (ms, which) | PyTorch / ours |",
           "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for r in rows:
        if r.get("what") != "sum-tree" or r["M"] * r["K"] != 1 << 28:
            continue
        both = rw_floor_ms(r, header["copy_bandwidth_GBps"])
        lanes, thread = forced.get(key(r) + ("lanes-per-row",)), forced.get(key(r) + ("thread-per-row",))
        t = best.get(key(r))
        out.append(f"| {r['dtype']} | {r['M']:,} | {r['K']:,} | {r['S']} | {r['plan']} | {r['ms']:.4f} | {r['x_floor']:.2f} | "
                   f"{r['ms'] / both:.2f} | " + (f"{lanes:.4f}" if lanes else "--") + " | " + (f"{thread:.4f}" if thread else "--") + " | "
                   + (f"{t[0]:.4f} ({t[1]}) | {t[0] / r['ms']:.1f}x |" if t else "-- | -- |"))
    return "\n".join(out) + "\n"


# One colour a batch size M, for both methods (ours solid, PyTorch dashed).
COLOURS = {1: "#1f77b4", 64: "#d62728", 1024: "#2ca02c"}


def svg(rows, torch):
    best = best_torch(torch)
    series = {}
    for r in rows:
        if r.get("what") == "sum-tree" and r["dtype"] == "fp32" and r["S"] == 1 and r["M"] in COLOURS:
            series.setdefault(r["M"], []).append((r["K"], r["ms"], best.get(key(r), (None,))[0]))
    width, height, left, right, top, bottom = 760, 460, 70, 190, 40, 60
    ks = [k for s in series.values() for k, _, _ in s]
    ts = [t for s in series.values() for _, a, b in s for t in (a, b) if t]
    x0, x1 = math.log2(min(ks)), math.log2(max(ks))
    y0, y1 = math.floor(math.log10(min(ts))), math.ceil(math.log10(max(ts)))

    def px(k):
        return left + (math.log2(k) - x0) / (x1 - x0) * (width - left - right)

    def py(t):
        return top + (y1 - math.log10(t)) / (y1 - y0) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="22" font-size="14">The sum-tree draw against the best PyTorch method, fp32, one draw a row</text>']
    for e in range(int(x0), int(x1) + 1):
        x = left + (e - x0) / (x1 - x0) * (width - left - right)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - bottom}" stroke="#ddd"/>')
        if e % 2 == 0:
            out.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle">2^{e}</text>')
    for d in range(y0, y1 + 1):
        y = py(10 ** d)
        out.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{10 ** d:g} ms</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 20}" text-anchor="middle">K, weights a row</text>')
    legend_y = top + 10
    for m, pts in sorted(series.items()):
        pts.sort()
        c = COLOURS[m]
        ours = " ".join(f"{px(k):.1f},{py(t):.1f}" for k, t, _ in pts)
        theirs = " ".join(f"{px(k):.1f},{py(b):.1f}" for k, _, b in pts if b)
        out.append(f'<polyline class="curve ours" points="{ours}" fill="none" stroke="{c}" stroke-width="2"/>')
        out.append(f'<polyline class="curve torch" points="{theirs}" fill="none" stroke="{c}" stroke-width="2" stroke-dasharray="6 4"/>')
        for k, t, b in pts:
            out.append(f'<circle cx="{px(k):.1f}" cy="{py(t):.1f}" r="3.5" fill="{c}"><title>ours M={m} K={k}: {t} ms</title></circle>')
            if b:
                out.append(f'<rect x="{px(k) - 3:.1f}" y="{py(b) - 3:.1f}" width="6" height="6" fill="white" stroke="{c}">'
                           f'<title>PyTorch M={m} K={k}: {b} ms</title></rect>')
        lx = width - right + 16
        out.append(f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 26}" y2="{legend_y}" stroke="{c}" stroke-width="2"/>'
                   f'<text x="{lx + 32}" y="{legend_y + 4}">ours, M = {m:,}</text>')
        out.append(f'<line x1="{lx}" y1="{legend_y + 18}" x2="{lx + 26}" y2="{legend_y + 18}" stroke="{c}" stroke-width="2" '
                   f'stroke-dasharray="6 4"/><text x="{lx + 32}" y="{legend_y + 22}">PyTorch, M = {m:,}</text>')
        legend_y += 44
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    launch_us = None
    if args[:1] == ["--s-draws"]:
        rows = load(f"{args[1]}/bench_s.jsonl")
        print(s_table(rows[1:], load(f"{args[1]}/torch_s.jsonl"), rows[0]))
        return
    if args[:1] == ["--short-s"]:
        rows = load(f"{args[1]}/short_s.jsonl")
        print(short_s_table(rows[1:], load(f"{args[1]}/torch_short_s.jsonl"), rows[0]))
        return
    if args[:1] == ["--launch-us"]:
        launch_us, args = float(args[1]), args[2:]
    run = args[0]
    rows = load(f"{run}/bench_gpu_rows.jsonl")
    torch = load(f"{run}/torch_rows_baselines.jsonl")
    header = rows[0]
    if launch_us is not None:
        met, total = met_count(rows[1:], torch, rows[0]["copy_bandwidth_GBps"], launch_us / 1000)
        print(f"Met: {met} of {total} with a {launch_us:g} us empty launch.")
        return
    picture = args[1]
    print(table(rows[1:], torch, header))
    with open(picture, "w") as f:
        f.write(svg(rows[1:], torch))


if __name__ == "__main__":
    main()
