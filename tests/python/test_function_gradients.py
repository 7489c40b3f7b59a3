"""Gradients of the call ops against TensorFlow: a tf.function's graph (not lowered: a nested
tf.function is a PartitionedCall, tf.cond an If, tf.switch_case a Case, tf.while_loop a While,
each over functions in the GraphDef's library) is imported here and differentiated by
tgraph's gradient builder;
TensorFlow's GradientTape on the same tf.function gives the expected values and gradients."""
import numpy as np
import pytest

import tgraph as tf

tf2 = pytest.importorskip("tensorflow")

W = np.array([0.7, -1.3, 0.4], np.float32)


@tf2.function
def inner(x, w):
    return tf2.tanh(x * w), x * x


def call_case(x):
    y, z = inner(x, tf2.constant(W))
    return y + 2.0 * z


def cond_case(x):
    w = tf2.constant(W)
    return tf2.cond(tf2.reduce_sum(x) > 0.0, lambda: tf2.tanh(x) * w, lambda: x * x * w)


def while_case(x):
    w = tf2.constant(W)
    _, r = tf2.while_loop(lambda i, r: i < 3, lambda i, r: (i + 1, r * w + tf2.tanh(r)), (0, x))
    return r


def switch_case(x):
    w = tf2.constant(W)
    index = tf2.cast(tf2.reduce_sum(x) > 0.0, tf2.int32)
    return tf2.switch_case(index, [lambda: x * x * w, lambda: tf2.tanh(x) * w, lambda: x])


def nested_case(x):
    # A call whose function holds a cond inside a while loop.
    w = tf2.constant(W)

    @tf2.function
    def step(r):
        return tf2.cond(tf2.reduce_sum(r) > 0.0, lambda: tf2.tanh(r * w), lambda: r * 0.5 + w)

    _, r = tf2.while_loop(lambda i, r: i < 2, lambda i, r: (i + 1, step(r)), (0, x))
    return r


CASES = {
    "call": (call_case, {"PartitionedCall", "StatefulPartitionedCall"}),
    "cond": (cond_case, {"If", "StatelessIf"}),
    "case": (switch_case, {"Case", "StatelessCase"}),
    "while": (while_case, {"While", "StatelessWhile"}),
    "nested": (nested_case, {"While", "StatelessWhile"}),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_call_op_gradients_match_tensorflow(name, sign):
    fn, ops = CASES[name]
    x = (sign * np.array([0.5, 0.9, 0.3], np.float32))
    traced = tf2.function(fn)
    concrete = traced.get_concrete_function(tf2.TensorSpec((3,), tf2.float32))
    graph_def = concrete.graph.as_graph_def()
    assert ops & {n.op for n in graph_def.node}, {n.op for n in graph_def.node}
    xt = tf2.constant(x)
    with tf2.GradientTape() as tape:
        tape.watch(xt)
        y = traced(xt)
        loss = tf2.reduce_sum(y * y)
    want_y, want = y.numpy(), tape.gradient(loss, xt).numpy()

    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        x_in = g.get_tensor_by_name(concrete.inputs[0].name)
        out = g.get_tensor_by_name(concrete.outputs[0].name)
        (dx,) = tf.gradients(tf.reduce_sum(out * out), [x_in])
        assert dx is not None
        with tf.Session() as sess:
            got_y, got = sess.run([out, dx], {x_in: x})
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
