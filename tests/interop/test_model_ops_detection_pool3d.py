"""3-D pooling (MaxPool3D, AvgPool3D, MaxPool3DGrad, AvgPool3DGrad) and the detection ops
(NonMaxSuppression V1-V5, NonMaxSuppressionWithOverlaps, CombinedNonMaxSuppression,
CropAndResize and its gradients' ops) differentially
against TensorFlow, in the pattern of test_model_ops.py: a TF1 graph with the exact raw op,
TF's kernel with graph rewrites off, the GraphDef run by `tgraph run`, every output compared
(NMS indices exactly). Also: each op's definition is TF's OpDef (args, attrs, allowed values,
defaults, minimums), TF's own training graph through 3-D pooling runs here with TF's
gradients, and bad inputs fail the run with a message naming the node.

TensorFlow's oneDNN build rewrites MaxPool3DGrad in graphs to oneDNN's kernel, which gives a
window's gradient to the FIRST tied maximum only, while TF's own CPU kernel gives it to every
tied maximum (what tgraph does); oneDNN is turned off here so TF's own kernels are compared."""
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow is imported (see above)

import re  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

from test_model_ops import RAW, TOOL, V1, check, ph, rng, run_tensorflow, run_tgraph  # noqa: E402

OPS = ["MaxPool3D", "AvgPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad", "NonMaxSuppression",
       "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
       "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression", "CropAndResize", "CropAndResizeGradImage",
       "CropAndResizeGradBoxes"]


def _type_name(t):
    return types_pb2.DataType.Name(t)[3:].lower()


def _tf_default(attr):
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "s":
        return "'" + v.s.decode() + "'"
    if kind == "type":
        return _type_name(v.type)
    if kind == "b":
        return "true" if v.b else "false"
    if kind == "f":
        return "%g" % v.f
    if kind == "i":
        return str(v.i)
    return None


