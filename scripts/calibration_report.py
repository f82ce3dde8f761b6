#!/usr/bin/env python3
"""The calibration harness's logs (warpsim_calibration's TSV, one or more
parts of a grid, and its --exact-tails TSV) as the markdown tables of
docs/calibration/TABLES.md.

Usage: calibration_report.py GRID.tsv [GRID2.tsv ...] EXACT.tsv > TABLES.md"""
import sys
from collections import OrderedDict


def read(path):
    header, rows, notes = None, [], []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#"):
            notes.append(line[1:].strip())
        elif header is None:
            header = line.split("\t")
        elif line:
            rows.append(dict(zip(header, line.split("\t"))))
    return notes, rows


def main():
    *grids, exact = sys.argv[1:]
    notes, rows = [], []
    for g in grids:
        n, r = read(g)
        notes += n
        rows += r
    out = ["# Calibration: the full grid", ""]
    out += ["Made by `bash scripts/calibration.sh` (`warpsim_calibration --grid full --runs 1000`); the runs:", ""]
    out += [f"- {n}" for n in notes] + [""]
    tallies = [r for r in rows if r["verdict"] != "skipped"]
    flagged = [r for r in tallies if r["verdict"] != "ok"]
    cells = OrderedDict()
    for r in rows:
        cells.setdefault((r["subject"], r["family"], r["K"], r["n"], r["rows"]), []).append(r)
    runs = rows[0]["runs"] if rows else "?"
    out += [f"{len(cells)} cells (subject x law x K x n), {runs} runs each; {len(tallies)} tallies that ran, "
            f"{len(flagged)} flagged. A tally is flagged when its rejections pass the bound: a correct check passes it "
            f"with probability 0.001 / (the grid's tallies) (a doubled rate passes it with probability "
            f"{rows[0]['power2x@0.05'] if rows else '?'} at 0.05).", ""]
    for r in flagged:
        out.append(f"- **flagged**: {r['subject']} {r['family']} K={r['K']} n={r['n']}: {r['check']} {r['rej@0.05']} at 0.05, {r['rej@0.01']} at 0.01 of {r['ran']}")
    # the worst rate of each check
    out += ["", "| subject | check | tallies | largest rejections at 0.05 (cell) | largest at 0.01 (cell) | bounds |", "| --- | --- | --- | --- | --- | --- |"]
    checks = OrderedDict()
    for r in tallies:
        checks.setdefault((r["subject"], r["check"]), []).append(r)
    for (subject, check), rs in checks.items():
        w5 = max(rs, key=lambda r: int(r["rej@0.05"]) / int(r["ran"]))
        w1 = max(rs, key=lambda r: int(r["rej@0.01"]) / int(r["ran"]))
        cell = lambda r: f"{r['family']} K={r['K']} n={r['n']}" + (f" rows={r['rows']}" if r["rows"] != "1" else "")
        out.append(f"| {subject} | `{check}` | {len(rs)} | {w5['rej@0.05']}/{w5['ran']} ({cell(w5)}) | {w1['rej@0.01']}/{w1['ran']} ({cell(w1)}) | "
                   f"{w5['bound@0.05']}, {w5['bound@0.01']} |")
    for subject in ("validate", "stats"):
        names = []
        for (s, *_), rs in cells.items():
            if s == subject:
                names = [r["check"] for r in rs]
                break
        if not names:
            continue
        out += ["", f"## {subject}: rejections at 0.05 / at 0.01 of the runs", ""]
        out += ["| law | K | n | rows | " + " | ".join(f"`{c}`" for c in names) + " | bounds | s |",
                "| --- | --- | --- | --- | " + " | ".join("---" for _ in names) + " | --- | --- |"]
        for (s, family, k, n, nrows), rs in cells.items():
            if s != subject:
                continue
            by = {r["check"]: r for r in rs}
            def entry(c):
                r = by.get(c)
                if r is None or r["verdict"] == "skipped":
                    return "-"
                e = f"{r['rej@0.05']}/{r['rej@0.01']}"
                return f"**{e}**" if r["verdict"] != "ok" else e
            some = next(r for r in rs)
            bounds = next((f"{r['bound@0.05']}/{r['bound@0.01']}" for r in rs if r["verdict"] != "skipped"), "-")
            out.append(f"| {family} | {k} | {n} | {nrows} | " + " | ".join(entry(c) for c in names) + f" | {bounds} | {some['seconds']} |")
    enotes, erows = read(exact)
    out += ["", "## Exact rejection probabilities at 0.001", ""]
    out += [f"- {n}" for n in enotes] + [""]
    out += ["Summed over every outcome of n draws (outcomes below 1e-16 counted as rejections: upper bounds).", ""]
    laws = OrderedDict()
    for r in erows:
        laws.setdefault((r["law"], r["n"]), {})[r["check"]] = r
    names = list(next(iter(laws.values())).keys()) if laws else []
    out += ["| law | n | " + " | ".join(names) + " |", "| --- | --- | " + " | ".join("---" for _ in names) + " |"]
    for (law, n), by in laws.items():
        cells_ = []
        for c in names:
            ratio = float(by[c]["ratio"])
            text = f"{float(by[c]['rejection']):.3g}"
            cells_.append(f"**{text}**" if ratio > 1 else text)
        out.append(f"| {law} | {n} | " + " | ".join(cells_) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
