"""The ops frozen Keras / TF models use (issue 19: FusedBatchNorm*, Erfc, DepthwiseConv2dNative,
Split/SplitV, SelectV2, Erf, LeakyRelu, Selu, Round, All/Any, SquaredDifference,
StopGradient, Einsum, BroadcastTo; PadV2, MirrorPad, ReverseV2, SpaceToDepth/DepthToSpace,
SpaceToBatchND/BatchToSpaceND, GatherNd, ScatterNd, TensorScatterUpdate, SparseToDense,
TopKV2, ResizeBilinear/ResizeNearestNeighbor, Assert, Print, Conv3D and its backprops;
grouped Conv2D and its backprops),
differentially against TensorFlow: each case builds a
small TF1 graph with the op (through tf.raw_ops, so the node is exactly that op type), runs it
in TensorFlow with graph rewrites off (so TF's own kernel computes it), writes the GraphDef,
runs it with `tgraph run`, and compares every fetched output."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

TOOL = os.environ["TGRAPH_TOOL"]
V1 = tf.compat.v1
RAW = tf.raw_ops


def rng(seed=0):
    return np.random.RandomState(seed)


def run_tensorflow(graph, feeds, fetches):
    config = V1.ConfigProto()
    # Grappler would fold or rewrite the op (FusedBatchNorm into Mul/Add); compare TF's kernel.
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    with V1.Session(graph=graph, config=config) as sess:
        return sess.run(fetches, {graph.get_tensor_by_name(k): v for k, v in feeds.items()})


def run_tgraph(tmp_path, graph, feeds, fetches):
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    args = [TOOL, "run", str(tmp_path / "graph.pb"), "--npy-out", str(tmp_path / "out")]
    for name, value in feeds.items():
        path = tmp_path / (name.replace(":", "_") + ".npy")
        np.save(path, value)
        args += ["--feed", f"{name}={path}"]
    for name in fetches:
        args += ["--fetch", name]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [np.load(tmp_path / "out" / (name.replace(":", "_") + ".npy")) for name in fetches]


def check(tmp_path, build, feeds, rtol=1e-5, atol=1e-6):
    """build() adds the graph's nodes (placeholders named after the feeds) and returns the
    tensors to fetch."""
    graph = tf.Graph()
    with graph.as_default():
        outs = build()
    fetches = [t.name for t in outs]
    expected = run_tensorflow(graph, feeds, fetches)
    got = run_tgraph(tmp_path, graph, feeds, fetches)
    for name, e, g in zip(fetches, expected, got):
        assert g.dtype == e.dtype, name
        assert g.shape == e.shape, name
        if e.dtype == np.bool_ or np.issubdtype(e.dtype, np.integer):
            np.testing.assert_array_equal(g, e, err_msg=name)
        else:
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol,
                                       atol=atol, err_msg=name)


def ph(name, value):
    return V1.placeholder(tf.as_dtype(value.dtype), value.shape, name=name)


# ---- element-wise ----

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_erf_erfc_selu_leaky_relu(tmp_path, dtype):
    x = np.linspace(-4, 4, 24).reshape(4, 6).astype(dtype)
    tol = 2e-3 if dtype == np.float16 else 1e-5

    def build():
        v = ph("x", x)
        return [RAW.Erf(x=v), RAW.Erfc(x=v), RAW.Selu(features=v),
                RAW.LeakyRelu(features=v, alpha=0.3)]
    check(tmp_path, build,
          {"x:0": x}, rtol=tol, atol=tol)


# Floating types only: TensorFlow 2.21's Round kernel returns zeros for int32 / int64 (tf.round
# skips it for integers); tgraph's returns the integers, as tf.round does.
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_round_halves_to_even(tmp_path, dtype):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -3.7, 7], dtype)
    check(tmp_path, lambda: [RAW.Round(x=ph("x", x))], {"x:0": x})


def test_squared_difference_broadcasts(tmp_path):
    x = rng(1).randn(2, 3).astype(np.float32)
    y = rng(2).randn(3).astype(np.float32)
    i = np.array([[1, 5], [-3, 2]], np.int64)
    check(tmp_path, lambda: [RAW.SquaredDifference(x=ph("x", x), y=ph("y", y)),
                             RAW.SquaredDifference(x=ph("i", i), y=np.int64(4))],
          {"x:0": x, "y:0": y, "i:0": i})


def test_select_v2_broadcasts_all_three(tmp_path):
    c = np.array([[True], [False]])
    t = rng(3).randn(1, 3).astype(np.float32)
    e = np.array(-1, np.float32)
    check(tmp_path, lambda: [RAW.SelectV2(condition=ph("c", c), t=ph("t", t), e=ph("e", e)),
                             RAW.SelectV2(condition=np.array([True, False, True]),
                                          t=np.arange(3, dtype=np.int32), e=np.int32(9))],
          {"c:0": c, "t:0": t, "e:0": e})


def test_all_any(tmp_path):
    b = rng(4).rand(2, 3, 4) > 0.3

    def build():
        v = ph("b", b)
        return [RAW.All(input=v, axis=[1]), RAW.Any(input=v, axis=[-1, 0], keep_dims=True),
                RAW.All(input=v, axis=np.zeros(0, np.int32)),
                RAW.Any(input=v, axis=np.array([0, 1, 2], np.int64))]
    check(tmp_path, build, {"b:0": b})


def test_where_of_bools_and_numbers(tmp_path):
    x = np.array([[0, 1.5, -2], [0, 0, 3]], np.float32)

    def build():
        v = ph("x", x)
        return [RAW.Where(condition=v), RAW.Where(condition=v > 0),
                RAW.Where(condition=np.array([0, 4, 0, -1], np.int64))]
    check(tmp_path, build, {"x:0": x})


# ---- array ----

def test_stop_gradient_and_broadcast_to(tmp_path):
    x = rng(5).randn(3, 1).astype(np.float32)

    def build():
        v = ph("x", x)
        return [RAW.StopGradient(input=v), RAW.BroadcastTo(input=v, shape=[2, 3, 4]),
                RAW.BroadcastTo(input=np.arange(4, dtype=np.int64),
                                shape=np.array([3, 4], np.int64))]
    check(tmp_path, build, {"x:0": x})


def test_split_and_split_v(tmp_path):
    x = rng(6).randn(2, 6, 5).astype(np.float32)

    def build():
        v = ph("x", x)
        return (RAW.Split(axis=1, value=v, num_split=3) +
                RAW.Split(axis=-1, value=v, num_split=1) +
                RAW.SplitV(value=v, size_splits=[1, -1, 2], axis=-1, num_split=3) +
                RAW.SplitV(value=v, size_splits=np.array([2, 0, 4], np.int64), axis=1,
                           num_split=3))
    check(tmp_path, build, {"x:0": x})


# ---- FusedBatchNorm ----

@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training,factor", [(False, 1.0), (True, 1.0), (True, 0.25)])
def test_fused_batch_norm(tmp_path, op, data_format, training, factor):
    x = rng(7).randn(2, 3, 4, 5).astype(np.float32) * 2 + 1
    c = 5 if data_format == "NHWC" else 3
    scale = rng(8).rand(c).astype(np.float32) + 0.5
    offset = rng(9).randn(c).astype(np.float32)
    mean = rng(10).randn(c).astype(np.float32)
    var = rng(11).rand(c).astype(np.float32) + 0.1
    empty = np.zeros(0, np.float32)
    stats = not training or factor != 1.0

    def build():
        outs = getattr(RAW, op)(x=ph("x", x), scale=scale, offset=offset,
                                mean=mean if stats else empty, variance=var if stats else empty,
                                epsilon=0.001, exponential_avg_factor=factor,
                                data_format=data_format, is_training=training)
        # The reserve spaces are opaque (what TF's gradient kernel of the same engine wants;
        # its Eigen and oneDNN kernels fill them differently): y and the statistics only.
        return list(outs)[:3]
    check(tmp_path, build, {"x:0": x}, rtol=1e-4, atol=1e-5)


def test_fused_batch_norm_half(tmp_path):
    x = (rng(12).randn(2, 4, 4, 3)).astype(np.float16)
    scale, offset = np.float32([1, 2, 0.5]), np.float32([0, 0.1, -0.2])
    mean, var = np.float32([0.1, -0.3, 0.2]), np.float32([1, 0.5, 2])

    def build():
        return list(RAW.FusedBatchNormV3(x=ph("x", x), scale=scale, offset=offset, mean=mean,
                                         variance=var, is_training=False))[:1]
    check(tmp_path, build, {"x:0": x}, rtol=2e-3, atol=2e-3)


# ---- DepthwiseConv2dNative ----

@pytest.mark.parametrize("padding,strides,dilations,multiplier", [
    ("SAME", [1, 2, 2, 1], [1, 1, 1, 1], 1),
    ("VALID", [1, 1, 1, 1], [1, 2, 2, 1], 2),
    ("SAME", [1, 1, 2, 1], [1, 1, 1, 1], 3),
])
def test_depthwise_conv2d(tmp_path, padding, strides, dilations, multiplier):
    x = rng(13).randn(2, 7, 6, 4).astype(np.float32)
    f = rng(14).randn(3, 3, 4, multiplier).astype(np.float32)
    check(tmp_path, lambda: [RAW.DepthwiseConv2dNative(input=ph("x", x), filter=f,
                                                       strides=strides, padding=padding,
                                                       dilations=dilations)],
          {"x:0": x}, rtol=1e-4, atol=1e-5)


def test_depthwise_conv2d_explicit_padding_double(tmp_path):
    x = rng(15).randn(1, 5, 5, 2)
    f = rng(16).randn(2, 2, 2, 2)
    check(tmp_path, lambda: [RAW.DepthwiseConv2dNative(
        input=ph("x", x), filter=f, strides=[1, 1, 1, 1], padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0])],
          {"x:0": x}, rtol=1e-10, atol=1e-12)


# No dilations here: TensorFlow's oneDNN DepthwiseConv2dNativeBackpropInput rejects them
# ("could not create a primitive descriptor"), and its Eigen kernels support none at all
# (tests/plugins/cpu/model_ops_test.cc checks dilated backprops against the forward op).
@pytest.mark.parametrize("padding,strides,dilations,multiplier", [
    ("SAME", [1, 2, 2, 1], [1, 1, 1, 1], 2),
    ("VALID", [1, 1, 1, 1], [1, 1, 1, 1], 1),
    ("SAME", [1, 1, 1, 1], [1, 1, 1, 1], 3),
])
def test_depthwise_conv2d_backprops(tmp_path, padding, strides, dilations, multiplier):
    x = rng(17).randn(2, 7, 6, 3).astype(np.float32)
    f = rng(18).randn(3, 3, 3, multiplier).astype(np.float32)

    def build():
        v, w = ph("x", x), ph("f", f)
        y = RAW.DepthwiseConv2dNative(input=v, filter=w, strides=strides, padding=padding,
                                      dilations=dilations)
        dy = y * 0.5 + 1.0  # any out_backprop of y's shape
        return [RAW.DepthwiseConv2dNativeBackpropInput(
                    input_sizes=tf.shape(v), filter=w, out_backprop=dy, strides=strides,
                    padding=padding, dilations=dilations),
                RAW.DepthwiseConv2dNativeBackpropFilter(
                    input=v, filter_sizes=tf.shape(w), out_backprop=dy, strides=strides,
                    padding=padding, dilations=dilations)]
    check(tmp_path, build, {"x:0": x, "f:0": f}, rtol=1e-4, atol=1e-4)


# ---- grouped Conv2D and its gradients ----

# The input depth a multiple of the filter's (TensorFlow's grouped convolution); with static
# shapes, the oneDNN kernel declines the nodes and the Eigen kernels compute them.
@pytest.mark.parametrize("padding,strides,depth,kd,out", [
    ("SAME", [1, 1, 1, 1], 6, 2, 9),
    ("VALID", [1, 2, 2, 1], 6, 3, 4),
    ("SAME", [1, 2, 1, 1], 4, 1, 8),
])
def test_grouped_conv2d_and_backprops(tmp_path, padding, strides, depth, kd, out):
    x = rng(31).randn(2, 7, 6, depth).astype(np.float32)
    f = rng(32).randn(3, 3, kd, out).astype(np.float32)

    def build():
        v, w = ph("x", x), ph("f", f)
        y = RAW.Conv2D(input=v, filter=w, strides=strides, padding=padding)
        dy = y * 0.5 + 1.0  # any out_backprop of y's shape
        return [y,
                RAW.Conv2DBackpropInput(input_sizes=tf.shape(v), filter=w, out_backprop=dy,
                                        strides=strides, padding=padding),
                RAW.Conv2DBackpropFilter(input=v, filter_sizes=tf.shape(w), out_backprop=dy,
                                         strides=strides, padding=padding)]
    check(tmp_path, build, {"x:0": x, "f:0": f}, rtol=1e-4, atol=1e-4)


# ---- Conv3D and its gradients ----

@pytest.mark.parametrize("padding,strides,dilations", [
    ("SAME", [1, 1, 2, 1, 1], [1, 1, 1, 1, 1]),
    ("VALID", [1, 2, 1, 1, 1], [1, 1, 1, 1, 1]),
    ("SAME", [1, 1, 1, 1, 1], [1, 2, 1, 2, 1]),
])
def test_conv3d_and_backprops(tmp_path, padding, strides, dilations):
    x = rng(31).randn(2, 5, 6, 4, 3).astype(np.float32)
    f = rng(32).randn(2, 3, 2, 3, 4).astype(np.float32)

    def build():
        v, w = ph("x", x), ph("f", f)
        y = RAW.Conv3D(input=v, filter=w, strides=strides, padding=padding, dilations=dilations)
        dy = y * 0.5 + 1.0  # any out_backprop of y's shape
        outs = [y]
        if dilations == [1, 1, 1, 1, 1]:  # TensorFlow's CPU backprops take no dilations
            outs += [RAW.Conv3DBackpropInputV2(input_sizes=tf.shape(v), filter=w, out_backprop=dy,
                                               strides=strides, padding=padding),
                     RAW.Conv3DBackpropFilterV2(input=v, filter_sizes=tf.shape(w),
                                                out_backprop=dy, strides=strides, padding=padding)]
        return outs
    check(tmp_path, build, {"x:0": x, "f:0": f}, rtol=1e-4, atol=1e-4)


# ---- Einsum ----

@pytest.mark.parametrize("equation,shapes", [
    ("bqhd,bkhd->bhqk", [(2, 3, 4, 5), (2, 6, 4, 5)]),   # attention scores
    ("bhqk,bkhd->bqhd", [(2, 4, 3, 6), (2, 6, 4, 5)]),   # attention output
    ("abc,cde->abde", [(2, 3, 8), (8, 4, 5)]),           # EinsumDense projection
    ("abcd,cde->abe", [(2, 3, 4, 5), (4, 5, 6)]),        # output projection
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("bij->bj", [(2, 3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ab,cd->abcd", [(2, 3), (4, 5)]),
    ("abc,ad->bd", [(2, 3, 4), (2, 5)]),
])
def test_einsum(tmp_path, equation, shapes):
    values = [rng(20 + k).randn(*s).astype(np.float32) for k, s in enumerate(shapes)]
    names = [f"x{k}" for k in range(len(values))]
    feeds = {f"{n}:0": v for n, v in zip(names, values)}
    check(tmp_path, lambda: [RAW.Einsum(inputs=[ph(n, v) for n, v in zip(names, values)],
                                        equation=equation)],
          feeds, rtol=1e-4, atol=1e-5)


# ---- layout, index, image ops ----

def test_pad_v2_mirror_pad_reverse(tmp_path):
    x = rng(30).randn(3, 4, 2).astype(np.float32)

    def build():
        v = ph("x", x)
        return [RAW.PadV2(input=v, paddings=[[1, 2], [0, 3], [1, 0]], constant_values=np.float32(-7)),
                RAW.MirrorPad(input=v, paddings=[[2, 1], [3, 0], [0, 1]], mode="REFLECT"),
                RAW.MirrorPad(input=v, paddings=np.array([[3, 1], [0, 4], [2, 2]], np.int64),
                              mode="SYMMETRIC"),
                RAW.ReverseV2(tensor=v, axis=[0, 2]),
                RAW.ReverseV2(tensor=v, axis=np.array([-2], np.int64))]
    check(tmp_path, build, {"x:0": x})


def test_space_to_depth_and_batch(tmp_path):
    x = rng(31).randn(2, 4, 6, 3).astype(np.float32)

    def build():
        v = ph("x", x)
        s2d = RAW.SpaceToDepth(input=v, block_size=2)
        s2b = RAW.SpaceToBatchND(input=v, block_shape=[2, 3], paddings=[[1, 1], [0, 3]])
        return [s2d, RAW.DepthToSpace(input=s2d, block_size=2), s2b,
                RAW.BatchToSpaceND(input=s2b, block_shape=[2, 3], crops=[[1, 1], [0, 3]]),
                RAW.BatchToSpaceND(input=v, block_shape=[2], crops=[[1, 2]])]
    check(tmp_path, build, {"x:0": x})


def test_gather_scatter_nd_and_sparse_to_dense(tmp_path):
    p = rng(32).randn(4, 3, 2).astype(np.float32)
    idx = np.array([[[3, 1], [0, 2]], [[1, 1], [3, 1]]], np.int32)

    def build():
        v = ph("p", p)
        return [RAW.GatherNd(params=v, indices=idx),
                RAW.GatherNd(params=v, indices=np.array([[2], [0]], np.int64)),
                RAW.ScatterNd(indices=idx, updates=RAW.GatherNd(params=v, indices=idx),
                              shape=[4, 3, 2]),
                RAW.TensorScatterUpdate(tensor=v, indices=np.array([[1], [3]], np.int32),
                                        updates=np.ones((2, 3, 2), np.float32)),
                RAW.SparseToDense(sparse_indices=np.array([[0, 1], [2, 0]], np.int64),
                                  output_shape=np.array([3, 4], np.int64),
                                  sparse_values=np.array([5.0, 6.0], np.float32),
                                  default_value=np.float32(-1))]
    check(tmp_path, build, {"p:0": p})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_top_k(tmp_path, dtype):
    x = (rng(33).permutation(60).reshape(3, 20) - 30).astype(dtype)

    def build():
        return list(RAW.TopKV2(input=ph("x", x), k=5))
    check(tmp_path, build, {"x:0": x})


@pytest.mark.parametrize("align_corners,half_pixel", [(False, False), (True, False), (False, True)])
def test_resize(tmp_path, align_corners, half_pixel):
    x = rng(34).rand(2, 5, 7, 3).astype(np.float32) * 255
    u = x.astype(np.uint8)

    def build():
        v, w = ph("x", x), ph("u", u)
        out = []
        for size in ([9, 4], [3, 11]):
            out.append(RAW.ResizeBilinear(images=v, size=size, align_corners=align_corners,
                                          half_pixel_centers=half_pixel))
            out.append(RAW.ResizeBilinear(images=w, size=size, align_corners=align_corners,
                                          half_pixel_centers=half_pixel))
            out.append(RAW.ResizeNearestNeighbor(images=w, size=size, align_corners=align_corners,
                                                 half_pixel_centers=half_pixel))
        return out
    check(tmp_path, build, {"x:0": x, "u:0": u}, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("align_corners,half_pixel", [(False, False), (True, False), (False, True)])
def test_resize_and_mirror_pad_gradients(tmp_path, align_corners, half_pixel):
    image = rng(35).rand(2, 5, 7, 3).astype(np.float32)
    grads = rng(36).randn(2, 9, 4, 3).astype(np.float32)
    padded = rng(37).randn(6, 9).astype(np.float32)

    def build():
        g = ph("g", grads)
        return [RAW.ResizeBilinearGrad(grads=g, original_image=ph("image", image),
                                       align_corners=align_corners, half_pixel_centers=half_pixel),
                RAW.ResizeNearestNeighborGrad(grads=g, size=[5, 7], align_corners=align_corners,
                                              half_pixel_centers=half_pixel),
                RAW.MirrorPadGrad(input=ph("p", padded), paddings=[[2, 1], [3, 2]], mode="REFLECT"),
                RAW.MirrorPadGrad(input=V1.get_default_graph().get_tensor_by_name("p:0"),
                                  paddings=[[1, 2], [3, 3]], mode="SYMMETRIC")]
    check(tmp_path, build, {"g:0": grads, "image:0": image, "p:0": padded}, rtol=1e-5, atol=1e-5)


def test_assert_fails_the_run_and_print_passes_through(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        x = V1.placeholder(tf.float32, [3], name="x")
        check_op = RAW.Assert(condition=RAW.All(input=x > 0, axis=[0]),
                              data=[tf.constant("x must be positive"), x], name="check")
        with tf.control_dependencies([check_op]):
            y = tf.identity(RAW.Print(input=x, data=[x], message="x is "), name="y")
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    for values, ok in (([1, 2, 3], True), ([1, -2, 3], False)):
        np.save(tmp_path / "x.npy", np.array(values, np.float32))
        done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--feed",
                               f"x:0={tmp_path / 'x.npy'}", "--fetch", "y:0"],
                              capture_output=True, text=True)
        if ok:
            assert done.returncode == 0, done.stderr
            assert "x is [1" in done.stderr
        else:
            assert done.returncode == 1
            assert "check" in done.stderr and "x must be positive" in done.stderr, done.stderr


def test_einsum_half(tmp_path):
    a = rng(40).randn(2, 3, 4, 5).astype(np.float16)
    b = rng(41).randn(2, 6, 4, 5).astype(np.float16)
    check(tmp_path, lambda: [RAW.Einsum(inputs=[ph("a", a), ph("b", b)], equation="bqhd,bkhd->bhqk")],
          {"a:0": a, "b:0": b}, rtol=2e-2, atol=2e-2)


# ---- bad input comes back as an error naming the node, never a crash ----

@pytest.mark.parametrize("build,fragment", [
    (lambda x: RAW.Split(axis=7, value=x, num_split=2, name="bad"), "split_dim"),
    (lambda x: RAW.SplitV(value=x, size_splits=[1, 9], axis=0, num_split=2, name="bad"),
     "size_splits"),
    (lambda x: RAW.All(input=x > 0, axis=[5], name="bad"), "5"),
    (lambda x: RAW.BroadcastTo(input=x, shape=[3, 5], name="bad"), "broadcast"),
    (lambda x: RAW.GatherNd(params=x, indices=[[4, 0]], name="bad"), "does not index"),
    (lambda x: RAW.TopKV2(input=x, k=3, name="bad"), "k (3)"),
    (lambda x: RAW.MirrorPad(input=x, paddings=[[4, 0], [0, 0]], mode="REFLECT", name="bad"),
     "paddings"),
    (lambda x: RAW.Conv3D(input=x, filter=np.ones((1, 1, 1, 2, 2), np.float32), strides=[1] * 5,
                          padding="SAME", name="bad"), "5-D"),
    (lambda x: RAW.Conv3DBackpropFilterV2(
        input=tf.reshape(x, [1, 2, 2, 1, 2]), filter_sizes=[1, 1, 1, 2, 2],
        out_backprop=tf.ones([1, 2, 2, 2, 2]), strides=[1] * 5, padding="SAME", name="bad"),
     "out_backprop"),
])
def test_bad_arguments_fail_naming_the_node(tmp_path, build, fragment):
    graph = tf.Graph()
    with graph.as_default():
        x = V1.placeholder(tf.float32, None, name="x")
        out = build(x)
        if isinstance(out, (list, tuple)):
            out = out[0]
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    np.save(tmp_path / "x.npy", np.ones((4, 2), np.float32))
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--feed",
                           f"x:0={tmp_path / 'x.npy'}", "--fetch", out.name],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "bad" in done.stderr and fragment in done.stderr, done.stderr