@pytest.mark.parametrize("name", OPS)
def test_op_def_matches_tensorflow(name):
    """Args (names, types), attrs (kinds, allowed values, defaults, minimums) as TF's."""
    done = subprocess.run([TOOL, "ops", name], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    want = op_def_registry.get(name)

    def args(defs):
        return ", ".join(f"{a.name}: {a.type_attr or _type_name(a.type)}" for a in defs)
    assert lines[0] == f"{name}({args(want.input_arg)}) -> ({args(want.output_arg)})"
    got = {}
    for line in lines[1:]:
        m = re.match(r"\s+attr (\w+): (.+?)(?: = (.*))?$", line)
        if m:
            got[m.group(1)] = (m.group(2), m.group(3))
    expected = {}
    for a in want.attr:
        if a.allowed_values.HasField("list"):
            vals = a.allowed_values.list
            kind = "{" + ", ".join([_type_name(t) for t in vals.type] +
                                   ["'" + s.decode() + "'" for s in vals.s]) + "}"
        else:
            kind = a.type + (f" >= {a.minimum}" if a.has_minimum else "")
        expected[a.name] = (kind, _tf_default(a) if a.HasField("default_value") else None)
    assert got == expected
    assert any("kernels: CPU" in line for line in lines), done.stdout


# ---- 3-D pooling (MaxPool3DGradGrad: the first tied maximum's grad, as TF) ----

POOL_CASES = [  # input shape, window, strides
    ((2, 4, 5, 6, 3), (2, 2, 2), (2, 2, 2)),
    ((1, 5, 5, 7, 2), (3, 2, 3), (1, 2, 2)),
    ((2, 3, 6, 5, 1), (1, 3, 1), (2, 1, 3)),
    ((1, 7, 4, 4, 2), (2, 1, 1), (3, 4, 1)),
    ((1, 3, 3, 3, 4), (3, 3, 3), (1, 1, 1)),
]


def win(k):
    return [1, *k, 1]


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pool3d_and_gradient_ops(tmp_path, padding, case):
    shape, k, s = POOL_CASES[case]
    x = rng(case).randn(*shape).astype(np.float32)
    x[..., 0] = np.round(x[..., 0])  # one channel with many tied maxima

    def build():
        vx = ph("x", x)
        mx = RAW.MaxPool3D(input=vx, ksize=win(k), strides=win(s), padding=padding)
        av = RAW.AvgPool3D(input=vx, ksize=win(k), strides=win(s), padding=padding)
        g = tf.constant(rng(case + 50).randn(*mx.shape.as_list()).astype(np.float32))
        mg = RAW.MaxPool3DGrad(orig_input=vx, orig_output=mx, grad=g, ksize=win(k), strides=win(s),
                               padding=padding)
        ag = RAW.AvgPool3DGrad(orig_input_shape=list(shape), grad=g, ksize=win(k), strides=win(s),
                               padding=padding)
        g2 = tf.constant(rng(case + 60).randn(*shape).astype(np.float32))
        mgg = RAW.MaxPool3DGradGrad(orig_input=vx, orig_output=mx, grad=g2, ksize=win(k), strides=win(s),
                                    padding=padding)
        return [mx, av, mg, ag, mgg]
    check(tmp_path, build, {"x:0": x}, rtol=1e-5, atol=1e-5)


def test_pool3d_bfloat16(tmp_path):
    x = rng(7).randn(2, 4, 4, 4, 3).astype(np.float32)

    def build():
        vx = tf.cast(ph("x", x), tf.bfloat16)
        outs = []
        for padding in ("VALID", "SAME"):
            mx = RAW.MaxPool3D(input=vx, ksize=win((2, 3, 2)), strides=win((2, 1, 2)), padding=padding)
            av = RAW.AvgPool3D(input=vx, ksize=win((2, 3, 2)), strides=win((2, 1, 2)), padding=padding)
            g = tf.cast(tf.constant(rng(8).randn(*mx.shape.as_list()).astype(np.float32)), tf.bfloat16)
            mg = RAW.MaxPool3DGrad(orig_input=vx, orig_output=mx, grad=g, ksize=win((2, 3, 2)),
                                   strides=win((2, 1, 2)), padding=padding)
            ag = RAW.AvgPool3DGrad(orig_input_shape=[2, 4, 4, 4, 3], grad=g, ksize=win((2, 3, 2)),
                                   strides=win((2, 1, 2)), padding=padding)
            outs += [tf.cast(t, tf.float32) for t in (mx, av, mg, ag)]
        return outs
    check(tmp_path, build, {"x:0": x}, rtol=2e-2, atol=5e-2)


def test_training_graph_through_3d_pooling(tmp_path):
    """What TF builds to train a small 3-D CNN: Conv3D -> MaxPool3D -> AvgPool3D -> loss and
    tf.gradients of it (MaxPool3DGrad and AvgPool3DGrad among the backward ops), plus the
    second-order gradient of the average pooling (AvgPool3DGrad's own gradient)."""
    x = rng(20).randn(2, 6, 6, 6, 2).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        vx = ph("x", x)
        w = tf.constant(rng(21).randn(2, 2, 2, 2, 4).astype(np.float32) * 0.3)
        h = tf.nn.conv3d(vx, w, [1, 1, 1, 1, 1], "SAME")
        p = tf.nn.max_pool3d(h, 2, 2, "VALID")
        q = tf.nn.avg_pool3d(p, 2, 1, "SAME")
        loss = tf.reduce_sum(q * tf.constant(rng(22).randn(2, 3, 3, 3, 4).astype(np.float32)))
        grads = tf.gradients(loss, [vx, w])
        # AvgPool3DGrad fed by a gradient that depends on p: its own gradient is needed.
        gq = tf.gradients(q, p, grad_ys=q)[0]
        second = tf.gradients(tf.reduce_sum(gq * gq), p)
    ops = {n.op for n in graph.as_graph_def().node}
    assert {"MaxPool3DGrad", "AvgPool3DGrad"} <= ops, ops
    fetches = [t.name for t in [loss] + grads + [gq] + second]
    expected = run_tensorflow(graph, {"x:0": x}, fetches)
    got = run_tgraph(tmp_path, graph, {"x:0": x}, fetches)
    for name, e, g in zip(fetches, expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4 * np.abs(e).max(), err_msg=name)


# ---- non-maximum suppression ----

def nms_case(seed, n=40, ties=True):
    r = rng(seed)
    corners = r.rand(n, 2, 2).astype(np.float32) * 0.6
    size = r.rand(n, 1, 2).astype(np.float32) * 0.5
    boxes = np.concatenate([corners[:, 0], corners[:, 0] + size[:, 0]], axis=1)
    flip = r.rand(n) < 0.3  # some boxes given with y1 > y2 / x1 > x2
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    boxes[3] = [0.2, 0.2, 0.2, 0.5]  # no area
    scores = r.rand(n).astype(np.float32)
    if ties:
        scores = np.round(scores * 8) / 8  # many equal scores
    return boxes.astype(np.float32), scores.astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_non_max_suppression_versions(tmp_path, seed):
    boxes, scores = nms_case(seed)

    def build():
        b, s = ph("b", boxes), ph("s", scores)
        outs = [RAW.NonMaxSuppression(boxes=b, scores=s, max_output_size=15, iou_threshold=0.4)]
        for iou in (0.0, 0.3, 0.7, 1.0):
            outs.append(RAW.NonMaxSuppressionV2(boxes=b, scores=s, max_output_size=40, iou_threshold=iou))
        for score in (-1.0, 0.0, 0.5, 0.875):
            outs.append(RAW.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=12, iou_threshold=0.5,
                                                score_threshold=score))
        for pad in (False, True):
            for m in (0, 5, 60):
                outs += list(RAW.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=m, iou_threshold=0.5,
                                                     score_threshold=0.25, pad_to_max_output_size=pad))
        return outs
    check(tmp_path, build, {"b:0": boxes, "s:0": scores})


