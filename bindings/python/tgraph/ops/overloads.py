"""Python operators on Tensor and Variable, named as TF 1.x names them: `a + b` is an op
"add" (with a Const "add/y" for a Python operand), `a < b` is "Less", `a @ b` is "MatMul"."""
from __future__ import annotations

from typing import Any

from tgraph.tensor import convert_to_tensor


def _binary(fn_name: str, scope: str, reverse: bool = False):
    def op(self: Any, other: Any) -> Any:
        from tgraph.ops import math_ops
        fn = getattr(math_ops, fn_name)
        x = convert_to_tensor(self)
        g = x.graph
        with g.name_scope(scope) as name:
            try:
                y = convert_to_tensor(other, dtype=x.dtype.base_dtype, name="x" if reverse
                                      else "y")
            except (TypeError, ValueError):
                return NotImplemented
            return fn(y, x, name=name) if reverse else fn(x, y, name=name)
    op.__name__ = f"__{'r' if reverse else ''}{scope}__"
    return op


def _compare(fn_name: str):
    def op(self: Any, other: Any) -> Any:
        from tgraph.ops import math_ops
        x = convert_to_tensor(self)
        y = convert_to_tensor(other, dtype=x.dtype.base_dtype, name="y")
        return getattr(math_ops, fn_name)(x, y)
    return op


def _matmul(reverse: bool):
    def op(self: Any, other: Any) -> Any:
        from tgraph.ops import math_ops
        a, b = (other, self) if reverse else (self, other)
        return math_ops.matmul(a, b)
    return op


def _unary(fn_name: str):
    def op(self: Any) -> Any:
        from tgraph.ops import math_ops
        return getattr(math_ops, fn_name)(convert_to_tensor(self))
    return op


def _getitem(self: Any, spec: Any) -> Any:
    from tgraph.ops import array_ops
    return array_ops._slice_helper(convert_to_tensor(self), spec)


_BINARY = [("add", "add", "add"), ("sub", "subtract", "sub"), ("mul", "multiply", "mul"),
           ("truediv", "truediv", "truediv"), ("floordiv", "floordiv", "floordiv"),
           ("mod", "floormod", "mod"), ("pow", "pow", "pow"), ("and", "logical_and", "and"),
           ("or", "logical_or", "or"), ("xor", "logical_xor", "xor")]


def install(cls: type) -> None:
    for dunder, fn, scope in _BINARY:
        setattr(cls, f"__{dunder}__", _binary(fn, scope))
        setattr(cls, f"__r{dunder}__", _binary(fn, scope, reverse=True))
    setattr(cls, "__div__", _binary("truediv", "truediv"))
    for dunder, fn in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                       ("ge", "greater_equal")):
        setattr(cls, f"__{dunder}__", _compare(fn))
    setattr(cls, "__matmul__", _matmul(False))
    setattr(cls, "__rmatmul__", _matmul(True))
    setattr(cls, "__neg__", _unary("negative"))
    setattr(cls, "__abs__", _unary("abs"))
    setattr(cls, "__invert__", _unary("logical_not"))
    setattr(cls, "__getitem__", _getitem)

