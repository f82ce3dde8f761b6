"""warpsim from Python: is a sampler right? And warpsim's own samplers.

    import warpsim
    report = warpsim.validate(draws, weights)          # indices from K weights, or M x K (a law a row)
    report = warpsim.validate(values, law="gamma:0.5,1")  # floats from a continuous law
    report.consistent, report.checks, report.to_html(), report.raise_if_inconsistent()

Arrays are read in place: NumPy on the host; PyTorch, JAX and CuPy arrays on a
GPU without a copy (``__cuda_array_interface__`` or DLPack), the draws of one
law counted on the GPU on the caller's current stream. The checks and numbers
are ``warpsim validate``'s: the same C++ code judges a file and an array.

Samplers (NumPy: the oracle; PyTorch and CuPy device arrays: the CUDA kernels;
the same draws for the same seed): ``multinomial``, ``AliasTable``,
``gamma``, ``dirichlet``. Testing helpers: ``warpsim.testing``.
"""

import numpy as np

from . import _warpsim
from ._arrays import describe, stream_handle
from .report import Check, InconsistentSampler, Report

__all__ = ["validate", "Report", "Check", "InconsistentSampler", "multinomial", "sample_tokens", "token_probabilities", "request_seed", "AliasTable", "gamma", "dirichlet",
           "cuda_available"]
__version__ = "0.1.0"


def cuda_available():
    """True when this build has CUDA and a device can be used."""
    return _warpsim.built_with_cuda() and _warpsim.device_unavailable() == ""


def _place(d):
    return "the host" if d.device < 0 else f"CUDA device {d.device}"


def validate(draws, weights=None, *, law=None, uniforms=None, row_seeds=None, alpha=1e-3, dtype=None, adds_in_order=False,
             rounded_to=None, clamp_low=None, clamp_high=None, stream=None, progress=None):
    """Judges a sampler's output; returns a Report (``warpsim validate``'s).

    Indices from weights (``warpsim validate --weights --draws``):
      draws    integer indices: any shape for one law (K weights); for M x K
               weights (a law a row), M (one draw a row) or M x S
      weights  K weights (one law) or M x K (rows that differ are judged draw
               by draw against their own row's law); float32 or float64 (the
               sampler's precision), or integers with ``dtype``
      uniforms the u each draw used (shaped as draws): each draw is also
               checked against the scalar definition and its rounding bound
      row_seeds one seed a row (rows that differ): pairs of rows of equal
               seeds are left out of the independence check
      dtype    "f32" | "f64": the sampler's precision where the weights' type
               does not say (integers)
      adds_in_order  the sampler adds each row in index order: with uniforms,
               each draw must equal the scalar definition exactly

    Values from a continuous law (``warpsim validate --values --law``):
      law      "normal:0,1", "gamma:0.5,2", "beta:2,3", "table:cdf.txt", ...
      rounded_to  "bf16" | "f16" | "f32" | "f64": the precision the values were
               rounded to, where coarser than the array's
      clamp_low, clamp_high  a clamping sampler's clamp (a number as text, or
               "min-normal"): values there stand for the law's mass beyond

    alpha: the report's false-positive rate (the checks split it). progress:
    a progress line on standard error (default: when it is a terminal).
    stream: the CUDA stream device arrays are ordered on (default: the one
    their producer names, see warpsim._arrays).
    """
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not (0 < alpha < 1):
        raise ValueError(f"alpha must be a number in (0, 1) ({alpha!r} given)")
    show = True if progress is None else bool(progress)
    if law is not None:
        if weights is not None:
            raise ValueError("give weights (indices drawn from a discrete law) or law (values from a continuous law), not both")
        for name, v in (("uniforms", uniforms), ("row_seeds", row_seeds), ("dtype", dtype)):
            if v is not None:
                raise ValueError(f"{name} goes with weights, not with law")
        if not isinstance(law, str):
            raise TypeError(f"law must be a string such as 'gamma:0.5,1' ({type(law).__name__} given)")
        v = describe(draws, "values", stream=stream)
        core = _warpsim.validate_values(v.desc, law, float(alpha), rounded_to, _clamp(clamp_low), _clamp(clamp_high), show)
        return Report(core)
    if weights is None:
        raise ValueError("give weights (the law of indices) or law= (a continuous law of values)")
    for name, v in (("rounded_to", rounded_to), ("clamp_low", clamp_low), ("clamp_high", clamp_high)):
        if v is not None:
            raise ValueError(f"{name} goes with law= (values), not with weights")
    if dtype not in (None, "f32", "f64"):
        raise ValueError(f"dtype must be 'f32' or 'f64' ({dtype!r} given)")
    d = describe(draws, "draws", stream=stream)
    if d.typestr[1] == "f":
        raise TypeError(f"draws holds floats ({d.typestr}); draws are indices, an integer array (int32 or int64). "
                        "For values from a continuous law pass law=")
    w = describe(weights, "weights", stream=stream)
    u = describe(uniforms, "uniforms", stream=stream) if uniforms is not None else None
    s = describe(row_seeds, "row_seeds", stream=stream) if row_seeds is not None else None
    for name, other in (("weights", w), ("uniforms", u), ("row_seeds", s)):
        if other is not None and other.device >= 0 and d.device >= 0 and other.device != d.device:
            raise ValueError(f"draws lie on {_place(d)} and {name} on {_place(other)}: put them on one device (weights may be on the host)")
    if u is not None and u.device != d.device:
        raise ValueError(f"draws lie on {_place(d)} and uniforms on {_place(u)}: one uniform a draw, in one place")
    core = _warpsim.validate_draws(w.desc, d.desc, u.desc if u else None, s.desc if s else None, float(alpha), dtype, bool(adds_in_order), show)
    return Report(core)


