"""Array ops with TF 1.x's Python names and defaults (tf.placeholder, tf.reshape, slicing...)."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tgraph import dtypes
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, constant, constant_value, convert_to_tensor
from tgraph.tensor_shape import as_shape


def placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None) -> Tensor:
    """A tensor that must be fed (shape None: any shape)."""
    return apply_op("Placeholder", name=name or "Placeholder", dtype=dtypes.as_dtype(dtype),
                    shape=as_shape(shape))


def placeholder_with_default(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """`input` unless a value is fed (then of shape `shape`)."""
    return apply_op("PlaceholderWithDefault", name=name or "PlaceholderWithDefault",
                    input=input, shape=as_shape(shape))


def identity(input: Any, name: Optional[str] = None) -> Tensor:
    """The input, as a new tensor (Identity)."""
    return apply_op("Identity", name=name or "Identity", input=input)


def _int_tensor(v: Any, name: str) -> Any:
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v):
        return stack([convert_to_tensor(x, dtype=dtypes.int32) for x in v], name=name)
    arr = np.asarray([(-1 if x is None else int(x)) for x in v] if isinstance(v, (list, tuple))
                     else v)
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64 if arr.size and (arr.max() > 2**31 - 1) else np.int32)
    return arr


def reshape(tensor: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """`tensor` with shape `shape` (-1 infers one dimension)."""
    return apply_op("Reshape", name=name or "Reshape", tensor=tensor,
                    shape=_int_tensor(shape, "shape"))


def shape(input: Any, name: Optional[str] = None, out_type: Any = dtypes.int32) -> Tensor:
    """The input's shape as a 1-D tensor."""
    return apply_op("Shape", name=name or "Shape", input=input, out_type=out_type)


def size(input: Any, name: Optional[str] = None, out_type: Any = dtypes.int32) -> Tensor:
    """The input's number of elements."""
    return apply_op("Size", name=name or "Size", input=input, out_type=out_type)


def rank(input: Any, name: Optional[str] = None) -> Tensor:
    """The input's rank as an int32 scalar."""
    return apply_op("Rank", name=name or "Rank", input=input)


def concat(values: List[Any], axis: Any, name: str = "concat") -> Tensor:
    """Joins `values` along `axis` (ConcatV2)."""
    if len(values) == 1:
        return identity(values[0], name=name)
    return apply_op("ConcatV2", name=name, values=list(values), axis=np.int32(axis)
                    if isinstance(axis, int) else axis)


