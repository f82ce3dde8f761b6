#!/usr/bin/env python3
"""The seeds' experiments beside ours (issue 54): SVG figures and the numbers
docs/seed-experiments.md quotes.

    python3 scripts/seed_figures.py LDA_LOG_DIR [WARPSIM]

LDA_LOG_DIR holds lda_seed_grid.jsonl and device.txt, and seed001/ the seed
001 grids (scripts/device_seed_experiments.sh, PART=001);
the seed 001 and 004 runs are the reference runs named in ALIAS and REJECTION
below. WARPSIM (default build-cpu/cli/warpsim) gives seed 004's exact
iteration counts (`warpsim rejection --format json`). Writes docs/figures/seed*.svg
and prints the numbers.

The seeds' values drawn beside ours are the numbers their texts state (the
seeds' figures are pictures in the text we have, so only stated values are
drawn), each with the GPU it was measured on.
"""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIAS = os.path.join(ROOT, "docs/device-logs/2026-11-24/alias-pdl")
REJECTION = os.path.join(ROOT, "docs/device-logs/2026-11-24/rejection-samplers")
FIGURES = os.path.join(ROOT, "docs/figures")

COLOURS = {"ours": "#1f77b4", "ours2": "#2ca02c", "ours3": "#9467bd", "seed": "#d62728", "thesis": "#ff7f0e"}


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def device_name(path):
    try:
        with open(path) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        return lines[1].split(",")[0].strip() if len(lines) > 1 else "?"
    except OSError:
        return "?"


