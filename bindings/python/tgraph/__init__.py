"""tgraph: TensorFlow 1.x's graph API over libtgraph's C API.

    import tgraph as tf

    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    w = tf.Variable(tf.ones([3, 1]), name="w")
    y = tf.matmul(x, w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run(y, feed_dict={x: [[1, 2, 3]]}))   # [[6.]]

Everything is built through tgraph/c_api.h (ctypes, no extension module); libtgraph and its
plugins ship inside the package.
"""
from __future__ import annotations

import builtins as _builtins

from tgraph import _c
from tgraph import dtypes, errors, tensor_shape
from tgraph.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double,  # noqa: A004
                           float16, float32, float64, half, int8, int16, int32, int64, qint8,
                           qint16, qint32, quint8, quint16, resource, string, uint8, uint16,
                           uint32, uint64, variant)
from tgraph.graph import (Graph, GraphKeys, add_to_collection, add_to_collections,
                          colocate_with, control_dependencies, device, get_collection,
                          get_collection_ref, get_default_graph, name_scope,
                          reset_default_graph)
from tgraph.operation import Operation
from tgraph.tensor import Tensor, constant, convert_to_tensor
from tgraph.tensor_shape import Dimension, TensorShape
from tgraph.variables import (AUTO_REUSE, Variable, VariableScope, all_variables,
                              assert_variables_initialized, get_variable, get_variable_scope,
                              global_variables, global_variables_initializer,
                              initialize_all_variables, initialize_local_variables,
                              initialize_variables, is_variable_initialized, local_variables,
                              local_variables_initializer, model_variables,
                              report_uninitialized_variables, trainable_variables,
                              variable_scope, variables_initializer)
from tgraph.initializers import (constant_initializer, glorot_normal_initializer,
                                 glorot_uniform_initializer, ones_initializer,
                                 random_normal_initializer, random_uniform_initializer,
                                 truncated_normal_initializer, variance_scaling_initializer,
                                 zeros_initializer)
from tgraph.session import InteractiveSession, Session, get_default_session
from tgraph.ops.array_ops import (boolean_mask, broadcast_to, concat, expand_dims, fill, gather,
                                  gather_nd, identity, invert_permutation, meshgrid, one_hot,
                                  ones, ones_like, pad, placeholder, placeholder_with_default,
                                  rank, reshape, reverse, reverse_sequence, reverse_v2, scatter_nd,
                                  sequence_mask, shape, size, slice, split, squeeze, stack,
                                  stop_gradient, strided_slice, tensor_scatter_nd_update,
                                  tensor_scatter_update, tile, transpose, unique, unstack,
                                  where, where_v2, zeros, zeros_like)
from tgraph.ops.math_ops import (abs, add, add_n, argmax, argmin, argsort, cast,
                                 clip_by_global_norm, clip_by_norm, clip_by_value, cumprod,
                                 cumsum, div, divide, einsum, equal, erf, exp, expm1, floor,
                                 floordiv, floormod, global_norm, greater, greater_equal, less,
                                 less_equal, lin_space, linspace, log, log1p, logical_and,
                                 logical_not, logical_or, logical_xor, matmul, maximum, minimum,
                                 mod, multiply, negative, norm, not_equal, pow, realdiv,
                                 reciprocal, reduce_all, reduce_any, reduce_max, reduce_mean,
                                 reduce_min, reduce_prod, reduce_sum, round, rsqrt, scalar_mul,
                                 sigmoid, sign, sort, sqrt, square, squared_difference,
                                 subtract, tanh, tensordot, to_float, to_int32, to_int64,
                                 truediv)
from tgraph.ops.math_ops import range_ as range  # noqa: A004
from tgraph.ops.math_more_ops import (accumulate_n, acos, acosh, asin, asinh, atan, atan2,
                                      atanh, ceil, cos, cosh, digamma, div_no_nan, erfc,
                                      is_finite, is_inf, is_nan, lgamma, polygamma, rint, sin,
                                      sinh, tan, truncatediv, truncatemod)
from tgraph.ops.random_ops import (random_normal, random_shuffle, random_uniform,
                                   set_random_seed, truncated_normal)
from tgraph.ops.state_ops import (assign, assign_add, assign_sub, scatter_add, scatter_sub,
                                  scatter_update)
from tgraph.ops.control_flow_ops import group, no_op, tuple  # noqa: A004
from tgraph.ops.logging_ops import Print
from tgraph.ops.cond_while import case, cond, while_loop
from tgraph.ops import nn
from tgraph.ops import image_ops as image
from tgraph import io  # noqa: A004 (tf.io)
from tgraph.ops.image_ops import extract_image_patches  # noqa: F401 (TF 1.x's tf.extract_image_patches)
from tgraph import math
from tgraph import bitwise
from tgraph.ops.matrix_segment_ops import (diag, diag_part, matrix_band_part, matrix_diag,
                                           matrix_diag_part, matrix_set_diag, segment_max,
                                           segment_mean, segment_min, segment_prod, segment_sum,
                                           sparse_segment_mean, sparse_segment_sqrt_n,
                                           sparse_segment_sum, unsorted_segment_max,
                                           unsorted_segment_min, unsorted_segment_prod,
                                           unsorted_segment_sum)
from tgraph.ops.matrix_segment_ops import (check_numerics, ensure_shape, roll,  # noqa: F401
                                           searchsorted)
from tgraph import debugging, linalg, sparse
from tgraph import signal
from tgraph import signal as spectral  # noqa: F401 (TF 1.x's tf.spectral)
from tgraph.ops.spectral_ops import angle, complex, conj, imag, real  # noqa: F401,A004
from tgraph.ops.spectral_ops import (fft, fft2d, fft3d, ifft, ifft2d,  # noqa: F401 (TF 1.x's tf.fft)
                                     ifft3d)
from tgraph.ops import overloads as _overloads

_overloads.install(Tensor)
_overloads.install(Variable)

__version__ = _c.pystr(_c.lib.TG_Version())

newaxis = None

from tgraph.gradients import IndexedSlices, RegisterGradient, gradients
from tgraph.importer import import_graph_def
from tgraph import train, summary, graph_util
from tgraph.custom_ops import load_op_library
from tgraph.protos import (AttrValue, ConfigProto, Event, GPUOptions, GraphDef, GraphOptions,
                           MetaGraphDef, NodeDef, RunMetadata, RunOptions, SaverDef, Summary,
                           TensorProto, TensorShapeProto)
from tgraph import raw_ops
from tgraph import random  # noqa: A004 (tf.random)
from tgraph.ops.nn import dropout as _dropout  # noqa: F401
from tgraph.train.optimizer import get_or_create_global_step as _gs  # noqa: F401

OpError = errors.OpError


def disable_eager_execution() -> None:
    """A no-op: tgraph is graph mode only."""


def disable_v2_behavior() -> None:
    """A no-op: tgraph is TF 1.x behaviour only."""


def executing_eagerly() -> "_builtins.bool":
    """False: tgraph builds graphs only."""
    return False


class _Compat:
    """tf.compat.v1: this module itself."""

    @property
    def v1(self):  # noqa: ANN201
        import tgraph
        return tgraph


compat = _Compat()