def stack(values: List[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Stacks `values` along a new axis (Pack), converting Python values."""
    first = next((v for v in values if isinstance(v, Tensor) or hasattr(v, "_as_tensor")), None)
    dt = None
    if first is not None:
        dt = (first if isinstance(first, Tensor) else first._as_tensor()).dtype.base_dtype
    from tgraph.graph import get_default_graph
    g = get_default_graph()
    with g.name_scope(name) as scope:
        tensors = [convert_to_tensor(v, dtype=dt, name=f"values_{i}" if len(values) > 1
                                     else "values")
                   for i, v in enumerate(values)]
    return apply_op("Pack", name=scope, values=tensors, axis=axis)


pack = stack


def unstack(value: Any, num: Optional[int] = None, axis: int = 0,
            name: str = "unstack") -> List[Tensor]:
    """Splits `value` along `axis` into a list of tensors (Unpack)."""
    value = convert_to_tensor(value)
    if num is None:
        s = value.shape
        if s.dims is None or s.dims[axis].value is None:
            raise ValueError(f"Cannot infer num from shape {s}")
        num = s.dims[axis].value
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis)


unpack = unstack


def expand_dims(input: Any, axis: Any = None, name: Optional[str] = None,
                dim: Any = None) -> Tensor:
    """Inserts a dimension of size 1 at `axis`."""
    if axis is None:
        axis = dim
    return apply_op("ExpandDims", name=name or "ExpandDims", input=input,
                    dim=np.int32(axis) if isinstance(axis, int) else axis)


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None,
            squeeze_dims: Any = None) -> Tensor:
    """Removes dimensions of size 1 (those of `axis`, or all)."""
    if axis is None:
        axis = squeeze_dims
    if isinstance(axis, int):
        axis = [axis]
    return apply_op("Squeeze", name=name or "Squeeze", input=input,
                    squeeze_dims=list(axis or []))


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False
              ) -> Tensor:
    """Permutes the dimensions of `a` (reversed when perm is None)."""
    a = convert_to_tensor(a, name="a")
    if perm is None:
        r = a.shape.ndims
        if r is None:
            raise ValueError("transpose without perm needs a known rank")
        perm = np.arange(r - 1, -1, -1, dtype=np.int32)
    return apply_op("Transpose", name=name, x=a, perm=_int_tensor(perm, "perm"))


def _filled(fill: float, shape: Any, dtype: Any, name: str) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    if isinstance(shape, Tensor):
        return apply_op("Fill", name=name, dims=shape,
                        value=np.asarray(fill, dtype=dtype.as_numpy_dtype))
    dims = as_shape(shape).as_list()
    n = int(np.prod(dims)) if dims else 1
    if n < 1000:
        return constant(fill, dtype=dtype, shape=dims, name=name)
    from tgraph.graph import get_default_graph
    with get_default_graph().name_scope(name) as scope:
        d = constant(np.asarray(dims, dtype=np.int32), name="shape")
        v = constant(fill, dtype=dtype, name="Const")
    return apply_op("Fill", name=scope, dims=d, value=v)


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str = "zeros") -> Tensor:
    """A tensor of zeros (a Const under 1000 elements, else a Fill, as TF)."""
    return _filled(0, shape, dtype, name)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str = "ones") -> Tensor:
    """A tensor of ones (a Const under 1000 elements, else a Fill, as TF)."""
    return _filled(1, shape, dtype, name)


def zeros_like(tensor: Any, dtype: Any = None, name: Optional[str] = None,
               optimize: bool = True) -> Tensor:
    """Zeros of the input's shape."""
    t = apply_op("ZerosLike", name=name or "zeros_like", x=tensor)
    return t if dtype is None else _cast(t, dtype)


def ones_like(tensor: Any, dtype: Any = None, name: Optional[str] = None,
              optimize: bool = True) -> Tensor:
    """Ones of the input's shape."""
    t = apply_op("OnesLike", name=name or "ones_like", x=tensor)
    return t if dtype is None else _cast(t, dtype)


def _cast(t: Tensor, dtype: Any) -> Tensor:
    from tgraph.ops import math_ops
    return math_ops.cast(t, dtype)


def fill(dims: Any, value: Any, name: Optional[str] = None) -> Tensor:
    """A tensor of shape `dims` filled with `value`."""
    return apply_op("Fill", name=name or "Fill", dims=_int_tensor(dims, "dims"), value=value)


def tile(input: Any, multiples: Any, name: Optional[str] = None) -> Tensor:
    """Repeats `input` `multiples` times along each dimension."""
    return apply_op("Tile", name=name or "Tile", input=input,
                    multiples=_int_tensor(multiples, "multiples"))


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: Optional[str] = None,
        constant_values: Any = 0) -> Tensor:
    """Pads `tensor` by `paddings`: with `constant_values` (Pad, or PadV2 when not zero), or
    by mirroring it (MirrorPad, mode 'REFLECT' or 'SYMMETRIC')."""
    paddings = (np.asarray(paddings, dtype=np.int32) if not isinstance(paddings, Tensor)
                else paddings)
    mode = mode.upper()
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", name=name or "MirrorPad", input=tensor, paddings=paddings,
                        mode=mode)
    if mode != "CONSTANT":
        raise ValueError(f"pad: unknown padding mode '{mode}' "
                         "(expected CONSTANT, REFLECT or SYMMETRIC)")
    if not isinstance(constant_values, Tensor) and np.all(np.asarray(constant_values) == 0):
        return apply_op("Pad", name=name or "Pad", input=tensor, paddings=paddings)
    tensor = convert_to_tensor(tensor)
    if not isinstance(constant_values, Tensor):
        constant_values = np.asarray(constant_values, dtype=tensor.dtype.as_numpy_dtype)
    return apply_op("PadV2", name=name or "PadV2", input=tensor, paddings=paddings,
                    constant_values=constant_values)


def gather(params: Any, indices: Any, validate_indices: Any = None, name: Optional[str] = None,
           axis: Any = None, batch_dims: int = 0) -> Tensor:
    """Slices of `params` at `indices` along `axis` (GatherV2)."""
    if axis is None:
        axis = batch_dims
    return apply_op("GatherV2", name=name or "GatherV2", params=params, indices=indices,
                    axis=np.int32(axis) if not isinstance(axis, Tensor) else axis,
                    batch_dims=batch_dims)


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Any = None, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """One-hot vectors of `depth` for `indices`."""
    dt = dtypes.as_dtype(dtype) if dtype is not None else (
        on_value.dtype if isinstance(on_value, Tensor) else dtypes.float32)
    np_dt = dt.as_numpy_dtype
    return apply_op("OneHot", name=name or "one_hot", indices=indices, depth=np.int32(depth),
                    on_value=np.asarray(1 if on_value is None else on_value, dtype=np_dt),
                    off_value=np.asarray(0 if off_value is None else off_value, dtype=np_dt),
                    axis=-1 if axis is None else axis)


