#!/usr/bin/env python3
"""Exact p-values of the one-sample discrete Kolmogorov-Smirnov test,
P(D >= d) for n draws from a law of K categories in index order, computed
apart from stats/ks_discrete.cpp by another method: the multinomial sum

    P(accept) = n! * sum over count vectors c with every cumulative count
                C_i inside (n F_i - n d, n F_i + n d) of prod_i p_i^c_i / c_i!

as a dynamic program over the cumulative count, in exact rationals for the
bounds and mpmath at 60 digits for the sums (warpsim's program walks the
conditional binomials C_{i+1} - C_i | C_i in doubles). The smallest cases are
also summed by brute force over every outcome, which checks this program.

    /usr/bin/python3 stats/reference/make_ks_discrete_reference.py > tests/data/ks_discrete_reference.json

(Debian's python3-mpmath; tests/stats/ks_reference_test.cpp reads the file.)
"""
import itertools
import json
import math
from fractions import Fraction

import mpmath

mpmath.mp.dps = 60


def bounds(weights, n, d):
    """Accepted cumulative counts after each category: n F_i - n d < C_i < n F_i + n d."""
    total = sum(weights)
    out, f = [], Fraction(0)
    for w in weights:
        f += Fraction(w, total)
        lo = math.floor(n * f - n * d) + 1
        hi = math.ceil(n * f + n * d) - 1
        out.append((max(lo, 0), min(hi, n)))
    return out


def p_value(weights, n, d):
    total = sum(weights)
    p = [mpmath.mpf(w) / total for w in weights]
    f = {0: mpmath.mpf(1)}  # cumulative count -> sum of prod p^c / c!
    for (lo, hi), pi in zip(bounds(weights, n, d), p):
        g = {}
        for m, v in f.items():
            for c in range(max(lo - m, 0), hi - m + 1):
                g[m + c] = g.get(m + c, mpmath.mpf(0)) + v * pi ** c / mpmath.factorial(c)
        f = g
    accept = mpmath.factorial(n) * f.get(n, mpmath.mpf(0))
    return 1 - accept


def brute(weights, n, d):
    total = sum(weights)
    k = len(weights)
    p = [Fraction(w, total) for w in weights]
    reject = Fraction(0)
    for c in itertools.product(range(n + 1), repeat=k - 1):
        if sum(c) > n:
            continue
        c = list(c) + [n - sum(c)]
        pr = Fraction(math.factorial(n))
        for ci, pi in zip(c, p):
            pr = pr * pi ** ci / math.factorial(ci)
        cum, f, dd = 0, Fraction(0), Fraction(0)
        for ci, pi in zip(c, p):
            cum += ci
            f += pi
            dd = max(dd, abs(Fraction(cum, n) - f))
        if dd >= d:
            reject += pr
    return reject


# Weights over odd totals (7, 13, 31, 97, ...) and thresholds of four
# decimals: no cumulative count lies exactly n d from n F_i, so "<" and "<="
# agree and a double computation can match a rational one.
CASES = [
    ([3, 4], [5, 20, 100, 400], ["0.1113", "0.2503", "0.3571"]),
    ([1, 5, 7], [10, 30, 120], ["0.0731", "0.1577", "0.2503"]),
    ([1, 1, 1, 1, 9], [12, 50, 200], ["0.0731", "0.1113", "0.2041"]),
    ([2, 3, 5, 7, 11, 13, 17, 19, 23, 29], [20, 60, 250], ["0.0731", "0.1113", "0.1577", "0.2503"]),
    ([1] * 19 + [12], [40, 150], ["0.0731", "0.1113", "0.2041"]),
    ([1, 1000, 1, 1000, 1, 1000, 3], [50, 300], ["0.0431", "0.0731", "0.1113"]),
]

out = {"generator": "stats/reference/make_ks_discrete_reference.py", "mpmath": mpmath.__version__,
       "method": "multinomial sum over cumulative counts, exact bounds, 60 digits", "cases": []}
for weights, ns, ds in CASES:
    for n in ns:
        for d in ds:
            pv = p_value(weights, n, Fraction(d))
            case = {"weights": weights, "n": n, "d": float(d), "p_value": float(pv), "p_value_text": mpmath.nstr(pv, 25)}
            if len(weights) <= 3 and n <= 30:
                b = brute(weights, n, Fraction(d))
                assert abs(float(b) - float(pv)) <= 1e-15 + 1e-12 * float(b), (weights, n, d, float(b), float(pv))
                case["brute_force"] = float(b)
            out["cases"].append(case)
print(json.dumps(out, indent=1))
