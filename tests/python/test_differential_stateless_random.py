"""tf.random.stateless_uniform / stateless_normal / stateless_truncated_normal and
tf.random.experimental.stateless_split / stateless_fold_in / stateless_shuffle through the Python API, built with
tgraph and with real TensorFlow (tf.compat.v1) from the same seeds: the numbers must be
identical bit for bit (TensorFlow's Philox stream, seed scrambling and conversions), including
the scale and shift; gradients reach mean and stddev but never the seed (not differentiable,
as in TensorFlow)."""
import numpy as np
import pytest

import tgraph
from test_differential_ops import run_both, tf1


def assert_identical(a, b):
    assert a.keys() == b.keys()
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        assert x.dtype == y.dtype and x.shape == y.shape, k
        assert x.tobytes() == y.tobytes(), f"{k}: {x.reshape(-1)[:4]} vs {y.reshape(-1)[:4]}"


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_draws(dtype):
    def build(m):
        r = m.random
        seed = m.constant([17, -4], dtype=m.int64)
        return {"u": r.stateless_uniform([3, 5], seed, dtype=dtype),
                "u_range": r.stateless_uniform([257], seed, minval=-2.0, maxval=5.0, dtype=dtype),
                "n": r.stateless_normal([6, 7], seed, mean=1.5, stddev=0.25, dtype=dtype),
                "t": r.stateless_truncated_normal([1001], [3, 9], stddev=0.02, dtype=dtype)}
    assert_identical(*run_both(build))


def test_int_draws_and_seed_helpers():
    def build(m):
        r = m.random
        seed = m.constant([5, 6], dtype=m.int32)
        return {"i32": r.stateless_uniform([9], seed, minval=-3, maxval=1000, dtype=m.int32),
                "i64": r.stateless_uniform([2, 3], [1, 2], minval=0, maxval=2**40,
                                           dtype=m.int64),
                "full": r.stateless_uniform([7], seed, minval=None, maxval=None,
                                            dtype=m.uint32),
                "split": r.experimental.stateless_split(seed, num=3),
                "fold": r.experimental.stateless_fold_in(seed, 11),
                "shuffle": r.experimental.stateless_shuffle(np.arange(40).reshape(20, 2), seed)}
    assert_identical(*run_both(build))


def test_gradients_reach_mean_and_stddev_not_the_seed():
    def build(m):
        mean = m.constant(0.5)
        stddev = m.constant(2.0)
        seed = m.constant([1, 2], dtype=m.int64)
        y = m.random.stateless_normal([4, 3], seed, mean=mean, stddev=stddev)
        dmean, dstd, dseed = m.gradients(m.reduce_sum(y * y), [mean, stddev, seed])
        assert dseed is None
        return {"y": y, "dmean": dmean, "dstd": dstd}
    a, b = run_both(build)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-6, err_msg=k)


def test_bad_seed_is_an_error():
    g = tgraph.Graph()
    with g.as_default():
        with pytest.raises(ValueError):
            tgraph.random.stateless_uniform([3], [1.5, 2.0])
        with pytest.raises(ValueError):
            tgraph.random.stateless_uniform([3], [1, 2, 3])
