"""Math ops with TF 1.x's Python names and defaults (tf.add, tf.matmul, tf.reduce_sum, ...)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph import dtypes
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def _binary(op_type: str, default_name: str):
    def fn(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name or default_name, x=x, y=y)
    fn.__name__ = default_name.lower()
    fn.__doc__ = f"Element-wise {op_type} with broadcasting (TF's {op_type} op)."
    return fn


add = _binary("AddV2", "Add")
subtract = _binary("Sub", "Sub")
multiply = _binary("Mul", "Mul")
maximum = _binary("Maximum", "Maximum")
minimum = _binary("Minimum", "Minimum")
floordiv = _binary("FloorDiv", "FloorDiv")
floormod = _binary("FloorMod", "FloorMod")
mod = floormod
pow = _binary("Pow", "Pow")  # noqa: A001 - TensorFlow's name
equal = _binary("Equal", "Equal")
not_equal = _binary("NotEqual", "NotEqual")
less = _binary("Less", "Less")
less_equal = _binary("LessEqual", "LessEqual")
greater = _binary("Greater", "Greater")
greater_equal = _binary("GreaterEqual", "GreaterEqual")
logical_and = _binary("LogicalAnd", "LogicalAnd")
logical_or = _binary("LogicalOr", "LogicalOr")
sub = subtract
mul = multiply


def realdiv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Element-wise x / y for real types (RealDiv)."""
    return apply_op("RealDiv", name=name or "RealDiv", x=x, y=y)


def truediv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """x / y in floating point: integer inputs are cast first (int32 -> float64), as TF."""
    x = convert_to_tensor(x, name="x")
    y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
    if x.dtype.is_integer:
        target = dtypes.float32 if x.dtype.size <= 2 else dtypes.float64
        x, y = cast(x, target), cast(y, target)
    return apply_op("RealDiv", name=name or "truediv", x=x, y=y)


def divide(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """x / y in floating point (truediv)."""
    return truediv(x, y, name=name or "truediv")


div = divide


def logical_not(x: Any, name: Optional[str] = None) -> Tensor:
    """Element-wise not of a bool tensor."""
    return apply_op("LogicalNot", name=name, x=x)


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Tensor:
    """Element-wise exclusive or of bool tensors."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def _unary(op_type: str):
    def fn(x: Any, name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name, x=x)
    fn.__doc__ = f"Element-wise {op_type}."
    return fn


negative = _unary("Neg")
neg = negative
abs = _unary("Abs")  # noqa: A001
square = _unary("Square")
sqrt = _unary("Sqrt")
rsqrt = _unary("Rsqrt")
exp = _unary("Exp")
log = _unary("Log")
sigmoid = _unary("Sigmoid")
tanh = _unary("Tanh")
sign = _unary("Sign")
floor = _unary("Floor")
reciprocal = _unary("Reciprocal")
softplus = _unary("Softplus")


def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Tensor:
    """`x` converted to `dtype` (x itself when it already is)."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype.base_dtype == dtype:
        return x
    x = convert_to_tensor(x, name="x")
    if x.dtype.base_dtype == dtype:
        return x
    return apply_op("Cast", name=name or "Cast", x=x, DstT=dtype)


def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    """`x` cast to float32."""
    return cast(x, dtypes.float32, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    """`x` cast to int32."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    """`x` cast to int64."""
    return cast(x, dtypes.int64, name=name)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: Optional[str] = None) -> Tensor:
    """The matrix product a @ b (MatMul, or BatchMatMulV2 for rank > 2)."""
    a = convert_to_tensor(a, name="a")
    b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = a.shape.ndims, b.shape.ndims
    if (ra is not None and ra > 2) or (rb is not None and rb > 2):
        return apply_op("BatchMatMulV2", name=name or "MatMul", x=a, y=b, adj_x=ta, adj_y=tb)
    return apply_op("MatMul", name=name or "MatMul", a=a, b=b, transpose_a=ta, transpose_b=tb)


def add_n(inputs: Any, name: Optional[str] = None) -> Tensor:
    """The element-wise sum of `inputs` (AddN)."""
    inputs = list(inputs)
    if len(inputs) == 1:
        return convert_to_tensor(inputs[0])
    return apply_op("AddN", name=name or "AddN", inputs=inputs)


def _reduction_dims(x: Tensor, axis: Any) -> Any:
    if axis is not None:
        return axis
    rank = x.shape.ndims
    if rank is not None:
        return np.arange(rank, dtype=np.int32)
    from tgraph.ops import array_ops
    return range_(0, array_ops.rank(x), 1)


def _reduce(op_type: str, doc: str):
    def fn(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
           name: Optional[str] = None, reduction_indices: Any = None,
           keep_dims: Optional[bool] = None) -> Tensor:
        if axis is None:
            axis = reduction_indices
        keep = bool(keepdims if keepdims is not None else keep_dims)
        x = convert_to_tensor(input_tensor, name="input_tensor")
        return apply_op(op_type, name=name or op_type, input=x,
                        reduction_indices=_reduction_dims(x, axis), keep_dims=keep)
    fn.__doc__ = doc
    return fn


reduce_sum = _reduce("Sum", "Sum over `axis` (all axes when None).")
reduce_mean = _reduce("Mean", "Mean over `axis` (all axes when None).")
reduce_max = _reduce("Max", "Maximum over `axis` (all axes when None).")
reduce_min = _reduce("Min", "Minimum over `axis` (all axes when None).")
reduce_prod = _reduce("Prod", "Product over `axis` (all axes when None).")


def _arg(op_type: str):
    def fn(input: Any, axis: Any = None, name: Optional[str] = None, dimension: Any = None,
           output_type: Any = dtypes.int64) -> Tensor:
        if axis is None:
            axis = 0 if dimension is None else dimension
        return apply_op(op_type, name=name or op_type, input=input,
                        dimension=np.int32(axis) if isinstance(axis, int) else axis,
                        output_type=output_type)
    which = "largest" if op_type == "ArgMax" else "smallest"
    fn.__doc__ = f"The index of the {which} value along `axis` ({op_type})."
    return fn


argmax = _arg("ArgMax")
argmin = _arg("ArgMin")


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: Optional[str] = None) -> Tensor:
    """Cumulative sum along `axis`."""
    return apply_op("Cumsum", name=name or "Cumsum", x=x, axis=np.int32(axis),
                    exclusive=exclusive, reverse=reverse)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: Optional[str] = None) -> Tensor:
    """Cumulative product along `axis`."""
    return apply_op("Cumprod", name=name or "Cumprod", x=x, axis=np.int32(axis),
                    exclusive=exclusive, reverse=reverse)


def range_(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,
           name: str = "range") -> Tensor:
    """A 1-D tensor of start, start + delta, ... below limit (Range)."""
    if limit is None:
        start, limit = 0, start
    vals = [start, limit, delta]
    if dtype is None:
        tensors = [v for v in vals if isinstance(v, Tensor)]
        if tensors:
            dtype = tensors[0].dtype.base_dtype
        elif any(isinstance(v, float) for v in vals):
            dtype = dtypes.float32
        else:
            dtype = dtypes.int32
    return apply_op("Range", name=name, start=convert_to_tensor(start, dtype=dtype),
                    limit=convert_to_tensor(limit, dtype=dtype),
                    delta=convert_to_tensor(delta, dtype=dtype))


def scalar_mul(scalar: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """scalar * x."""
    x = convert_to_tensor(x)
    return multiply(convert_to_tensor(scalar, dtype=x.dtype.base_dtype), x, name=name)
