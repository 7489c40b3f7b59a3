"""The model zoo of issue 19: frozen GraphDefs written by real TensorFlow run here (`tgraph
run`) to TensorFlow's outputs within 1e-4 relative to their scale, on the same inputs.

Keras models (weights=None, small inputs: ResNet50, MobileNetV2, InceptionV3, an LSTM, a GRU,
a Transformer encoder block) are frozen with convert_variables_to_constants_v2,
which lowers their loops to dataflow control flow over TensorList ops (the LSTM and GRU);
the TF1 graphs are built with control flow v2 disabled: tf.compat.v1.nn.dynamic_rnn (a
while loop over TensorArrayV3 ops) with an LSTM cell and a tf.cond on its state, and nested
while loops with a
TensorArray. Each graph, its input and TensorFlow's output are written once into the build
directory (<build>/model_zoo/<name>) and reused by later runs, which then need TensorFlow
only to import this file."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

TOOL = os.environ["TGRAPH_TOOL"]
ZOO = Path(os.environ.get("TGRAPH_BUILD_DIR", ".")) / "model_zoo"
keras = tf.keras
tf1 = tf.compat.v1


def keras_case(make_model, shape):
    """A frozen Keras model: (GraphDef, {feed: x}, fetch, TensorFlow's output)."""
    def build():
        keras.utils.set_random_seed(7)
        model = make_model()
        fn = tf.function(lambda x: model(x, training=False))
        frozen = convert_variables_to_constants_v2(
            fn.get_concrete_function(tf.TensorSpec(shape, tf.float32)))
        x = np.random.RandomState(0).rand(*shape).astype(np.float32)
        out = frozen(tf.constant(x))
        out = (out[0] if isinstance(out, (list, tuple)) else out).numpy()
        return (frozen.graph.as_graph_def(), {frozen.inputs[0].name: x},
                frozen.outputs[0].name, out)
    return build


class TinyLSTMCell:
    """An LSTM cell with constant weights, as tf.compat.v1.nn.dynamic_rnn wants one (Keras 3
    has no tf.compat.v1 RNN cells)."""

    def __init__(self, inputs, units, seed):
        rng = np.random.RandomState(seed)
        self.units = units
        self.kernel = tf.constant(rng.randn(inputs + units, 4 * units).astype(np.float32) * 0.3)
        self.bias = tf.constant(rng.randn(4 * units).astype(np.float32) * 0.1)

    state_size = property(lambda self: (self.units, self.units))
    output_size = property(lambda self: self.units)

    def zero_state(self, batch, dtype):
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.units], dtype))

    def __call__(self, x, state, scope=None):
        c, h = state
        # Two matmuls rather than one over concat([x, h]): the gradient of a concat needs
        # ConcatOffset's shape_type attr, which TF 2.21 writes and tgraph does not yet read.
        n_in = self.kernel.shape[0] - self.units
        z = (tf.matmul(x, self.kernel[:n_in]) + tf.matmul(h, self.kernel[n_in:])) + self.bias
        i, j, f, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, (c, h)


def tf1_case(build_graph, feeds):
    """A TF1 graph with control flow v1: (GraphDef, feeds, fetch 'out:0', TF's output)."""
    def build():
        tf1.disable_control_flow_v2()
        try:
            g = tf.Graph()
            with g.as_default():
                build_graph()
            with tf1.Session(graph=g) as sess:
                out = sess.run("out:0", {k: v for k, v in feeds.items()})
            return g.as_graph_def(), feeds, "out:0", out
        finally:
            tf1.enable_control_flow_v2()
    return build


def dynamic_rnn_graph():
    x = tf1.placeholder(tf.float32, [3, 6, 5], name="x")
    lengths = tf1.placeholder(tf.int32, [3], name="lengths")
    outputs, (c, h) = tf1.nn.dynamic_rnn(TinyLSTMCell(5, 8, seed=4), x, sequence_length=lengths,
                                         dtype=tf.float32)
    # A tf.cond on the run's data (Switch / Merge): which head reads the final state.
    h = tf1.cond(tf.reduce_sum(lengths) > 8, lambda: tf.tanh(h) * 2.0, lambda: h - c)
    tf.concat([tf.reshape(outputs, [3, -1]), c, h], 1, name="out")


def transformer_block():
    """A Transformer encoder block: MultiHeadAttention, LayerNormalization, a gelu MLP."""
    inputs = keras.Input((10, 32))
    attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
    h = keras.layers.LayerNormalization()(inputs + attended)
    f = keras.layers.Dense(64, activation="gelu")(h)
    out = keras.layers.LayerNormalization()(h + keras.layers.Dense(32)(f))
    return keras.Model(inputs, out)


def nested_loops_graph():
    x = tf1.placeholder(tf.float32, [4, 3], name="x")

    def outer_body(i, acc, ta):
        def inner_body(j, row):
            return j + 1, row * 0.5 + tf.tanh(x[j] * tf.cast(i + 1, tf.float32))
        _, row = tf1.while_loop(lambda j, row: j < 4, inner_body, (0, tf.zeros([3])))
        return i + 1, acc + row, ta.write(i, row)

    ta = tf1.TensorArray(tf.float32, size=3)
    _, acc, ta = tf1.while_loop(lambda i, acc, ta: i < 3, outer_body, (0, tf.zeros([3]), ta))
    tf.concat([tf.reshape(ta.stack(), [-1]), acc], 0, name="out")


