"""tf.nn.max_pool3d / avg_pool3d and the detection functions of tf.image
(non_max_suppression, non_max_suppression_with_scores, non_max_suppression_overlaps,
combined_non_max_suppression, crop_and_resize) built with tgraph and with real TensorFlow (tf.compat.v1) on the same
inputs: values, and tf.gradients for the pooling (first and, through AvgPool3DGrad,
MaxPool3DGrad and MaxPool3DGradGrad, higher order) and crop_and_resize (image and boxes) must agree; the NMS ops give no gradient."""
import numpy as np
import pytest

import tgraph
from test_differential_ops import check, run_both, with_grads

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(23)
# Distinct values: no tied maxima (TF's oneDNN and own kernels split ties differently).
VOL = (RNG.permutation(2 * 5 * 6 * 4 * 3).reshape(2, 5, 6, 4, 3).astype(np.float32) - 100) / 37


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize,strides", [(2, 2), ([2, 3, 2], [1, 2, 1]), ([1, 3, 3, 2, 1], [1, 2, 2, 2, 1])])
def test_pool3d_values_and_gradients(padding, ksize, strides):
    def build(m):
        x = m.constant(VOL)
        outs = {"max": m.nn.max_pool3d(x, ksize, strides, padding),
                "avg": m.nn.avg_pool3d(x, ksize, strides, padding)}
        return with_grads(m, outs, [x])
    check(build, tol=1e-5)


def test_pool3d_second_order():
    """d/dx of sum(g(x)^2) where g = d avg_pool3d(x)/dx weighted by avg_pool3d(x) itself:
    AvgPool3DGrad's own gradient (AvgPool3D) and MaxPool3D's below it."""
    def build(m):
        x = m.constant(VOL)
        h = m.nn.max_pool3d(x, [1, 2, 2, 1, 1], [1, 1, 2, 1, 1], "SAME")
        q = m.nn.avg_pool3d(h, 2, 1, "SAME")
        g = m.gradients(q, h, grad_ys=q * q)[0]
        return {"g": g, "dg": m.gradients(m.reduce_sum(g * g), x)[0]}
    check(build, tol=1e-4)


def test_max_pool3d_grad_gradient():
    """MaxPool3DGrad's own gradient (MaxPool3DGradGrad) and that one's (MaxPool3DGrad): the
    gradient fed back is the pooling itself, so d/dx goes through both."""
    def build(m):
        x = m.constant(VOL)
        y = m.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "SAME")
        g = m.gradients(y, x, grad_ys=y * y)[0]
        gg = m.gradients(m.reduce_sum(g * g * g), x)[0]
        return {"g": g, "gg": gg, "ggg": m.gradients(m.reduce_sum(gg * gg), x)[0]}
    check(build, tol=1e-4)


def boxes_case(seed, n=30):
    r = np.random.RandomState(seed)
    lo = r.rand(n, 2) * 0.7
    boxes = np.concatenate([lo, lo + r.rand(n, 2) * 0.4], axis=1).astype(np.float32)
    boxes[::4] = boxes[::4][:, [2, 3, 0, 1]]  # corners given the other way round
    scores = (np.round(r.rand(n) * 10) / 10).astype(np.float32)  # ties
    return boxes, scores


def test_non_max_suppression_functions():
    boxes, scores = boxes_case(1)
    overlaps = np.random.RandomState(2).rand(30, 30).astype(np.float32)

    def build(m):
        b, s = m.constant(boxes), m.constant(scores)
        out = {"nms": m.image.non_max_suppression(b, s, 10),
               "nms_t": m.image.non_max_suppression(b, s, 30, iou_threshold=0.3, score_threshold=0.4),
               "ov": m.image.non_max_suppression_overlaps(m.constant(overlaps), s, 12,
                                                         overlap_threshold=0.7, score_threshold=0.1)}
        for sigma in (0.0, 0.5):
            idx, sc = m.image.non_max_suppression_with_scores(b, s, 20, iou_threshold=0.6,
                                                               score_threshold=0.05, soft_nms_sigma=sigma)
            out[f"idx{sigma}"], out[f"sc{sigma}"] = idx, sc
        return out
    a, b = run_both(build)
    assert set(a) == set(b)
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        np.testing.assert_allclose(a[k], b[k], rtol=1e-6, err_msg=k)


def test_combined_non_max_suppression():
    r = np.random.RandomState(9)
    lo = r.rand(2, 20, 1, 2) * 0.8
    boxes = np.concatenate([lo, lo + r.rand(2, 20, 1, 2) * 0.4], axis=-1).astype(np.float32)
    scores = r.rand(2, 20, 3).astype(np.float32)

    def build(m):
        out = m.image.combined_non_max_suppression(m.constant(boxes), m.constant(scores), 4, 9,
                                                   iou_threshold=0.4, score_threshold=0.1)
        return dict(zip(["boxes", "scores", "classes", "valid"], out))
    a, b = run_both(build)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_non_max_suppression_has_no_gradient():
    """tgraph registers the NMS ops as not differentiable (no gradient flows back to boxes or
    scores); TF registers nothing for them, so its tf.gradients raises LookupError instead."""
    boxes, scores = boxes_case(3)
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            b, s = m.constant(boxes), m.constant(scores)
            _, sc = m.image.non_max_suppression_with_scores(b, s, 5, soft_nms_sigma=0.5)
            if m is tgraph:
                assert m.gradients(m.reduce_sum(sc), [b, s]) == [None, None]
            else:
                with pytest.raises(LookupError, match="NonMaxSuppressionV5"):
                    m.gradients(m.reduce_sum(sc), [b, s])


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize(method):
    image = np.random.RandomState(4).randn(2, 7, 9, 3).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.8, 0.1, 0.2], [-0.2, 0.3, 1.3, 0.7],
                      [0.5, 0.5, 0.5, 0.5]], np.float32)
    box_ind = np.array([0, 1, 1, 0], np.int32)

    def build(m):
        im = m.constant(image)
        return {"a": m.image.crop_and_resize(im, boxes, box_ind, [4, 5], method=method),
                "b": m.image.crop_and_resize(im, boxes, box_ind, [1, 3], method=method,
                                             extrapolation_value=-1.0)}
    check(build, tol=1e-5)
    g = tgraph.Graph()
    with g.as_default():
        crops = tgraph.image.crop_and_resize(tgraph.constant(image), boxes, box_indices=box_ind,
                                              crop_size=[2, 2], method=method)
        with tgraph.Session() as sess:
            assert sess.run(crops).shape == (4, 2, 2, 3)


def test_crop_and_resize_gradients():
    """tf.gradients through crop_and_resize w.r.t. the image and the boxes (both methods:
    TF approximates nearest's boxes gradient by bilinear's, and so does tgraph)."""
    image = np.random.RandomState(5).randn(2, 7, 9, 3).astype(np.float32)
    boxes = np.array([[0.13, 0.22, 0.81, 0.93], [0.87, 0.78, 0.11, 0.23], [0.35, 0.4, 0.55, 0.7]],
                     np.float32)

    def build(m):
        im, b = m.constant(image), m.constant(boxes)
        outs = {"bl": m.image.crop_and_resize(im, b, [0, 1, 1], [3, 4]),
                "nn": m.image.crop_and_resize(im, b, [1, 0, 1], [2, 5], method="nearest")}
        return with_grads(m, outs, [im, b])
    check(build, tol=1e-4)


def test_bad_pool3d_arguments_fail_as_in_tf():
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            with pytest.raises(ValueError):
                m.nn.max_pool3d(m.constant(VOL), [2, 2], 1, "VALID")  # 2 values: neither 1, 3 nor 5
