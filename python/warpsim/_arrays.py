"""Arrays in place: NumPy (and anything with the buffer protocol) on the host;
PyTorch, JAX and CuPy arrays on a GPU through ``__cuda_array_interface__`` or
DLPack (``__dlpack__``). An array is described -- address, type, shape, device,
stream -- never copied (host lists and tuples become NumPy arrays first).

PyTorch tensors and CuPy arrays are described from their own accessors (a
call's overhead is what small samplers pay); other device arrays through
``__cuda_array_interface__`` or DLPack.

The stream: a device array's work is ordered on the caller's current stream
(PyTorch's and CuPy's; the ``stream`` of ``__cuda_array_interface__``), else
on the legacy default stream, which DLPack producers are asked to order
their work before (``__dlpack__(stream=1)``). An explicit ``stream`` (an
integer ``cudaStream_t``, or an object with ``cuda_stream`` or ``ptr``) takes
precedence.
"""

import ctypes

import numpy as np

from . import _warpsim

_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_CODES = {0: "i", 1: "u", 2: "f", 6: "b"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Described:
    """An array's description for the C++ core -- the tuple (address, type
    string, shape, device, stream) -- and what keeps the array alive."""

    __slots__ = ("desc", "keep")

    def __init__(self, desc, keep):
        self.desc = desc
        self.keep = keep

    @property
    def device(self):
        return self.desc[3]

    @property
    def shape(self):
        return tuple(self.desc[2])

    @property
    def typestr(self):
        return self.desc[1]

    @property
    def stream(self):
        return self.desc[4]


def stream_handle(stream):
    """An integer cudaStream_t from an int, a torch.cuda.Stream or a cupy Stream."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"stream must be an int (a cudaStream_t) or a CUDA stream object, not {type(stream).__name__}")


def _c_contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _refuse_strided(name, shape, strides, unit):
    raise ValueError(
        f"{name} is not C-contiguous (shape {tuple(shape)}, strides {tuple(strides)} {unit}): warpsim reads arrays in place; "
        f"pass a contiguous copy ({name}.contiguous(), np.ascontiguousarray({name}), cupy.ascontiguousarray({name}))"
    )


def _bfloat_hint(name):
    return TypeError(
        f"{name} holds bfloat16 or float16; warpsim reads float32 and float64: pass {name}.float() (exact), "
        f"and for values rounded_to='bf16' or 'f16'"
    )


def _from_cai(x, name, stream, halves=False):
    cai = x.__cuda_array_interface__
    shape = tuple(int(d) for d in cai["shape"])
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    if not _c_contiguous(shape, cai.get("strides"), itemsize):
        _refuse_strided(name, shape, cai["strides"], "bytes")
    data = int(cai["data"][0])
    n = int(np.prod(shape)) if shape else 1
    device = _warpsim.pointer_device(data) if n > 0 and data else -1
    if n > 0 and device < 0:
        raise ValueError(f"{name} offers __cuda_array_interface__ but its address is not device memory")
    s = stream_handle(stream)
    if s is None:
        s = cai.get("stream") or 0
    if typestr[1:] == "f2" and not halves:
        raise _bfloat_hint(name)
    return Described((data, typestr, list(shape), device, int(s)), x)


def _from_dlpack(x, name, stream, halves=False):
    device_type, device_id = x.__dlpack_device__()
    s = stream_handle(stream)
    if device_type in (_DL_CPU, _DL_CUDA_HOST):
        return _from_numpy(np.from_dlpack(x), name, stream, halves)
    if device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ValueError(f"{name} lies on a DLPack device of type {device_type}: warpsim reads host memory and CUDA devices")
    # Ordered before our work on the stream we run on (1: the legacy default).
    capsule = x.__dlpack__(stream=s if s else 1)
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    if (code == 4 or (code == 2 and bits == 16)) and not halves:
        raise _bfloat_hint(name)
    if code == 4 and bits == 16 and lanes == 1:
        typestr = "<bf16"
    else:
        if code not in _DL_CODES or lanes != 1:
            raise TypeError(f"{name} holds a DLPack type (code {code}, {bits} bits, {lanes} lanes) warpsim does not read")
        kind = _DL_CODES[code]
        typestr = ("|b1" if kind == "b" else f"<{kind}{bits // 8}")
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
        if not _c_contiguous(shape, strides, 1):
            _refuse_strided(name, shape, strides, "elements")
    data = (t.data or 0) + t.byte_offset
    return Described((data, typestr, list(shape), int(device_id), int(s or 0)), (x, capsule))


_TORCH_TYPES = {
    "torch.float32": "<f4", "torch.float64": "<f8", "torch.int8": "|i1", "torch.int16": "<i2", "torch.int32": "<i4",
    "torch.int64": "<i8", "torch.uint8": "|u1", "torch.uint16": "<u2", "torch.uint32": "<u4", "torch.uint64": "<u8", "torch.bool": "|b1",
}


_TORCH_HALVES = {"torch.float16": "<f2", "torch.bfloat16": "<bf16"}  # (describe(..., halves=True): token logits)


def _torch_stream(torch, index):
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # a few hundred ns, where torch.cuda.current_stream() takes microseconds
    return int(raw(index)) if raw else int(torch.cuda.current_stream(index).cuda_stream)


def _from_torch(x, name, stream, halves=False):
    """A PyTorch tensor's description from its own accessors (the fast path:
    a call's overhead is what small samplers pay)."""
    import torch

    if x.requires_grad:
        x = x.detach()
    t = str(x.dtype)
    if t in ("torch.bfloat16", "torch.float16") and not halves:
        raise _bfloat_hint(name)
    if t not in _TORCH_TYPES and t not in _TORCH_HALVES:
        raise TypeError(f"{name} holds {t}; warpsim reads float32, float64 and integers")
    if not x.is_contiguous():
        _refuse_strided(name, x.shape, x.stride(), "elements")
    if x.is_cuda:
        device = x.device.index
        s = stream_handle(stream)
        s = _torch_stream(torch, device) if s is None else s
    elif x.device.type == "cpu":
        device, s = -1, 0
    else:
        raise ValueError(f"{name} lies on {x.device}: warpsim reads host memory and CUDA devices")
    return Described((x.data_ptr(), _TORCH_TYPES.get(t) or _TORCH_HALVES[t], list(x.shape), device, s), x)


def _from_cupy(x, name, stream, halves=False):
    import cupy

    if x.dtype == np.float16 and not halves:
        raise _bfloat_hint(name)
    if x.dtype.kind not in "iufb":
        raise TypeError(f"{name} holds {x.dtype}; warpsim reads float32, float64 and integers")
    if not x.flags.c_contiguous:
        _refuse_strided(name, x.shape, x.strides, "bytes")
    s = stream_handle(stream)
    s = cupy.cuda.get_current_stream().ptr if s is None else s
    return Described((x.data.ptr, x.dtype.str, list(x.shape), x.device.id, int(s)), x)


def _from_numpy(a, name, stream, halves=False):
    if a.dtype == np.float16 and not halves:
        raise _bfloat_hint(name)
    if halves and a.dtype.name == "bfloat16" and a.dtype.itemsize == 2:  # ml_dtypes' bfloat16 (numpy has none)
        if not a.flags.c_contiguous:
            _refuse_strided(name, a.shape, a.strides, "bytes")
        return Described((a.__array_interface__["data"][0], "<bf16", list(a.shape), -1, 0), a)
    if a.dtype.kind not in "iufb":
        raise TypeError(f"{name} holds {a.dtype}; warpsim reads float32, float64 and integers")
    if not a.flags.c_contiguous:
        _refuse_strided(name, a.shape, a.strides, "bytes")
    typestr = a.dtype.str
    if typestr[0] == ">":
        raise TypeError(f"{name} is big-endian ({typestr}); pass {name}.astype({name}.dtype.newbyteorder('<'))")
    data = a.__array_interface__["data"][0]
    return Described((data, typestr, list(a.shape), -1, 0), a)


def describe(x, name, *, stream=None, allow_scalar=False, halves=False):
    """The description of ``x`` in place (see the module's docstring);
    ``halves``: float16 and bfloat16 are read too (typestr "<f2", "<bf16")."""
    if x is None:
        raise TypeError(f"{name} is None")
    module = type(x).__module__.split(".")[0]
    if hasattr(x, "block_until_ready") and module in ("jax", "jaxlib"):
        x.block_until_ready()  # JAX orders no stream of ours: its work is done first
    if isinstance(x, np.ndarray):
        d = _from_numpy(x, name, stream, halves)
    elif module == "torch" and hasattr(x, "data_ptr"):
        d = _from_torch(x, name, stream, halves)
    elif module == "cupy" and hasattr(x, "data") and hasattr(x.data, "ptr"):
        d = _from_cupy(x, name, stream, halves)
    elif hasattr(x, "__cuda_array_interface__"):
        try:
            d = _from_cai(x, name, stream, halves)
        except (TypeError, AttributeError, RuntimeError, ValueError) as e:
            if not hasattr(x, "__dlpack__") or "contiguous" in str(e) or "float32" in str(e):
                raise
            d = _from_dlpack(x, name, stream, halves)
    elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__") and not isinstance(x, np.ndarray):
        d = _from_dlpack(x, name, stream, halves)
    else:
        a = np.asarray(x)
        if a.dtype == object or a.dtype.kind in "USV":
            raise TypeError(f"{name} ({type(x).__name__}) is not an array of numbers")
        d = _from_numpy(a, name, stream, halves)
    if not allow_scalar and len(d.shape) == 0:
        raise ValueError(f"{name} is a 0-d array (a scalar); pass an array")
    if len(d.shape) > 2:
        raise ValueError(f"{name} has {len(d.shape)} dimensions (shape {d.shape}); warpsim reads at most 2")
    return d
