"""tf.train optimizers over TG_Optimizer: minimize, compute_gradients, apply_gradients, slots,
global steps."""
from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Tuple

from tgraph import _c, errors
from tgraph.graph import GraphKeys, get_default_graph
from tgraph.tensor import Tensor, convert_to_tensor

_lib = _c.lib

_GD, _MOMENTUM, _ADAM, _RMSPROP, _ADAGRAD = range(5)


def _raise(st: int, g: Any) -> None:
    from tgraph.gradients import _raise_callback_error
    _raise_callback_error()  # a Python gradient function's exception, as it was raised
    code = _lib.TG_GetCode(st)
    if code == 0:
        return
    msg = _c.pystr(_lib.TG_Message(st))
    if g is not None and g.finalized:
        raise RuntimeError("Graph is finalized and cannot be modified.")
    if code == errors.INVALID_ARGUMENT:
        raise ValueError(msg)
    if code == errors.NOT_FOUND:
        raise LookupError(msg)
    errors.raise_status(code, msg)


class Optimizer:
    """Base of the tf.train optimizers; the update rules run in tgraph's kernels."""

    _kind = _GD

    def __init__(self, use_locking: bool, name: str, **hyper: Any) -> None:
        self._name = name
        self._use_locking = use_locking
        self._hyper = hyper
        self._handles: dict = {}

    def get_name(self) -> str:
        return self._name

    def _handle(self, g: Any) -> int:
        h = self._handles.get(id(g))
        if h is not None:
            return h
        opts = _c.TG_OptimizerOptions()
        _lib.TG_InitOptimizerOptions(ctypes.byref(opts), self._kind)
        lr = self._hyper.pop("learning_rate", None)
        for k, v in self._hyper.items():
            if v is not None:
                setattr(opts, k, v)
        if isinstance(lr, Tensor) or hasattr(lr, "_as_tensor"):
            opts.learning_rate_tensor = convert_to_tensor(lr)._tf_output
        elif lr is not None:
            opts.learning_rate = float(lr)
        self._hyper["learning_rate"] = lr
        opts.use_locking = 1 if self._use_locking else 0
        opts.name = _c.cstr(self._name)
        st = _c.status()
        h = _lib.TG_NewOptimizer(ctypes.byref(opts), st)
        _raise(st, None)
        self._handles[id(g)] = h
        g._optimizers.append(self)
        return h

    def __del__(self) -> None:
        for h in getattr(self, "_handles", {}).values():
            _lib.TG_DeleteOptimizer(h)

    @staticmethod
    def _var_array(var_list: Any) -> Tuple[Any, int]:
        if not var_list:
            return None, 0
        vs = list(var_list)
        return (ctypes.c_void_p * len(vs))(*[v._handle for v in vs]), len(vs)

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = 1, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: Optional[str] = None,
                 grad_loss: Any = None) -> Any:
        """The training op: gradients of loss applied to var_list (all trainable variables by
        default), then global_step incremented."""
        if name is not None or grad_loss is not None:
            return self.apply_gradients(self.compute_gradients(loss, var_list),
                                        global_step=global_step, name=name)
        loss = convert_to_tensor(loss)
        g = loss.graph
        arr, n = self._var_array(var_list)
        st = _c.status()
        h = _lib.TG_OptimizerMinimize(self._handle(g), g._handle, loss._tf_output, arr, n,
                                      global_step._handle if global_step is not None else None,
                                      st)
        _raise(st, g)
        return g._op(h)

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = 1,
                          aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> List[Tuple[Any, Any]]:
        from tgraph.gradients import _wrap
        loss = convert_to_tensor(loss)
        g = loss.graph
        h = self._handle(g)
        arr, n = self._var_array(var_list)
        count = ctypes.c_int(0)
        st = _c.status()
        if n > 0:
            m = n  # one entry per variable given
        else:  # ask how many trainable variables there are (nothing is built)
            _lib.TG_OptimizerComputeGradients(h, g._handle, loss._tf_output, arr, n, None, None,
                                              None, None, 0, ctypes.byref(count), st)
            _raise(st, g)
            m = count.value
        values, indices, shapes = (_c.TG_Output * m)(), (_c.TG_Output * m)(), (_c.TG_Output * m)()
        vars_out = (ctypes.c_void_p * max(m, 1))()
        _lib.TG_OptimizerComputeGradients(h, g._handle, loss._tf_output, arr, n, values,
                                          indices, shapes, vars_out, m, ctypes.byref(count), st)
        _raise(st, g)
        return [(_wrap(g, values, indices, shapes, i), g._variable(vars_out[i]))
                for i in range(m)]

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: Optional[str] = None) -> Any:
        from tgraph.gradients import IndexedSlices
        pairs = [(gr, v) for gr, v in grads_and_vars if gr is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}.")
        g = pairs[0][1].graph
        n = len(pairs)
        values, indices, shapes = (_c.TG_Output * n)(), (_c.TG_Output * n)(), (_c.TG_Output * n)()
        for i, (gr, _v) in enumerate(pairs):
            if isinstance(gr, IndexedSlices):
                values[i] = gr.values._tf_output
                indices[i] = gr.indices._tf_output
                if gr.dense_shape is not None:
                    shapes[i] = gr.dense_shape._tf_output
            else:
                values[i] = convert_to_tensor(gr)._tf_output
        vs = (ctypes.c_void_p * n)(*[v._handle for _, v in pairs])
        st = _c.status()
        h = _lib.TG_OptimizerApplyGradients(
            self._handle(g), g._handle, values, indices, shapes, vs, n,
            global_step._handle if global_step is not None else None, _c.cstr(name), st)
        _raise(st, g)
        return g._op(h)

    def get_slot(self, var: Any, name: str) -> Any:
        h = self._handles.get(id(var.graph))
        if h is None:
            return None
        s = _lib.TG_OptimizerGetSlot(h, var._handle, _c.cstr(name))
        return var.graph._variable(s) if s else None

    def get_slot_names(self) -> List[str]:
        return list(self._slot_names)

    _slot_names: Tuple[str, ...] = ()

    def variables(self) -> List[Any]:
        out = []
        g = get_default_graph()
        for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES):
            if v.op.name.endswith("/" + self._name) or any(
                    v.op.name.endswith(f"/{self._name}_{i}") for i in range(1, 3)):
                out.append(v)
        return out


