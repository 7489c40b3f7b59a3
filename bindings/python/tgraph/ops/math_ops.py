"""Math ops with TF 1.x's Python names and defaults (tf.add, tf.matmul, tf.reduce_sum, ...)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph import dtypes
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, constant_value, convert_to_tensor


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
_abs = _unary("Abs")


def abs(x: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """|x| element-wise; a complex x gives its real magnitude (ComplexAbs), as tf.abs does."""
    dtype = getattr(x, "dtype", None)
    if getattr(dtype, "is_complex", False) is True or (
            not isinstance(dtype, dtypes.DType) and np.iscomplexobj(x)):
        from tgraph.ops.spectral_ops import complex_abs
        return complex_abs(x, name=name)
    return _abs(x, name=name)


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
erf = _unary("Erf")
round = _unary("Round")  # noqa: A001 - TensorFlow's name (rounds half to even)
log1p = _unary("Log1p")
expm1 = _unary("Expm1")


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
reduce_all = _reduce("All", "Logical and over `axis` (all axes when None).")
reduce_any = _reduce("Any", "Logical or over `axis` (all axes when None).")


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


def squared_difference(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """(x - y) ** 2 element-wise with broadcasting (SquaredDifference)."""
    return apply_op("SquaredDifference", name=name or "SquaredDifference", x=x, y=y)


def _scope(name: Optional[str], default: str) -> Any:
    from tgraph.graph import get_default_graph
    return get_default_graph().name_scope(name or default)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any,
                  name: Optional[str] = None) -> Tensor:
    """`t` with its values clipped to [clip_value_min, clip_value_max] (Minimum, then Maximum,
    as TF builds it)."""
    with _scope(name, "clip_by_value") as scope:
        t = convert_to_tensor(t, name="t")
        t_min = minimum(t, convert_to_tensor(clip_value_max, dtype=t.dtype.base_dtype))
        return maximum(t_min, convert_to_tensor(clip_value_min, dtype=t.dtype.base_dtype),
                       name=scope)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None
                 ) -> Tensor:
    """`t` scaled so that its L2 norm (over `axes`) is at most clip_norm, as TF composes it."""
    from tgraph.ops import array_ops
    with _scope(name, "clip_by_norm") as scope:
        t = convert_to_tensor(t, name="t")
        clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype.base_dtype, name="clip_norm")
        l2sum = reduce_sum(multiply(t, t), axes, keepdims=True)
        pred = greater(l2sum, convert_to_tensor(0, dtype=t.dtype.base_dtype))
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, sqrt(l2sum_safe), l2sum)
        intermediate = multiply(t, clip_norm)
        return array_ops.identity(truediv(intermediate, maximum(l2norm, clip_norm)), name=scope)


def global_norm(t_list: Any, name: Optional[str] = None) -> Tensor:
    """sqrt(sum of the squared L2 norms of the tensors in t_list) (None entries skipped)."""
    from tgraph.ops import array_ops, nn
    if isinstance(t_list, (Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    with _scope(name, "global_norm") as scope:
        half_squared_norms = [nn.l2_loss(convert_to_tensor(v)) for v in t_list if v is not None]
        half_squared_norm = reduce_sum(array_ops.stack(half_squared_norms))
        return sqrt(multiply(half_squared_norm,
                             convert_to_tensor(2, dtype=half_squared_norm.dtype.base_dtype)),
                    name=scope)


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> Any:
    """(the tensors of t_list scaled by clip_norm / max(global_norm, clip_norm), the global
    norm), as TF composes it (a NaN or infinite norm makes every result NaN, as in TF)."""
    from tgraph.ops import array_ops
    if isinstance(t_list, (Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with _scope(name, "clip_by_global_norm"):
        dt = use_norm.dtype.base_dtype
        clip_norm = convert_to_tensor(clip_norm, dtype=dt, name="clip_norm")
        one = convert_to_tensor(1.0, dtype=dt)
        scale_for_finite = multiply(clip_norm, minimum(truediv(one, use_norm),
                                                       truediv(one, clip_norm)))
        scale = add(scale_for_finite, subtract(use_norm, use_norm))
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            t = convert_to_tensor(t, name=f"t_{i}")
            clipped.append(array_ops.identity(
                multiply(t, cast(scale, t.dtype.base_dtype)), name=f"_clipped_{i}"))
    return clipped, use_norm


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """The Einstein summation `equation` over `inputs` (Einsum)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments for einsum: {sorted(kwargs)}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    first = convert_to_tensor(inputs[0])
    tensors = [first] + [convert_to_tensor(v, dtype=first.dtype.base_dtype)
                         for v in inputs[1:]]
    return apply_op("Einsum", name=name or "Einsum", inputs=tensors,
                    equation=equation.replace(" ", ""))


