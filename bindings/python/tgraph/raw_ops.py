"""tf.raw_ops: one function per registered op, named as the op ("MatMul"), taking its
inputs and attrs as keyword arguments; built on first use from the op registry."""
from __future__ import annotations

from typing import Any, List


def __getattr__(name: str) -> Any:
    from tgraph import op_def_lib
    if name.startswith("_") or name not in op_def_lib.registered_ops():
        raise AttributeError(f"module 'tgraph.raw_ops' has no attribute {name!r}")
    fn = op_def_lib.make_function(name)
    fn.__name__ = name
    globals()[name] = fn
    return fn


def __dir__() -> List[str]:
    from tgraph import op_def_lib
    return op_def_lib.registered_ops()
