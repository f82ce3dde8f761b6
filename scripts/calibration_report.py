#!/usr/bin/env python3
"""The calibration harness's logs (warpsim_calibration's TSV: one or more
parts of the laws' grid, its --exact-tails TSV, and optionally the rows'
grids, --rows full and --rows power) as the markdown tables of
docs/calibration/TABLES.md.

Usage: calibration_report.py GRID.tsv [GRID2.tsv ...] EXACT.tsv [--rows ROWS_FULL.tsv ROWS_POWER.tsv] > TABLES.md"""
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


def entry(by, check):
    """A tally's rejections at both levels, bold where flagged, "-" where skipped."""
    r = by.get(check)
    if r is None or r["verdict"] == "skipped":
        return "-"
    e = f"{r['rej@0.05']}/{r['rej@0.01']}"
    return f"**{e}**" if r["verdict"] == "FLAGGED" else e


def rows_tables(full, power):
    out = []
    notes, rows = read(full)
    out += ["", "## Rows that differ: correct samplers", ""] + [f"- {n}" for n in notes] + [""]
    informational = {"score_normal"}
    tallies = [r for r in rows if r["verdict"] != "skipped"]
    flagged = [r for r in tallies if r["verdict"] == "FLAGGED" and r["check"] not in informational]
    limit = [r for r in tallies if r["verdict"] == "FLAGGED" and r["check"] in informational]
    out += [f"{len(tallies)} tallies that ran, {len(flagged)} flagged among validate's checks. Each check: rejections at 0.05 / at 0.01; "
            f"the report: at alpha 0.05 / at its default 0.001. `score_normal` is the score's normal limit, set beside the checks for "
            f"comparison (not one of them): flagged {len(limit)} times.", ""]
    for r in flagged:
        out.append(f"- **flagged**: {r['family']} M={r['M']} K={r['K']} S={r['S']}: {r['check']} {r['rej@0.05']}/{r['rej@0.01']} of {r['ran']}")
    cells = OrderedDict()
    for r in rows:
        cells.setdefault((r["family"], r["M"], r["K"], r["S"]), []).append(r)
    names = [r["check"] for r in next(iter(cells.values()))] if cells else []
    out += ["| law | M | K | S | runs | " + " | ".join(f"`{c}`" for c in names) + " | s |",
            "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in names) + " | --- |"]
    for key, rs in cells.items():
        by = {r["check"]: r for r in rs}
        out.append("| " + " | ".join(key) + f" | {rs[0]['runs']} | " + " | ".join(entry(by, c) for c in names) + f" | {rs[0]['seconds']} |")
    notes, rows = read(power)
    out += ["", "## Rows that differ: the faults (power)", ""] + [f"- {n}" for n in notes] + [""]
    out += ["Each check: runs whose p-value fell at or below 0.01; the report: runs INCONSISTENT at alpha 0.001 (what a user gets).", ""]
    cells = OrderedDict()
    for r in rows:
        cells.setdefault((r["fault"], r["family"], r["M"], r["K"], r["S"]), []).append(r)
    names = [r["check"] for r in next(iter(cells.values()))] if cells else []
    out += ["| fault | law | M | K | S | runs | **report at 0.001** | " + " | ".join(f"`{c}`" for c in names if c != "report") + " |",
            "| --- | --- | --- | --- | --- | --- | --- | " + " | ".join("---" for c in names if c != "report") + " |"]
    for key, rs in cells.items():
        by = {r["check"]: r for r in rs}
        rep = by["report"]
        out.append("| " + " | ".join(key) + f" | {rs[0]['runs']} | **{rep['rej@0.01']}** | " +
                   " | ".join("-" if by[c]["ran"] == "0" else by[c]["rej@0.01"] for c in names if c != "report") + " |")
    return out


def main():
    args = sys.argv[1:]
    rows_files = None
    if "--rows" in args:
        i = args.index("--rows")
        rows_files = args[i + 1:i + 3]
        args = args[:i]
    *grids, exact = args
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
            f"{tallies[0]['power2x@0.05'] if tallies else '?'} at 0.05).", ""]
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
            some = next(r for r in rs)
            bounds = next((f"{r['bound@0.05']}/{r['bound@0.01']}" for r in rs if r["verdict"] != "skipped"), "-")
            out.append(f"| {family} | {k} | {n} | {nrows} | " + " | ".join(entry(by, c) for c in names) + f" | {bounds} | {some['seconds']} |")
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
    if rows_files:
        out += rows_tables(*rows_files)
    print("\n".join(out))


if __name__ == "__main__":
    main()
