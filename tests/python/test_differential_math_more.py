"""The element-wise math beyond the basic set through the Python API (tf.math.sin,
tf.math.is_finite, tf.nn.softsign, tf.math.lgamma, tf.math.xlogy, tf.bitwise.*,
tf.math.accumulate_n, ...), built with tgraph and with real TensorFlow (tf.compat.v1) on the
same inputs: values and gradients must agree (test_differential_ops.py's run_both, check and
with_grads)."""
import numpy as np
import pytest

import tgraph
from test_differential_ops import check, run_both, with_grads, tf1

R = np.random.RandomState(11)
GENERAL = R.uniform(-3, 3, (3, 4)).astype(np.float32)
UNIT = R.uniform(-0.95, 0.95, (3, 4)).astype(np.float32)      # asin, acos, atanh, erfinv
ABOVE_ONE = R.uniform(1.1, 5, (3, 4)).astype(np.float32)      # acosh
POSITIVE = R.uniform(0.2, 5, (3, 4)).astype(np.float32)       # lgamma, digamma
PROB = R.uniform(0.02, 0.98, (3, 4)).astype(np.float32)       # ndtri

UNARY = [("sin", GENERAL), ("cos", GENERAL), ("tan", UNIT), ("asin", UNIT), ("acos", UNIT),
         ("atan", GENERAL), ("sinh", GENERAL), ("cosh", GENERAL), ("asinh", GENERAL),
         ("acosh", ABOVE_ONE), ("atanh", UNIT), ("lgamma", POSITIVE), ("digamma", POSITIVE),
         ("erfinv", UNIT), ("ndtri", PROB), ("erfc", GENERAL)]


@pytest.mark.parametrize("name,values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_and_gradients(name, values):
    def build(m):
        x = m.constant(values)
        return with_grads(m, {name: getattr(m.math, name)(x)}, [x])
    check(build, tol=2e-4)


def test_top_level_names_and_float64():
    x64 = GENERAL.astype(np.float64)

    def build(m):
        x = m.constant(x64)
        return {"sin": m.sin(x), "cos": m.cos(x), "atan2": m.atan2(x, m.constant(x64[::-1])),
                "ceil": m.ceil(x), "rint": m.rint(x * 2), "is_finite": m.is_finite(x / 0.0),
                "lgamma": m.lgamma(m.abs(x) + 0.1)}
    check(build, tol=1e-10)


def test_softsign_and_its_gradient():
    def build(m):
        x = m.constant(GENERAL)
        return with_grads(m, {"nn": m.nn.softsign(x), "math": m.math.softsign(x)}, [x])
    check(build)


def test_rounding_and_classifiers():
    special = np.array([[np.nan, np.inf, -np.inf, 0.0], [-0.0, 1.5, -2.5, 2.5]], np.float32)

    def build(m):
        x = m.constant(special)
        g = m.constant(GENERAL)
        fetches = {"nan": m.math.is_nan(x), "inf": m.math.is_inf(x), "fin": m.math.is_finite(x),
                   "ceil": m.math.ceil(g), "rint": m.math.rint(special[1] * 1.0),
                   "ceil_special": m.math.ceil(x)}
        # No gradient through the rounding ops, but through the product's other factor.
        fetches["mixed"] = m.gradients(m.reduce_sum(m.math.rint(g) * m.math.sin(g)), g)[0]
        return fetches
    check(build)
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            g = m.constant(GENERAL)
            assert m.gradients(m.math.ceil(g), [g]) == [None]
            assert m.gradients(m.math.rint(g), [g]) == [None]


def test_binary_values_and_gradients_broadcasting():
    x = R.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    y = R.uniform(0.3, 3, (3, 1)).astype(np.float32)

    def build(m):
        a, b = m.constant(x), m.constant(y)
        return with_grads(m, {"atan2": m.math.atan2(a, b), "atan2_t": m.math.atan2(b, a),
                              "div_no_nan": m.math.divide_no_nan(a, b),
                              "mul_no_nan": m.math.multiply_no_nan(a, b),
                              "xlogy": m.math.xlogy(a, b), "xdivy": m.math.xdivy(a, b),
                              "xlog1py": m.math.xlog1py(a, b)}, [a, b])
    check(build)


def test_zero_rules_values_and_gradients():
    """x = 0 for the x*log(y) family, y = 0 for the no-NaN ones: TF's zeros, in values and
    gradients."""
    x = np.array([0.0, 0.0, 2.0, -1.5, 3.0], np.float32)
    y = np.array([0.0, 2.0, 0.0, 4.0, -0.5], np.float32)

    def build(m):
        a, b = m.constant(x), m.constant(y)
        bp = m.abs(b)
        outs = {"div_no_nan": m.math.divide_no_nan(a, b),
                "mul_no_nan": m.math.multiply_no_nan(a, b),
                "reciprocal_no_nan": m.math.reciprocal_no_nan(b),
                "xlogy": m.math.xlogy(a, bp), "xdivy": m.math.xdivy(a, b),
                "xlog1py": m.math.xlog1py(a, bp)}
        fetches = {}
        for k, v in outs.items():
            fetches[k] = v
            wrt = [b] if k == "reciprocal_no_nan" else [a, b]
            for i, gr in enumerate(m.gradients(m.reduce_sum(v), wrt)):
                fetches[f"d{k}/d{i}"] = gr
        return fetches
    check(build)


def test_digamma_gradient_uses_polygamma():
    def build(m):
        x = m.constant(POSITIVE.astype(np.float64))
        return {"pg": m.math.polygamma(m.constant(np.float64(2.0)), x),
                "d": m.gradients(m.reduce_sum(m.math.digamma(x)), x)[0]}
    check(build, tol=1e-9)


def test_truncating_division():
    xi = np.array([[7, -7, 7, -7], [9, -9, 0, 5]], np.int32)
    yi = np.array([3, 3, -3, -4], np.int32)
    xf = xi.astype(np.float32) + 0.5

    def build(m):
        return {"div": m.truncatediv(xi, yi), "mod": m.truncatemod(xi, yi),
                "div64": m.truncatediv(xi.astype(np.int64), yi.astype(np.int64)),
                "modf": m.truncatemod(xf, yi.astype(np.float32))}
    check(build)


def test_integer_division_by_zero_fails_in_both():
    """An error when run in both (TF's CPU kernels report an InternalError; tgraph an
    InvalidArgumentError naming the division, as for FloorDiv)."""
    for op in ("truncatediv", "truncatemod"):
        for m in (tgraph, tf1):
            with m.Graph().as_default():
                d = m.placeholder(m.int32, [2], name="d")
                z = getattr(m, op)(m.constant([1, 2], m.int32), d)
                with m.Session() as sess:
                    error = m.errors.InvalidArgumentError if m is tgraph else m.errors.OpError
                    with pytest.raises(error) as raised:
                        sess.run(z, {"d:0": np.array([1, 0], np.int32)})
                    if m is tgraph:
                        assert "division by zero" in str(raised.value)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64])