def _tensordot_axes(a: Tensor, axes: Any) -> Any:
    """a's and b's contraction axes: lists of ints, or int32 tensors (a Tensor `axes`, or an
    int `axes` where a's rank is known only when run), as TF's tensordot."""
    from tgraph.ops import array_ops
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"'axes' must be at least 0, got {axes}")
        rank = a.shape.ndims
        if rank is None:
            r = array_ops.rank(a)
            return range_(r - int(axes), r, dtype=dtypes.int32), range_(int(axes),
                                                                        dtype=dtypes.int32)
        if axes > rank:
            raise ValueError(f"'axes' must not be larger than the number of dimensions of "
                             f"tensor {a}, got {axes}")
        return list(range(rank - axes, rank)), list(range(axes))
    if isinstance(axes, Tensor):
        axes = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        value = constant_value(axes)
        if value is not None and value.ndim == 2 and value.shape[0] == 2:
            # A constant [2, k]: its values, as TF's shape inference evaluates them, so that
            # the result's static shape is TF's (known where a and b's shapes are).
            return [int(v) for v in value[0]], [int(v) for v in value[1]]
        # Else rows 0 and 1 contract a and b, checked when run.
        return axes[0], axes[1]
    axes = list(axes)
    if len(axes) != 2:
        raise ValueError(f"'axes' must be an integer or have length 2, got {axes}")
    a_axes, b_axes = axes
    if isinstance(a_axes, (int, np.integer)):
        a_axes = [a_axes]
    if isinstance(b_axes, (int, np.integer)):
        b_axes = [b_axes]
    a_axes, b_axes = [int(x) for x in a_axes], [int(x) for x in b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                         f"{len(a_axes)} != {len(b_axes)}.")
    return a_axes, b_axes


def _tensordot_reshape(t: Tensor, axes: Any, flipped: bool) -> Any:
    """t transposed so that `axes` come last (first when flipped) and reshaped to a matrix,
    the dimensions left free (a list where the shape is known, else a tensor) and their
    static values (None where unknown; None in all when the axes are a tensor), as TF's
    tensordot."""
    from tgraph.ops import array_ops
    if isinstance(axes, Tensor):
        return _tensordot_reshape_dynamic(t, axes, flipped)
    rank = t.shape.ndims
    if rank is None:
        return _tensordot_reshape_dynamic(
            t, convert_to_tensor(np.asarray(axes, np.int32).reshape(-1), name="axes"), flipped)
    axes = [i if i >= 0 else i + rank for i in axes]
    for i in axes:
        if not 0 <= i < rank:
            raise ValueError(f"tensordot: axis out of range for tensor of rank {rank}")
    free = [i for i in range(rank) if i not in axes]
    perm = axes + free if flipped else free + axes
    dims = t.shape.as_list()
    if all(d is not None for d in dims):
        free_dims = [dims[i] for i in free]
        prod_free = int(np.prod(free_dims)) if free_dims else 1
        prod_axes = int(np.prod([dims[i] for i in axes])) if axes else 1
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if perm != list(range(rank)):
            t = array_ops.transpose(t, perm)
        return array_ops.reshape(t, new_shape), free_dims, free_dims
    shape_t = array_ops.shape(t)
    free_dims = array_ops.gather(shape_t, np.asarray(free, np.int32))
    prod_free = reduce_prod(free_dims)
    prod_axes = reduce_prod(array_ops.gather(shape_t, np.asarray(axes, np.int32)))
    new_shape = array_ops.stack([prod_axes, prod_free] if flipped else [prod_free, prod_axes])
    return (array_ops.reshape(array_ops.transpose(t, perm), new_shape), free_dims,
            [dims[i] for i in free])