def while_gradients_graph():
    """tf.gradients through while loops, as TF1 builds them (forward values kept on stacks):
    d/dx of prod(x^4) by a loop, and of a dynamic_rnn's outputs with respect to its input."""
    x = tf1.placeholder(tf.float32, [3], name="x")
    _, p = tf1.while_loop(lambda i, p: i < 4, lambda i, p: (i + 1, p * x), (0, tf.ones([3])))
    gx = tf1.gradients(tf.reduce_sum(p), x)[0]
    seq = tf1.placeholder(tf.float32, [2, 5, 3], name="seq")
    outputs, _ = tf1.nn.dynamic_rnn(TinyLSTMCell(3, 4, seed=5), seq, dtype=tf.float32)
    gseq = tf1.gradients(tf.reduce_sum(outputs * outputs), seq)[0]
    tf.concat([gx, tf.reshape(gseq, [-1])], 0, name="out")


CASES = {
    "resnet50": keras_case(lambda: keras.applications.ResNet50(
        weights=None, input_shape=(32, 32, 3), classifier_activation=None), (2, 32, 32, 3)),
    "transformer": keras_case(transformer_block, (2, 10, 32)),
    "mobilenet_v2": keras_case(lambda: keras.applications.MobileNetV2(
        weights=None, input_shape=(32, 32, 3), alpha=0.35, include_top=False, pooling="avg"),
        (2, 32, 32, 3)),
    "inception_v3": keras_case(lambda: keras.applications.InceptionV3(
        weights=None, input_shape=(75, 75, 3), classifier_activation=None), (1, 75, 75, 3)),
    "lstm": keras_case(lambda: keras.Sequential([keras.Input((7, 4)), keras.layers.LSTM(6)]),
                       (2, 7, 4)),
    "gru": keras_case(lambda: keras.Sequential(
        [keras.Input((7, 4)), keras.layers.GRU(6, return_sequences=True)]), (2, 7, 4)),
    "dynamic_rnn": tf1_case(dynamic_rnn_graph, {
        "x:0": np.random.RandomState(1).randn(3, 6, 5).astype(np.float32),
        "lengths:0": np.array([6, 3, 1], np.int32)}),
    "nested_while": tf1_case(nested_loops_graph, {
        "x:0": np.random.RandomState(2).randn(4, 3).astype(np.float32)}),
    "while_gradients": tf1_case(while_gradients_graph, {
        "x:0": np.array([0.5, 1.5, -2.0], np.float32),
        "seq:0": np.random.RandomState(3).randn(2, 5, 3).astype(np.float32)}),
}


# Ops each graph must contain, so that the case tests what it is here for.
MUST_HAVE = {
    "lstm": {"Enter", "Merge", "TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
             "TensorListSetItem", "TensorListStack"},
    "gru": {"Enter", "Merge", "TensorListReserve", "TensorListSetItem", "TensorListStack"},
    "dynamic_rnn": {"Enter", "Switch", "Merge", "TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3",
                    "TensorArrayWriteV3", "TensorArrayGatherV3"},
    "nested_while": {"Enter", "TensorArrayV3", "TensorArrayWriteV3", "TensorArrayGatherV3"},
    "mobilenet_v2": {"DepthwiseConv2dNative"},
    "inception_v3": {"ConcatV2", "AvgPool", "MaxPool"},
    "resnet50": {"Conv2D", "MaxPool", "MatMul", "Relu"},
    "transformer": {"Einsum", "SquaredDifference", "StopGradient", "Erfc"},
    "while_gradients": {"StackV2", "StackPushV2", "StackPopV2", "TensorArrayGradV3", "Exit"},
}


def materialise(name):
    """The case's files in the build directory, written by TensorFlow on first use."""
    d = ZOO / name
    if not (d / "expected.npy").exists():
        d.mkdir(parents=True, exist_ok=True)
        graph_def, feeds, fetch, out = CASES[name]()
        (d / "model.pb").write_bytes(graph_def.SerializeToString())
        for i, (feed, value) in enumerate(feeds.items()):
            np.save(d / f"feed{i}.npy", value)
        (d / "feeds.txt").write_text("\n".join(feeds) + "\n")
        (d / "fetch.txt").write_text(fetch)
        np.save(d / "expected.npy", out)  # last: marks the case complete
    return d


@pytest.mark.parametrize("name", list(CASES))
def test_model_zoo(tmp_path, name):
    d = materialise(name)
    graph_def = tf.compat.v1.GraphDef.FromString(d.joinpath("model.pb").read_bytes())
    ops = {node.op for node in graph_def.node}
    assert MUST_HAVE[name] <= ops, MUST_HAVE[name] - ops
    feeds = d.joinpath("feeds.txt").read_text().split()
    fetch = d.joinpath("fetch.txt").read_text()
    args = [TOOL, "run", str(d / "model.pb")]
    for i, feed in enumerate(feeds):
        args += ["--feed", f"{feed}={d / f'feed{i}.npy'}"]
    args += ["--fetch", fetch, "--npy-out", str(tmp_path)]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / (fetch.replace(":", "_") + ".npy"))
    expected = np.load(d / "expected.npy")
    assert got.shape == expected.shape
    scale = np.abs(expected).max()
    assert scale > 0
    err = np.abs(got - expected).max() / scale
    print(f"{name}: max error {err:.3g} relative to {scale:.3g}")
    assert err <= 1e-4
