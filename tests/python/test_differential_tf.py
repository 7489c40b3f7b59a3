"""The same graphs built with tgraph and with real TensorFlow (tf.compat.v1, TF 1.x behaviour),
run on the same inputs: values, gradients, training steps and node names must agree."""
import numpy as np
import pytest

import tgraph
from tf_compare import assert_close

tf1 = pytest.importorskip("tensorflow.compat.v1")
tf1.disable_v2_behavior()

RNG = np.random.RandomState(42)
X = RNG.randn(4, 6).astype(np.float32)
W1 = RNG.randn(6, 5).astype(np.float32) * 0.5
B1 = RNG.randn(5).astype(np.float32)
W2 = RNG.randn(5, 3).astype(np.float32) * 0.5
IMG = RNG.randn(2, 6, 6, 3).astype(np.float32)
KER = RNG.randn(3, 3, 3, 4).astype(np.float32) * 0.3
LABELS = np.array([0, 2, 1, 2], np.int32)


def run_both(build, feeds=None, steps=0):
    """build(m) -> (fetches, feed tensors by name, train op or None), run in both."""
    results = []
    for m in (tgraph, tf1):
        g = m.Graph()
        with g.as_default():
            fetches, inputs, train = build(m)
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                feed = {inputs[k]: v for k, v in (feeds or {}).items()}
                for _ in range(steps):
                    sess.run(train, feed)
                results.append(sess.run(fetches, feed))
    return results


def mlp(m):
    x = m.placeholder(m.float32, [None, 6], name="x")
    y = m.placeholder(m.int32, [None], name="y")
    w1 = m.Variable(W1, name="w1")
    b1 = m.Variable(B1, name="b1")
    w2 = m.Variable(W2, name="w2")
    h = m.nn.relu(m.nn.bias_add(m.matmul(x, w1), b1))
    logits = m.matmul(h, w2)
    loss = m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return loss, logits, w1, w2, {"x": x, "y": y}


def test_mlp_forward_and_gradients():
    def build(m):
        loss, logits, w1, w2, inputs = mlp(m)
        gw1, gw2 = m.gradients(loss, [w1, w2])
        return {"loss": loss, "softmax": m.nn.softmax(logits),
                "log_softmax": m.nn.log_softmax(logits), "gw1": gw1, "gw2": gw2,
                "argmax": m.argmax(logits, 1)}, inputs, None
    a, b = run_both(build, {"x": X, "y": LABELS})
    assert_close(a, b)


@pytest.mark.parametrize("opt", ["GradientDescentOptimizer(0.1)",
                                 "MomentumOptimizer(0.1, 0.9)", "AdamOptimizer(0.01)",
                                 "AdagradOptimizer(0.1)", "RMSPropOptimizer(0.01)"])
def test_training_steps(opt):
    def build(m):
        loss, _, w1, w2, inputs = mlp(m)
        step = m.train.get_or_create_global_step()
        train = eval("m.train." + opt).minimize(loss, global_step=step)
        return [loss, w1, w2, step], inputs, train
    a, b = run_both(build, {"x": X, "y": LABELS}, steps=5)
    assert_close(a, b, tol=2e-4)


