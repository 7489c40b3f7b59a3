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

    def _struct(self, shape: Any = None) -> _c.TG_Initializer:
        """The C description; `shape` (a list of ints, or None where unknown) matters only to
        the initializers whose parameters depend on it (VarianceScaling)."""
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
        s = self._struct(dims)
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


class VarianceScaling(Initializer):
    """tf.variance_scaling_initializer(scale, mode, distribution, seed): values of variance
    scale / n, n the variable's fan_in, fan_out or their mean (mode) as TF computes them from
    its shape; distribution "truncated_normal" (or "normal"; stddev divided by 0.8796..., the
    truncation's), "untruncated_normal" or "uniform" (limit sqrt(3 * scale / n)). Built as
    TF's truncated_normal / random_normal / random_uniform when the shape is known: in
    get_variable (given there or as a variable_scope's default), or when called."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        super().__init__(dtype, seed)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _struct(self, shape: Any = None) -> _c.TG_Initializer:
        import math
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"variance_scaling_initializer needs a fully defined shape, got "
                             f"{shape}")
        if len(shape) < 1:
            fan_in = fan_out = 1
        elif len(shape) == 1:
            fan_in = fan_out = shape[0]
        else:
            receptive = 1
            for d in shape[:-2]:
                receptive *= d
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., n)
        if self.distribution in ("normal", "truncated_normal"):
            self._kind = _TRUNCATED
            s = super()._struct(shape)
            s.mean, s.stddev = 0.0, math.sqrt(scale) / .87962566103423978
        elif self.distribution == "untruncated_normal":
            self._kind = _NORMAL
            s = super()._struct(shape)
            s.mean, s.stddev = 0.0, math.sqrt(scale)
        else:
            self._kind = _UNIFORM
            s = super()._struct(shape)
            limit = math.sqrt(3.0 * scale)
            s.minval, s.maxval = -limit, limit
        return s

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name if self.dtype else None}


class GlorotNormal(VarianceScaling):
    """tf.glorot_normal_initializer(seed): truncated normal of variance
    2 / (fan_in + fan_out)."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name if self.dtype else None}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
variance_scaling_initializer = VarianceScaling