def _tensordot_reshape_dynamic(t: Tensor, axes: Tensor, flipped: bool) -> Any:
    """_tensordot_reshape with the axes a tensor: negative axes count from the rank, the
    free axes are those of range(rank) not among them (TF's ListDiff, here a mask), and
    every size comes from Shape when run."""
    from tgraph.ops import array_ops
    shape_t = array_ops.shape(t)
    rank_t = array_ops.rank(t)
    axes = array_ops.reshape(axes, [-1])
    axes = array_ops.where(greater_equal(axes, 0), axes, axes + rank_t)
    every = range_(rank_t)
    is_free = reduce_all(not_equal(array_ops.expand_dims(every, 1),
                                   array_ops.expand_dims(axes, 0)), axis=1)
    free = array_ops.boolean_mask(every, is_free)
    free_dims = array_ops.gather(shape_t, free)
    prod_free = reduce_prod(free_dims)
    prod_axes = reduce_prod(array_ops.gather(shape_t, axes))
    perm = array_ops.concat([axes, free] if flipped else [free, axes], 0)
    new_shape = array_ops.stack([prod_axes, prod_free] if flipped else [prod_free, prod_axes])
    return array_ops.reshape(array_ops.transpose(t, perm), new_shape), free_dims, None


def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None) -> Tensor:
    """The sum of a * b over a's `axes[0]` and b's `axes[1]` (an int n: a's last n and b's
    first n; a Tensor: its rows 0 and 1), as TF composes it: Transpose, Reshape, MatMul,
    Reshape."""
    from tgraph.ops import array_ops
    with _scope(name, "Tensordot") as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_mat, a_free, a_static = _tensordot_reshape(a, a_axes, False)
        b_mat, b_free, b_static = _tensordot_reshape(b, b_axes, True)
        ab = matmul(a_mat, b_mat)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return array_ops.reshape(ab, a_free + b_free, name=scope)
        out_shape = array_ops.concat(
            [f if isinstance(f, Tensor) else np.asarray(f, np.int32) for f in (a_free, b_free)],
            0)
        result = array_ops.reshape(ab, out_shape, name=scope)
        if a_static is not None and b_static is not None:
            result.set_shape(a_static + b_static)  # TF's static shape: the known free dims
        return result


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Optional[bool] = None,
         name: Optional[str] = None, keep_dims: Optional[bool] = None) -> Tensor:
    """The vector norm (an int axis or None) or matrix norm (a pair of axes) of `tensor`:
    ord 'euclidean'/'fro'/2 (vectors), 1, inf or any p > 0 (vectors); 'fro'/'euclidean', 1 or
    inf (matrices); composed from ops as TF does."""
    from tgraph.ops import array_ops
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if axis is not None and not is_matrix and not isinstance(axis, (int, np.integer)):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    if is_matrix:
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if not (ord in ("fro", "euclidean", 1, np.inf)):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', "
                             f"1, 2, inf], got {ord}")
    else:
        if not (ord in ("fro", "euclidean") or (isinstance(ord, (int, float)) and ord > 0)):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    with _scope(name, "norm") as scope:
        x = convert_to_tensor(tensor)
        if is_matrix and ord in (1, np.inf):
            rank = x.shape.ndims
            rows, cols = [a + rank if a < 0 else a for a in axis]
            sum_axis, max_axis = (rows, cols) if ord == 1 else (cols, rows)
            result = reduce_max(reduce_sum(abs(x), sum_axis, keepdims=True), max_axis,
                                keepdims=True)
        elif ord in ("euclidean", "fro", 2) and (ord != 2 or not is_matrix):
            result = sqrt(reduce_sum(multiply(x, x), axis, keepdims=True))
        elif ord == 1:
            result = reduce_sum(abs(x), axis, keepdims=True)
        elif ord == np.inf:
            result = reduce_max(abs(x), axis, keepdims=True)
        else:
            p = convert_to_tensor(ord, dtype=x.dtype.base_dtype)
            result = pow(reduce_sum(pow(abs(x), p), axis, keepdims=True),
                         reciprocal(p))
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return array_ops.identity(result, name=scope)


