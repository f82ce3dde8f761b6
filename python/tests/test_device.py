"""warpsim on device arrays (PyTorch, CuPy, JAX): skipped, saying why, where
no CUDA device or framework is present (scripts/device_python.sh runs them on
the GPU machine)."""

import json

import numpy as np
import pytest

import warpsim

if not warpsim.cuda_available():
    pytest.skip(f"no CUDA device: {warpsim._warpsim.device_unavailable()}", allow_module_level=True)

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA device", allow_module_level=True)


def numbers(report):
    return [(c.name, c.outcome, c.statistic, c.df, c.p, c.n) for c in report.checks]


W = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 0.25, 7.0])


def host_draws(n, seed, p=W):
    return np.random.default_rng(seed).choice(len(p), size=n, p=np.asarray(p) / np.sum(p)).astype(np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_torch_draws_counted_on_the_device_equal_the_hosts(dtype):
    d = host_draws(1_000_003, 1).astype(dtype)
    on_host = warpsim.validate(d, W)
    on_device = warpsim.validate(torch.from_numpy(d).cuda(), torch.from_numpy(W).cuda())
    assert numbers(on_device) == numbers(on_host)
    assert on_device.consistent


def test_device_inconsistent_and_zero_weight():
    w = W.copy()
    w[1] = 0
    d = host_draws(100_000, 2)  # draws index 1, of weight 0 in w
    r = warpsim.validate(torch.from_numpy(d).cuda(), w)
    assert r.check("zero_never_drawn").outcome == "fail"
    assert numbers(r) == numbers(warpsim.validate(d, w))
    bad = d.copy()
    bad[17] = 99
    r2 = warpsim.validate(torch.from_numpy(bad).cuda(), W)
    assert r2.check("in_range").outcome == "fail"
    assert numbers(r2) == numbers(warpsim.validate(bad, W))


def test_rows_that_differ_and_uniforms_from_the_device():
    rng = np.random.default_rng(3)
    w = rng.random((500, 12))
    w /= w.sum(axis=1, keepdims=True)
    d = np.minimum((rng.random(500)[:, None] > np.cumsum(w, axis=1)).sum(axis=1), 11).astype(np.int64)
    assert numbers(warpsim.validate(torch.from_numpy(d).cuda(), torch.from_numpy(w).cuda())) == numbers(warpsim.validate(d, w))


def test_a_non_default_stream_and_a_strided_tensor():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        d = torch.from_numpy(host_draws(200_000, 4)).cuda()
        r = warpsim.validate(d, W)
    assert r.consistent
    with pytest.raises(ValueError, match="contiguous"):
        warpsim.validate(torch.zeros((100, 4), dtype=torch.int32, device="cuda")[:, 1], W)
    with pytest.raises(TypeError, match="float32"):
        warpsim.validate(np.zeros(3, dtype=np.int32), torch.ones(7, dtype=torch.bfloat16, device="cuda"))
    with pytest.raises(TypeError, match="indices"):
        warpsim.validate(torch.zeros(3, device="cuda"), W)


def test_values_from_the_device():
    x = torch.distributions.Gamma(torch.tensor(0.5, device="cuda"), torch.tensor(1.0, device="cuda")).sample((100_000,)).double()
    r = warpsim.validate(x, law="gamma:0.5,1", clamp_low="min-normal")
    assert numbers(r) == numbers(warpsim.validate(x.cpu().numpy(), law="gamma:0.5,1", clamp_low="min-normal"))


def test_cupy_and_jax_arrays():
    d = host_draws(300_000, 5)
    want = numbers(warpsim.validate(d, W))
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        assert numbers(warpsim.validate(cupy.asarray(d), cupy.asarray(W))) == want
    try:
        import jax
        import jax.numpy as jnp
        gpu = [x for x in jax.devices() if x.platform == "gpu"]
    except Exception:
        gpu = []
    if gpu:
        assert numbers(warpsim.validate(jax.device_put(jnp.asarray(d), gpu[0]), W)) == want
    if cupy is None and not gpu:
        pytest.skip("neither CuPy nor JAX on a GPU")


def test_samplers_on_the_device_equal_the_oracle():
    w32 = np.random.default_rng(6).random((33, 5000)).astype(np.float32)
    host = warpsim.multinomial(w32, 4, seed=9)
    dev = warpsim.multinomial(torch.from_numpy(w32).cuda(), 4, seed=9)
    assert np.array_equal(dev.cpu().numpy(), host)
    assert np.array_equal(warpsim.multinomial(torch.from_numpy(w32).cuda(), 4, seed=9, check=False).cpu().numpy(), host)
    with pytest.raises(ValueError, match="weight 3 of row 2"):
        bad = torch.from_numpy(w32).cuda()
        bad[2, 3] = float("nan")
        warpsim.multinomial(bad, 4, seed=9)
    t_host, t_dev = warpsim.AliasTable(W), warpsim.AliasTable(torch.from_numpy(W).cuda())
    assert np.array_equal(t_dev.sample(100_000, seed=3).cpu().numpy(), t_host.sample(100_000, seed=3))
    assert np.array_equal(t_dev.counts(100_000, seed=3).cpu().numpy(), t_host.counts(100_000, seed=3))
    shapes = np.full(10_000, 0.7)
    g_host = warpsim.gamma(shapes, seed=4)
    g_dev = warpsim.gamma(torch.from_numpy(shapes).cuda(), seed=4).cpu().numpy()
    assert np.allclose(g_dev, g_host, rtol=1e-12, atol=0)
    d_dev = warpsim.dirichlet([1.0, 2.0, 3.0], 1000, seed=5, like=torch.zeros(1, device="cuda")).cpu().numpy()
    assert np.allclose(d_dev, warpsim.dirichlet([1.0, 2.0, 3.0], 1000, seed=5), rtol=1e-12, atol=0)


def test_torch_cpu_tensors_and_tensors_that_require_grad():
    d = host_draws(50_000, 7)
    w = torch.tensor(W, requires_grad=True)
    assert numbers(warpsim.validate(torch.from_numpy(d), w)) == numbers(warpsim.validate(d, W))
    r = warpsim.validate(torch.from_numpy(d).cuda(), W)
    assert any(n.startswith("the draws were counted on CUDA device") for n in r.to_dict()["notes"])


def test_token_sampling_on_the_device_equals_the_definition():
    rng = np.random.default_rng(8)
    x = (rng.normal(size=(6, 40_000)) * 3).astype(np.float32)
    x[2, rng.integers(0, 40_000, 5_000)] = -np.inf
    kw = dict(temperature=[0.7, 1.0, 0.0, 1.3, 0.7, 2.0], top_k=[50, 0, 0, 1, 0, 7], top_p=[0.9, 1.0, 1.0, 1.0, 0.5, 0.95],
              min_p=[0.05, 0.0, 0.0, 0.0, 0.0, 0.01], seed=[1, 2, 3, 4, 5, 6], offset=[9, 9, 9, 9, 9, 10])
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        t = torch.from_numpy(x).cuda().to(dtype)
        on_device = warpsim.sample_tokens(t, 16, **kw)
        assert on_device.is_cuda and on_device.dtype == torch.int32
        host = t.float().cpu().numpy()  # the same values as float32
        assert np.array_equal(on_device.cpu().numpy(), warpsim.sample_tokens(host, 16, **kw)), dtype
    bad = torch.from_numpy(x).cuda()
    bad[3, 17] = float("nan")
    with pytest.raises(ValueError, match="row 3"):
        warpsim.sample_tokens(bad, 2)