def test_conv_pool():
    def build(m):
        img = m.constant(IMG)
        k = m.Variable(KER)
        c = m.nn.conv2d(img, k, strides=[1, 1, 1, 1], padding="SAME")
        v = m.nn.conv2d(img, k, strides=[1, 2, 2, 1], padding="VALID")
        mp = m.nn.max_pool(c, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        ap = m.nn.avg_pool(c, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
        (gk,) = m.gradients(m.reduce_sum(mp * mp) + m.reduce_sum(ap), [k])
        return [c, v, mp, ap, gk], {}, None
    a, b = run_both(build)
    assert_close(a, b, tol=1e-3)


def test_frozen_residual_blocks_fold_and_fuse():
    """A frozen ResNet block as Keras writes it: ZeroPadding2D before a VALID convolution,
    each convolution's batch normalization as Mul/AddV2 by constants, a shortcut added
    before the Relu; one shortcut is the block's own input, which the fused convolution also
    reads (its buffer must not be summed into while it is read). The plan-time rewrites fold
    the Pad and the normalization into the convolutions and fuse the Add and Relu."""
    rng = np.random.RandomState(7)
    x_value = rng.uniform(-1, 1, (1, 9, 9, 8)).astype(np.float32)
    k1 = rng.uniform(-0.2, 0.2, (3, 3, 8, 8)).astype(np.float32)
    k2 = rng.uniform(-0.2, 0.2, (3, 3, 8, 8)).astype(np.float32)
    bias, scale, offset = (rng.uniform(0.5, 1.5, 8).astype(np.float32) for _ in range(3))

    def build(m):
        x = m.placeholder(m.float32, [1, 9, 9, 8], name="x")
        block_in = m.negative(x)

        def conv_bn(h, k, padded):
            if padded:
                h = m.pad(h, [[0, 0], [1, 1], [1, 1], [0, 0]])
            c = m.nn.conv2d(h, m.constant(k), [1, 1, 1, 1], "VALID" if padded else "SAME")
            return m.nn.bias_add(c, m.constant(bias)) * m.constant(scale) + m.constant(offset)

        h = m.nn.relu(conv_bn(block_in, k1, padded=True) + block_in)  # the input as shortcut
        out = m.nn.relu(conv_bn(h, k2, padded=False) + m.abs(block_in))
        return [m.negative(out)], {"x": x}, None
    a, b = run_both(build, feeds={"x": x_value})
    assert_close(a, b, tol=1e-5)


def test_frozen_depthwise_layers_fold_and_fuse():
    """MobileNetV2's depthwise layers as a frozen Keras model writes them: ZeroPadding2D
    before a strided VALID depthwise convolution, its batch normalization as Mul/AddV2 by
    constants (no bias before it), Relu6; and one at stride 1, SAME, channel multiplier 2.
    The plan-time rewrites fold the Pad and the normalization into the convolutions and fuse
    each into one _FusedDepthwiseConv2dNative (the oneDNN plugin's, where it is loaded)."""
    rng = np.random.RandomState(11)
    x_value = rng.uniform(-1, 1, (1, 12, 12, 16)).astype(np.float32)
    k1 = rng.uniform(-0.5, 0.5, (3, 3, 16, 1)).astype(np.float32)
    k2 = rng.uniform(-0.5, 0.5, (3, 3, 16, 2)).astype(np.float32)
    scale1, offset1 = (rng.uniform(0.5, 1.5, 16).astype(np.float32) for _ in range(2))
    scale2, offset2 = (rng.uniform(0.5, 1.5, 32).astype(np.float32) for _ in range(2))

    def build(m):
        x = m.placeholder(m.float32, [1, 12, 12, 16], name="x")
        h = m.pad(x, [[0, 0], [0, 1], [0, 1], [0, 0]])
        h = m.nn.depthwise_conv2d(h, m.constant(k1), [1, 2, 2, 1], "VALID")
        h = m.nn.relu6(h * m.constant(scale1) + m.constant(offset1.reshape(1, 1, 1, 16)))
        h = m.nn.depthwise_conv2d(h, m.constant(k2), [1, 1, 1, 1], "SAME")
        h = m.nn.relu6(h * m.constant(scale2) + m.constant(offset2))
        return [m.negative(h)], {"x": x}, None
    a, b = run_both(build, feeds={"x": x_value})
    assert_close(a, b, tol=1e-5)


def test_array_ops_and_slicing():
    def build(m):
        x = m.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        i = m.constant([[0, 2], [1, 1]])
        return {
            "reshape": m.reshape(x, [4, -1]), "transpose": m.transpose(x, [2, 0, 1]),
            "concat": m.concat([x, x * 2], axis=1), "stack": m.stack([x[0], x[1]], axis=1),
            "unstack": m.unstack(x, axis=1), "gather": m.gather(x, [1, 0]),
            "slice": x[1:, ::2, -1], "slice2": x[..., 1:3], "newaxis": x[:, None, 0],
            "tile": m.tile(i, [2, 3]), "pad": m.pad(i, [[1, 0], [0, 2]]),
            "one_hot": m.one_hot(m.constant([0, 2, 1]), 3),
            "cast": m.cast(x > 10.0, m.int32), "expand": m.expand_dims(i, 1),
            "squeeze": m.squeeze(m.expand_dims(i, 0)), "shape": m.shape(x), "size": m.size(x),
            "rank": m.rank(x), "fill": m.fill([2, 2], 7), "zeros": m.zeros([3], m.int64),
            "ones_like": m.ones_like(i), "range": m.range(2, 11, 3),
            "where": m.where(x > 20.0, x, -x), "sum": m.reduce_sum(x, axis=[0, 2]),
            "mean": m.reduce_mean(x, 1, keepdims=True), "max": m.reduce_max(x),
            "prod": m.reduce_prod(m.constant([1.0, 2.0, 3.0])), "argmin": m.argmin(x, 2),
            "cumsum": m.cumsum(x, axis=2), "maximum": m.maximum(x, 5.0),
            "pow": m.pow(x, 2.0), "floordiv": m.floordiv(x, 3.0), "mod": m.mod(x, 5.0),
            "truediv_int": m.truediv(i, 2), "add_n": m.add_n([x, x, x]),
            "logical": m.logical_and(x > 3.0, m.logical_not(x > 9.0)),
            "unary": [m.sqrt(x), m.exp(-x), m.log(x + 1), m.tanh(x), m.sigmoid(-x), m.abs(-x),
                      m.square(x), m.negative(x), m.sign(x - 5), m.floor(x / 3)],
        }, {}, None
    a, b = run_both(build)
    assert_close(a, b)


def test_axes_modes_and_batch_dims():
    """softmax/log_softmax over a middle axis, the pad modes and gather's batch_dims."""
    def build(m):
        x = m.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0)
        i = m.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        params = m.constant(np.arange(30, dtype=np.float32).reshape(2, 3, 5))
        idx = m.constant([[2, 0], [1, 1]])
        return {
            "softmax_axis0": m.nn.softmax(x, axis=0), "softmax_axis1": m.nn.softmax(x, axis=1),
            "softmax_neg2": m.nn.softmax(x, axis=-2),
            "log_softmax_axis1": m.nn.log_softmax(x, axis=1),
            "reflect": m.pad(i, [[1, 1], [2, 2]], mode="REFLECT"),
            "symmetric": m.pad(i, [[1, 0], [3, 1]], mode="symmetric"),
            "constant_values": m.pad(i, [[0, 1], [1, 0]], constant_values=9.5),
            "gather_batch_dims": m.gather(params, idx, batch_dims=1),
            "gather_batch_dims_axis2": m.gather(params, idx, axis=2, batch_dims=1),
        }, {}, None
    a, b = run_both(build)
    assert_close(a, b)


def test_get_variable_with_computed_and_callable_initializers():
    """get_variable's initializer as a graph tensor, a (shape, dtype, partition_info) callable
    and a no-argument callable: values, node names and AUTO_REUSE agree with TF."""
    def build(m):
        base = m.constant([1.0, 5.0])
        with m.variable_scope("s", reuse=m.AUTO_REUSE):
            a = m.get_variable("a", initializer=base * 2.0)
            b = m.get_variable("b", shape=[2, 3], initializer=lambda shape, dtype=None,
                               partition_info=None: m.ones(shape, dtype) * 3.0)
            c = m.get_variable("c", initializer=lambda: m.constant([[1.0, 2.0]]))
            d = m.get_variable("d", shape=[2], dtype=m.int32,
                               initializer=lambda shape, dtype: m.fill(shape, 7))
            again = m.get_variable("b", shape=[2, 3])
        names = sorted(op.name for op in m.get_default_graph().get_operations())
        return {"a": a, "b": b, "c": c, "d": d, "same": again.name == b.name,
                "names": names}, {}, None

    def run(m):
        g = m.Graph()
        with g.as_default():
            fetches, _, _ = build(m)
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                values = sess.run({k: fetches[k] for k in "abcd"})
        return values, fetches["same"], fetches["names"]

    (ours, same_ours, names_ours), (theirs, same_theirs, names_theirs) = run(tgraph), run(tf1)
    assert_close(ours, theirs)
    assert same_ours and same_theirs
    assert names_ours == names_theirs


def test_get_variable_rejects_what_tf_rejects():
    with tgraph.Graph().as_default():
        with pytest.raises(ValueError, match="initializer passed is not valid"):
            tgraph.get_variable("x", initializer=lambda shape, dtype: tgraph.ones(shape))
        with pytest.raises(ZeroDivisionError):
            tgraph.get_variable("y", shape=[2], initializer=lambda shape, dtype: 1 / 0)
        assert tgraph.global_variables() == []


def test_gradient_override_map():
    """Ops built inside gradient_override_map take the mapped type's gradient (straight-through
    Sign, Relu passing every gradient); ops outside keep their own."""
    def build(m):
        x = m.constant([-1.5, 0.5, 2.0])
        g = m.get_default_graph()
        with g.gradient_override_map({"Sign": "Identity", "Relu": "Identity"}):
            s = m.sign(x) * 3.0
            r = m.nn.relu(x)
        plain = m.nn.relu(x)
        assert r.op.get_attr("_gradient_op_type") == b"Identity"
        assert s.op.inputs[0].op.get_attr("_gradient_op_type") == b"Identity"
        return {"sign": m.gradients(s, x)[0], "relu": m.gradients(r, x)[0],
                "plain": m.gradients(plain, x)[0]}, {}, None
    a, b = run_both(build)
    assert_close(a, b)


def test_gradient_override_to_an_unknown_gradient_fails_like_tf():
    for m in (tgraph, tf1):
        with m.Graph().as_default() as g:
            x = m.constant([1.0, 2.0])
            with g.gradient_override_map({"Square": "NoSuchGradient"}):
                y = m.square(x)
            with pytest.raises(LookupError, match="No gradient defined") as raised:
                m.gradients(y, x)
            if m is tgraph:
                assert "NoSuchGradient" in str(raised.value)


def test_python_gradient_functions():
    """tf.RegisterGradient: a gradient reversal layer (Identity overridden to a Python
    gradient scaling by -lambda), and a gradient for a two-output op that uses the op's
    attrs, inputs and outputs; both registries are process-wide, so each name is used once."""
    for m in (tgraph, tf1):
        @m.RegisterGradient("DiffTestGradReverse")
        def _reverse(op, grad):
            return [-0.5 * grad]

        @m.RegisterGradient("DiffTestUnstackGrad")
        def _unstack_grad(op, *grads, m=m):  # m bound now: the loop moves on
            assert len(grads) == 2 and op.get_attr("num") == 2
            # Only the first row's gradient, doubled.
            return m.stack([2.0 * grads[0], m.zeros_like(op.outputs[1])], axis=0)

        with pytest.raises(KeyError):
            m.RegisterGradient("DiffTestGradReverse")(_reverse)

    def build(m):
        x = m.constant([[1.0, -2.0], [3.0, 0.5]])
        g = m.get_default_graph()
        with g.gradient_override_map({"Identity": "DiffTestGradReverse"}):
            reversed_x = m.identity(x)
        y = m.reduce_sum(m.square(reversed_x))
        with g.gradient_override_map({"Unpack": "DiffTestUnstackGrad"}):
            rows = m.unstack(x, axis=0)
        z = m.reduce_sum(rows[0] * 3.0) + m.reduce_sum(rows[1])
        return {"reversed": m.gradients(y, x)[0], "unstack": m.gradients(z, x)[0]}, {}, None
    a, b = run_both(build)
    assert_close(a, b)
    np.testing.assert_allclose(a["reversed"], -1.0 * np.array([[1.0, -2.0], [3.0, 0.5]]))
    np.testing.assert_allclose(a["unstack"], [[6.0, 6.0], [0.0, 0.0]])


def test_python_gradient_function_errors_reach_the_caller():
    @tgraph.RegisterGradient("DiffTestBrokenGrad")
    def _broken(op, grad):
        raise ZeroDivisionError("from the gradient function")

    @tgraph.RegisterGradient("DiffTestTooManyGrads")
    def _too_many(op, grad):
        return [grad, grad]

    with tgraph.Graph().as_default() as g:
        x = tgraph.constant([1.0])
        with g.gradient_override_map({"Neg": "DiffTestBrokenGrad", "Exp": "DiffTestTooManyGrads"}):
            y = tgraph.negative(x)
            e = tgraph.exp(x)
        with pytest.raises(ZeroDivisionError, match="from the gradient function"):
            tgraph.gradients(y, x)
        with pytest.raises(ValueError, match="Num gradients 2 generated for op"):
            tgraph.gradients(e, x)
        # The graph is still usable, and a plain gradient works.
        assert tgraph.gradients(tgraph.square(x), x)[0] is not None
    with pytest.raises(KeyError, match="Registering two gradient"):
        tgraph.RegisterGradient("Square")(_broken)  # the core's own


def test_node_names_agree():
    def names(m):
        g = m.Graph()
        with g.as_default():
            with m.variable_scope("scope_vars"):
                a = m.Variable(1, name="a")
                b = m.get_variable("b", initializer=2)
                c = m.constant(3, name="c")
                with m.variable_scope("res"):
                    m.add(a * b, c, name="res")
            with m.name_scope("scope_name"):
                x = m.placeholder(m.float32, [None, 2], name="x")
                y = x * 2 + 1
                z = m.matmul(x, m.ones([2, 2]))
                m.nn.relu(z[:, 1:], name="act")
            m.identity(y, name="out")
            with m.control_dependencies([z]):
                m.no_op(name="after")
            m.group(y, z)
        return [(op.name, op.type) for op in g.get_operations()
                if op.type not in ("VarIsInitializedOp", "ReadVariableOp")]
    ours, theirs = names(tgraph), names(tf1)
    # One known difference: get_variable with a value initializer names its Const
    # "b/Initializer/Const" (TF 1.x's own spelling for initializer objects) where TF 2's
    # compat.v1 writes "b/initial_value".
    ours = [("scope_vars/b/initial_value", t) if n == "scope_vars/b/Initializer/Const" else (n, t)
            for n, t in ours]
    assert ours == theirs


def test_tensorflow_imported_first_in_the_same_process(tmp_path):
    # TensorFlow's module loads its own protobuf with global symbols; libtgraph and its
    # plugins must keep binding to their own (RTLD_DEEPBIND) or saving and summaries crash.
    import subprocess
    import sys
    code = f"""
import tensorflow
import tgraph as tf
v = tf.Variable([1.0, 2.0], name="v")
loss = tf.reduce_sum(v * v)
tf.summary.scalar("loss", loss)
merged = tf.summary.merge_all()
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    summary = sess.run(merged)
    path = saver.save(sess, {str(tmp_path / "m")!r})
print(tf.train.load_variable(path, "v").tolist(), len(summary) > 0)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[1.0, 2.0] True"
