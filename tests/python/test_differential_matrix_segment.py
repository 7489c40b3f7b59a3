"""Matrix-structure functions (tf.linalg.band_part, diag, diag_part, set_diag, tensor_diag,
tensor_diag_part) and segment reductions (tf.math.segment_*, unsorted_segment_*,
tf.sparse.segment_*) built with tgraph and with real TensorFlow (tf.compat.v1) on the same
inputs: values and gradients must agree; bad ids fail as in TF."""
import numpy as np
import pytest

import tgraph
from test_differential_ops import check, run_both, with_grads

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(11)
M = RNG.randn(2, 3, 4).astype(np.float32)
SQ = RNG.randn(2, 3, 3).astype(np.float32)
# Distinct values, a zero in row 1 and two in row 4, for max/min/prod gradients.
DATA = (RNG.permutation(15).reshape(5, 3).astype(np.float32) - 7.0) / 4.0
DATA[1, 0] = 0.0
DATA[4, 1:] = 0.0
ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


def test_band_part():
    def build(m):
        x = m.constant(M)
        outs = {"lower": m.linalg.band_part(x, -1, 0), "upper": m.linalg.band_part(x, 0, -1),
                "band": m.linalg.band_part(x, 1, 2), "diag": m.matrix_band_part(x, 0, 0),
                "i32": m.linalg.band_part(x, np.int32(2), np.int32(0))}
        return with_grads(m, outs, [x])
    check(build)


@pytest.mark.parametrize("align", ALIGNS)
def test_diag_part_diag_set_diag(align):
    def build(m):
        x = m.constant(M)
        outs = {"part": m.linalg.diag_part(x, k=(-1, 2), padding_value=9, align=align),
                "part1": m.linalg.diag_part(x, k=1, align=align),
                "part0": m.linalg.diag_part(x)}
        fetches = with_grads(m, outs, [x])
        d = m.constant(SQ)
        outs = {"diag": m.linalg.diag(d, k=(-1, 1), num_rows=3, num_cols=4, align=align),
                "diag_sq": m.linalg.diag(d, k=(-2, 0), padding_value=0.5, align=align),
                "diag0": m.linalg.diag(d[0, 0])}
        fetches.update(with_grads(m, outs, [d]))
        dd = m.constant(SQ[0])
        outs = {"set": m.linalg.set_diag(x, m.stack([dd, dd]), k=(-1, 1), align=align),
                "set0": m.linalg.set_diag(x, m.stack([dd[0], dd[1]]), align=align)}
        fetches.update(with_grads(m, outs, [x, dd]))
        return fetches
    check(build)


T4 = RNG.randn(2, 3, 2, 3).astype(np.float32)


def test_tensor_diag():
    def build(m):
        v = m.constant(M[0])
        outs = {"diag": m.linalg.tensor_diag(v), "tf1_diag": m.diag(v[0])}
        fetches = with_grads(m, outs, [v])
        t = m.constant(T4)
        fetches.update(with_grads(m, {"part": m.linalg.tensor_diag_part(t),
                                      "tf1_part": m.diag_part(t[:, 1, :, 1])}, [t]))
        return fetches
    check(build)


def test_sorted_segments():
    ids = np.array([0, 0, 2, 3, 3], np.int32)
    def build(m):
        x = m.constant(DATA)
        outs = {op: getattr(m.math, op)(x, ids) for op in
                ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]}
        outs["i64"] = m.math.segment_sum(x, ids.astype(np.int64))
        fetches = with_grads(m, outs, [x])
        fetches["int"] = m.math.segment_max(m.constant(np.arange(5, dtype=np.int32)), ids)
        fetches["int_mean"] = m.math.segment_mean(m.constant(np.arange(5, dtype=np.int64)), ids)
        return fetches
    check(build)


def test_unsorted_segments():
    ids = np.array([3, 0, -1, 3, 0], np.int32)
    ids2 = np.array([[1, 0], [-1, 1]], np.int64)
    def build(m):
        x = m.constant(DATA)
        outs = {op: getattr(m.math, op)(x, ids, 5) for op in
                ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
                 "unsorted_segment_prod"]}
        fetches = with_grads(m, outs, [x])
        y = m.constant(M[:, :2])
        fetches.update(with_grads(m, {"max2": m.math.unsorted_segment_max(y, ids2, 3),
                                      "prod2": m.math.unsorted_segment_prod(y, ids2, 2)}, [y]))
        fetches["int"] = m.math.unsorted_segment_min(
            m.constant(np.arange(5, dtype=np.int32)), ids, m.constant(np.int64(4)))
        return fetches
    check(build)