def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001
    """The slice of `input_` starting at `begin` of size `size` (-1: to the end)."""
    return apply_op("Slice", name=name or "Slice", input=input_,
                    begin=_int_tensor(begin, "begin"), size=_int_tensor(size, "size"))


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: Optional[str] = None) -> Tensor:
    """The slice of `input_` starting at `begin` of size `size`."""
    if strides is None:
        strides = [1] * len(begin)
    return apply_op("StridedSlice", name=name or "StridedSlice", input=input_,
                    begin=_int_tensor(begin, "begin"), end=_int_tensor(end, "end"),
                    strides=_int_tensor(strides, "strides"), begin_mask=begin_mask,
                    end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


def _slice_helper(tensor: Tensor, slice_spec: Any) -> Tensor:
    """t[1:, ::2, None, ..., 3] as one StridedSlice (TF's _slice_helper)."""
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    builtin_slice = type(np.s_[0:1])
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, builtin_slice):
            begin.append(0 if s.start is None else s.start)
            end.append(0 if s.stop is None else s.stop)
            strides.append(1 if s.step is None else s.step)
            if s.start is None:
                begin_mask |= bit
            if s.stop is None:
                end_mask |= bit
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            if isinstance(s, Tensor):
                begin.append(s)
                from tgraph.ops import math_ops
                end.append(math_ops.add(s, 1))
            else:
                begin.append(int(s))
                end.append(int(s) + 1)
            strides.append(1)
            shrink_axis_mask |= bit
    g = tensor.graph
    with g.as_default(), g.name_scope("strided_slice") as scope:
        def packed(vals: List[Any], name: str) -> Any:
            if any(isinstance(v, Tensor) for v in vals):
                return stack([convert_to_tensor(v, dtype=dtypes.int32) for v in vals], name=name)
            return constant(np.asarray(vals, dtype=np.int32), name=name)
        b = packed(begin, "stack")
        e = packed(end, "stack_1")
        st = packed(strides, "stack_2")
    return apply_op("StridedSlice", name=scope, input=tensor, begin=b, end=e, strides=st,
                    begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Tensor:
    """With x and y: elements of x where condition holds, else of y (Select); alone: the
    coordinates where it holds."""
    if x is None and y is None:
        return apply_op("Where", name=name or "Where", input=condition)
    return apply_op("Select", name=name or "Select", condition=condition, t=x, e=y)


def unique(x: Any, out_idx: Any = dtypes.int32, name: Optional[str] = None) -> Any:
    """The unique elements of `x` and the index of each element in them."""
    return apply_op("Unique", name=name or "Unique", x=x, out_idx=out_idx)


def invert_permutation(x: Any, name: Optional[str] = None) -> Tensor:
    """The inverse of the permutation `x`."""
    return apply_op("InvertPermutation", name=name or "InvertPermutation", x=x)


def where_v2(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Tensor:
    """TF 2's where: with x and y, elements of x where condition holds, else of y, all three
    broadcast together (SelectV2); alone: the coordinates where it holds (Where)."""
    if x is None and y is None:
        return apply_op("Where", name=name or "Where", input=condition)
    return apply_op("SelectV2", name=name or "SelectV2", condition=condition, t=x, e=y)


def stop_gradient(input: Any, name: Optional[str] = None) -> Tensor:
    """The input, through which tf.gradients passes no gradient (StopGradient)."""
    return apply_op("StopGradient", name=name or "StopGradient", input=input)


def _axis_value(axis: Any) -> Any:
    return np.int32(axis) if isinstance(axis, (int, np.integer)) else axis


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: Optional[int] = None,
          name: str = "split") -> List[Tensor]:
    """`value` cut along `axis` into `num_or_size_splits` equal parts (Split), or into parts of
    the given sizes (SplitV; one size may be -1)."""
    if isinstance(num_or_size_splits, (int, np.integer)):
        return list(apply_op("Split", name=name, split_dim=_axis_value(axis), value=value,
                             num_split=int(num_or_size_splits)))
    sizes = _int_tensor(num_or_size_splits, "size_splits")
    if num is None:
        if isinstance(sizes, Tensor):
            dims = sizes.shape.as_list() if sizes.shape.ndims == 1 else [None]
            num = dims[0]
        else:
            num = int(np.asarray(sizes).size)
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
    return list(apply_op("SplitV", name=name, value=value, size_splits=sizes,
                         split_dim=_axis_value(axis), num_split=int(num)))


def reverse(tensor: Any, axis: Any, name: Optional[str] = None) -> Tensor:
    """`tensor` with the dimensions in `axis` reversed (ReverseV2)."""
    return apply_op("ReverseV2", name=name or "ReverseV2", tensor=tensor,
                    axis=_int_tensor(axis if not isinstance(axis, (int, np.integer))
                                     else [axis], "axis"))


reverse_v2 = reverse


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,
                     batch_axis: Optional[int] = None, name: Optional[str] = None,
                     seq_dim: Optional[int] = None, batch_dim: Optional[int] = None) -> Tensor:
    """For each b along batch_axis, the first seq_lengths[b] entries along seq_axis reversed
    (ReverseSequence; seq_dim / batch_dim are TF1's older names)."""
    seq = seq_axis if seq_axis is not None else seq_dim
    batch = batch_axis if batch_axis is not None else batch_dim
    if seq is None:
        raise ValueError("reverse_sequence needs seq_axis")
    lengths = seq_lengths if isinstance(seq_lengths, Tensor) else convert_to_tensor(
        np.asarray(seq_lengths, np.int64))
    return apply_op("ReverseSequence", name=name or "ReverseSequence", input=input,
                    seq_lengths=lengths, seq_dim=int(seq), batch_dim=int(batch or 0))


