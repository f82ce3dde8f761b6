#!/usr/bin/env python3
"""Reference p-values from SciPy (and statsmodels for Holm), for the cases
where warpsim's tests and SciPy's compute the same thing. Writes JSON to
stdout; tests/data/scipy_reference.json is its output, and
tests/stats/scipy_reference_test.cpp checks warpsim against it to 1e-9
relative. Run it anywhere SciPy runs (the device machine's python3 has it):

    python3 stats/reference/make_scipy_reference.py > tests/data/scipy_reference.json
"""
import json
import sys

import numpy as np
import scipy
import scipy.special
import scipy.stats as st

rng = np.random.default_rng(20261121)
out = {"generator": "stats/reference/make_scipy_reference.py",
       "scipy": scipy.__version__, "numpy": np.__version__, "cases": {}}
cases = out["cases"]


def probs(k):
    p = rng.random(k) + 0.05
    return p / p.sum()


# Pearson chi-square and G, where every expected count is >= 5 (no pooling).
cases["chi_square"] = []
cases["g_test"] = []
for k, n in [(2, 50), (5, 200), (10, 1000), (32, 5000), (100, 20000), (7, 70)]:
    p = probs(k)
    while (n * p).min() < 5:
        p = probs(k)
    obs = rng.multinomial(n, p).astype(float)
    if k == 7:  # a strong departure, for a tiny p-value
        obs = np.roll(obs, 1)
    exp = n * p
    c = st.chisquare(obs, exp)
    g = st.power_divergence(obs, exp, lambda_="log-likelihood")
    cases["chi_square"].append({"observed": obs.tolist(), "probabilities": p.tolist(),
                                "statistic": float(c.statistic), "p_value": float(c.pvalue)})
    cases["g_test"].append({"observed": obs.tolist(), "probabilities": p.tolist(),
                            "statistic": float(g.statistic), "p_value": float(g.pvalue)})

# Exact two-sided binomial tests.
cases["binomial"] = []
for k, n, p in [(3, 10, 0.5), (0, 20, 0.1), (20, 20, 0.9), (7, 100, 0.03), (60, 100, 0.5), (12, 1000, 0.02),
                (500, 1000, 0.5), (489, 1000, 0.5), (1, 3, 0.9), (250, 10000, 0.03), (41, 200, 0.25)]:
    r = st.binomtest(k, n, p)
    cases["binomial"].append({"k": k, "n": n, "p": p, "p_value": float(r.pvalue)})

# Two-sample KS, exact, no ties: SciPy's exact method and warpsim's lattice
# program compute the same permutation probability.
cases["ks_two_sample_exact"] = []
for n1, n2 in [(5, 7), (10, 10), (20, 15), (40, 60), (3, 50)]:
    x = rng.normal(size=n1)
    y = rng.normal(loc=0.4, size=n2)
    r = st.ks_2samp(x, y, method="exact")
    values = np.concatenate([x, y])
    order = np.argsort(values)
    c1 = [1.0 if i < n1 else 0.0 for i in order]
    c2 = [0.0 if i < n1 else 1.0 for i in order]
    cases["ks_two_sample_exact"].append({"counts1": c1, "counts2": c2, "statistic": float(r.statistic),
                                         "p_value": float(r.pvalue)})

# Kolmogorov's limiting distribution: P(sqrt(n) D >= x).
cases["kolmogorov_limit"] = []
for n, d in [(100, 0.1), (1000, 0.05), (50, 0.2), (10000, 0.005), (400, 0.08)]:
    cases["kolmogorov_limit"].append({"n": n, "d": d, "p_value": float(scipy.special.kolmogorov(np.sqrt(n) * d))})

# Homogeneity of two samples (2 x K contingency table, no continuity correction).
cases["homogeneity"] = []
for k, n1, n2 in [(4, 300, 500), (10, 2000, 1000), (25, 5000, 5000)]:
    p = probs(k)
    a = rng.multinomial(n1, p).astype(float)
    b = rng.multinomial(n2, p).astype(float)
    r = st.chi2_contingency(np.vstack([a, b]), correction=False)
    cases["homogeneity"].append({"counts1": a.tolist(), "counts2": b.tolist(), "statistic": float(r.statistic),
                                 "df": int(r.dof), "p_value": float(r.pvalue)})

# Combining p-values, and multiple-testing adjustments.
cases["combination"] = []
for m in [3, 10, 50]:
    ps = rng.random(m) ** 1.5
    f = st.combine_pvalues(ps, method="fisher")
    s = st.combine_pvalues(ps, method="stouffer")
    cases["combination"].append({"p_values": ps.tolist(), "fisher": float(f.pvalue), "stouffer": float(s.pvalue)})

cases["adjust"] = []
try:
    from statsmodels.stats.multitest import multipletests
    have_statsmodels = True
except ImportError:
    have_statsmodels = False
for m in [5, 20, 100]:
    ps = rng.random(m) ** 3
    entry = {"p_values": ps.tolist(), "bh": st.false_discovery_control(ps, method="bh").tolist()}
    if have_statsmodels:
        entry["holm"] = multipletests(ps, method="holm")[1].tolist()
    cases["adjust"].append(entry)

json.dump(out, sys.stdout, indent=1)
sys.stdout.write("\n")
