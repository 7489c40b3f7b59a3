"""tgraph's LRN and ExtractImagePatches and their gradients (tgraph's autodiff: LRNGrad,
_ExtractImagePatchesGrad) against TensorFlow's, through the Python API (tf.compat.v1)."""
import numpy as np
import pytest

import tgraph
from tf_compare import assert_close

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(17)
IMG = RNG.randn(2, 6, 7, 3).astype(np.float32)


def run_both(build):
    results = []
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            fetches = build(m)
            with m.Session() as sess:
                results.append(sess.run(fetches))
    return results


def weighted_sum_grad(m, y, x):
    """d sum(y * w) / dx for fixed weights w of y's (static) shape."""
    w = np.linspace(-1, 1.5, int(np.prod(y.shape.as_list()))).reshape(y.shape.as_list()).astype(np.float32)
    return m.gradients(m.reduce_sum(y * w), x)[0]


@pytest.mark.parametrize("padding, sizes, strides, rates", [
    ("VALID", [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1]),
    ("SAME", [1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1]),
    ("SAME", [1, 3, 3, 1], [1, 3, 3, 1], [1, 1, 1, 1]),
])
def test_extract_image_patches_and_gradient(padding, sizes, strides, rates):
    def build(m):
        x = m.constant(IMG)
        y = m.image.extract_patches(x, sizes=sizes, strides=strides, rates=rates, padding=padding)
        return {"y": y, "dx": weighted_sum_grad(m, y, x)}
    a, b = run_both(build)
    assert_close(a, b, 1e-5)


def test_extract_image_patches_v1_name():
    def build(m):
        return m.extract_image_patches(m.constant(IMG), ksizes=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                       rates=[1, 1, 1, 1], padding="VALID")
    a, b = run_both(build)
    assert_close(a, b, 0)


def test_lrn_and_gradient():
    def build(m):
        x = m.constant(IMG)
        y = m.nn.local_response_normalization(x, depth_radius=1, bias=2.0, alpha=0.5, beta=0.75)
        return {"y": y, "dx": weighted_sum_grad(m, y, x), "lrn": m.nn.lrn(x)}
    a, b = run_both(build)
    assert_close(a, b, 1e-5)


@pytest.mark.parametrize("kwargs", [{}, {"minlength": 9}, {"maxlength": 3}, {"weights": "w"}])
def test_bincount(kwargs):
    arr = np.array([[1, 2, 2, 7], [0, 0, 3, 1]], np.int32)
    w = RNG.rand(2, 4).astype(np.float32)

    def build(m):
        kw = dict(kwargs)
        if kw.get("weights") == "w":
            kw["weights"] = m.constant(w)
        return m.math.bincount(m.constant(arr), **kw)
    a, b = run_both(build)
    assert_close(a, b, 1e-6)
