"""numpy arrays <-> TG_Tensor handles.

Out: a fetched tensor becomes a numpy array over the tensor's own buffer; the array's base
is a small owner that deletes the TG_Tensor when numpy lets go of it (no copy).
In: small arrays are copied once into a library-allocated tensor; large contiguous arrays
whose data is 64-byte aligned (the library's alignment) are adopted (TG_NewTensor) and kept
alive until the library releases them, no copy; other arrays are copied once.
"""
from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

import numpy as np

from tgraph import _c, dtypes, errors

_lib = _c.lib
# Below this many bytes a copy costs less than pinning the array across the C boundary.
_ADOPT_MIN_BYTES = 1 << 16


class _TensorOwner:
    """Keeps a TG_Tensor alive for the numpy array that views its buffer (the rare paths:
    empty tensors)."""

    __slots__ = ("_handle", "__array_interface__", "__weakref__")

    def __init__(self, handle: int, np_dtype: np.dtype, shape: tuple, data: int) -> None:
        self._handle = handle
        self.__array_interface__ = {
            "version": 3, "shape": shape, "typestr": np_dtype.str,
            # numpy refuses a NULL data pointer even for an empty array.
            "data": (data or 1, False),
        }

    def __del__(self, _delete=_lib.TG_DeleteTensor) -> None:
        _delete(self._handle)


class _BufferOwner(ctypes.Array):
    """The bytes of a TG_Tensor's buffer as a ctypes array (made with from_address, so it
    views the buffer, no copy) that deletes the tensor when the numpy array viewing it lets
    go: numpy's frombuffer over it costs a third of reading an __array_interface__ dict.
    One subclass per byte length (_buffer_type)."""

    _type_ = ctypes.c_char
    _length_ = 0

    def __del__(self, _delete=_lib.TG_DeleteTensor) -> None:
        _delete(getattr(self, "handle", None))


_buffer_types: dict = {}


def _buffer_type(nbytes: int) -> Any:
    t = _buffer_types.get(nbytes)
    if t is None:
        if len(_buffer_types) > 256:
            _buffer_types.clear()
        t = _buffer_types[nbytes] = type("_BufferOwner", (_BufferOwner,), {"_length_": nbytes})
    return t


def tensor_shape_of(handle: int) -> tuple:
    n = _lib.TG_NumDims(handle)
    return tuple(_lib.TG_Dim(handle, i) for i in range(n))


_NP_BY_ENUM = {e: np.dtype(t) for e, t in dtypes._TO_NP.items() if e != 7}
_TG_TensorDescribe = _lib.TG_TensorDescribe
_MAX_DIMS = 32


class _Describe(threading.local):
    """Per-thread out-parameters of TG_TensorDescribe (made once, not per fetch)."""

    def __init__(self) -> None:
        self.dtype = ctypes.c_int()
        self.dims = (ctypes.c_int64 * _MAX_DIMS)()
        self.data = ctypes.c_void_p()
        self.args = (ctypes.byref(self.dtype), self.dims, _MAX_DIMS, ctypes.byref(self.data))


_describe = _Describe()


def to_numpy(handle: int) -> Any:
    """Takes ownership of `handle` and returns its value as a numpy array (a numpy scalar, or
    bytes, for a scalar)."""
    d = _describe
    n = _TG_TensorDescribe(handle, *d.args)
    if n > _MAX_DIMS:
        _lib.TG_DeleteTensor(handle)
        raise errors.UnimplementedError(None, None, f"cannot fetch a tensor of rank {n}")
    dt = d.dtype.value
    shape = tuple(d.dims[:n]) if n else ()
    if dt == 7:  # string: an object array of bytes
        try:
            count = _lib.TG_TensorElementCount(handle)
            out = np.empty(count, dtype=object)
            data = ctypes.c_void_p()
            length = ctypes.c_size_t()
            st = _c.status()
            for i in range(count):
                _lib.TG_TensorGetString(handle, i, ctypes.byref(data), ctypes.byref(length), st)
                errors.check(st)
                out[i] = ctypes.string_at(data.value, length.value) if length.value else b""
            return out[0] if shape == () else out.reshape(shape)
        finally:
            _lib.TG_DeleteTensor(handle)
    np_dtype = _NP_BY_ENUM.get(dt)
    if np_dtype is None:
        _lib.TG_DeleteTensor(handle)
        raise errors.UnimplementedError(None, None, f"cannot fetch a tensor of dtype "
                                                    f"{dtypes.as_dtype(dt).name} into numpy")
    data = d.data.value
    count = 1
    for x in shape:
        count *= x
    if not data or count == 0:
        return np.asarray(_TensorOwner(handle, np_dtype, shape, data or 0))
    try:
        owner = _buffer_type(count * np_dtype.itemsize).from_address(data)
    except BaseException:
        _lib.TG_DeleteTensor(handle)
        raise
    owner.handle = handle
    arr = np.frombuffer(owner, np_dtype)
    # As TF: a scalar comes back as a numpy scalar (np.float32(3.0)), not a 0-d array.
    if n == 1:
        return arr
    return arr[0] if n == 0 else arr.reshape(shape)