@pytest.mark.parametrize("sigma", [0.0, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("pad", [False, True])
def test_non_max_suppression_v5_soft(tmp_path, sigma, pad):
    boxes, scores = nms_case(10 + int(sigma * 10), ties=False)

    def build():
        b, s = ph("b", boxes), ph("s", scores)
        outs = []
        for iou, score in ((0.5, 0.0), (1.0, 0.3), (0.3, -1.0)):
            outs += list(RAW.NonMaxSuppressionV5(boxes=b, scores=s, max_output_size=30, iou_threshold=iou,
                                                 score_threshold=score, soft_nms_sigma=sigma,
                                                 pad_to_max_output_size=pad))
        return outs
    check(tmp_path, build, {"b:0": boxes, "s:0": scores}, rtol=1e-6, atol=1e-7)


def test_non_max_suppression_half(tmp_path):
    boxes, scores = nms_case(5)
    b16, s16 = boxes.astype(np.float16), scores.astype(np.float16)

    def build():
        b, s = ph("b", b16), ph("s", s16)
        outs = [RAW.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=20, iou_threshold=0.5,
                                        score_threshold=0.25),
                RAW.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=20,
                                        iou_threshold=np.float16(0.4), score_threshold=np.float16(0.3))]
        outs += list(RAW.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=25, iou_threshold=0.5,
                                             score_threshold=0.1, pad_to_max_output_size=True))
        outs += list(RAW.NonMaxSuppressionV5(boxes=b, scores=s, max_output_size=25,
                                             iou_threshold=np.float16(0.6), score_threshold=np.float16(0.1),
                                             soft_nms_sigma=np.float16(0.5)))
        return outs
    check(tmp_path, build, {"b:0": b16, "s:0": s16}, rtol=1e-3, atol=1e-3)


def test_non_max_suppression_with_overlaps(tmp_path):
    """Overlaps not symmetric: which of (candidate, selected) is read matters."""
    r = rng(30)
    overlaps = r.rand(25, 25).astype(np.float32)
    scores = np.round(r.rand(25) * 6).astype(np.float32) / 6

    def build():
        o, s = ph("o", overlaps), ph("s", scores)
        return [RAW.NonMaxSuppressionWithOverlaps(overlaps=o, scores=s, max_output_size=m,
                                                  overlap_threshold=t, score_threshold=st)
                for m, t, st in ((25, 0.5, -1.0), (10, 0.8, 0.2), (25, 0.95, 0.5), (25, 2.0, 0.0))]
    check(tmp_path, build, {"o:0": overlaps, "s:0": scores})