def gather_nd(params: Any, indices: Any, name: Optional[str] = None,
              batch_dims: Any = 0) -> Tensor:
    """Slices of `params` at the index tuples in the last dimension of `indices` (GatherNd).
    With batch_dims = M > 0 the first M dimensions of both are batch dimensions: each
    index tuple indexes the params of its own batch entry (TF's batch_gather_nd)."""
    if isinstance(batch_dims, Tensor):
        # A constant's value, as TF's constant_value reads it; any other tensor is refused.
        value = constant_value(batch_dims)
        if value is None or value.size != 1 or not batch_dims.dtype.is_integer:
            raise TypeError(f"Argument `batch_dims` must be an int; got {batch_dims}")
        batch_dims = int(value.reshape(()))
    else:
        batch_dims = int(batch_dims)  # as TF: anything int() takes (1.5 is 1)
    if batch_dims == 0:
        return apply_op("GatherNd", name=name or "GatherNd", params=params, indices=indices)
    return _batch_gather_nd(params, indices, batch_dims, name)


def _batch_gather_nd(params: Any, indices: Any, batch_dims: int,
                     name: Optional[str]) -> Tensor:
    """gather_nd over batch dimensions, composed as TF composes it: every index tuple gets
    its batch coordinates prepended (a meshgrid of the batch dimensions, tiled over the
    index dimensions), the batch flattened to one dimension for a plain GatherNd, and the
    result's first dimension reshaped back to the batch shape."""
    from tgraph.graph import get_default_graph
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name or "BatchGatherND"):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        i_rank, p_rank = indices.shape.ndims, params.shape.ndims
        if i_rank is not None and batch_dims >= i_rank:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`indices`) = {i_rank}")
        if p_rank is not None and batch_dims >= p_rank:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`params`) = {p_rank}")
        i_shape = shape(indices)
        batch_shape = i_shape[:batch_dims]
        batch_size = math_ops.reduce_prod(batch_shape)
        # Rows of the batch coordinates, [batch_size, batch_dims], in row-major order.
        ranges = [math_ops.cast(math_ops.range_(0, i_shape[d], 1), indices.dtype)
                  for d in range(batch_dims)]
        grid = transpose(stack([reshape(m, [-1]) for m in meshgrid(*ranges, indexing="ij")]))
        # One row per index tuple: [batch_size, i1, ..., iK, batch_dims].
        inner_rank = rank(indices) - (batch_dims + 1)
        grid = reshape(grid, concat([[batch_size], fill(expand_dims(inner_rank, 0), 1),
                                     [batch_dims]], 0))
        grid = tile(grid, concat([[1], i_shape[batch_dims:-1], [1]], 0))
        flat = reshape(indices, concat([[batch_size], i_shape[batch_dims:]], 0))
        out = apply_op("GatherNd", name="GatherNd", params=params,
                       indices=concat([grid, flat], -1))
        result = reshape(out, concat([batch_shape, shape(out)[1:]], 0))
        # The static shape TF infers: batch and index dimensions of indices, then the
        # dimensions of params past the batch and the indexed ones.
        if i_rank is not None and p_rank is not None:
            depth = indices.shape.dims[-1].value
            if depth is not None:
                dims = indices.shape.as_list()[:-1] + params.shape.as_list()[batch_dims + depth:]
                result.set_shape(dims)
        return result