def test_bitwise(dtype):
    info = np.iinfo(dtype)
    bits = np.dtype(dtype).itemsize * 8
    x = np.array([1, 5, 0x5a, info.min, info.max, 3], dtype)
    y = np.array([0, 1, bits - 1, bits, 99, 2], dtype)

    def build(m):
        a, b = m.constant(x), m.constant(y)
        bw = m.bitwise
        return {"and": bw.bitwise_and(a, b), "or": bw.bitwise_or(a, b),
                "xor": bw.bitwise_xor(a, b), "lsh": bw.left_shift(a, b),
                "rsh": bw.right_shift(a, b), "inv": bw.invert(a)}
    check(build)


def test_accumulate_n():
    xs = [R.randn(2, 3).astype(np.float32) for _ in range(3)]

    def build(m):
        ts = [m.constant(v) for v in xs]
        s = m.math.accumulate_n(ts, shape=[2, 3])
        return {"sum": s, "one": m.math.accumulate_n(ts[:1]),
                "grads": m.gradients(m.reduce_sum(s * s), ts)}
    check(build)
    # In tgraph the op is AccumulateNV2 (graph-mode tf.math.accumulate_n's op).
    with tgraph.Graph().as_default() as g:
        tgraph.math.accumulate_n([tgraph.constant(v) for v in xs])
        assert "AccumulateNV2" in [op.type for op in g.get_operations()]
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with pytest.raises(ValueError):
                m.math.accumulate_n([])
            with pytest.raises(ValueError):
                m.math.accumulate_n([m.constant([1.0]), m.constant([1, 2])])


def test_mismatched_shapes_fail_in_both():
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            with pytest.raises(ValueError):
                m.math.xlogy(m.constant(np.ones((2, 3), np.float32)),
                             m.constant(np.ones((4,), np.float32)))