class Plot:
    """A minimal SVG line/point plot: linear x, linear or log y."""

    def __init__(self, title, xlabel, ylabel, xrange, yrange, logy=False, width=720, height=380, xticks=None):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.xticks = xticks or [xrange[0] + (xrange[1] - xrange[0]) * i / 5 for i in range(6)]
        self.x0, self.x1 = xrange
        self.y0, self.y1 = yrange
        self.logy, self.w, self.h = logy, width, height
        self.left, self.right, self.top, self.bottom = 70, 260, 40, 50
        self.items, self.legend = [], []

    def px(self, x):
        return self.left + (x - self.x0) / (self.x1 - self.x0) * (self.w - self.left - self.right)

    def py(self, y):
        if self.logy:
            y, a, b = math.log10(max(y, 1e-12)), math.log10(self.y0), math.log10(self.y1)
        else:
            a, b = self.y0, self.y1
        return self.h - self.bottom - (y - a) / (b - a) * (self.h - self.top - self.bottom)

    def line(self, pts, colour, label, dash=None, width=1.5):
        d = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in pts)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<polyline fill="none" stroke="{colour}" stroke-width="{width}"{extra} points="{d}"/>')
        self.legend.append((colour, label, "line"))

    def points(self, pts, colour, label, shape="circle", note=None):
        for x, y in pts:
            cx, cy = self.px(x), self.py(y)
            if shape == "circle":
                self.items.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour}"/>')
            else:
                self.items.append(f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" fill="none" stroke="{colour}" stroke-width="2"/>')
        if note:
            for (x, y), text in zip(pts, note):
                self.items.append(f'<text x="{self.px(x) + 6:.1f}" y="{self.py(y) - 6:.1f}" fill="{colour}" font-size="10">{text}</text>')
        self.legend.append((colour, label, shape))

    def svg(self):
        w, h = self.w, self.h
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
               f'<rect width="{w}" height="{h}" fill="white"/>',
               f'<text x="{w / 2 - 60:.0f}" y="20" text-anchor="middle" font-size="13">{self.title}</text>']
        # axes and ticks
        out.append(f'<line x1="{self.left}" y1="{h - self.bottom}" x2="{w - self.right}" y2="{h - self.bottom}" stroke="black"/>')
        out.append(f'<line x1="{self.left}" y1="{self.top}" x2="{self.left}" y2="{h - self.bottom}" stroke="black"/>')
        for x in self.xticks:
            out.append(f'<text x="{self.px(x):.1f}" y="{h - self.bottom + 15}" text-anchor="middle">{x:g}</text>')
        if self.logy:
            e = math.floor(math.log10(self.y0))
            while 10 ** e <= self.y1 * 1.0001:
                if 10 ** e >= self.y0 * 0.9999:
                    y = self.py(10 ** e)
                    out.append(f'<line x1="{self.left - 4}" y1="{y:.1f}" x2="{w - self.right}" y2="{y:.1f}" stroke="#ddd"/>')
                    out.append(f'<text x="{self.left - 6}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g}</text>')
                e += 1
        else:
            for i in range(6):
                v = self.y0 + (self.y1 - self.y0) * i / 5
                y = self.py(v)
                out.append(f'<line x1="{self.left - 4}" y1="{y:.1f}" x2="{w - self.right}" y2="{y:.1f}" stroke="#ddd"/>')
                out.append(f'<text x="{self.left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:.3g}</text>')
        out.append(f'<text x="{(self.left + w - self.right) / 2:.0f}" y="{h - 12}" text-anchor="middle">{self.xlabel}</text>')
        out.append(f'<text x="14" y="{(self.top + h - self.bottom) / 2:.0f}" transform="rotate(-90 14 {(self.top + h - self.bottom) / 2:.0f})" '
                   f'text-anchor="middle">{self.ylabel}</text>')
        out.extend(self.items)
        for i, (colour, label, kind) in enumerate(self.legend):
            y = self.top + 14 * i
            x = w - self.right + 10
            if kind == "line":
                out.append(f'<line x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
            else:
                out.append(f'<circle cx="{x + 9}" cy="{y}" r="4" fill="{colour}"/>' if kind == "circle" else
                           f'<rect x="{x + 5}" y="{y - 4}" width="8" height="8" fill="none" stroke="{colour}" stroke-width="2"/>')
            out.append(f'<text x="{x + 24}" y="{y + 4}">{label}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"


def write(name, text):
    os.makedirs(FIGURES, exist_ok=True)
    with open(os.path.join(FIGURES, name), "w") as f:
        f.write(text)
    print(f"wrote docs/figures/{name}")


# ---- seed 000: the LDA z-draw over K (Figs. 11 and 12) ---------------------------------------

# Seed 000, Sec. 7 (Titan Black, CUDA 7.5, the whole application, 100 iterations):
# Alg. 7 over Alg. 4 "x% faster" read as t4 / t7 = 1 + x; over Alg. 1 an
# "improvement of 74% / 71%" read as t7 = (1 - 0.74) t1.
SEED000_RATIO = {"fp32": [(512, 1.08), (1024, 1.13)], "fp64": [(512, 1.33), (1024, 1.35)]}
SEED000_OVER_BASELINE = {"fp32": (1024, 1 / (1 - 0.74)), "fp64": (1024, 1 / (1 - 0.71))}


def seed000(lda_dir):
    rows = load(os.path.join(lda_dir, "lda_seed_grid.jsonl"))
    device = device_name(os.path.join(lda_dir, "device.txt"))
    t = {}
    for r in rows:
        if "dtype" in r:
            t[(r["dtype"], r["what"], r["K"])] = r["ms"]
    summary = {}
    for dtype in ("fp32", "fp64"):
        ks = sorted(k for (d, w, k) in t if d == dtype and w == "transposed-registers")
        grid = [k for k in ks if k % 4 == 0]
        p = Plot(f"seed 000 Fig. 11 ({dtype}): one z-draw sweep on {device}", "K (topics)", "ms a sweep (log)", (0, 1024),
                 (0.1, 200), logy=True, xticks=[0, 256, 512, 768, 1024])
        for what, colour, label in (("baseline-binary", COLOURS["ours3"], "Alg. 1 (baseline)"),
                                    ("transposed-registers", COLOURS["ours2"], "Alg. 4 (register transpose)"),
                                    ("butterfly-addsub", COLOURS["ours"], "Alg. 7 (butterfly)")):
            pts = [(k, t[(dtype, what, k)]) for k in grid if (dtype, what, k) in t]
            if pts:
                p.line(pts, colour, label)
        write(f"seed000_fig11_{dtype}.svg", p.svg())
        # Alg. 4 / Alg. 7 with the seed's stated ratios
        q = Plot(f"seed 000: Alg. 4 / Alg. 7 ({dtype})", "K (topics)", "time ratio", (0, 1024), (0.6, 1.8), xticks=[0, 256, 512, 768, 1024])
        ratio = [(k, t[(dtype, "transposed-registers", k)] / t[(dtype, "butterfly-addsub", k)]) for k in grid
                 if (dtype, "butterfly-addsub", k) in t]
        q.line(ratio, COLOURS["ours"], f"ours, {device}")
        q.line([(0, 1), (1024, 1)], "#888", "equal", dash="4 3", width=1)
        q.points(SEED000_RATIO[dtype], COLOURS["seed"], "seed 000, Titan Black", shape="square",
                 note=[f"{r:.2f}" for _, r in SEED000_RATIO[dtype]])
        write(f"seed000_ratio_{dtype}.svg", q.svg())
        # Fig. 12's zoom: every K from 480 to 544
        zoom = [k for k in ks if 480 <= k <= 544]
        z = Plot(f"seed 000 Fig. 12 ({dtype}): K from 480 to 544", "K (topics)", "ms a sweep", (480, 544),
                 (0, 1.25 * max(t[(dtype, "transposed-registers", k)] for k in zoom)), xticks=[480, 496, 512, 528, 544])
        z.line([(k, t[(dtype, "transposed-registers", k)]) for k in zoom], COLOURS["ours2"], "Alg. 4")
        z.line([(k, t[(dtype, "butterfly-addsub", k)]) for k in zoom], COLOURS["ours"], "Alg. 7")
        write(f"seed000_fig12_{dtype}.svg", z.svg())
        faster = [k for k, r in ratio if r > 1]
        slower = [k for k, r in ratio if r <= 1]
        summary[dtype] = {
            "ratio_512": dict(ratio).get(512), "ratio_1024": dict(ratio).get(1024),
            "over_baseline_1024": t[(dtype, "baseline-binary", 1024)] / t[(dtype, "butterfly-addsub", 1024)],
            "alg7_not_faster_at": slower[-12:], "first_K_after_which_always_faster": next(
                (k for k in grid if all(r > 1 for kk, r in ratio if kk >= k)), None),
            "points": len(ratio), "faster_points": len(faster),
        }
        # the sawtooth: Alg. 4 and 7 at K = 512 + 32 j + m against the K mod 32
        saw = {m: [t[(dtype, w, 512 + m)] for w in ("transposed-registers", "butterfly-addsub")] for m in (0, 1, 2, 4, 8, 16, 31)
               if (dtype, "butterfly-addsub", 512 + m) in t}
        summary[dtype]["zoom_512_plus"] = saw
    print(json.dumps({"seed000": summary, "device": device}, indent=1))


# ---- seed 001: Tables 5.2 and 5.3 -----------------------------------------------------------

# Seed 001, Tables 5.2 and 5.3 (RTX 2080, CUDA 11.1; Ref. [27] on CPUs).
SEED001_BUILD = {10**7: 4.0, 10**8: 32.8}  # ms, shuffled power law, "Ours, A (RTX 2080)"
SEED001_BUILD_CPU = {10**8: 83.1}          # ms, Ref. [27] on machine C (4 x 20 cores)
SEED001_SAMPLE = {10**6: 13438, 10**7: 10148, 10**8: 2442}  # MSamples/s, 10^9 draws, "Ours, A"
SEED001_BL_GS = 0.9  # Sec. 5.3.2: Bringmann-Larsen "up to 0.9 GSamples/s"


def seed001():
    ours = load(os.path.join(ALIAS, "bench_gpu_alias.jsonl"))
    thesis = load(os.path.join(ALIAS, "thesis_bench.jsonl"))
    device = next((r["name"] for r in ours if r.get("what") == "device"), "?")
    build = {r["n"]: r["ms"] for r in ours if r.get("what") == "construction" and r["method"] == "psa" and r["dtype"] == "f32"
             and r["weights"] == "power law 1, shuffled"}
    tbuild = {r["n"]: r["ms"] for r in thesis if r.get("what") == "thesis construction" and not r["psa_plus"]
              and r["weights"] == "power law 1, shuffled"}
    sect = {r["n"]: r["gsamples_per_s"] for r in ours if r.get("what") == "sampling" and r["method"] == "sectioned"}
    base = {r["n"]: r["gsamples_per_s"] for r in ours if r.get("what") == "sampling" and r["method"] == "baseline"}
    tsamp = {r["n"]: r["gsamples_per_s"] for r in thesis if r.get("what") in ("thesis sectioned sampling",)}
    tbase = {r["n"]: r["gsamples_per_s"] for r in thesis if r.get("what") == "thesis sampling"}
    # Table 5.2
    p = Plot("seed 001 Table 5.2: build, shuffled power law", "log10 N", "ms (log)", (6.5, 8.5), (0.1, 100), logy=True, xticks=[7, 8])
    p.points([(math.log10(n), ms) for n, ms in sorted(SEED001_BUILD.items())], COLOURS["seed"], "thesis, RTX 2080 (stated)", "square",
             note=[f"{ms} ms" for _, ms in sorted(SEED001_BUILD.items())])
    p.points([(math.log10(n), ms) for n, ms in sorted(SEED001_BUILD_CPU.items())], "#8c564b", "Ref. [27], 80 CPU cores (stated)", "square",
             note=["83.1 ms"])
    p.points([(math.log10(n), tbuild[n]) for n in sorted(SEED001_BUILD) if n in tbuild], COLOURS["thesis"], f"thesis code, {device}",
             note=[f"{tbuild[n]:.2f}" for n in sorted(SEED001_BUILD) if n in tbuild])
    p.points([(math.log10(n), build[n]) for n in sorted(SEED001_BUILD) if n in build], COLOURS["ours"], f"warpsim PSA, {device}",
             note=[f"{build[n]:.3f}" for n in sorted(SEED001_BUILD) if n in build])
    write("seed001_table5_2.svg", p.svg())
    # Table 5.3
    q = Plot("seed 001 Table 5.3: 10^9 draws from N items", "log10 N", "GSamples/s (log)", (5.5, 8.5), (1, 1000), logy=True, xticks=[6, 7, 8])
    q.points([(math.log10(n), v / 1000) for n, v in sorted(SEED001_SAMPLE.items())], COLOURS["seed"], "thesis, RTX 2080 (stated)", "square",
             note=[f"{v / 1000:.1f}" for _, v in sorted(SEED001_SAMPLE.items())])
    stated_method = {10**6: tsamp, 10**7: tsamp, 10**8: tbase}  # the thesis used sectioned limited below 10^8, baseline at 10^8
    pts = [(math.log10(n), stated_method[n][n]) for n in sorted(SEED001_SAMPLE) if n in stated_method[n]]
    q.points(pts, COLOURS["thesis"], f"thesis code, {device}", note=[f"{v:.1f}" for _, v in pts])
    q.points([(math.log10(n), sect[n]) for n in sorted(SEED001_SAMPLE) if n in sect], COLOURS["ours"], f"warpsim sectioned, {device}",
             note=[f"{sect[n]:.0f}" for n in sorted(SEED001_SAMPLE) if n in sect])
    q.points([(math.log10(n), base[n]) for n in sorted(SEED001_SAMPLE) if n in base], COLOURS["ours2"], f"warpsim baseline, {device}",
             note=[f"{base[n]:.0f}" for n in sorted(SEED001_SAMPLE) if n in base])
    write("seed001_table5_3.svg", q.svg())
    print(json.dumps({"seed001": {"device": device, "build_ms": build, "thesis_build_ms": tbuild, "sectioned_gs": sect, "baseline_gs": base,
                                  "thesis_sectioned_gs": tsamp, "thesis_baseline_gs": tbase}}, indent=1, default=str))


# ---- seed 001: the sampling grids (Figs. 5.7-5.9, section sizes, Fig. 4.6) --------------------

THESIS_SAMPLERS = {"SamplerGpuBasicXorWow": ("thesis baseline", "#ff7f0e"), "SamplerGpuSectioned": ("thesis sectioned", "#8c564b"),
                   "SamplerGpuSectionedLimited": ("thesis sectioned limited", "#e377c2"),
                   "SamplerGpuSectionedShared": ("thesis sectioned shared", "#bcbd22")}


def thesis_csv(path):
    """The `driver plots` output: {experiment name: [rows as lists of fields]}."""
    out, name = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# "):
                name = line[2:]
                out[name] = []
            elif name and line and not line.startswith("type;") and not line.startswith("N;"):
                out[name].append(line.split(";"))
    return out


def heatmap_svg(title, cells, xs, ys, colours, legend, xlabel, ylabel):
    """cells[(x, y)] = category; xs, ys the grid's values in order."""
    cw, ch, left, top = 8, 9, 80, 40
    w, h = left + cw * len(xs) + 220, top + ch * len(ys) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>', f'<text x="{left}" y="20" font-size="13">{title}</text>']
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            c = cells.get((x, y))
            if c is None:
                continue
            out.append(f'<rect x="{left + i * cw}" y="{top + (len(ys) - 1 - j) * ch}" width="{cw}" height="{ch}" fill="{colours[c]}"/>')
    for i in range(0, len(xs), max(1, len(xs) // 6)):
        out.append(f'<text x="{left + i * cw}" y="{top + len(ys) * ch + 14}">{xs[i] / 1e6:g}</text>')
    for j in range(0, len(ys), max(1, len(ys) // 6)):
        out.append(f'<text x="{left - 6}" y="{top + (len(ys) - 1 - j) * ch + 8}" text-anchor="end">{ys[j] / 1e6:g}</text>')
    out.append(f'<text x="{left + cw * len(xs) / 2:.0f}" y="{h - 18}" text-anchor="middle">{xlabel}</text>')
    out.append(f'<text x="14" y="{top + ch * len(ys) / 2:.0f}" transform="rotate(-90 14 {top + ch * len(ys) / 2:.0f})" text-anchor="middle">{ylabel}</text>')
    for k, (c, label) in enumerate(legend):
        y = top + 16 * k
        out.append(f'<rect x="{left + cw * len(xs) + 12}" y="{y - 9}" width="10" height="10" fill="{colours[c]}"/>')
        out.append(f'<text x="{left + cw * len(xs) + 28}" y="{y}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def seed001_grids(grid_dir):
    ours = load(os.path.join(grid_dir, "alias_seed_grid.jsonl"))
    thesis = thesis_csv(os.path.join(grid_dir, "thesis_plots.csv"))
    device = device_name(os.path.join(grid_dir, "device.txt"))
    summary = {}
    # Figs. 5.7 and 5.8: throughput against the draws
    for n, name, most in ((10**6, "samplesPerSecondSamplerMethodMax1e6.csv", 5e8), (10**7, "samplesPerSecondSamplerMethodMax1e7.csv", 8e8)):
        p = Plot(f"seed 001 Fig. 5.{7 if n == 10**6 else 8}: draws from {n:.0e} items (uniform), {device}", "draws (10^6)",
                 "GSamples/s (log)", (0, most / 1e6), (0.1, 1000), logy=True)
        for kind, (label, colour) in THESIS_SAMPLERS.items():
            pts = [(float(r[2]) / 1e6, float(r[3])) for r in thesis.get(name, []) if r[0] == kind]
            if pts:
                p.line(pts, colour, label)
        mine = [r for r in ours if r.get("what") == "grid curve" and r["n"] == n]
        p.line([(r["draws"] / 1e6, r["baseline_gs"]) for r in mine], COLOURS["ours2"], "warpsim baseline (stored)")
        p.line([(r["draws"] / 1e6, r["sectioned_gs"]) for r in mine], COLOURS["ours"], "warpsim sectioned (stored)")
        write(f"seed001_fig5_{7 if n == 10**6 else 8}.svg", p.svg())
        top = lambda kind: max((float(r[3]) for r in thesis.get(name, []) if r[0] == kind), default=None)
        summary[f"curve_{n}"] = {"thesis_peak": {k: top(k) for k in THESIS_SAMPLERS},
                                 "ours_peak": {"baseline": max(r["baseline_gs"] for r in mine), "sectioned": max(r["sectioned_gs"] for r in mine)}}
    # Fig. 5.9: the faster method over table size and draws
    cells_t = {(int(r[0]), int(r[1])): r[2] for r in thesis.get("samplesPerSecondMethodHeatmap.csv", [])}
    cells_o = {(r["n"], r["draws"]): ("ours baseline" if r["baseline_gs"] >= r["sectioned_gs"] else "ours sectioned")
               for r in ours if r.get("what") == "grid heatmap"}
    xs = sorted({x for x, _ in cells_t} | {x for x, _ in cells_o})
    ys = sorted({y for _, y in cells_t} | {y for _, y in cells_o})
    colours = {k: v[1] for k, v in THESIS_SAMPLERS.items()}
    colours.update({"ours baseline": COLOURS["ours2"], "ours sectioned": COLOURS["ours"]})
    write("seed001_fig5_9_thesis.svg", heatmap_svg(f"seed 001 Fig. 5.9 with the thesis's code on {device}: the fastest sampler", cells_t, xs, ys, colours,
                                                   [(k, v[0]) for k, v in THESIS_SAMPLERS.items()], "table size N (10^6)", "draws (10^6)"))
    write("seed001_fig5_9_ours.svg", heatmap_svg(f"the same grid, warpsim's samplers on {device} (every draw stored)", cells_o, xs, ys, colours,
                                                 [("ours baseline", "warpsim baseline"), ("ours sectioned", "warpsim sectioned")],
                                                 "table size N (10^6)", "draws (10^6)"))
    count = lambda cells: {c: sum(1 for v in cells.values() if v == c) for c in set(cells.values())}
    summary["heatmap"] = {"thesis": count(cells_t), "ours": count(cells_o), "cells": len(cells_o)}
    # the section-size sweeps (10^6 items; 10^6 and 10^7 draws)
    for draws, name in ((10**6, "samplesPerSecondItemsPerSection1e6.csv"), (10**7, "samplesPerSecondItemsPerSection1e7.csv")):
        p = Plot(f"seed 001: section size, 10^6 items, {draws:.0e} draws, {device}", "rows a section", "GSamples/s (log)", (0, 12000),
                 (0.5, 500), logy=True, xticks=[0, 2000, 4000, 6000, 8000, 10000, 12000])
        for kind, (label, colour) in THESIS_SAMPLERS.items():
            pts = [(float(r[2]), float(r[3])) for r in thesis.get(name, []) if r[0] == kind]
            if pts:
                p.line(pts, colour, label)
        mine = [(r["section_rows"], r["sectioned_gs"]) for r in ours if r.get("what") == "grid section size" and r["draws"] == draws]
        p.line(mine, COLOURS["ours"], "warpsim sectioned (to 3,072 rows)")
        write(f"seed001_sections_{'1e6' if draws == 10**6 else '1e7'}.svg", p.svg())
        summary[f"sections_{draws}"] = {"ours_best": max(mine, key=lambda t: t[1]),
                                        "thesis_best": {k: max(((float(r[2]), float(r[3])) for r in thesis.get(name, []) if r[0] == k),
                                                               key=lambda t: t[1], default=None) for k in THESIS_SAMPLERS}}
    # Fig. 4.6: the thesis's baseline sampler over its launch shape (ours has one)
    g = thesis.get("samplesPerSecondGroupSizeXorWow.csv", [])
    if g:
        best = max(g, key=lambda r: float(r[1]))
        summary["group_size"] = {"best": {"gs": float(best[1]), "threads": int(best[2]), "blocks": int(best[3])},
                                 "worst": min(float(r[1]) for r in g), "points": len(g)}
        p = Plot(f"seed 001 Fig. 4.6 with the thesis's code: its baseline sampler, 10^6 items, {device}", "threads a group",
                 "GSamples/s", (32, 1024), (0, 1.2 * float(best[1])), xticks=[32, 256, 512, 768, 1024])
        for blocks, colour in ((10, "#c7c7c7"), (46, "#7f7f7f"), (100, COLOURS["thesis"]), (148, "#d62728")):
            pts = [(int(r[2]), float(r[1])) for r in g if int(r[3]) == blocks]
            if pts:
                p.line(pts, colour, f"{blocks} groups")
        write("seed001_fig4_6.svg", p.svg())
    print(json.dumps({"seed001_grids": summary, "device": device}, indent=1, default=str))


# ---- seed 004: a warp's iterations against p -----------------------------------------------

def seed004(warpsim):
    rej = load(os.path.join(REJECTION, "bench_gpu_rejection.jsonl"))
    device = next((r["name"] for r in rej if r.get("what") == "device"), "?").replace("NVIDIA ", "").replace(" 80GB HBM3", "")
    ps = [0.3 + 0.025 * i for i in range(27)] + [0.99]
    unc, cac = [], []
    for p in ps:
        out = subprocess.run([warpsim, "rejection", "--lanes", "32", "--p", f"{p:.4f}", "--cached", "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        j = json.loads(out)
        unc.append((p, j["uncached"]["mean"]))
        cac.append((p, j["cached"]["mean"]))
    plot = Plot("seed 004: a 32-lane warp's loop iterations a call", "p (acceptance)", "E[iterations] (log)", (0.3, 1.0), (1, 20), logy=True, xticks=[0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    plot.line(unc, COLOURS["ours"], "uncached, exact")
    plot.line(cac, COLOURS["ours2"], "pre-cached, exact")
    plot.line([(p, 1 / p) for p, _ in unc], "#888", "scalar 1/p", dash="4 3", width=1)
    gpu_u = [(r["acceptance"], r["iterations_per_call"]) for r in rej if r.get("what") == "sampling" and r["method"] == "bringmann-larsen, uncached"]
    gpu_c = [(r["acceptance"], r["iterations_per_call"]) for r in rej if r.get("what") == "sampling" and r["method"] == "bringmann-larsen, pre-cached"]
    plot.points(gpu_u, COLOURS["ours"], f"uncached, measured ({device})")
    plot.points(gpu_c, COLOURS["ours2"], f"pre-cached, measured ({device})")
    plot.points([(0.8, 3.0)], COLOURS["seed"], "seed 004: '3 times' at 0.8", "square")
    write("seed004_iterations.svg", plot.svg())
    at = dict(unc)
    print(json.dumps({"seed004": {"device": device, "uncached_at_0.8": at.get(0.8), "measured": gpu_u + gpu_c,
                                  "ratio_uncached_over_cached": [(p, u / c) for (p, u), (_, c) in zip(unc, cac)][::6]}}, indent=1))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    warpsim = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build-cpu/cli/warpsim")
    seed000(sys.argv[1])
    seed001()
    seed001_grids(os.path.join(sys.argv[1], "seed001"))
    seed004(warpsim)
    return 0


if __name__ == "__main__":
    sys.exit(main())
