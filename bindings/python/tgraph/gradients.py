"""tf.gradients over TG_AddGradientsSparse, and IndexedSlices for sparse gradients."""
from __future__ import annotations

import ctypes
import threading
from typing import Any, Dict, List, Optional

from tgraph import _c, errors
from tgraph.graph import get_default_graph
from tgraph.tensor import Tensor, convert_to_tensor

_lib = _c.lib


class IndexedSlices:
    """A sparse gradient: rows `indices` of a tensor of shape `dense_shape` hold `values`."""

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Optional[Tensor] = None
                 ) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self) -> Any:
        return self.values.dtype

    @property
    def graph(self) -> Any:
        return self.values.graph

    @property
    def name(self) -> str:
        return self.values.name

    @property
    def op(self) -> Any:
        return self.values.op

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self.indices}, values={self.values}"
                f"{', dense_shape=%s' % self.dense_shape if self.dense_shape is not None else ''})")


def _x_tensor(x: Any) -> Tensor:
    from tgraph.variables import Variable
    # A variable's gradient is taken at its value (V/read), which every use goes through; a
    # resource variable's at its handle, which its reads pass their gradients to.
    if isinstance(x, Variable):
        return x._ref() if x._is_resource else x._as_tensor()
    return convert_to_tensor(x)


def _wrap(g: Any, values: Any, indices: Any, shapes: Any, i: int) -> Any:
    if not values[i].oper:
        return None
    v = g._tensor(values[i])
    if indices[i].oper:
        return IndexedSlices(v, g._tensor(indices[i]),
                             g._tensor(shapes[i]) if shapes[i].oper else None)
    return v


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method: Any = None, stop_gradients: Any = None,
              unconnected_gradients: Any = None) -> List[Any]:
    """d(sum(ys))/d(x) for each x (None where ys do not depend on x)."""
    ys = [convert_to_tensor(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
    xs_list = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    xts = [_x_tensor(x) for x in xs_list]
    g = ys[0].graph if ys else get_default_graph()
    ny, nx = len(ys), len(xts)
    y_arr = _c.output_array([y._tf_output for y in ys])
    x_arr = _c.output_array([x._tf_output for x in xts])
    dx = None
    if grad_ys is not None:
        gys = grad_ys if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        dx = _c.output_array([convert_to_tensor(gy, dtype=y.dtype.base_dtype)._tf_output
                              for gy, y in zip(gys, ys)])
    values = (_c.TG_Output * nx)()
    indices = (_c.TG_Output * nx)()
    shapes = (_c.TG_Output * nx)()
    st = _c.status()
    _lib.TG_AddGradientsSparse(g._handle, _c.cstr(name), y_arr, ny, x_arr, nx, dx, st, values,
                               indices, shapes)
    _raise_callback_error()
    code = _lib.TG_GetCode(st)
    if code != 0:
        msg = _c.pystr(_lib.TG_Message(st))
        if code == errors.NOT_FOUND:
            raise LookupError(msg)  # TF: "No gradient defined for operation ..."
        errors.raise_status(code, msg)
    return [_wrap(g, values, indices, shapes, i) for i in range(nx)]



# gradient function: void (*)(void* arg, TG_Graph* g, TG_Operation* op,
# const TG_Output* output_grads, int num_outputs, TG_Output* input_grads, int num_inputs,
# TG_Status* status).
_GRADIENT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.POINTER(_c.TG_Output), ctypes.c_int,
                                      ctypes.POINTER(_c.TG_Output), ctypes.c_int, ctypes.c_void_p)
# op type -> (function, its C callback): both live as long as the process, like the registry.
_registered: Dict[str, Any] = {}
# An exception a gradient function raised, re-raised when the library call that ran it returns.
_callback_error = threading.local()


def _raise_callback_error() -> None:
    error = getattr(_callback_error, "error", None)
    if error is not None:
        _callback_error.error = None
        raise error


def _run_gradient_function(fn: Any, g_handle: int, op_handle: int, output_grads: Any,
                           num_outputs: int, input_grads: Any, num_inputs: int,
                           status: int) -> None:
    from tgraph.graph import _graph_of_handle
    try:
        g = _graph_of_handle(g_handle)
        if g is None:
            raise RuntimeError("a Python gradient function was asked to build on a graph that "
                               "is not a tgraph.Graph of this process")
        op = g._op(op_handle)
        with g.as_default():
            grads = []
            for k in range(num_outputs):
                out = output_grads[k]
                if out.oper:
                    grads.append(g._tensor(out))
                elif op.outputs[k].dtype.is_floating or op.outputs[k].dtype.is_complex:
                    # As TensorFlow does: an output nothing differentiated gets zeros.
                    from tgraph.ops.array_ops import zeros_like
                    grads.append(zeros_like(op.outputs[k]))
                else:
                    grads.append(None)
            result = fn(op, *grads)
            results = list(result) if isinstance(result, (list, tuple)) else [result]
            if len(results) != num_inputs:
                raise ValueError(f"Num gradients {len(results)} generated for op {op.name} "
                                 f"({op.type}) do not match num inputs {num_inputs}")
            for i, r in enumerate(results):
                if r is None:
                    continue
                if isinstance(r, IndexedSlices):  # made dense: the library takes dense ones
                    from tgraph import raw_ops
                    from tgraph.ops.array_ops import shape as _shape
                    rows = (r.dense_shape if r.dense_shape is not None else _shape(op.inputs[i]))[0]
                    r = raw_ops.UnsortedSegmentSum(data=r.values, segment_ids=r.indices,
                                                   num_segments=rows)
                input_grads[i] = convert_to_tensor(r)._tf_output
    except BaseException as e:  # noqa: BLE001 - re-raised once the library call returns
        _callback_error.error = e
        _lib.TG_SetStatus(status, errors.UNKNOWN, _c.cstr(f"{type(e).__name__}: {e}"))


class RegisterGradient:
    """tf.RegisterGradient("OpType"): decorates fn(op, *output_grads) -> the gradients of
    op's inputs (one per input, None for none). Process-wide, as in TensorFlow; an op built
    inside Graph.gradient_override_map({"Identity": "OpType"}) takes it too. The core's and
    the plugins' gradients cannot be replaced (KeyError, as TF says for a name registered
    twice)."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: Any) -> Any:
        if self._op_type in _registered:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        callback = _GRADIENT_CALLBACK(
            lambda arg, g, op, out, n_out, inp, n_in, st:
                _run_gradient_function(fn, g, op, out, n_out, inp, n_in, st))
        _c.ensure_plugins()
        st = _c.status()
        _lib.TG_RegisterGradientCallback(_c.cstr(self._op_type), callback, None, st)
        if _lib.TG_GetCode(st) == errors.ALREADY_EXISTS:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'! "
                           f"({_c.pystr(_lib.TG_Message(st))})")
        errors.check(st)
        _registered[self._op_type] = (fn, callback)
        return fn
