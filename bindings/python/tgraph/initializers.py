"""TF's initializers (tf.zeros_initializer, tf.constant_initializer, ...), as TG_Initializer
descriptions the C API builds with TF's node names."""
from __future__ import annotations

import ctypes
from typing import Any, Optional

from tgraph import _c, dtypes, errors

_lib = _c.lib

_ZEROS, _ONES, _CONSTANT, _NORMAL, _UNIFORM, _TRUNCATED, _GLOROT = range(7)


class Initializer:
    """Base class: an initializer is a callable (shape, dtype) -> Tensor."""

    _kind = _ZEROS

    def __init__(self, dtype: Any = dtypes.float32, seed: Optional[int] = None) -> None:
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self.seed = seed
        self._keep: Any = None

    def _fill(self, s: _c.TG_Initializer) -> None:
        pass

    def _struct(self) -> _c.TG_Initializer:
        s = _c.TG_Initializer()
        _lib.TG_InitInitializer(ctypes.byref(s), self._kind)
        if self.seed is not None:
            s.has_seed = 1
            s.seed = int(self.seed)
        self._fill(s)
        return s

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        from tgraph.graph import get_default_graph
        from tgraph.tensor_shape import as_shape
        g = get_default_graph()
        dims = as_shape(shape).as_list()
        dt = dtypes.as_dtype(dtype or self.dtype or dtypes.float32)
        s = self._struct()
        arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        st = _c.status()
        out = _lib.TG_InitializerValue(g._handle, ctypes.byref(s), dt.as_datatype_enum, arr,
                                       len(dims), st)
        errors.check(st)
        return g._tensor(out)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name if self.dtype else None}


class Zeros(Initializer):
    """tf.zeros_initializer(): zeros (a Fill from 1000 elements, as TF)."""
    _kind = _ZEROS


class Ones(Initializer):
    """tf.ones_initializer(): ones."""
    _kind = _ONES


class Constant(Initializer):
    """tf.constant_initializer(value): a scalar filled, or a value of the shape's size."""
    _kind = _CONSTANT

    def __init__(self, value: Any = 0, dtype: Any = dtypes.float32,
                 verify_shape: bool = False) -> None:
        super().__init__(dtype)
        self.value = value

    def _fill(self, s: _c.TG_Initializer) -> None:
        import numpy as np
        arr = np.asarray(self.value)
        if arr.ndim == 0 and arr.dtype.kind in "fiub":
            s.value = float(arr)
            return
        from tgraph import _tensor_conv
        dt = self.dtype or dtypes.float32
        h = _tensor_conv.from_numpy(arr.astype(dt.as_numpy_dtype), dt)
        self._keep = _OwnedTensor(h)
        s.tensor = h


class _OwnedTensor:
    def __init__(self, h: int) -> None:
        self.h = h

    def __del__(self) -> None:
        _lib.TG_DeleteTensor(self.h)


class RandomNormal(Initializer):
    """tf.random_normal_initializer(mean, stddev, seed)."""
    _kind = _NORMAL

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        super().__init__(dtype, seed)
        self.mean, self.stddev = mean, stddev

    def _fill(self, s: _c.TG_Initializer) -> None:
        s.mean, s.stddev = float(self.mean), float(self.stddev)


class TruncatedNormal(RandomNormal):
    """tf.truncated_normal_initializer(mean, stddev, seed): redrawn beyond 2 stddev."""
    _kind = _TRUNCATED


class RandomUniform(Initializer):
    """tf.random_uniform_initializer(minval, maxval, seed): U[minval, maxval)."""
    _kind = _UNIFORM

    def __init__(self, minval: float = 0.0, maxval: Optional[float] = None,
                 seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(dtype, seed)
        self.minval = minval
        self.maxval = 1.0 if maxval is None else maxval

    def _fill(self, s: _c.TG_Initializer) -> None:
        s.minval, s.maxval = float(self.minval), float(self.maxval)


class GlorotUniform(Initializer):
    """tf.glorot_uniform_initializer(seed): U[-l, l), l = sqrt(6 / (fan_in + fan_out))."""
    _kind = _GLOROT


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
glorot_uniform_initializer = GlorotUniform
