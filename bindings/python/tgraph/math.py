"""tf.math: the math functions under TF's tf.math names (the same functions as tf.*)."""
# noqa: F401, A004 - re-exports, some under builtins' names (abs, pow, round)
from tgraph.ops.math_ops import (abs, add, add_n, argmax, argmin, cumprod, cumsum, divide,
                                 equal, erf, exp, expm1, floor, floordiv, floormod, greater,
                                 greater_equal, less, less_equal, log, log1p, logical_and,
                                 logical_not, logical_or, logical_xor, maximum, minimum,
                                 multiply, negative, not_equal, pow, realdiv, reciprocal,
                                 reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min,
                                 reduce_prod, reduce_sum, round, rsqrt, sigmoid, sign,
                                 softplus, sqrt, square, squared_difference, subtract, tanh,
                                 top_k, truediv)
from tgraph.ops.math_ops import floormod as mod  # noqa: F401
from tgraph.ops.nn import l2_normalize, log_softmax, softmax  # noqa: F401
from tgraph.ops.matrix_segment_ops import (segment_max, segment_mean, segment_min,  # noqa: F401
                                           segment_prod, segment_sum, unsorted_segment_max,
                                           unsorted_segment_min, unsorted_segment_prod,
                                           unsorted_segment_sum)
from tgraph.ops.math_more_ops import (accumulate_n, acos, acosh, asin, asinh, atan,  # noqa: F401
                                      bincount,
                                      atan2, atanh, ceil, cos, cosh, digamma, divide_no_nan,
                                      erfc, erfinv, is_finite, is_inf, is_nan, lgamma,
                                      multiply_no_nan, ndtri, polygamma,
                                      reciprocal_no_nan, rint, sin, sinh, softsign, tan,
                                      truncatediv, truncatemod, xdivy, xlog1py, xlogy)
from tgraph.ops.matrix_segment_ops import in_top_k  # noqa: F401,E402
from tgraph.ops.spectral_ops import angle, conj, imag, real  # noqa: F401,E402
