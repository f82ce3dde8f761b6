#!/usr/bin/env python3
"""The third-party samplers' reports (`warpsim validate --format json`, one
file a case, from scripts/device_thirdparty.sh) as the table of
docs/validate.md: the verdict, the checks that decided it with their p-values,
and what a pass rules out.

Usage: thirdparty_summary.py LOGDIR   (reads LOGDIR/*.json; markdown to stdout)"""
import glob
import json
import os
import sys


def g(x):
    return f"{x:.3g}"


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        case = os.path.basename(path)[:-5]
        try:
            r = json.load(open(path))
        except (json.JSONDecodeError, OSError):
            rows.append(f"| `{case}` | | no report | | |")
            continue
        law = r["laws"][0] if r.get("laws") else {}
        failed, passed = [], []
        for c in r["checks"]:
            t = c.get("test")
            if c["outcome"] == "fail":
                failed.append(f"{c['name']} (p = {g(t['p_value'])})" if t else c["name"])
            elif c["outcome"] == "pass" and t:
                passed.append(c)
        rules = []
        for c in passed:
            d = c["test"]["detectable_bias"]
            if c["name"] == "chi_square" and d.get("total_variation") is not None:
                rules.append(f"TV >= {g(d['total_variation'])}")
            if c["name"] == "ks_discrete" and d.get("kolmogorov_distance") is not None:
                rules.append(f"KS >= {g(d['kolmogorov_distance'])}")
            if c["name"] == "per_category_binomial" and d.get("max_relative_error") is not None:
                rules.append(f"one category off by >= {g(100 * d['max_relative_error'])}%")
        verdict = r.get("verdict", "?")
        rows.append(f"| `{case}` | {law.get('draws', '')} | {verdict} | {'; '.join(failed) or '-'} | {'; '.join(rules) or '-'} |")
    print("| case | draws | verdict | failed (p-value) | a pass of these checks rules out (power 0.9) |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
