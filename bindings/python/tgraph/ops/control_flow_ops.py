"""tf.no_op, tf.group, tf.tuple and with_dependencies (control-dependency helpers)."""
from __future__ import annotations

import builtins
from typing import Any, List, Optional

from tgraph.graph import get_default_graph
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def no_op(name: Optional[str] = None) -> Any:
    """An op that does nothing (NoOp), for control dependencies."""
    return apply_op("NoOp", name=name or "NoOp")


def _ops_of(inputs: Any) -> List[Any]:
    from tgraph.operation import Operation
    out = []
    for x in inputs:
        if x is None:
            continue
        if isinstance(x, (list, builtins.tuple)):
            out.extend(_ops_of(x))
        elif isinstance(x, Operation):
            out.append(x)
        elif hasattr(x, "op"):
            out.append(x.op)
        else:
            raise TypeError(f"Expected tf.group() expected Tensor arguments not {x!r} with "
                            f"type {type(x)!r}")
    return out


def group(*inputs: Any, **kwargs: Any) -> Any:
    """A NoOp ("group_deps") that runs after every input."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unknown keyword arguments: {list(kwargs)}")
    ops = _ops_of(inputs)
    g = ops[0].graph if ops else get_default_graph()
    with g.control_dependencies(ops):
        return apply_op("NoOp", name=name or "group_deps")


def with_dependencies(dependencies: Any, output_tensor: Any, name: Optional[str] = None
                      ) -> Tensor:
    """output_tensor, produced only after `dependencies` ran (an Identity)."""
    output_tensor = convert_to_tensor(output_tensor)
    g = output_tensor.graph
    with g.name_scope(name or "control_dependency") as scope:
        with g.colocate_with(output_tensor.op):
            with g.control_dependencies(dependencies):
                return apply_op("Identity", name=scope, input=output_tensor)


def tuple(tensors: Any, name: Optional[str] = None, control_inputs: Any = None) -> list:  # noqa: A001
    """The tensors, each available only once all of them are computed."""
    tensors = list(tensors)
    g = next((t.graph for t in tensors if t is not None), get_default_graph())
    with g.name_scope(name or "tuple"):
        gating = [t.op for t in tensors if t is not None] + list(_ops_of(control_inputs or []))
        gate = group(*gating)
        return [None if t is None else with_dependencies([gate], t) for t in tensors]