def _clamp(c):
    if c is None:
        return None
    if isinstance(c, str):
        return c
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return repr(float(c))
    raise TypeError(f"a clamp is a number or 'min-normal' ({type(c).__name__} given)")


def _framework(x):
    return type(x).__module__.split(".")[0]


def _empty_like_place(like, shape, dtype, zero=False):
    """An array of `dtype` ("int32", "uint32", "uint64", "float32", "float64")
    where `like` lies, uninitialised or (zero) zeroed."""
    fw = _framework(like)
    if fw == "torch":
        import torch
        if dtype.startswith("uint"):  # PyTorch's unsigned types: made as their signed twins, viewed
            signed = getattr(torch, dtype[1:])
            return (torch.zeros if zero else torch.empty)(shape, dtype=signed, device=like.device).view(getattr(torch, dtype))
        return (torch.zeros if zero else torch.empty)(shape, dtype=getattr(torch, dtype), device=like.device)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return (cupy.zeros if zero else cupy.empty)(shape, dtype=dtype)
    if fw in ("jax", "jaxlib"):
        raise TypeError("JAX arrays are immutable: warpsim's samplers write PyTorch, CuPy or NumPy arrays (pass one, or out=)")
    return (np.zeros if zero else np.empty)(shape, dtype=dtype)


def _seed(seed):
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not (0 <= int(seed) < 2**64):
        raise ValueError(f"seed must be a whole number in [0, 2^64) ({seed!r} given)")
    return int(seed)


