"""Matrix-structure ops (band parts, diagonals) and segment reductions under TF's Python
names: tf.linalg.band_part / diag / diag_part / set_diag / tensor_diag / tensor_diag_part,
tf.math.segment_sum ... unsorted_segment_max ..., tf.sparse.segment_sum / mean / sqrt_n.
As in TF, the diagonal functions always build the V3 ops."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tgraph import dtypes
from tgraph.op_def_lib import apply_op
from tgraph.tensor import Tensor, convert_to_tensor


def matrix_band_part(input: Any, num_lower: Any, num_upper: Any,  # noqa: A002 - TF's name
                     name: Optional[str] = None) -> Tensor:
    """`input` with everything outside the band num_lower below / num_upper above the main
    diagonal set to zero (a negative bound keeps that whole triangle)."""
    input = convert_to_tensor(input, name="input")
    num_lower = convert_to_tensor(num_lower, dtype_hint=dtypes.int64, name="num_lower")
    num_upper = convert_to_tensor(num_upper, dtype=num_lower.dtype.base_dtype, name="num_upper")
    return apply_op("MatrixBandPart", name=name or "MatrixBandPart", input=input,
                    num_lower=num_lower, num_upper=num_upper)


band_part = matrix_band_part


def _k(k: Any) -> Any:
    return convert_to_tensor(k, dtype=dtypes.int32, name="k")


def matrix_diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1,
                num_cols: Any = -1, padding_value: Any = 0, align: str = "RIGHT_LEFT"
                ) -> Tensor:
    """Matrices with the given diagonals k (a scalar or a (low, high) pair), padding elsewhere
    (MatrixDiagV3)."""
    diagonal = convert_to_tensor(diagonal, name="diagonal")
    if diagonal.dtype.base_dtype == dtypes.bool:
        padding_value = bool(padding_value)  # TF's special case: 0 is not a bool
    return apply_op("MatrixDiagV3", name=name, diagonal=diagonal, k=_k(k),
                    num_rows=convert_to_tensor(num_rows, dtype=dtypes.int32, name="num_rows"),
                    num_cols=convert_to_tensor(num_cols, dtype=dtypes.int32, name="num_cols"),
                    padding_value=convert_to_tensor(padding_value,
                                                    dtype=diagonal.dtype.base_dtype),
                    align=align)


def matrix_diag_part(input: Any, name: str = "diag_part", k: Any = 0,  # noqa: A002
                     padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """The diagonals k of a batch of matrices, packed and padded (MatrixDiagPartV3)."""
    input = convert_to_tensor(input, name="input")
    return apply_op("MatrixDiagPartV3", name=name, input=input, k=_k(k),
                    padding_value=convert_to_tensor(padding_value, dtype=input.dtype.base_dtype),
                    align=align)


def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag",  # noqa: A002
                    k: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """`input` with its diagonals k replaced by `diagonal` (MatrixSetDiagV3)."""
    input = convert_to_tensor(input, name="input")
    diagonal = convert_to_tensor(diagonal, dtype=input.dtype.base_dtype, name="diagonal")
    return apply_op("MatrixSetDiagV3", name=name, input=input, diagonal=diagonal, k=_k(k),
                    align=align)


def diag(diagonal: Any, name: Optional[str] = None) -> Tensor:
    """output[i..., i...] = diagonal[i...] (tf.linalg.tensor_diag, the Diag op)."""
    return apply_op("Diag", name=name or "Diag", diagonal=diagonal)


def diag_part(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """diagonal[i...] = input[i..., i...] (tf.linalg.tensor_diag_part, the DiagPart op)."""
    return apply_op("DiagPart", name=name or "DiagPart", input=input)


tensor_diag = diag
tensor_diag_part = diag_part


# ---- segment reductions ----

def _sorted(op_type: str, default: str):
    def fn(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name or default, data=data, segment_ids=segment_ids)
    fn.__name__ = default
    fn.__doc__ = f"{op_type}: reduces the rows of data into segments named by sorted ids."
    return fn


segment_sum = _sorted("SegmentSum", "SegmentSum")
segment_mean = _sorted("SegmentMean", "SegmentMean")
segment_max = _sorted("SegmentMax", "SegmentMax")
segment_min = _sorted("SegmentMin", "SegmentMin")
segment_prod = _sorted("SegmentProd", "SegmentProd")


def _unsorted(op_type: str, default: str):
    def fn(data: Any, segment_ids: Any, num_segments: Any, name: Optional[str] = None) -> Tensor:
        return apply_op(op_type, name=name or default, data=data, segment_ids=segment_ids,
                        num_segments=num_segments)
    fn.__name__ = default
    fn.__doc__ = (f"{op_type}: reduces data[i...] into segment segment_ids[i...] "
                  "(negative ids are dropped).")
    return fn


unsorted_segment_sum = _unsorted("UnsortedSegmentSum", "UnsortedSegmentSum")
unsorted_segment_max = _unsorted("UnsortedSegmentMax", "UnsortedSegmentMax")
unsorted_segment_min = _unsorted("UnsortedSegmentMin", "UnsortedSegmentMin")
unsorted_segment_prod = _unsorted("UnsortedSegmentProd", "UnsortedSegmentProd")


def _sparse(op_type: str, default: str):
    def fn(data: Any, indices: Any, segment_ids: Any, name: Optional[str] = None,
           num_segments: Any = None, sparse_gradient: bool = False) -> Tensor:
        if num_segments is not None:
            return apply_op(op_type + "WithNumSegments", name=name or default, data=data,
                            indices=indices, segment_ids=segment_ids,
                            num_segments=num_segments, sparse_gradient=sparse_gradient)
        return apply_op(op_type, name=name or default, data=data, indices=indices,
                        segment_ids=segment_ids, sparse_gradient=sparse_gradient)
    fn.__name__ = default
    fn.__doc__ = (f"{op_type}: reduces the rows data[indices[i]] into segment segment_ids[i] "
                  "(sorted ids; num_segments: the output's row count).")
    return fn


sparse_segment_sum = _sparse("SparseSegmentSum", "SparseSegmentSum")
sparse_segment_mean = _sparse("SparseSegmentMean", "SparseSegmentMean")
sparse_segment_sqrt_n = _sparse("SparseSegmentSqrtN", "SparseSegmentSqrtN")


# ---- miscellaneous array ops ----

def ensure_shape(x: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """x, failing the run unless its shape is compatible with `shape` (EnsureShape)."""
    from tgraph.tensor_shape import TensorShape
    return apply_op("EnsureShape", name=name or "EnsureShape", input=x,
                    shape=shape if isinstance(shape, TensorShape) else TensorShape(shape))


def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> Tensor:
    """tensor, failing the run with `message` if it holds a NaN or an Inf (CheckNumerics)."""
    return apply_op("CheckNumerics", name=name or "CheckNumerics", tensor=tensor,
                    message=message)


def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """input rolled by shift along axis (Roll)."""
    return apply_op("Roll", name=name or "Roll", input=input, shift=shift, axis=axis)


def cross(a: Any, b: Any, name: Optional[str] = None) -> Tensor:
    """Cross products of the 3-vectors along the last dimension (Cross)."""
    return apply_op("Cross", name=name or "Cross", a=a, b=b)


def in_top_k(predictions: Any, targets: Any, k: Any, name: Optional[str] = None) -> Tensor:
    """Whether each row's target is among its k highest predictions (InTopKV2)."""
    targets = convert_to_tensor(targets, name="targets")
    return apply_op("InTopKV2", name=name or "in_top_k", predictions=predictions,
                    targets=targets,
                    k=convert_to_tensor(k, dtype=targets.dtype.base_dtype, name="k"))


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left",
                 out_type: Any = dtypes.int32, name: Optional[str] = None) -> Tensor:
    """Per row, where each value would be inserted to keep the row sorted (LowerBound for
    side='left', UpperBound for 'right'); both inputs 2-D here, as the raw ops take them."""
    op = {"left": "LowerBound", "right": "UpperBound"}[side]
    return apply_op(op, name=name or "searchsorted", sorted_inputs=sorted_sequence,
                    values=values, out_type=out_type)
