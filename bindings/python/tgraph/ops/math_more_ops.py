"""Element-wise math beyond the basic set, under TF's Python names: trigonometric and
hyperbolic functions, ceil / rint, is_nan / is_inf / is_finite, softsign, the special
functions, truncating division, divide_no_nan and the x*log(y) family, accumulate_n."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from tgraph import dtypes, tensor_shape
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def _unary(op_type: str, arg: str = "x"):
    def fn(x: Any, name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name or op_type, **{arg: x})
    fn.__name__ = op_type.lower()
    fn.__doc__ = f"Element-wise {op_type} (TF's {op_type} op)."
    return fn


def _binary(op_type: str, args: Sequence[str] = ("x", "y")):
    def fn(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
        # y takes x's dtype, as TF's generated wrappers convert it (python numbers included).
        x = convert_to_tensor(x, name=args[0])
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name=args[1])
        return apply_op(op_type, name=name or op_type, **{args[0]: x, args[1]: y})
    fn.__name__ = op_type.lower()
    fn.__doc__ = f"Element-wise {op_type} with broadcasting (TF's {op_type} op)."
    return fn


sin = _unary("Sin")
cos = _unary("Cos")
tan = _unary("Tan")
asin = _unary("Asin")
acos = _unary("Acos")
atan = _unary("Atan")
sinh = _unary("Sinh")
cosh = _unary("Cosh")
asinh = _unary("Asinh")
acosh = _unary("Acosh")
atanh = _unary("Atanh")
ceil = _unary("Ceil")
rint = _unary("Rint")
is_nan = _unary("IsNan")
is_inf = _unary("IsInf")
is_finite = _unary("IsFinite")
softsign = _unary("Softsign", arg="features")
lgamma = _unary("Lgamma")
digamma = _unary("Digamma")
erfinv = _unary("Erfinv")
ndtri = _unary("Ndtri")
erfc = _unary("Erfc")

truncatediv = _binary("TruncateDiv")
truncatemod = _binary("TruncateMod")
divide_no_nan = _binary("DivNoNan")
div_no_nan = divide_no_nan
multiply_no_nan = _binary("MulNoNan")
xlogy = _binary("Xlogy")
xdivy = _binary("Xdivy")
xlog1py = _binary("Xlog1py")
polygamma = _binary("Polygamma", ("a", "x"))


def atan2(y: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The angle of the point (x, y), element-wise with broadcasting (Atan2)."""
    y = convert_to_tensor(y, name="y")
    x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
    return apply_op("Atan2", name=name or "Atan2", y=y, x=x)


def reciprocal_no_nan(x: Any, name: Optional[str] = None) -> Tensor:
    """1 / x, or 0 where x is 0 (TF's composition: DivNoNan(1, x))."""
    from tgraph.graph import name_scope
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = convert_to_tensor(1, dtype=x.dtype.base_dtype, name="one")
        return apply_op("DivNoNan", name=scope, x=one, y=x)


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None,
                 name: Optional[str] = None) -> Tensor:
    """The element-wise sum of `inputs`, one dtype and shape (AccumulateNV2, the op graph-mode
    tf.math.accumulate_n builds; its `shape` attr is the inputs' merged shape)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    inputs = [convert_to_tensor(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    merged = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.unknown_shape()
    for x in inputs:
        merged = merged.merge_with(x.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {tensor_dtype}, but `input` is of type "
                        f"{inputs[0].dtype}. These must be equal.")
    if len(inputs) == 1:
        if name is None:
            return inputs[0]
        from tgraph.ops.array_ops import identity
        return identity(inputs[0], name=name)
    return apply_op("AccumulateNV2", name=name or "AccumulateNV2", inputs=inputs, shape=merged)


# ---- tf.bitwise ----
bitwise_and = _binary("BitwiseAnd")
bitwise_or = _binary("BitwiseOr")
bitwise_xor = _binary("BitwiseXor")
left_shift = _binary("LeftShift")
right_shift = _binary("RightShift")
invert = _unary("Invert")


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = dtypes.int32, name: Optional[str] = None, axis: Any = None,
             binary_output: bool = False) -> Tensor:
    """How often each value of the int32 `arr` occurs, in max(arr) + 1 bins (at least
    `minlength`, at most `maxlength`), summing `weights` instead where given (DenseBincount,
    as TF 2's tf.math.bincount; axis None flattens, -1 counts per row of a matrix)."""
    from tgraph.ops.array_ops import reshape
    from tgraph.ops.math_ops import cast, maximum, minimum, reduce_max
    arr = convert_to_tensor(arr, dtype=dtypes.int32, name="arr")
    if axis is None:
        arr = reshape(arr, [-1])
    elif axis not in (-1, 1) or arr.shape.ndims != 2:
        raise ValueError("bincount: axis must be None, or -1 with a 2-D arr")
    # max(arr) + 1 bins (0 for an empty arr), then the bounds.
    size = maximum(reduce_max(arr) + 1, 0) if arr.shape.num_elements() != 0 else \
        convert_to_tensor(0, dtype=dtypes.int32)
    if minlength is not None:
        size = maximum(size, convert_to_tensor(minlength, dtype=dtypes.int32))
    if maxlength is not None:
        size = minimum(size, convert_to_tensor(maxlength, dtype=dtypes.int32))
    if weights is not None:
        weights = convert_to_tensor(weights, name="weights")
        if axis is None:
            weights = reshape(weights, [-1])
        out_dtype = weights.dtype.base_dtype
    else:
        out_dtype = dtypes.as_dtype(dtype)
        weights = convert_to_tensor([], dtype=out_dtype)
    return cast(apply_op("DenseBincount", name=name or "bincount", input=arr, size=size,
                         weights=weights, binary_output=binary_output), out_dtype)
