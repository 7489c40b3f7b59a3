"""tf.gradients over TG_AddGradientsSparse, and IndexedSlices for sparse gradients."""
from __future__ import annotations

from typing import Any, List, Optional

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
    # A variable's gradient is taken at its value (V/read), which every use goes through.
    return x._as_tensor() if isinstance(x, Variable) else convert_to_tensor(x)


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
    code = _lib.TG_GetCode(st)
    if code != 0:
        msg = _c.pystr(_lib.TG_Message(st))
        if code == errors.NOT_FOUND:
            raise LookupError(msg)  # TF: "No gradient defined for operation ..."
        errors.raise_status(code, msg)
    return [_wrap(g, values, indices, shapes, i) for i in range(nx)]



class RegisterGradient:
    """tf.RegisterGradient: tgraph's gradient functions are the core's and those plugins
    register (tgraph/plugin.h); a Python function cannot be one. gradient_override_map can
    still map an op type to any of those by name (e.g. {"Sign": "Identity"})."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: Any) -> Any:
        raise NotImplementedError(
            f"RegisterGradient('{self._op_type}'): Python gradient functions are not supported; "
            "register the gradient from a plugin (tgraph/plugin.h) or map the op to an existing "
            "gradient with Graph.gradient_override_map")
