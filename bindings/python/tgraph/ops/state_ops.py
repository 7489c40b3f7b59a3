"""Variable updates: tf.assign, assign_add, assign_sub, scatter_update/add/sub."""
from __future__ import annotations

from typing import Any, Optional

from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor


def _locking(use_locking: Optional[bool], default: bool) -> bool:
    return default if use_locking is None else bool(use_locking)


def assign(ref: Any, value: Any, validate_shape: Optional[bool] = None,
           use_locking: Optional[bool] = None, name: Optional[str] = None) -> Tensor:
    """ref = value; returns the ref after the assignment (run it to assign)."""
    kw = {} if validate_shape is None else {"validate_shape": bool(validate_shape)}
    return apply_op("Assign", name=name or "Assign", ref=ref, value=value,
                    use_locking=_locking(use_locking, True), **kw)


def assign_add(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """ref += value; returns the ref."""
    return apply_op("AssignAdd", name=name or "AssignAdd", ref=ref, value=value,
                    use_locking=_locking(use_locking, False))


def assign_sub(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Tensor:
    """ref -= value; returns the ref."""
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
