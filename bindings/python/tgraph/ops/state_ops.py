"""Variable updates: tf.assign, assign_add, assign_sub, scatter_update/add/sub."""
from __future__ import annotations

from typing import Any, Optional

from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor


def _locking(use_locking: Optional[bool], default: bool) -> bool:
    return default if use_locking is None else bool(use_locking)


def _resource_update(op_type: str, var: Any, value: Any, name: Optional[str]) -> Tensor:
    """A resource variable's update (AssignVariableOp and kin, through its handle), and the
    value read after it, as TF's resource variables return."""
    from tgraph.tensor import convert_to_tensor
    with var.graph.as_default():
        value = convert_to_tensor(value, dtype=var.dtype)
    update = apply_op(op_type, name=name or op_type, resource=var._ref(), value=value)
    with var.graph.control_dependencies([update]):
        return apply_op("ReadVariableOp", resource=var._ref(), dtype=var.dtype)


def _is_resource(ref: Any) -> bool:
    from tgraph.variables import Variable
    return isinstance(ref, Variable) and ref._is_resource


def assign(ref: Any, value: Any, validate_shape: Optional[bool] = None,
           use_locking: Optional[bool] = None, name: Optional[str] = None) -> Tensor:
    """ref = value; returns the ref after the assignment (run it to assign)."""
    if _is_resource(ref):
        return _resource_update("AssignVariableOp", ref, value, name)
    kw = {} if validate_shape is None else {"validate_shape": bool(validate_shape)}
    return apply_op("Assign", name=name or "Assign", ref=ref, value=value,
                    use_locking=_locking(use_locking, True), **kw)


def assign_add(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """ref += value; returns the ref."""
    if _is_resource(ref):
        return _resource_update("AssignAddVariableOp", ref, value, name)
    return apply_op("AssignAdd", name=name or "AssignAdd", ref=ref, value=value,
                    use_locking=_locking(use_locking, False))


def assign_sub(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """ref -= value; returns the ref."""
    if _is_resource(ref):
        return _resource_update("AssignSubVariableOp", ref, value, name)
    return apply_op("AssignSub", name=name or "AssignSub", ref=ref, value=value,
                    use_locking=_locking(use_locking, False))


def _scatter(op_type: str):
    def fn(ref: Any, indices: Any, updates: Any, use_locking: bool = True,
           name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name or op_type, ref=ref, indices=indices,
                        updates=updates, use_locking=use_locking)
    fn.__doc__ = f"{op_type}: rows `indices` of ref get `updates`; returns the ref."
    return fn


scatter_update = _scatter("ScatterUpdate")
scatter_add = _scatter("ScatterAdd")
scatter_sub = _scatter("ScatterSub")
