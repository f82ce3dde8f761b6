"""Testing a sampler in one line, from pytest or anywhere.

    from warpsim.testing import assert_sampler
    def test_my_sampler():
        assert_sampler(lambda w, n, seed: my_sample(w, n, seed), weights, target_tv=0.01)

``fn(weights, n, seed)`` returns n draws (K weights: n indices; M x K weights:
an M x n array). assert_sampler calls it for as many draws as a pass needs to
rule out, with power 0.9, every law at total-variation distance
``target_tv`` or more (stats/power.hpp), in batches (batch i with seed
``seed + i``), validates them, and raises InconsistentSampler (an
AssertionError carrying the report, and how to replay the draws) if a check
fails.

As a pytest plugin (``pytest_plugins = ["warpsim.testing"]`` in conftest.py):
the fixture ``warpsim_sampler`` is assert_sampler with ``--warpsim-tv`` and
``--warpsim-seed`` from the command line.
"""

import math
import sys

import numpy as np

from . import _warpsim, validate
from ._arrays import describe
from .report import InconsistentSampler


def draws_needed(k, target_tv, alpha=1e-3):
    """Draws that rule out total-variation distance >= target_tv over K categories (power 0.9)."""
    return int(math.ceil(_warpsim.draws_for_total_variation(int(k), float(alpha), float(target_tv))))


def _concatenate(parts, axis):
    fw = type(parts[0]).__module__.split(".")[0]
    if fw == "torch":
        import torch
        return torch.cat(parts, dim=axis)
    if fw == "cupy":
        import cupy
        return cupy.concatenate(parts, axis=axis)
    if fw in ("jax", "jaxlib"):
        import jax.numpy as jnp
        return jnp.concatenate(parts, axis=axis)
    return np.concatenate([np.asarray(p) for p in parts], axis=axis)


def _draw(fn, weights, n, seed, batch, rows, progress):
    parts, done, i = [], 0, 0
    tty = progress if progress is not None else sys.stderr.isatty()
    while done < n:
        b = min(batch, n - done)
        x = fn(weights, b, seed + i)
        parts.append(x)
        done += b
        i += 1
        if tty:
            sys.stderr.write(f"\rwarpsim: drawn {done:,} / {n:,} {'a row' if rows else 'draws'}")
            sys.stderr.flush()
    if tty:
        sys.stderr.write("\r\033[K")
    return parts[0] if len(parts) == 1 else _concatenate(parts, 1 if rows else 0)


def assert_sampler(fn, weights, *, target_tv=0.05, seed=0, alpha=1e-3, batch=1 << 22, max_draws=1 << 32, progress=None, **validate_args):
    """Draws from ``fn`` until a pass would rule out ``target_tv``, validates
    the draws against ``weights``, and returns the report; raises
    InconsistentSampler if it is inconsistent (see the module's docstring)."""
    w = describe(weights, "weights")
    k = w.shape[-1]
    rows = len(w.shape) == 2 and w.shape[0] > 1
    n = draws_needed(k, target_tv, alpha)
    if rows:
        n = max(1, math.ceil(n / w.shape[0]))  # draws a row
    if n > max_draws:
        raise ValueError(f"target_tv={target_tv} over {k} categories needs {n:,} draws, past max_draws={max_draws:,}: ask for a larger target_tv")
    draws = _draw(fn, weights, n, seed, batch, rows, progress)
    report = validate(draws, weights, alpha=alpha, progress=progress, **validate_args)
    if not report.consistent:
        e = InconsistentSampler(report)
        e.args = (
            report.text()
            + f"replay: warpsim.testing.replay(fn, weights, n={n}, seed={seed}, batch={batch}) gives these draws again"
            + " (warpsim.testing.save(draws, weights, 'dir') writes them for `warpsim validate`)",
        )
        raise e
    return report


def replay(fn, weights, *, n, seed=0, batch=1 << 22):
    """The draws assert_sampler judged: the same calls of fn, in the same batches and seeds."""
    w = describe(weights, "weights")
    rows = len(w.shape) == 2 and w.shape[0] > 1
    return _draw(fn, weights, n, seed, batch, rows, False)


def save(draws, weights, directory):
    """Writes weights.npy and draws.npy under ``directory`` (host copies) for
    ``warpsim validate --weights DIR/weights.npy --draws DIR/draws.npy``; returns that command."""
    import os

    os.makedirs(directory, exist_ok=True)

    def host(x):
        if hasattr(x, "get"):  # CuPy
            return x.get()
        if hasattr(x, "cpu"):  # PyTorch
            return x.detach().cpu().numpy()
        return np.asarray(x)

    np.save(os.path.join(directory, "weights.npy"), host(weights))
    np.save(os.path.join(directory, "draws.npy"), host(draws))
    return f"warpsim validate --weights {directory}/weights.npy --draws {directory}/draws.npy"


# pytest plugin: pytest_plugins = ["warpsim.testing"]
def pytest_addoption(parser):
    group = parser.getgroup("warpsim")
    group.addoption("--warpsim-tv", type=float, default=0.05, help="warpsim_sampler's target total-variation distance")
    group.addoption("--warpsim-seed", type=int, default=0, help="warpsim_sampler's first seed")


try:
    import pytest

    @pytest.fixture
    def warpsim_sampler(request):
        """assert_sampler with the command line's --warpsim-tv and --warpsim-seed."""
        tv = request.config.getoption("--warpsim-tv", default=0.05)
        seed = request.config.getoption("--warpsim-seed", default=0)

        def check(fn, weights, **kw):
            kw.setdefault("target_tv", tv)
            kw.setdefault("seed", seed)
            return assert_sampler(fn, weights, **kw)

        return check
except ImportError:  # pytest is optional
    pass