def test_non_max_suppression_empty(tmp_path):
    boxes, scores = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)

    def build():
        b, s = ph("b", boxes), ph("s", scores)
        return ([RAW.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=3, iou_threshold=0.5,
                                         score_threshold=0.0)] +
                list(RAW.NonMaxSuppressionV5(boxes=b, scores=s, max_output_size=3, iou_threshold=0.5,
                                             score_threshold=0.0, soft_nms_sigma=0.5,
                                             pad_to_max_output_size=True)))
    check(tmp_path, build, {"b:0": boxes, "s:0": scores})


@pytest.mark.parametrize("q_per_class", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_combined_non_max_suppression(tmp_path, q_per_class, ties):
    r = rng(60 + 2 * q_per_class + ties)
    batch, n, classes = 3, 30, 4
    lo = r.rand(batch, n, classes if q_per_class else 1, 2) * 1.1 - 0.05
    boxes = np.concatenate([lo, lo + r.rand(*lo.shape) * 0.4], axis=-1).astype(np.float32)
    scores = r.rand(batch, n, classes).astype(np.float32)
    if ties:
        scores = (np.round(scores * 6) / 6).astype(np.float32)

    def build():
        b, s = ph("b", boxes), ph("s", scores)
        outs = []
        for per_class, total, iou, score, pad, clip in ((5, 12, 0.5, 0.2, False, True),
                                                       (3, 100, 0.3, 0.0, True, True),
                                                       (40, 50, 0.7, -1.0, False, False),
                                                       (2, 5, 1.0, 0.5, True, False)):
            outs += list(RAW.CombinedNonMaxSuppression(
                boxes=b, scores=s, max_output_size_per_class=per_class, max_total_size=total,
                iou_threshold=iou, score_threshold=score, pad_per_class=pad, clip_boxes=clip))
        return outs
    check(tmp_path, build, {"b:0": boxes, "s:0": scores}, rtol=0, atol=0)


# ---- CropAndResize ----

def crop_case(seed, n=12):
    r = rng(seed)
    boxes = (r.rand(n, 4) * 1.6 - 0.3).astype(np.float32)  # flipped and partly outside, some
    boxes[0] = [0.5, 0.5, 0.5, 0.5]
    boxes[1] = [0, 0, 1, 1]
    box_ind = r.randint(0, 3, n).astype(np.int32)
    return boxes, box_ind


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.uint8, np.int16, np.int32,
                                   np.int64, np.int8, np.uint16])
def test_crop_and_resize(tmp_path, method, dtype):
    r = rng(40)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        image = r.randint(max(info.min, -1000), min(info.max, 1000), (3, 9, 11, 2)).astype(dtype)
    else:
        image = (r.randn(3, 9, 11, 2) * 10).astype(dtype)
    boxes, box_ind = crop_case(41)

    def build():
        im, b = ph("im", image), ph("b", boxes)
        return [RAW.CropAndResize(image=im, boxes=b, box_ind=box_ind, crop_size=size, method=method,
                                  extrapolation_value=ev)
                for size, ev in (([5, 4], 0.0), ([1, 1], -3.5), ([1, 6], 2.0), ([7, 1], 0.0))]
    check(tmp_path, build, {"im:0": image, "b:0": boxes}, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_crop_and_resize_gradient_ops(tmp_path, method, dtype):
    r = rng(42)
    image = (r.randn(3, 9, 11, 2) * 10).astype(dtype)
    boxes, box_ind = crop_case(43)

    def build():
        im, b = ph("im", image), ph("b", boxes)
        outs = []
        for size in ([5, 4], [1, 1], [1, 6]):
            g = tf.constant(r.randn(len(boxes), *size, 2).astype(np.float32))
            outs.append(RAW.CropAndResizeGradImage(grads=g, boxes=b, box_ind=box_ind, image_size=[3, 9, 11, 2],
                                                   T=dtype, method=method))
            outs.append(RAW.CropAndResizeGradBoxes(grads=g, image=im, boxes=b, box_ind=box_ind))
        return outs
    tol = 2e-2 if dtype == np.float16 else 1e-4
    check(tmp_path, build, {"im:0": image, "b:0": boxes}, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int16])
