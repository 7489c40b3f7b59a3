"""Neural-network ops that TensorFlow's own graphs hold and tgraph had no definition for,
differentially against TensorFlow (the same pattern as test_model_ops.py: a TF1 graph with the
exact raw op, TF's kernel with graph rewrites off, the GraphDef run by `tgraph run`):
FusedBatchNormGrad{,V2,V3} (in every graph TF builds to train a fused batch normalization),
LRN and LRNGrad (AlexNet's and GoogLeNet's normalization), ExtractImagePatches,
MaxPoolWithArgmax and its gradient (SegNet's unpooling), and the LeakyReluGrad and SeluGrad
of TF's backward graphs."""
import numpy as np
import pytest
import tensorflow as tf

from test_model_ops import RAW, V1, check, ph, rng, run_tensorflow, run_tgraph


# ---- batch normalization gradients ----

def batch_norm_case(fmt, five_d=False):
    shape = (2, 3, 4, 5, 6) if five_d else (2, 3, 4, 5)
    x = (rng(10).randn(*shape) * 2 + 0.5).astype(np.float32)
    dy = rng(11).randn(*shape).astype(np.float32)
    channels = shape[1] if fmt in ("NCHW", "NCDHW") else shape[-1]
    scale = (rng(12).rand(channels) + 0.5).astype(np.float32)
    offset = rng(13).randn(channels).astype(np.float32)
    mean = rng(14).randn(channels).astype(np.float32)
    variance = (rng(15).rand(channels) + 0.5).astype(np.float32)
    return x, dy, scale, offset, mean, variance


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad_v3(tmp_path, fmt, training):
    """The gradient from the forward op's own reserve spaces (the batch's statistics when
    training, else the given ones), as TF's autodiff wires it."""
    x, dy, scale, offset, mean, variance = batch_norm_case(fmt)

    def build():
        vx, vdy = ph("x", x), ph("dy", dy)
        stats = (mean, variance) if not training else (np.zeros(0, np.float32),) * 2
        fwd = RAW.FusedBatchNormV3(x=vx, scale=scale, offset=offset, mean=stats[0], variance=stats[1],
                                   epsilon=0.001, data_format=fmt, is_training=training)
        grad = RAW.FusedBatchNormGradV3(y_backprop=vdy, x=vx, scale=scale, reserve_space_1=fwd.reserve_space_1,
                                        reserve_space_2=fwd.reserve_space_2,
                                        reserve_space_3=fwd.reserve_space_3, epsilon=0.001,
                                        data_format=fmt, is_training=training)
        return [fwd.y, grad.x_backprop, grad.scale_backprop, grad.offset_backprop]
    check(tmp_path, build, {"x:0": x, "dy:0": dy}, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad_v1_v2_and_3d(tmp_path, training):
    x, dy, scale, _, mean, variance = batch_norm_case("NHWC")
    x5, dy5, scale5, _, mean5, variance5 = batch_norm_case("NDHWC", five_d=True)

    def build():
        vx, vdy = ph("x", x), ph("dy", dy)
        v1 = RAW.FusedBatchNormGrad(y_backprop=vdy, x=vx, scale=scale, reserve_space_1=mean,
                                    reserve_space_2=variance, is_training=training)
        v2 = RAW.FusedBatchNormGradV2(y_backprop=vdy, x=vx, scale=scale, reserve_space_1=mean,
                                      reserve_space_2=variance, epsilon=0.01, is_training=training)
        v3 = RAW.FusedBatchNormGradV3(y_backprop=ph("dy5", dy5), x=ph("x5", x5), scale=scale5,
                                      reserve_space_1=mean5, reserve_space_2=variance5,
                                      reserve_space_3=np.zeros(0, np.float32), data_format="NDHWC",
                                      is_training=training)
        return list(v1[:3]) + list(v2[:3]) + list(v3[:3])
    check(tmp_path, build, {"x:0": x, "dy:0": dy, "x5:0": x5, "dy5:0": dy5}, rtol=2e-5, atol=2e-5)


def test_fused_batch_norm_grad_placeholders_are_scalars(tmp_path):
    """The two trailing outputs: scalars as TF's kernel makes them (their values unspecified)."""
    x, dy, scale, _, mean, variance = batch_norm_case("NHWC")
    graph = tf.Graph()
    with graph.as_default():
        g = RAW.FusedBatchNormGradV3(y_backprop=ph("dy", dy), x=ph("x", x), scale=scale,
                                     reserve_space_1=mean, reserve_space_2=variance,
                                     reserve_space_3=np.zeros(0, np.float32))
    fetches = [g[3].name, g[4].name]
    expected = run_tensorflow(graph, {"x:0": x, "dy:0": dy}, fetches)
    got = run_tgraph(tmp_path, graph, {"x:0": x, "dy:0": dy}, fetches)
    assert [e.shape for e in expected] == [g.shape for g in got] == [(), ()]


def test_fused_batch_norm_grad_half(tmp_path):
    x, dy, scale, _, mean, variance = batch_norm_case("NHWC")

    def build():
        g = RAW.FusedBatchNormGradV3(y_backprop=ph("dy", dy.astype(np.float16)), x=ph("x", x.astype(np.float16)),
                                     scale=scale, reserve_space_1=mean, reserve_space_2=variance,
                                     reserve_space_3=np.zeros(0, np.float32), is_training=True)
        return list(g[:3])
    check(tmp_path, build, {"x:0": x.astype(np.float16), "dy:0": dy.astype(np.float16)}, rtol=5e-3,
          atol=5e-3)


def test_training_graph_with_a_batch_normalization(tmp_path):
    """What TF builds to train a Keras-style layer: conv -> fused batch norm (training) ->
    relu -> loss, and tf.gradients of it (FusedBatchNormGradV3 among the backward ops); every
    gradient agrees."""
    x = rng(20).randn(4, 6, 6, 3).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        vx = ph("x", x)
        w = tf.constant(rng(21).randn(3, 3, 3, 8).astype(np.float32) * 0.3)
        gamma = tf.constant((rng(22).rand(8) + 0.5).astype(np.float32))
        beta = tf.constant(rng(23).randn(8).astype(np.float32))
        h = tf.nn.conv2d(vx, w, 1, "SAME")
        y, _, _ = V1.nn.fused_batch_norm(h, gamma, beta, is_training=True, epsilon=0.001)
        loss = tf.reduce_sum(tf.nn.relu(y) * tf.constant(rng(24).randn(4, 6, 6, 8).astype(np.float32)))
        grads = tf.gradients(loss, [vx, w, gamma, beta])
    ops = {n.op for n in graph.as_graph_def().node}
    assert "FusedBatchNormGradV3" in ops, ops
    fetches = [t.name for t in [loss] + grads]
    expected = run_tensorflow(graph, {"x:0": x}, fetches)
    got = run_tgraph(tmp_path, graph, {"x:0": x}, fetches)
    for name, e, g in zip(fetches, expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4 * np.abs(e).max(), err_msg=name)


def test_fused_batch_norm_grad_bad_shapes_fail(tmp_path):
    """A scale of the wrong length fails the run with a message naming it, not a crash."""
    x, dy, _, _, mean, variance = batch_norm_case("NHWC")
    graph = tf.Graph()
    with graph.as_default():
        s = V1.placeholder(tf.float32, None, name="s")
        RAW.FusedBatchNormGradV3(y_backprop=ph("dy", dy), x=ph("x", x), scale=s, reserve_space_1=mean,
                                 reserve_space_2=variance, reserve_space_3=np.zeros(0, np.float32),
                                 name="grad")
    with pytest.raises(AssertionError, match="scale must be a vector of 5"):
        run_tgraph(tmp_path, graph, {"x:0": x, "dy:0": dy, "s:0": np.ones(3, np.float32)}, ["grad:0"])


# ---- LRN ----

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_lrn_and_its_gradient(tmp_path, dtype):
    x = (rng(30).randn(2, 3, 4, 9) * 2).astype(dtype)
    g = rng(31).randn(2, 3, 4, 9).astype(dtype)
    tol = 2e-3 if dtype == np.float16 else 2e-5

    def build():
        vx, vg = ph("x", x), ph("g", g)
        outs = []
        for radius, bias, alpha, beta in [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-4, 0.75), (0, 1.0, 0.5, 1.0)]:
            y = RAW.LRN(input=vx, depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
            outs += [y, RAW.LRNGrad(input_grads=vg, input_image=vx, output_image=y, depth_radius=radius,
                                    bias=bias, alpha=alpha, beta=beta)]
        return outs
    check(tmp_path, build, {"x:0": x, "g:0": g}, rtol=tol, atol=tol)


def test_lrn_gradient_as_tf_builds_it(tmp_path):
    """tf.gradients through tf.nn.lrn: TF's backward graph holds LRNGrad."""
    x = rng(32).randn(1, 4, 4, 6).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        vx = ph("x", x)
        y = tf.nn.lrn(vx, depth_radius=2, bias=1.0, alpha=0.2, beta=0.75)
        grad = tf.gradients(tf.reduce_sum(y * y), vx)[0]
    assert "LRNGrad" in {n.op for n in graph.as_graph_def().node}
    fetches = [y.name, grad.name]
    for e, g in zip(run_tensorflow(graph, {"x:0": x}, fetches), run_tgraph(tmp_path, graph, {"x:0": x}, fetches)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


# ---- ExtractImagePatches ----

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_extract_image_patches(tmp_path, padding):
    x = rng(40).randn(2, 7, 6, 3).astype(np.float32)
    i = np.arange(2 * 5 * 5 * 2, dtype=np.int32).reshape(2, 5, 5, 2)

    def build():
        vx, vi = ph("x", x), ph("i", i)
        return [RAW.ExtractImagePatches(images=vx, ksizes=[1, 3, 2, 1], strides=[1, 2, 1, 1], rates=[1, 1, 1, 1],
                                        padding=padding),
                RAW.ExtractImagePatches(images=vx, ksizes=[1, 2, 3, 1], strides=[1, 1, 3, 1], rates=[1, 2, 1, 1],
                                        padding=padding),
                RAW.ExtractImagePatches(images=vi, ksizes=[1, 2, 2, 1], strides=[1, 3, 3, 1], rates=[1, 2, 2, 1],
                                        padding=padding),
                RAW.ExtractImagePatches(images=tf.cast(vi, tf.uint8), ksizes=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                                        rates=[1, 1, 1, 1], padding=padding)]
    check(tmp_path, build, {"x:0": x, "i:0": i})


# ---- activation gradients ----

def test_leaky_relu_and_selu_gradients_as_tf_builds_them(tmp_path):
    x = np.linspace(-3, 3, 24).reshape(4, 6).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        vx = ph("x", x)
        w = tf.constant(rng(50).randn(4, 6).astype(np.float32))
        loss = tf.reduce_sum(tf.nn.leaky_relu(vx, alpha=0.3) * w) + tf.reduce_sum(tf.nn.selu(vx * 0.7) * w)
        grad = tf.gradients(loss, vx)[0]
    ops = {n.op for n in graph.as_graph_def().node}
    assert {"LeakyReluGrad", "SeluGrad"} <= ops, ops
    fetches = [loss.name, grad.name]
    for e, g in zip(run_tensorflow(graph, {"x:0": x}, fetches), run_tgraph(tmp_path, graph, {"x:0": x}, fetches)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


# ---- MaxPoolWithArgmax ----

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("with_batch", [False, True])
def test_max_pool_with_argmax_and_its_gradient(tmp_path, padding, with_batch):
    x = np.round(rng(60).randn(2, 7, 6, 3) * 3).astype(np.float32)  # ties
    g = rng(61).randn(2, 4 if padding == "SAME" else 3, 3, 3).astype(np.float32)

    def build():
        vx = ph("x", x)
        out, arg = RAW.MaxPoolWithArgmax(input=vx, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding=padding,
                                         include_batch_in_index=with_batch)
        out32, arg32 = RAW.MaxPoolWithArgmax(input=vx, ksize=[1, 2, 2, 1], strides=[1, 1, 2, 1], padding=padding,
                                             Targmax=tf.int32, include_batch_in_index=with_batch)
        grad = RAW.MaxPoolGradWithArgmax(input=vx, grad=ph("g", g), argmax=arg, ksize=[1, 3, 2, 1],
                                         strides=[1, 2, 2, 1], padding=padding,
                                         include_batch_in_index=with_batch)
        return [out, arg, out32, arg32, grad]
    check(tmp_path, build, {"x:0": x, "g:0": g})


# ---- Bincount (Keras's CategoryEncoding) ----

def test_bincount_and_dense_bincount(tmp_path):
    v = np.array([[1, 2, 2, 7], [0, 0, 3, 1]], np.int32)
    w = rng(70).rand(2, 4).astype(np.float32)

    def build():
        vv, vw = ph("v", v), ph("w", w)
        return [RAW.Bincount(arr=vv, size=np.int32(5), weights=vw),
                RAW.Bincount(arr=vv, size=np.int32(3), weights=np.zeros(0, np.int64)),
                RAW.DenseBincount(input=vv, size=np.int32(4), weights=vw),
                RAW.DenseBincount(input=tf.cast(vv, tf.int64), size=np.int64(8), weights=np.zeros(0, np.float64),
                                  binary_output=True),
                RAW.DenseBincount(input=vv[0], size=np.int32(4), weights=np.zeros(0, np.int32))]
    check(tmp_path, build, {"v:0": v, "w:0": w})