class GradientDescentOptimizer(Optimizer):
    """tf.train.GradientDescentOptimizer(learning_rate)."""
    _kind = _GD

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name, learning_rate=learning_rate)


class MomentumOptimizer(Optimizer):
    """tf.train.MomentumOptimizer(learning_rate, momentum, use_nesterov=False)."""
    _kind = _MOMENTUM
    _slot_names = ("momentum",)

    def __init__(self, learning_rate: Any, momentum: float, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         momentum=float(momentum), use_nesterov=1 if use_nesterov else 0)


class AdamOptimizer(Optimizer):
    """tf.train.AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8)."""
    _kind = _ADAM
    _slot_names = ("m", "v")

    def __init__(self, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-08, use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name, learning_rate=learning_rate, beta1=float(beta1),
                         beta2=float(beta2), epsilon=float(epsilon))


class AdagradOptimizer(Optimizer):
    """tf.train.AdagradOptimizer(learning_rate, initial_accumulator_value=0.1)."""
    _kind = _ADAGRAD
    _slot_names = ("accumulator",)

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad") -> None:
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         initial_accumulator_value=float(initial_accumulator_value))


class RMSPropOptimizer(Optimizer):
    """tf.train.RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10)."""
    _kind = _RMSPROP
    _slot_names = ("rms", "momentum")

    def __init__(self, learning_rate: Any, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp") -> None:
        super().__init__(use_locking, name, learning_rate=learning_rate, decay=float(decay),
                         momentum=float(momentum), epsilon=float(epsilon),
                         centered=1 if centered else 0)


def get_or_create_global_step(graph: Any = None) -> Any:
    """The int64 scalar variable "global_step" (created at zero, not trainable)."""
    g = graph or get_default_graph()
    st = _c.status()
    h = _lib.TG_GraphGetOrCreateGlobalStep(g._handle, st)
    _raise(st, g)
    return g._variable(h)


def create_global_step(graph: Any = None) -> Any:
    """Creates the graph's global step (ValueError when it exists)."""
    g = graph or get_default_graph()
    if get_global_step(g) is not None:
        raise ValueError('"global_step" already exists.')
    return get_or_create_global_step(g)


def get_global_step(graph: Any = None) -> Any:
    """The graph's global step variable, or None."""
    g = graph or get_default_graph()
    items = g.get_collection(GraphKeys.GLOBAL_STEP)
    return items[0] if items else None