def _dims(shape: tuple) -> Any:
    return (ctypes.c_int64 * len(shape))(*shape) if shape else None


# Arrays adopted by the library, released by its deallocator call.
_pinned: dict = {}
_keys = itertools.count(1)


@_c.DEALLOCATOR
def _release(data: int, length: int, arg: int) -> None:
    _pinned.pop(arg, None)


_TG_NewTensorFromCopy = _lib.TG_NewTensorFromCopy
_addressof = ctypes.addressof
_char_from_buffer = ctypes.c_char.from_buffer
_I64 = ctypes.c_int64
# ctypes dims arrays by shape (read-only for the library): a feed loop reuses its shapes.
_dims_cache: dict = {}


def from_numpy_fast(arr: np.ndarray, enum: int) -> int:
    """from_numpy for a C-contiguous array of a numeric dtype (enum) smaller than the adoption
    threshold: one allocation and one copy (the session's feed path)."""
    shape = arr.shape
    n = len(shape)
    nbytes = arr.nbytes
    if nbytes >= _ADOPT_MIN_BYTES or not arr.flags.c_contiguous:
        return from_numpy(arr, dtypes.DType(enum))
    dims = _dims_cache.get(shape)
    if dims is None:
        if len(_dims_cache) > 64:
            _dims_cache.clear()
        dims = _dims_cache[shape] = (_I64 * n)(*shape) if n else None
    try:
        # The data pointer through the buffer protocol: a third of reading
        # __array_interface__ (which builds a dict); read-only and empty arrays take that.
        data = _addressof(_char_from_buffer(arr))
    except (TypeError, ValueError):
        data = arr.__array_interface__["data"][0]
    h = _TG_NewTensorFromCopy(enum, dims, n, data, nbytes)
    if not h:
        raise errors.InvalidArgumentError(
            None, None, f"cannot make a {dtypes.DType(enum).name} tensor of shape {shape}")
    return h


def from_numpy(arr: np.ndarray, dtype: dtypes.DType) -> int:
    """A new TG_Tensor (the caller owns it) holding `arr`, already of dtype's numpy type."""
    shape = arr.shape
    if dtype.base_dtype == dtypes.string:
        flat = arr.reshape(-1)
        items = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in flat]
        n = len(items)
        strs = (ctypes.c_char_p * n)(*items)
        lens = (ctypes.c_size_t * n)(*[len(x) for x in items])
        st = _c.status()
        h = _lib.TG_NewStringTensor(_dims(shape), len(shape), strs, lens, st)
        errors.check(st)
        return h
    arr = np.ascontiguousarray(arr)
    nbytes = arr.nbytes
    enum = dtype.base_dtype.as_datatype_enum
    data = arr.__array_interface__["data"][0]
    # Adopted only when 64-byte aligned: the library copies an unaligned buffer itself, and
    # a copy made here costs the same without the deallocator's call back into Python.
    if nbytes >= _ADOPT_MIN_BYTES and data % 64 == 0:
        key = next(_keys)
        _pinned[key] = arr
        h = _lib.TG_NewTensor(enum, _dims(shape), len(shape), arr.ctypes.data, nbytes,
                              _release, key)
    else:
        h = _TG_NewTensorFromCopy(enum, _dims(shape), len(shape), data, nbytes)
    if not h:
        raise errors.InvalidArgumentError(
            None, None, f"cannot make a {dtype.name} tensor of shape {shape} ({nbytes} bytes)")
    return h