def test_sparse_segments():
    idx = np.array([0, 2, 2, 4, 1], np.int32)
    seg = np.array([0, 0, 1, 3, 3], np.int32)
    def build(m):
        x = m.constant(DATA)
        outs = {}
        for op in ["segment_sum", "segment_mean", "segment_sqrt_n"]:
            f = getattr(m.sparse, op)
            outs[op] = f(x, idx, seg)
            outs[op + "_num"] = f(x, idx.astype(np.int64), seg, num_segments=6)
        fetches = with_grads(m, outs, [x])
        fetches["int"] = m.sparse.segment_sum(m.constant(np.arange(10).reshape(5, 2)), idx, seg)
        return fetches
    check(build)


@pytest.mark.parametrize("case", [
    ("segment_sum", [0, 2, 1], "segment ids are not increasing"),
    ("segment_max", [-1, 0, 1], "Segment id -1 out of range"),
])
def test_sorted_segment_bad_ids(case):
    op, ids, message = case
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32, [None])
            i = m.placeholder(m.int32, [None])
            y = getattr(m.math, op)(x, i)
            with m.Session() as sess:
                with pytest.raises(m.errors.InvalidArgumentError, match=message):
                    sess.run(y, {x: [1, 2, 3], i: ids})


def test_unsorted_and_sparse_bad_ids():
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32, [None, 2])
            i = m.placeholder(m.int32, [None])
            s = m.placeholder(m.int32, [None])
            with m.Session() as sess:
                with pytest.raises(m.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5"):
                    sess.run(m.math.unsorted_segment_max(x, i, 4),
                             {x: np.ones((3, 2)), i: [0, 5, 1]})
                with pytest.raises(m.errors.InvalidArgumentError,
                                   match=r"Bad: indices\[2\] == 5 out of range \[0, 3\)"):
                    sess.run(m.sparse.segment_sum(x, i, s),
                             {x: np.ones((3, 2)), i: [0, 2, 5], s: [0, 0, 1]})
                with pytest.raises(m.errors.InvalidArgumentError,
                                   match="num_lower must be negative or less or equal"):
                    sess.run(m.linalg.band_part(x, 4, 0), {x: np.ones((3, 2))})


def test_empty_and_batched_shapes():
    def build(m):
        e = m.constant(np.zeros((0, 3, 4), np.float32))
        return {"part": m.linalg.diag_part(e, k=(0, 1)), "band": m.linalg.band_part(e, 1, 1),
                "seg": m.math.segment_sum(m.constant(np.zeros((0, 2), np.float32)),
                                          np.zeros(0, np.int32)),
                "unsorted": m.math.unsorted_segment_max(m.constant(np.zeros((0, 2), np.float32)),
                                                        np.zeros(0, np.int32), 3)}
    a, b = run_both(build)
    for k in a:
        assert a[k].shape == b[k].shape, k
        np.testing.assert_array_equal(a[k], b[k])


def test_misc_ops_values_and_gradients():
    x_np = RNG.randn(2, 3, 3).astype(np.float32)
    def build(m):
        x = m.constant(x_np)
        lo = m.constant(np.float32(-0.5))
        outs = {"ensure": m.ensure_shape(x, [2, None, 3]),
                "check": m.debugging.check_numerics(x, "msg"),
                "roll": m.roll(x, [1, -2], [2, 1]),
                "cross": m.linalg.cross(x, x[::-1]),
                "clip_op": m.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=x * 0.5 + 0.2),
                "clip": m.clip_by_value(x, -0.5, 0.5),
                "concat_v1": m.raw_ops.Concat(concat_dim=1, values=[x, x[:, :1]]),
                "bmm_v1": m.raw_ops.BatchMatMul(x=x, y=x, adj_x=True)}
        fetches = with_grads(m, outs, [x])
        fetches["clip_lo_grad"] = m.gradients(
            m.reduce_sum(m.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=x * 0.5 + 0.2) *
                         x_np), [lo])[0]
        fetches["in_top_k"] = m.math.in_top_k(m.constant(x_np[0]), [0, 1, 2], 2)
        fetches["search"] = m.searchsorted(m.constant(np.sort(x_np[0], 1)), x_np[1],
                                           side="right")
        return fetches
    check(build)


def test_check_numerics_and_ensure_shape_fail_the_run():
    for m in (tgraph, tf1):
        with m.Graph().as_default():
            x = m.placeholder(m.float32, [None])
            with m.Session() as sess:
                with pytest.raises(m.errors.InvalidArgumentError,
                                   match="bad : Tensor had NaN values"):
                    sess.run(m.debugging.check_numerics(x, "bad"), {x: [1, np.nan]})
                with pytest.raises(m.errors.InvalidArgumentError, match="is not compatible"):
                    sess.run(m.ensure_shape(x, [3]), {x: [1, 2]})