def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """A zero tensor of `shape` with `updates` summed in at `indices` (ScatterNd)."""
    indices = convert_to_tensor(indices, name="indices")
    if not isinstance(shape, Tensor):
        shape = np.asarray(shape, dtype=indices.dtype.as_numpy_dtype)
    return apply_op("ScatterNd", name=name or "ScatterNd", indices=indices, updates=updates,
                    shape=shape)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any,
                             name: Optional[str] = None) -> Tensor:
    """A copy of `tensor` with `updates` written at `indices` (TensorScatterUpdate)."""
    return apply_op("TensorScatterUpdate", name=name or "TensorScatterUpdate", tensor=tensor,
                    indices=indices, updates=updates)


tensor_scatter_update = tensor_scatter_nd_update


def broadcast_to(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """`input` broadcast to `shape` (BroadcastTo)."""
    return apply_op("BroadcastTo", name=name or "BroadcastTo", input=input,
                    shape=_int_tensor(shape, "shape"))


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None
                 ) -> Tensor:
    """The entries of `tensor` where `mask` holds, the mask's dimensions (from `axis`)
    flattened to one, as TF builds it: Reshape, Where, Squeeze and GatherV2."""
    from tgraph.graph import get_default_graph
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        ndims_mask = mask.shape.ndims
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        axis = 0 if axis is None else int(axis)
        rank = tensor.shape.ndims
        if rank is not None:
            if axis < 0:
                axis += rank
            if not 0 <= axis or axis + ndims_mask > rank:
                raise ValueError(f"boolean_mask: axis {axis} and a mask of rank {ndims_mask} "
                                 f"do not fit a tensor of rank {rank}")
            tensor.shape[axis:axis + ndims_mask].assert_is_compatible_with(mask.shape)
        t_shape = shape(tensor)
        leading_size = math_ops.reduce_prod(t_shape[axis:axis + ndims_mask], [0])
        static = tensor.shape
        tensor = reshape(tensor, concat([t_shape[:axis], stack([leading_size]),
                                         t_shape[axis + ndims_mask:]], 0))
        if static.ndims is not None:  # TF's static shape: what the reshape keeps
            dims = static.as_list()
            masked = dims[axis:axis + ndims_mask]
            first = None if None in masked else int(np.prod(masked))
            tensor.set_shape(dims[:axis] + [first] + dims[axis + ndims_mask:])
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool,
                  name: Optional[str] = None) -> Tensor:
    """mask[i..., j] = j < lengths[i...], of `maxlen` columns (the largest length when None)."""
    from tgraph.graph import get_default_graph
    from tgraph.ops import math_ops
    with get_default_graph().name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths, name="lengths")
        if maxlen is None:
            maxlen = math_ops.reduce_max(lengths)
            maxlen = math_ops.maximum(constant(0, dtype=maxlen.dtype), maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        row_vector = math_ops.range_(constant(0, dtype=maxlen.dtype), maxlen,
                                     constant(1, dtype=maxlen.dtype))
        matrix = math_ops.cast(expand_dims(lengths, -1), maxlen.dtype)
        result = math_ops.less(row_vector, matrix)
        dtype = dtypes.as_dtype(dtype)
        if dtype == dtypes.bool:
            return result
        return math_ops.cast(result, dtype)


def meshgrid(*args: Any, **kwargs: Any) -> List[Tensor]:
    """N-D coordinate grids of the 1-D `args` ('xy' indexing swaps the first two output
    dimensions, as numpy's)."""
    from tgraph.graph import get_default_graph
    from tgraph.ops import math_ops
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"invalid keyword arguments to meshgrid: {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with get_default_graph().name_scope(name):
        ndim = len(args)
        s0 = (1,) * ndim
        if not ndim:
            return []
        output = [reshape(stack(x) if isinstance(x, (list, tuple)) else x,
                          s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(stack(shapes), output_dtype)
        return [math_ops.multiply(x, mult_fact) for x in output]
