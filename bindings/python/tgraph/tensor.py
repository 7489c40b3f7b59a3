"""tf.Tensor (an output of an Operation), its operators, and convert_to_tensor."""
from __future__ import annotations

import ctypes
from typing import Any, List, Optional

import numpy as np

from tgraph import _c, dtypes, errors
from tgraph.tensor_shape import TensorShape, as_shape

_lib = _c.lib


class Tensor:
    """Output `value_index` of `op`: a symbolic value computed when a Session runs."""

    # Binary operators of numpy arrays defer to ours (x + tensor builds an op).
    __array_priority__ = 100
    # Bumped by set_shape: sessions cache a feed's static shape until it changes.
    _shape_version = 0

    def __init__(self, op: Any, value_index: int) -> None:
        self._op = op
        self._value_index = value_index
        self._tf_output = _c.TG_Output(op._handle, value_index)
        self._dtype = dtypes.as_dtype(_lib.TG_OperationOutputType(self._tf_output))

    @property
    def op(self) -> Any:
        return self._op

    @property
    def graph(self) -> Any:
        return self._op._graph

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def device(self) -> str:
        return self._op.device

    def _as_tf_output(self) -> _c.TG_Output:
        return self._tf_output

    @property
    def shape(self) -> TensorShape:
        st = _c.status()
        g = self._op._graph._handle
        n = _lib.TG_GraphGetTensorNumDims(g, self._tf_output, st)
        errors.check(st)
        if n < 0:
            return TensorShape(None)
        dims = (ctypes.c_int64 * max(n, 1))()
        _lib.TG_GraphGetTensorShape(g, self._tf_output, dims, n, st)
        errors.check(st)
        return TensorShape([None if dims[i] < 0 else dims[i] for i in range(n)])

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        shape = as_shape(shape)
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {shape}")
        if shape.dims is None:
            return
        vals = [-1 if d.value is None else d.value for d in shape.dims]
        arr = (ctypes.c_int64 * max(len(vals), 1))(*vals)
        st = _c.status()
        _lib.TG_GraphSetTensorShape(self._op._graph._handle, self._tf_output, arr, len(vals), st)
        errors.check(st)
        self._shape_version += 1

    def consumers(self) -> List[Any]:
        n = _lib.TG_OperationOutputNumConsumers(self._tf_output)
        arr = (_c.TG_Input * max(n, 1))()
        n = _lib.TG_OperationOutputConsumers(self._tf_output, arr, n)
        seen, out = set(), []
        for i in range(n):
            if arr[i].oper not in seen:
                seen.add(arr[i].oper)
                out.append(self._op._graph._op(arr[i].oper))
        return out

    def eval(self, feed_dict: Any = None, session: Any = None) -> Any:
        from tgraph import session as session_mod
        return session_mod._run_using(session, self, feed_dict, self.graph, "tensor")

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        dev = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}", shape={self.shape}, dtype={self._dtype.name}{dev})'

    # TF 1.x: == is identity and tensors hash by identity (usable as dict keys): object's
    # own __eq__ and __hash__, which the overloads leave alone.

    def __bool__(self) -> bool:
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is "
                        "not None:` instead of `if t:` to test if a tensor is defined, and use "
                        "TensorFlow ops such as tf.cond to execute subgraphs conditioned on the "
                        "value of a tensor.")

    def __iter__(self) -> Any:
        shape = self.shape
        if shape.dims is None or shape.dims[0].value is None:
            raise TypeError("Tensor objects are only iterable when the first dimension is "
                            "known.")
        return (self[i] for i in range(shape.dims[0].value))

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for symbolic Tensors. ({self.name}) Please "
                        "call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise NotImplementedError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy "
                                  "array.")


def _graph_of(values: Any) -> Optional[Any]:
    for v in values if isinstance(values, (list, tuple)) else [values]:
        g = getattr(v, "graph", None)
        if g is not None and hasattr(g, "_handle"):
            return g
    return None