def test_crop_and_resize_boxes_gradient_of_integer_images(tmp_path, dtype):
    image = rng(44).randint(0, 120, (3, 9, 11, 2)).astype(dtype)
    boxes, box_ind = crop_case(45)

    def build():
        g = tf.constant(rng(46).randn(len(boxes), 4, 3, 2).astype(np.float32))
        return [RAW.CropAndResizeGradBoxes(grads=g, image=ph("im", image), boxes=ph("b", boxes),
                                           box_ind=box_ind)]
    check(tmp_path, build, {"im:0": image, "b:0": boxes}, rtol=1e-4, atol=1e-3)


def test_training_graph_through_crop_and_resize(tmp_path):
    """A detection head's ROI crop as TF differentiates it: tf.gradients of a loss over
    crop_and_resize with respect to the feature map and the boxes."""
    feat = rng(50).randn(3, 10, 12, 3).astype(np.float32)
    boxes, box_ind = crop_case(51, n=8)
    boxes = np.clip(boxes, 0.05, 0.95)  # inside: every sample has a gradient
    graph = tf.Graph()
    with graph.as_default():
        f, b = ph("f", feat), ph("b", boxes)
        crops = V1.image.crop_and_resize(f, b, box_ind, [4, 4])
        loss = tf.reduce_sum(crops * tf.constant(rng(52).randn(8, 4, 4, 3).astype(np.float32)))
        grads = tf.gradients(loss, [f, b])
    ops = {n.op for n in graph.as_graph_def().node}
    assert {"CropAndResizeGradImage", "CropAndResizeGradBoxes"} <= ops, ops
    fetches = [t.name for t in [loss] + grads]
    expected = run_tensorflow(graph, {"f:0": feat, "b:0": boxes}, fetches)
    got = run_tgraph(tmp_path, graph, {"f:0": feat, "b:0": boxes}, fetches)
    for name, e, g in zip(fetches, expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4 * np.abs(e).max(), err_msg=name)


# ---- bad inputs: the run fails naming the node, no crash ----

@pytest.mark.parametrize("which", ["pool", "nms", "crop"])
def test_bad_inputs_fail_naming_the_node(tmp_path, which):
    graph = tf.Graph()
    with graph.as_default():
        if which == "pool":
            v = V1.placeholder(tf.float32, None, name="v")
            RAW.MaxPool3D(input=v, ksize=win((3, 3, 3)), strides=win((1, 1, 1)), padding="VALID",
                          name="bad_pool")
            feeds, fetch, msg = {"v:0": np.ones((1, 2, 2, 2, 1), np.float32)}, "bad_pool:0", "bad_pool"
        elif which == "nms":
            v = V1.placeholder(tf.float32, None, name="v")
            RAW.NonMaxSuppressionV3(boxes=v, scores=np.ones(3, np.float32), max_output_size=2,
                                    iou_threshold=0.5, score_threshold=0.0, name="bad_nms")
            feeds, fetch, msg = {"v:0": np.ones((3, 3), np.float32)}, "bad_nms:0", "bad_nms"
        else:
            v = V1.placeholder(tf.int32, None, name="v")
            RAW.CropAndResize(image=np.ones((1, 3, 3, 1), np.float32), boxes=[[0, 0, 1, 1]], box_ind=v,
                              crop_size=[2, 2], name="bad_crop")
            feeds, fetch, msg = {"v:0": np.array([4], np.int32)}, "bad_crop:0", "bad_crop"
    with pytest.raises(AssertionError, match=msg):
        run_tgraph(tmp_path, graph, feeds, [fetch])
