"""warpsim.sample_tokens on host arrays: the token law's definition
(docs/tokens.md), the command's draws, every parameter per row, the logit
types; bad logits and parameters raise naming the row."""

import json
import os
import subprocess

import numpy as np
import pytest

import warpsim

RNG = np.random.default_rng(5)
X = (RNG.normal(size=(4, 700)) * 3).astype(np.float32)


def test_replays_by_seed_and_offset_and_steps_afresh():
    a = warpsim.sample_tokens(X, 8, temperature=0.7, top_p=0.9, seed=3, offset=10)
    assert a.dtype == np.int32 and a.shape == (4, 8)
    assert np.array_equal(a, warpsim.sample_tokens(X, 8, temperature=0.7, top_p=0.9, seed=3, offset=10))
    assert not np.array_equal(a, warpsim.sample_tokens(X, 8, temperature=0.7, top_p=0.9, seed=3, offset=11))
    one = warpsim.sample_tokens(X[1], 8, temperature=0.7, top_p=0.9, seed=warpsim.request_seed(3, 1), offset=10)  # a row alone
    assert one.shape == (8,) and np.array_equal(one, a[1])
    # batches of nearby seeds share no request (seed + r would make row 1 of seed 3 row 0 of seed 4)
    b = warpsim.sample_tokens(X[[1, 0, 2, 3]], 8, temperature=0.7, top_p=0.9, seed=4, offset=10)
    assert not np.array_equal(b[0], a[1])
    # a list of one seed for several rows is the batch's seed, as the scalar is
    assert np.array_equal(warpsim.sample_tokens(X, 8, temperature=0.7, top_p=0.9, seed=[3], offset=10), a)
    assert [warpsim.request_seed(0, r) for r in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]  # SplitMix64's


def test_per_row_parameters_are_each_rows_own():
    t, k, p, mp = [0.5, 1.0, 0.0, 2.0], [0, 20, 0, 5], [0.9, 1.0, 1.0, 0.5], [0.0, 0.1, 0.0, 0.0]
    seeds, offsets = [1, 2, 3, 4], [7, 7, 8, 9]
    a = warpsim.sample_tokens(X, 5, temperature=t, top_k=k, top_p=p, min_p=mp, seed=seeds, offset=offsets)
    for r in range(4):
        alone = warpsim.sample_tokens(X[r], 5, temperature=t[r], top_k=k[r], top_p=p[r], min_p=mp[r], seed=seeds[r], offset=offsets[r])
        assert np.array_equal(a[r], alone)
    assert (a[2] == np.argmax(X[2])).all()  # temperature 0: greedy


def test_truncations_keep_what_the_law_keeps():
    x = np.array([5, 1, 3, 3, 3, 0], dtype=np.float32)
    d = warpsim.sample_tokens(x, 4000, top_k=2, seed=1)
    assert set(np.unique(d)) == {0, 2, 3, 4}  # the 2nd largest tied three ways: all kept
    d = warpsim.sample_tokens(x, 4000, temperature=1e-3, seed=1)
    assert set(np.unique(d)) == {0}


def test_bfloat16_and_float16_are_read_as_their_values():
    ml = pytest.importorskip("ml_dtypes", reason="ml_dtypes (numpy's bfloat16) is not installed")
    b = X.astype(ml.bfloat16)
    assert np.array_equal(warpsim.sample_tokens(b, 4, seed=2), warpsim.sample_tokens(b.astype(np.float32), 4, seed=2))


def test_float16_is_read_as_its_values():
    h = X.astype(np.float16)
    assert np.array_equal(warpsim.sample_tokens(h, 6, top_k=30, seed=2), warpsim.sample_tokens(h.astype(np.float32), 6, top_k=30, seed=2))


def test_the_commands_draws(tmp_path):
    exe = os.environ.get("WARPSIM_CLI")
    if not exe:
        pytest.skip("WARPSIM_CLI is not set (ctest sets it: the command)")
    np.save(tmp_path / "x.npy", X)
    r = subprocess.run([exe, "sample", str(tmp_path / "x.npy"), "--temperature", "0.8", "--top-k", "40", "--top-p", "0.9",
                        "--min-p", "0.02", "--seed", "11", "--offset", "5", "--draws", "6", "--format", "json"],
                       capture_output=True, text=True, check=True)
    want = np.array(json.loads(r.stdout)["draws"])
    got = warpsim.sample_tokens(X, 6, temperature=0.8, top_k=40, top_p=0.9, min_p=0.02, seed=11, offset=5)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("logits, kwargs, message", [
    (np.array([1.0, np.nan], dtype=np.float32), {}, "logit 1 is NaN"),
    (np.array([[1.0, 2.0], [np.inf, 0.0]], dtype=np.float32), {}, "row 1: logit 0 is +inf"),
    (np.array([-np.inf, -np.inf], dtype=np.float32), {}, "every logit is -inf"),
    (X, {"top_p": 0.0}, "top_p must lie in (0, 1]"),
    (X, {"temperature": [1.0, 1.0, -1.0, 1.0]}, "row 2: temperature must be finite and >= 0"),
    (X, {"top_k": [1, 2]}, "top_k has 2 values; give one, or one a row (4)"),
    (X, {"seed": -1}, "seed must lie in [0, 2^64)"),
])
def test_bad_logits_and_parameters_raise_naming_the_row(logits, kwargs, message):
    with pytest.raises(ValueError) as e:
        warpsim.sample_tokens(logits, 2, **kwargs)
    assert message in str(e.value)


def test_types_it_does_not_read_raise_type_error():
    with pytest.raises(TypeError):
        warpsim.sample_tokens(X.astype(np.float64), 2)
    with pytest.raises(TypeError):
        warpsim.sample_tokens(X, 2, temperature="hot")


def test_probabilities_are_the_law_the_draws_follow():
    x = np.array([2.0, 0.5, -1.0, 1.5, -np.inf, 0.0], dtype=np.float32)
    p = warpsim.token_probabilities(x, temperature=0.7, top_k=4)
    assert p.dtype == np.float64 and p[4] == 0 and p[2] == 0 and abs(p.sum() - 1) < 1e-12
    d = warpsim.sample_tokens(x, 200_000, temperature=0.7, top_k=4, seed=9)
    assert np.abs(np.bincount(d, minlength=6) / 200_000 - p).max() < 0.005
    assert warpsim.validate(d.astype(np.int64), p).consistent