def _np_value(value: Any, dtype: Optional[dtypes.DType]) -> np.ndarray:
    """value as a numpy array of dtype (or of TF's default dtype for Python values:
    float -> float32, int -> int32 when it fits, str -> string)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype == dtypes.string:
            return np.asarray(value, dtype=object)
        arr = np.asarray(value)
        target = np.dtype(dtype.as_numpy_dtype)
        if arr.dtype.kind in "SUO" and target.kind not in "SUO":
            raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        if arr.dtype.kind == "f" and target.kind in "iub":
            if not np.all(np.equal(np.mod(arr, 1), 0)):
                raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                                f"'{type(value).__name__}' instead.")
        if arr.dtype.kind == "c" and target.kind != "c":
            raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        return arr.astype(target, copy=False)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        arr = np.asarray(value)
        if arr.dtype.kind in "SU":
            return arr.astype(object)
        return arr
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return arr.astype(np.float32)
    if arr.dtype.kind == "i":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return arr.astype(np.int64)
        return arr.astype(np.int32)
    if arr.dtype.kind == "c":
        return arr.astype(np.complex128)
    if arr.dtype.kind in "SU":
        return arr.astype(object)
    if arr.dtype.kind == "O":
        flat = arr.reshape(-1)
        if all(isinstance(x, (bytes, str)) for x in flat):
            return arr
        raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. Contents: "
                        f"{value}. Consider casting elements to a supported type.")
    return arr


def _dtype_of_array(arr: np.ndarray) -> dtypes.DType:
    if arr.dtype.kind in "OSU":
        return dtypes.string
    return dtypes.as_dtype(arr.dtype)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """tf.constant: a Const op holding value (broadcast to `shape` when given)."""
    from tgraph.graph import get_default_graph
    if isinstance(value, Tensor):
        raise TypeError("tf.constant does not take a Tensor as its value")
    arr = _np_value(value, dtypes.as_dtype(dtype) if dtype is not None else None)
    if shape is not None:
        shape = [int(d) for d in as_shape(shape).as_list()]
        if arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        elif arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif verify_shape or arr.size > int(np.prod(shape)):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {arr.shape}.")
        else:
            flat = arr.reshape(-1)
            arr = np.concatenate([flat, np.repeat(flat[-1:], int(np.prod(shape)) - flat.size)])
            arr = arr.reshape(shape)
    dt = dtypes.as_dtype(dtype) if dtype is not None else _dtype_of_array(arr)
    return _const(get_default_graph(), arr, dt, name)


def _const(g: Any, arr: np.ndarray, dt: dtypes.DType, name: Optional[str]) -> Tensor:
    from tgraph import _tensor_conv
    from tgraph.op_def_lib import _finish
    th = _tensor_conv.from_numpy(arr, dt)
    try:
        desc = _lib.TG_NewOperation(g._handle, b"Const", _c.cstr(name or "Const"))
        st = _c.status()
        _lib.TG_SetAttrTensor(desc, b"value", th, st)
        _lib.TG_SetAttrType(desc, b"dtype", dt.base_dtype.as_datatype_enum)
        op = _finish(g, desc)
    finally:
        _lib.TG_DeleteTensor(th)
    return op.outputs[0]


def convert_to_tensor(value: Any, dtype: Any = None, name: Optional[str] = None,
                      preferred_dtype: Any = None, dtype_hint: Any = None) -> Tensor:
    """A Tensor for value: tensors as they are (their dtype checked), variables' values,
    and constants for everything else."""
    from tgraph.graph import get_default_graph
    if isinstance(value, Tensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        t = conv()
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(t.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {t.dtype.name}: {t!r}")
        return t
    from tgraph.operation import Operation
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype="
                        f"{dtype}, name={name}, as_ref=False)")
    if isinstance(value, (list, tuple)) and any(_is_tensorlike(v) for v in _flatten(value)):
        from tgraph.ops import array_ops
        return array_ops.stack(list(value), name=name or "packed")
    pref = preferred_dtype or dtype_hint
    if dtype is None and pref is not None:
        try:
            arr = _np_value(value, dtypes.as_dtype(pref))
            return _const(get_default_graph(), arr, dtypes.as_dtype(pref), name or "Const")
        except (TypeError, ValueError):
            pass
    arr = _np_value(value, dtypes.as_dtype(dtype) if dtype is not None else None)
    dt = dtypes.as_dtype(dtype) if dtype is not None else _dtype_of_array(arr)
    return _const(get_default_graph(), arr, dt, name or "Const")


def constant_value(t: Tensor) -> Optional[np.ndarray]:
    """The value of a Const tensor as a numpy array, None for any other tensor: what the
    composed functions read at build time where TF's constant_value would (tensordot's axes,
    gather_nd's batch_dims, resize_images' size)."""
    if not isinstance(t, Tensor) or t.op.type != "Const":
        return None
    from tgraph import _tensor_conv
    st = _c.status()
    handle = ctypes.c_void_p()
    _lib.TG_OperationGetAttrTensor(t.op._handle, b"value", ctypes.byref(handle), st)
    errors.check(st)
    return np.array(_tensor_conv.to_numpy(handle.value))


def _flatten(v: Any) -> List[Any]:
    if isinstance(v, (list, tuple)):
        out: List[Any] = []
        for x in v:
            out.extend(_flatten(x))
        return out
    return [v]


def _is_tensorlike(v: Any) -> bool:
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


# ---- operators (TF 1.x's Tensor overloads) ----