def multinomial(weights, num_samples, replacement=True, *, seed=0, out=None, stream=None, check=True):
    """``num_samples`` draws from each row of ``weights`` (K, or M x K), as
    torch.multinomial(weights, num_samples, replacement=True): out[r, s] is
    draw s of row r by the sum-tree draw (every draw the oracle's, resolving
    2^-36 of a row), from rng::uniform<double>(seed, r, s). int32 indices, in
    ``out`` if given, else a new array where the weights lie. ``check``:
    refuse NaN, infinite or negative weights and rows of total 0 (on a device
    one more pass over the weights; check=False skips it, as the C++ API does,
    and then such weights draw unspecified indices). Asynchronous on the
    stream for device arrays when check=False."""
    if not replacement:
        raise ValueError("replacement=False is not offered: the sum-tree draw draws with replacement")
    if not isinstance(num_samples, (int, np.integer)) or isinstance(num_samples, bool):
        raise TypeError(f"num_samples must be an int ({type(num_samples).__name__} given)")
    w = describe(weights, "weights", stream=stream)
    shape = (w.shape[0], int(num_samples)) if len(w.shape) == 2 else (int(num_samples),)
    if out is None:
        if num_samples < 1:
            raise ValueError(f"num_samples must be >= 1 ({num_samples} given)")
        out = _empty_like_place(weights, shape, "int32")
    o = describe(out, "out", stream=w.stream)
    _warpsim.multinomial(w.desc, o.desc, int(num_samples), _seed(seed), bool(check))
    return out


def _per_row(value, name, convert):
    """A parameter of sample_tokens as a list: one value, or one a row."""
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            raise ValueError(f"{name} is empty")
        return [convert(v, name) for v in value]
    return [convert(value, name)]


