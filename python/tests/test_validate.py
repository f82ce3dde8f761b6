"""warpsim.validate on NumPy arrays: the command's checks and numbers."""

import json
import os
import subprocess

import numpy as np
import pytest

import warpsim


def law_draws(p, n, seed, dtype=np.int32):
    rng = np.random.default_rng(seed)
    return rng.choice(len(p), size=n, p=np.asarray(p) / np.sum(p)).astype(dtype)


W = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 0.25])


def test_imports_and_says_where_it_runs():
    assert isinstance(warpsim.cuda_available(), bool)
    assert warpsim.__version__


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_one_law_consistent(dtype):
    r = warpsim.validate(law_draws(W, 200_000, 1, dtype), W)
    assert r.consistent, r.text()
    assert bool(r)
    chi = r.check("chi_square")
    assert chi.outcome == "pass" and chi.n == 200_000 and 0 <= chi.p <= 1 and chi.df is not None
    assert chi.rules_out["total_variation"] > 0
    r.raise_if_inconsistent()


def test_one_law_inconsistent():
    q = W.copy()
    q[0] *= 1.1  # category 0 ten percent heavy
    r = warpsim.validate(law_draws(q, 400_000, 2), W)
    assert not r.consistent
    assert "chi_square" in [c.name for c in r.failed()]
    with pytest.raises(warpsim.InconsistentSampler) as e:
        r.raise_if_inconsistent()
    assert e.value.report is r
    assert isinstance(e.value, AssertionError)


def test_out_of_range_and_zero_weight_are_the_samplers_failures():
    w = np.array([1.0, 0.0, 1.0])
    d = np.array([0, 2, 0, 2, 1], dtype=np.int32)
    r = warpsim.validate(d, w)
    assert r.check("zero_never_drawn").outcome == "fail"
    d2 = np.array([0, 2, 3], dtype=np.int32)
    assert warpsim.validate(d2, w).check("in_range").outcome == "fail"


def softmax_rows(m, k, seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(m, k)) * 2
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def test_rows_that_differ_one_draw_a_row():
    w = softmax_rows(1000, 8, 3)
    rng = np.random.default_rng(4)
    u = rng.random(len(w))
    good = (u[:, None] > np.cumsum(w, axis=1)).sum(axis=1).astype(np.int64)
    good = np.minimum(good, w.shape[1] - 1)
    # alpha 0.01: the rows' simulated nulls take 10 / alpha replicates, and this runs under ASan in CI
    r = warpsim.validate(good, w, alpha=0.01)
    assert r.consistent, r.text()
    names = [c.name for c in r.checks]
    assert "rows_score" in names and "pit_heaviest" in names
    # the temperature ignored: rows drawn from w^(1/2), renormalised
    hot = np.sqrt(w)
    hot /= hot.sum(axis=1, keepdims=True)
    bad = np.minimum((u[:, None] > np.cumsum(hot, axis=1)).sum(axis=1), w.shape[1] - 1).astype(np.int64)
    r2 = warpsim.validate(bad, w, alpha=0.01)
    assert not r2.consistent


def test_values_from_a_continuous_law():
    rng = np.random.default_rng(5)
    assert warpsim.validate(rng.gamma(0.5, size=50_000), law="gamma:0.5,1").consistent
    r = warpsim.validate(rng.gamma(0.55, size=50_000), law="gamma:0.5,1")
    assert not r.consistent
    assert warpsim.validate(rng.normal(size=20_000).astype(np.float32), law="normal:0,1").consistent


def test_report_views():
    r = warpsim.validate(law_draws(W, 10_000, 6), W)
    assert r.to_html().lstrip().lower().startswith("<!doctype html")
    assert r._repr_html_() == r.to_html()
    j = json.loads(r.to_json())
    assert [c["name"] for c in j["checks"]] == [c.name for c in r.checks]
    assert "verdict" in r.text()


def cli():
    path = os.environ.get("WARPSIM_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("WARPSIM_CLI (the warpsim command of this build) not set: run through ctest")
    return path


def numbers(report_json):
    out = []
    for c in report_json["checks"]:
        t = c.get("test") or {}
        out.append((c["name"], c["outcome"], t.get("statistic"), t.get("df"), t.get("p_value"), t.get("sample_size")))
    return out


@pytest.mark.parametrize("case", ["one-law", "rows", "uniforms"])
def test_reports_equal_the_commands(tmp_path, case):
    if case == "rows":
        w = softmax_rows(200, 6, 7)
        d = law_draws(np.ones(6), 200, 8, np.int64)  # uniform draws: inconsistent with these rows
        extra = {"alpha": 0.01}
    elif case == "uniforms":
        w = np.array([1.0, 3.0, 2.0], dtype=np.float32)
        u = np.random.default_rng(9).random(5000).astype(np.float32)
        c = np.cumsum(w.astype(np.float64)) / w.sum()
        d = np.searchsorted(c, u, side="right").astype(np.int32)
        extra = {"uniforms": u}
    else:
        w, d, extra = W, law_draws(W, 30_000, 10), {}
    np.save(tmp_path / "w.npy", w)
    np.save(tmp_path / "d.npy", d)
    args = [cli(), "validate", "--weights", str(tmp_path / "w.npy"), "--draws", str(tmp_path / "d.npy"), "--format", "json"]
    for k, v in extra.items():
        if k == "alpha":
            args += ["--alpha", str(v)]
            continue
        np.save(tmp_path / f"{k}.npy", v)
        args += [f"--{k}", str(tmp_path / f"{k}.npy")]
    run = subprocess.run(args, capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    from_file = json.loads(run.stdout)
    report = warpsim.validate(d, w, **extra)
    assert numbers(json.loads(report.to_json())) == numbers(from_file)
    assert (run.returncode == 0) == report.consistent


def test_values_report_equals_the_commands(tmp_path):
    x = np.random.default_rng(11).exponential(2.0, size=20_000)
    np.save(tmp_path / "x.npy", x)
    run = subprocess.run([cli(), "validate", "--values", str(tmp_path / "x.npy"), "--law", "exponential:0.5", "--format", "json"],
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    assert numbers(json.loads(warpsim.validate(x, law="exponential:0.5").to_json())) == numbers(json.loads(run.stdout))