def _sort_last(values: Tensor, direction: str, return_indices: bool) -> Tensor:
    """Sort along the last axis through TopKV2 (k = the axis' size), negating for ascending,
    as TF's sort_ops does."""
    from tgraph.ops import array_ops
    if direction == "ASCENDING":
        values = negative(values)
    dim = values.shape.dims[-1].value if values.shape.ndims else None
    k = np.int32(dim) if dim is not None else array_ops.shape(values)[-1]
    top_values, top_indices = apply_op("TopKV2", name="TopKV2", input=values, k=k,
                                       sorted=True)
    if return_indices:
        return top_indices
    return negative(top_values) if direction == "ASCENDING" else top_values


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_indices: bool,
                     name: Optional[str], default: str) -> Tensor:
    from tgraph.ops import array_ops
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Unknown direction: {direction}")
    with _scope(name, default) as scope:
        values = convert_to_tensor(values, name="values")
        rank = values.shape.ndims
        if rank is None:
            raise ValueError("sort needs a tensor of known rank")
        if not isinstance(axis, (int, np.integer)):
            raise ValueError("axis must be a constant scalar")
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
        axis = int(axis) % rank
        if axis == rank - 1:
            return array_ops.identity(_sort_last(values, direction, return_indices),
                                      name=scope)
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        swapped = _sort_last(array_ops.transpose(values, perm), direction, return_indices)
        return array_ops.transpose(swapped, perm, name=scope)


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING",
         name: Optional[str] = None) -> Tensor:
    """`values` sorted along `axis` (TopKV2 over the whole axis, as TF)."""
    return _sort_or_argsort(values, axis, direction, False, name, "sort")


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: Optional[str] = None) -> Tensor:
    """The int32 indices that sort `values` along `axis` (TopKV2, which keeps ties in index
    order, so the sort is stable)."""
    return _sort_or_argsort(values, axis, direction, True, name, "argsort")


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002 - TF's names
          name: Optional[str] = None) -> Any:
    """(values, indices) of the k largest entries along the last axis (TopKV2)."""
    return apply_op("TopKV2", name=name or "TopKV2", input=input,
                    k=np.int32(k) if isinstance(k, (int, np.integer)) else k, sorted=sorted)


def linspace(start: Any, stop: Any, num: Any, name: Optional[str] = None, axis: int = 0
             ) -> Tensor:
    """`num` evenly spaced values from start to stop (inclusive) along `axis`; start and stop
    may be N-D (broadcast together). Composed from ops as TF 2's linspace_nd: start +
    delta * range, with stop itself as the last value."""
    from tgraph.ops import array_ops
    with _scope(name, "linspace") as scope:
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, dtype=start.dtype.base_dtype, name="stop")
        dt = start.dtype.base_dtype
        num_int = convert_to_tensor(num, dtype=dtypes.int32, name="num")
        if start.shape.ndims != stop.shape.ndims or start.shape.ndims is None:
            bshape = array_ops.shape(add(start, stop))
            start = array_ops.broadcast_to(start, bshape)
            stop = array_ops.broadcast_to(stop, bshape)
        rank = (start.shape.ndims or 0) + 1
        if not -rank <= axis < rank:
            raise ValueError(f"linspace: axis {axis} is out of range for rank {rank}")
        axis %= rank
        expanded_start = array_ops.expand_dims(start, axis)
        expanded_stop = array_ops.expand_dims(stop, axis)
        zero = convert_to_tensor(0, dtype=dtypes.int32)
        num_fill = maximum(subtract(num_int, 2), zero)
        n_steps = maximum(subtract(num_int, 1), convert_to_tensor(1, dtype=dtypes.int32))
        delta = truediv(subtract(expanded_stop, expanded_start), cast(n_steps, dt))
        range_end = array_ops.where_v2(greater_equal(num_int, zero), n_steps,
                                       convert_to_tensor(-1, dtype=dtypes.int32))
        desired_range = cast(range_(1, range_end, dtype=dtypes.int32), dt)
        range_shape = [1] * rank
        range_shape[axis] = num_fill
        desired_range = array_ops.reshape(desired_range, range_shape)
        res = add(expanded_start, multiply(delta, desired_range))
        concatenated = array_ops.concat([expanded_start, res, expanded_stop], axis=axis)
        size = [-1] * rank
        size[axis] = num_int
        return array_ops.slice(concatenated, [0] * rank, size, name=scope)


lin_space = linspace