def _as_float(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number or one a row ({type(v).__name__} given)")
    return float(v)


def _as_int(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number or one a row ({type(v).__name__} given)")
    return int(v)


def _as_u64(v, name):
    v = _as_int(v, name)
    if not 0 <= v < 2**64:
        raise ValueError(f"{name} must lie in [0, 2^64) ({v} given)")
    return v


def sample_tokens(logits, draws=1, *, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, seed=0, offset=0, out=None, stream=None):
    """Tokens from ``logits`` (K, or M x K; float32, float16 or bfloat16) as
    an LLM server draws them: softmax(logits / temperature), then top-k,
    top-p and min-p in that order, by the exact law of docs/tokens.md
    (oracle/token/token_law.hpp). ``out[r, j]`` is draw j of row r from
    (seed_r, offset_r, j): a request's seed and step, so the same request and
    step replay the same tokens and the next step draws afresh. Every
    parameter is one value or one a row. One seed for M x K logits is the
    batch's, row r being the request of ``request_seed(seed, r)``
    (SplitMix64's output r + 1 from the seed: batches of nearby seeds share
    no request); K logits are one request, of the seed given. Host arrays are drawn by the
    definition, device arrays by the CUDA kernels (gpu/token_sampler.hpp),
    the same draws. int32 indices, in ``out`` if given, else a new array where
    the logits lie. temperature 0 is greedy (the first largest logit); top_k 0,
    top_p 1 and min_p 0 are off. A row whose logits hold a NaN or +inf, or
    are all -inf, raises ValueError naming the row."""
    if not isinstance(draws, (int, np.integer)) or isinstance(draws, bool):
        raise TypeError(f"draws must be an int ({type(draws).__name__} given)")
    x = describe(logits, "logits", stream=stream, halves=True)
    shape = (x.shape[0], int(draws)) if len(x.shape) == 2 else (int(draws),)
    if out is None:
        if draws < 1:
            raise ValueError(f"draws must be >= 1 ({draws} given)")
        out = _empty_like_place(logits, shape, "int32")
    o = describe(out, "out", stream=x.stream)
    _warpsim.sample_tokens(x.desc, o.desc, _per_row(temperature, "temperature", _as_float), _per_row(top_k, "top_k", _as_int),
                           _per_row(top_p, "top_p", _as_float), _per_row(min_p, "min_p", _as_float), _per_row(seed, "seed", _as_u64),
                           _per_row(offset, "offset", _as_u64), int(draws), len(x.shape) == 2 and _is_one_value(seed))
    return out


def _is_one_value(v):
    return not isinstance(v, (list, tuple)) and not (hasattr(v, "tolist") and not isinstance(v, (int, float)) and np.ndim(v) > 0)


def request_seed(seed, row):
    """Row ``row``'s request seed in a batch given one seed (sample_tokens,
    ``warpsim sample``): SplitMix64's output row + 1 from ``seed``
    (rng/philox_uniform.hpp), so a row alone replays as
    ``sample_tokens(x[row], seed=request_seed(seed, row))``."""
    return _warpsim.request_seed(_seed(seed), int(_seed(row)))


def token_probabilities(logits, *, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    """The law sample_tokens draws from, exactly (docs/tokens.md): for host
    ``logits`` (K, or M x K; float32, float16 or bfloat16), each row's
    p_i = q_i / W (its kept quanta over their sum) as float64, 0 for tokens
    the truncations cut. Parameters as sample_tokens'."""
    x = describe(logits, "logits", halves=True)
    if x.device >= 0:
        raise ValueError("token_probabilities reads host arrays: pass logits.cpu() (the law is the host's definition)")
    out = np.empty(tuple(x.shape), dtype=np.float64)
    _warpsim.token_probabilities(x.desc, describe(out, "out").desc, _per_row(temperature, "temperature", _as_float),
                                 _per_row(top_k, "top_k", _as_int), _per_row(top_p, "top_p", _as_float), _per_row(min_p, "min_p", _as_float))
    return out


class AliasTable:
    """An alias table of K weights by PSA in exact units (Lehmann's thesis,
    seed 001): on the host from NumPy weights, on the GPU from device ones
    (the same table). ``sample(n, seed)``: draws 0 .. n-1 (uint32);
    ``counts(n, seed)``: their counts per item (uint64), without the draws."""

    def __init__(self, weights, *, stream=None):
        self._like = weights
        self._w = describe(weights, "weights", stream=stream)
        self._core = _warpsim.AliasTable(self._w.desc)

    def __len__(self):
        return self._core.size

    def sample(self, n, seed=0, *, first=0, out=None):
        if out is None:
            out = _empty_like_place(self._like, (int(n),), "uint32")
        o = describe(out, "out", stream=self._w.stream)
        self._core.sample(o.desc, _seed(seed), int(first))
        return out

    def counts(self, n, seed=0, *, out=None):
        if out is None:
            out = _empty_like_place(self._like, (len(self),), "uint64", zero=True)
        o = describe(out, "out", stream=self._w.stream)
        self._core.counts(o.desc, int(n), _seed(seed))
        return out


def gamma(shape, n=None, seed=0, *, first=0, out=None, stream=None):
    """Gamma(shape) variates (scale 1) by Marsaglia and Tsang, value i from
    task first + i: ``shape`` an array (one variate per shape), or a number
    and ``n`` (n float64 variates on the host)."""
    if isinstance(shape, (int, float)) and not isinstance(shape, bool):
        if n is None:
            raise ValueError("gamma(shape, n): n variates of one shape")
        shape = np.full(int(n), float(shape))
    elif n is not None and len(shape) != n:
        raise ValueError("n must equal len(shape) when shape is an array")
    s = describe(shape, "shape", stream=stream)
    if out is None:
        out = _empty_like_place(shape, s.shape, "float32" if s.typestr == "<f4" else "float64")
    o = describe(out, "out", stream=s.stream)
    _warpsim.gamma(s.desc, o.desc, _seed(seed), int(first))
    return out


def dirichlet(alpha, n, seed=0, *, out=None, like=None):
    """n Dirichlet(alpha) vectors (N x K float64): K gamma variates of tasks
    d K .. d K + K - 1, normalised by their sum in index order. On the host,
    or where ``out`` (or ``like``) lies."""
    a = np.ascontiguousarray(np.asarray(alpha, dtype=np.float64))
    if out is None:
        out = _empty_like_place(like if like is not None else a, (int(n), a.shape[0] if a.ndim == 1 else 0), "float64")
    ad = describe(a, "alpha")
    o = describe(out, "out")
    _warpsim.dirichlet(ad.desc, o.desc, _seed(seed))
    return out
