"""warpsim's samplers on NumPy arrays, and warpsim.testing."""

import numpy as np
import pytest

import warpsim
from warpsim.testing import assert_sampler, draws_needed, replay, save

W = np.array([1.0, 2.0, 3.0, 4.0, 0.5])


def test_multinomial_is_reproducible_and_right():
    a = warpsim.multinomial(W, 20_000, seed=3)
    assert a.dtype == np.int32 and a.shape == (20_000,)
    assert np.array_equal(a, warpsim.multinomial(W, 20_000, seed=3))
    assert not np.array_equal(a, warpsim.multinomial(W, 20_000, seed=4))
    assert warpsim.validate(a, W).consistent
    m = np.tile(W, (3, 1)).astype(np.float32)
    out = np.empty((3, 7), dtype=np.int32)
    assert warpsim.multinomial(m, 7, seed=1, out=out) is out


def test_alias_table_counts_are_its_draws_counted():
    t = warpsim.AliasTable(W)
    assert len(t) == len(W)
    d = t.sample(30_000, seed=5)
    assert d.dtype == np.uint32
    assert np.array_equal(np.bincount(d, minlength=len(W)), t.counts(30_000, seed=5))
    assert warpsim.validate(d.astype(np.int64), W).consistent


def test_gamma_and_dirichlet():
    x = warpsim.gamma(0.5, 20_000, seed=2)
    assert warpsim.validate(x, law="gamma:0.5,1").consistent
    assert np.array_equal(x, warpsim.gamma(np.full(20_000, 0.5), seed=2))
    d = warpsim.dirichlet([1.0, 2.0, 3.0], 1000, seed=1)
    assert d.shape == (1000, 3) and np.allclose(d.sum(axis=1), 1)
    assert warpsim.validate(np.ascontiguousarray(d[:, 0]), law="beta:1,5").consistent


def numpy_sampler(weights, n, seed):
    p = np.asarray(weights, dtype=np.float64)
    return np.random.default_rng(seed).choice(len(p), size=n, p=p / p.sum()).astype(np.int32)


def off_by_one_sampler(weights, n, seed):
    return np.minimum(numpy_sampler(weights, n, seed) + (np.random.default_rng(seed + 99).random(n) < 0.1), len(weights) - 1).astype(np.int32)


def test_assert_sampler_passes_a_right_sampler_and_fails_a_wrong_one():
    report = assert_sampler(numpy_sampler, W, target_tv=0.02, seed=1, batch=50_000)
    assert report.consistent and report.check("chi_square").n == draws_needed(len(W), 0.02)
    with pytest.raises(warpsim.InconsistentSampler) as e:
        assert_sampler(off_by_one_sampler, W, target_tv=0.01, seed=1)
    assert not e.value.report.consistent
    assert "replay" in str(e.value)
    n = draws_needed(len(W), 0.01)
    again = replay(off_by_one_sampler, W, n=n, seed=1)
    assert len(again) == n and not warpsim.validate(again, W).consistent


def test_save_writes_what_the_command_reads(tmp_path):
    d = numpy_sampler(W, 100, 0)
    cmd = save(d, W, str(tmp_path / "case"))
    assert np.array_equal(np.load(tmp_path / "case" / "draws.npy"), d)
    assert cmd.startswith("warpsim validate --weights")


def test_the_pytest_fixture(warpsim_sampler):
    assert warpsim_sampler(numpy_sampler, W, target_tv=0.05).consistent
