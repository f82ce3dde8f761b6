"""Bad input: a ValueError or TypeError with a clear message, never a crash."""

import numpy as np
import pytest

import warpsim

W = np.array([1.0, 2.0, 3.0])
D = np.array([0, 1, 2, 2], dtype=np.int32)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: warpsim.validate(D.astype(np.float32), W), TypeError, "indices"),
        (lambda: warpsim.validate(np.arange(20, dtype=np.int32)[::2], np.ones(20)), ValueError, "C-contiguous"),
        (lambda: warpsim.validate(D, np.ones((6, 4))[:, ::2]), ValueError, "C-contiguous"),
        (lambda: warpsim.validate(np.int32(1), W), ValueError, "0-d"),
        (lambda: warpsim.validate(D, np.float64(1.0)), ValueError, "0-d"),
        (lambda: warpsim.validate(D, np.array([1.0, np.nan, 2.0])), ValueError, "weight"),
        (lambda: warpsim.validate(D, np.array([1.0, np.inf, 2.0])), ValueError, "weight"),
        (lambda: warpsim.validate(D, np.array([1.0, -1.0, 2.0])), ValueError, "weight"),
        (lambda: warpsim.validate(D, np.zeros(3)), ValueError, ""),
        (lambda: warpsim.validate(np.zeros((2, 2, 2), dtype=np.int32), W), ValueError, "dimensions"),
        (lambda: warpsim.validate(np.zeros(5, dtype=np.int32), np.ones((3, 4))), ValueError, "rows"),
        (lambda: warpsim.validate(np.zeros(0, dtype=np.int32), W), ValueError, "no draws"),
        (lambda: warpsim.validate(D, W.astype(np.float16)), TypeError, "float32"),
        (lambda: warpsim.validate(D, W, alpha=0), ValueError, "alpha"),
        (lambda: warpsim.validate(D, W, alpha="0.1"), ValueError, "alpha"),
        (lambda: warpsim.validate(D, W, dtype="f16"), ValueError, "dtype"),
        (lambda: warpsim.validate(D, W, uniforms=np.array([0.5, 0.5], dtype=np.float64)), ValueError, "uniform"),
        (lambda: warpsim.validate(D, W, uniforms=np.array([0.5, 0.5, 0.5, 1.5])), ValueError, "uniform"),
        (lambda: warpsim.validate(D, None), ValueError, "weights"),
        (lambda: warpsim.validate(D, W, law="normal:0,1"), ValueError, "not both"),
        (lambda: warpsim.validate(["a", "b"], W), TypeError, ""),
        (lambda: warpsim.validate(D, W.astype(">f8")), TypeError, "big-endian"),
        (lambda: warpsim.validate(np.array([0.5, 1.5]), law="gamma:-1"), ValueError, "law"),
        (lambda: warpsim.validate(np.array([0.5, 1.5]), law="nonsense:1"), ValueError, "law"),
        (lambda: warpsim.validate(np.array([0.5, 1.5]), law=3), TypeError, "law"),
        (lambda: warpsim.validate(np.array([1, 2], dtype=np.int32), law="normal:0,1"), ValueError, "integers"),
        (lambda: warpsim.validate(np.array([0.5, np.nan]), law="normal:0,1", rounded_to="f8"), ValueError, "rounded_to"),
        (lambda: warpsim.validate(np.array([0.5, 1.5]), law="normal:0,1", clamp_low=[1]), TypeError, "clamp"),
        (lambda: warpsim.multinomial(W, 0), ValueError, "num_samples"),
        (lambda: warpsim.multinomial(W, 3, replacement=False), ValueError, "replacement"),
        (lambda: warpsim.multinomial(np.array([1, 2]), 3), TypeError, "float32"),
        (lambda: warpsim.multinomial(np.array([1.0, np.nan]), 3), ValueError, "weight"),
        (lambda: warpsim.multinomial(W, 3, out=np.zeros(3, dtype=np.int64)), TypeError, "int32"),
        (lambda: warpsim.multinomial(W, 3, out=np.zeros(4, dtype=np.int32)), ValueError, "shape"),
        (lambda: warpsim.multinomial(W, 3, seed=-1), ValueError, "seed"),
        (lambda: warpsim.AliasTable(np.zeros(4)), ValueError, "0"),
        (lambda: warpsim.AliasTable(np.ones((2, 2))), ValueError, "vector"),
        (lambda: warpsim.gamma(np.array([1.0, -2.0])), ValueError, "shape"),
        (lambda: warpsim.gamma(np.array([1.0, 2.0]), out=np.zeros(2, dtype=np.float32)), TypeError, "type"),
        (lambda: warpsim.dirichlet([1.0], 3), ValueError, "2 to 1024"),
        (lambda: warpsim.dirichlet([1.0, 0.0], 3), ValueError, "concentration"),
    ],
)
def test_refused_with_a_clear_message(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words.lower() in str(e.value).lower()
    assert "--" not in str(e.value) or "warpsim validate" in str(e.value)


def test_device_arrays_say_why_without_cuda():
    if warpsim.cuda_available():
        pytest.skip("a CUDA device is present: the device tests (scripts/device_python.sh) cover it")

    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<i4", "data": (0x1000, True), "version": 3}

    with pytest.raises((ValueError, TypeError)):
        warpsim.validate(Fake(), W)


def test_fuzzed_arguments_never_crash():
    """Random shapes, dtypes, layouts and values through every entry point:
    each call returns or raises ValueError / TypeError."""
    rng = np.random.default_rng(12)
    dtypes = [np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64, np.bool_]
    def arr():
        shape = tuple(int(s) for s in rng.integers(0, 4, size=rng.integers(0, 4)))
        with np.errstate(invalid="ignore", over="ignore"):
            a = (rng.normal(size=shape) * rng.choice([1, 3, 1e30])).astype(rng.choice(dtypes))
        if a.ndim and rng.random() < 0.2:
            a = a[::-1]
        return a
    for _ in range(300):
        args = [arr(), arr()]
        which = rng.integers(0, 6)
        try:
            if which == 0:
                warpsim.validate(*args)
            elif which == 1:
                warpsim.validate(args[0], law=rng.choice(["normal:0,1", "gamma:0.5,1", "beta:2,3", "uniform:0,1"]))
            elif which == 2:
                warpsim.multinomial(args[1], int(rng.integers(-1, 4)))
            elif which == 3:
                warpsim.AliasTable(args[1]).sample(3)
            elif which == 4:
                warpsim.gamma(args[1])
            else:
                warpsim.validate(*args, uniforms=arr())
        except (ValueError, TypeError):
            pass
