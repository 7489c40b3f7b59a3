"""Plan-time graph rewrites on TensorFlow's own training graph: TF's tf.compat.v1 writes a
784-512-512-10 ReLU MLP with Adam (batch 128); tgraph imports it and trains it with every
rewrite on and with every rewrite off (tests/interop/rewrite_mlp.c, over the C API). The
losses of several steps must be the same both ways, and match TensorFlow's own run; with the
rewrites on, fewer nodes run: the gradient with respect to the input x (reached only through
the gradient tuples' control edges) is gone, the NoOps and Identities of the tuples too, and
the three MatMul+BiasAdd(+Relu) are fused."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.python.grappler import tf_optimizer

PROGRAM = Path(os.environ["TGRAPH_BUILD_DIR"]) / "tests" / "interop_rewrite_mlp"
TOOL = os.environ["TGRAPH_TOOL"]
BATCH = 128
STEPS = 5

tf1 = tf.compat.v1
tf1.disable_v2_behavior()  # TF1 graphs: VariableV2, Assign, ApplyAdam


def build_graph():
    """TF's graph, with fixed initial values (no random ops to seed)."""
    rng = np.random.RandomState(0)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, 784], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        h = x
        for i, (n_in, n_out) in enumerate([(784, 512), (512, 512), (512, 10)]):
            w = tf1.Variable((rng.randn(n_in, n_out) * 0.05).astype(np.float32), name=f"w{i}")
            b = tf1.Variable(np.zeros(n_out, np.float32), name=f"b{i}")
            h = tf.nn.bias_add(tf.matmul(h, w), b)
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h), name="loss")
        tf1.train.AdamOptimizer(1e-3).minimize(loss, name="train")
        tf1.global_variables_initializer()
    return graph


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    assert PROGRAM.exists(), f"{PROGRAM} is not built (target interop_rewrite_mlp)"
    directory = tmp_path_factory.mktemp("rewrites")
    graph = build_graph()
    (directory / "mlp.pb").write_bytes(graph.as_graph_def().SerializeToString())
    rng = np.random.RandomState(1)
    xs = rng.rand(BATCH, 784).astype(np.float32)
    ys = rng.randint(0, 10, BATCH).astype(np.int64)
    xs.tofile(directory / "x.bin")
    ys.tofile(directory / "y.bin")
    with tf1.Session(graph=graph) as sess:
        sess.run("init")
        losses = [sess.run(["loss:0", "train"], {"x:0": xs, "y:0": ys})[0] for _ in range(STEPS)]
    return directory, np.array(losses, np.float64)


def run(directory, rewrites, onednn=True):
    env = dict(os.environ)
    if not onednn:
        env["TGRAPH_DISABLE_ONEDNN"] = "1"
    done = subprocess.run([str(PROGRAM), str(directory / "mlp.pb"), str(directory / "x.bin"),
                           str(directory / "y.bin"), str(BATCH), str(STEPS), str(rewrites)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    losses, ops, counts = [], [], {}
    for line in done.stdout.splitlines():
        fields = line.split()
        if fields[0] == "loss":
            losses.append(float(fields[2]))
        elif fields[0] == "op":
            ops.append(fields[1] + " " + fields[2])
        elif fields[0] in ("nodes", "matmuls"):
            counts[fields[0]] = int(fields[1])
    return np.array(losses), ops, counts


def test_training_with_rewrites_equals_training_without(files):
    directory, _ = files
    on, _, _ = run(directory, 1)
    off, _, _ = run(directory, 0)
    assert len(on) == STEPS
    np.testing.assert_allclose(on, off, rtol=1e-6, atol=0)


def test_both_match_tensorflow(files):
    directory, tf_losses = files
    on, _, _ = run(directory, 1)
    np.testing.assert_allclose(on, tf_losses, rtol=1e-5, atol=0)


@pytest.mark.parametrize("onednn", [False, True], ids=["eigen", "onednn"])
def test_rewrites_drop_the_input_gradient_and_fuse(files, onednn):
    """MatMul+BiasAdd(+Relu) fuse with the Eigen kernels alone and with the oneDNN plugin
    loaded (its _FusedMatMul ranks with its MatMul, the bias and ReLU inside oneDNN's matmul
    primitive), and the fused training gives the unfused one's losses."""
    directory, _ = files
    losses_on, ops_on, on = run(directory, 1, onednn=onednn)
    losses_off, ops_off, off = run(directory, 0, onednn=onednn)
    # Off: 3 forward MatMuls, 2 gradients each for w0..w2, and the gradient for x.
    assert off["matmuls"] == 9, ops_off
    # On: what TensorFlow's grappler runs, 8 (3 of them fused with their bias and ReLU).
    assert on["matmuls"] == 8, ops_on
    types_on = [op.split()[0] for op in ops_on]
    types_off = [op.split()[0] for op in ops_off]
    assert types_on.count("_FusedMatMul") == 3, ops_on
    assert "BiasAdd" not in types_on and "Relu" not in types_on
    assert "_FusedMatMul" not in types_off
    assert types_on.count("NoOp") < types_off.count("NoOp")
    # The gradient tuples' Identities go; the variables' reads (of refs) stay.
    assert not [op for op in ops_on if "tuple/" in op], ops_on
    assert on["nodes"] < off["nodes"] - 20, (on, off)
    np.testing.assert_allclose(losses_on, losses_off, rtol=1e-6, atol=0)


def test_graphs_fused_by_tensorflows_grappler_import_and_run(tmp_path):
    """TF's own remapper output (_FusedConv2D and _FusedMatMul with fused_ops [BiasAdd, Relu],
    as frozen graphs may hold them) imports and runs here to TensorFlow's numbers."""
    rng = np.random.RandomState(0)
    graph = tf.Graph()
    with graph.as_default(), tf.device("/device:CPU:0"):
        x = tf1.placeholder(tf.float32, [2, 5, 5, 3], name="x")
        f = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
        b = tf.constant(rng.randn(4).astype(np.float32))
        c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b))
        w = tf.constant(rng.randn(100, 6).astype(np.float32))
        bw = tf.constant(rng.randn(6).astype(np.float32))
        y = tf.identity(tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.reshape(c, [2, 100]), w), bw)),
                        name="y")
        tf1.add_to_collection("train_op", y)
    fused = tf_optimizer.OptimizeGraph(config_pb2.ConfigProto(),
                                       tf1.train.export_meta_graph(graph=graph))
    assert {"_FusedConv2D", "_FusedMatMul"} <= {node.op for node in fused.node}
    xs = rng.rand(2, 5, 5, 3).astype(np.float32)
    with tf.Graph().as_default() as again:
        tf1.import_graph_def(fused, name="")
        with tf1.Session(graph=again) as sess:
            expected = sess.run("y:0", {"x:0": xs})
    (tmp_path / "fused.pb").write_bytes(fused.SerializeToString())
    np.save(tmp_path / "x.npy", xs)
    done = subprocess.run([TOOL, "run", str(tmp_path / "fused.pb"), "--feed",
                           f"x:0={tmp_path / 'x.npy'}", "--fetch", "y:0", "--npy-out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / "y_0.npy")
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
