"""TF1 dataflow control flow written by real TensorFlow (tf.compat.v1 with control flow v2
disabled: tf.cond and tf.while_loop as Switch / Merge / Enter / Exit / NextIteration /
LoopCond) imports into tgraph (`tgraph run GRAPH.pb`) and runs to TensorFlow's numbers:
a cond over a loop's result, nested loops with a cond in the inner body, a loop inside a
cond (taken and untaken), vector loop variables and parallel_iterations=1, a loop variable
that grows (shape_invariants), maximum_iterations, and tf.case (nested conds)."""
import os
import subprocess
import tempfile

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_control_flow_v2()

TOOL = os.environ["TGRAPH_TOOL"]


def build_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [3], name="x")
        n = tf1.placeholder(tf.float32, [], name="n")
        m = tf1.placeholder(tf.float32, [], name="m")

        # n! by a loop, then a cond on x that uses it in one branch.
        _, fact = tf1.while_loop(lambda i, acc: i <= n, lambda i, acc: (i + 1.0, acc * i),
                                 (tf.constant(1.0), tf.constant(1.0)), name="fact")
        y = tf1.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + fact, lambda: x - 1.0, name="pick")
        tf.identity(y, name="y")

        # for i < m: for j < 4: total += (j < i ? i * j : -1)
        def outer_body(i, total):
            def inner_body(j, t):
                return j + 1.0, t + tf1.cond(j < i, lambda: i * j, lambda: tf.constant(-1.0))
            _, t = tf1.while_loop(lambda j, t: j < 4.0, inner_body, (tf.constant(0.0), total))
            return i + 1.0, t
        _, total = tf1.while_loop(lambda i, t: i < m, outer_body, (tf.constant(0.0), tf.constant(0.0)),
                                  name="outer")
        tf.identity(total, name="total")

        # A loop inside a cond: taken when m > 2.
        looped = tf1.cond(m > 2.0,
                          lambda: tf1.while_loop(lambda k: k < m * 10.0, lambda k: k * 2.0 + 1.0,
                                                 [tf.constant(1.0)]),
                          lambda: -m, name="maybe_loop")
        tf.identity(looped, name="looped")

        # Vector loop variables, one iteration at a time.
        _, v = tf1.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, v * x + 1.0),
                              (tf.constant(0), tf.ones([3])), parallel_iterations=1, name="vec")
        tf.identity(v, name="v")

        # A loop variable that grows (shape_invariants), and maximum_iterations.
        _, grown = tf1.while_loop(lambda k, t: k < 3, lambda k, t: (k + 1, tf.concat([t, t * m], 0)),
                                  (tf.constant(0), tf.reshape(n, [1])),
                                  shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])),
                                  name="grow")
        tf.identity(grown, name="grown")
        capped = tf1.while_loop(lambda k: k < 100.0, lambda k: k + n + 1.0, [tf.constant(0.0)],
                                maximum_iterations=4, name="capped")
        tf.identity(capped, name="capped_out")

        # tf.case: nested conds, two outputs each.
        a, b = tf1.case([(m > 2.0, lambda: (m * 2.0, x[0])), (m > 0.5, lambda: (m + 1.0, x[1]))],
                        default=lambda: (-m, x[2]), exclusive=False, name="case")
        tf.identity(a + b, name="case_out")
    return g


FETCHES = ["y:0", "total:0", "looped:0", "v:0", "grown:0", "capped_out:0", "case_out:0"]


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("control_flow")
    g = build_graph()
    ops = {node.op for node in g.as_graph_def().node}
    assert {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"} <= ops, ops
    path = d / "graph.pb"
    path.write_bytes(g.as_graph_def().SerializeToString())
    return g, path


@pytest.mark.parametrize("x,n,m", [
    ([1.0, 2.0, 3.0], 5.0, 3.0),     # cond takes the loop's result; the loop in a cond runs
    ([-1.0, -2.0, 0.5], 4.0, 1.0),   # the other branches; the loop inside the cond never runs
    ([0.5, 0.25, 2.0], 0.0, 0.0),    # loops that stop before their first iteration
])
def test_tensorflow_control_flow_runs_here_to_the_same_numbers(graph_file, x, n, m):
    g, path = graph_file
    x = np.array(x, dtype=np.float32)
    n = np.float32(n)
    m = np.float32(m)
    with tf1.Session(graph=g) as sess:
        want = sess.run(FETCHES, {"x:0": x, "n:0": n, "m:0": m})
    with tempfile.TemporaryDirectory() as d:
        feeds = []
        for name, value in (("x", x), ("n", n), ("m", m)):
            np.save(os.path.join(d, name + ".npy"), value)
            feeds += ["--feed", f"{name}:0=" + os.path.join(d, name + ".npy")]
        out = os.path.join(d, "out")
        args = [TOOL, "run", str(path), *feeds, "--npy-out", out]
        for f in FETCHES:
            args += ["--fetch", f]
        result = subprocess.run(args, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr + result.stdout
        for name, expected in zip(FETCHES, want):
            got = np.load(os.path.join(out, name.replace(":", "_") + ".npy"))
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0, err_msg=name)


def test_fetching_a_dead_branch_value_fails_as_in_tensorflow(graph_file):
    g, path = graph_file
    # pick/mul is on the true side of the cond; with sum(x) <= 0 it is dead. (Imported into a
    # fresh graph: the graph that built it refuses to fetch a value inside a cond at all.)
    imported = tf.Graph()
    with imported.as_default():
        tf1.import_graph_def(g.as_graph_def(), name="")
    with tf1.Session(graph=imported) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value|dead"):
            sess.run("pick/mul:0", {"x:0": np.full(3, -1, np.float32), "n:0": 1.0})
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "x.npy"), np.full(3, -1, np.float32))
        np.save(os.path.join(d, "n.npy"), np.float32(1))
        result = subprocess.run([TOOL, "run", str(path), "--feed", "x:0=" + os.path.join(d, "x.npy"),
                                 "--feed", "n:0=" + os.path.join(d, "n.npy"), "--fetch", "pick/mul:0"],
                                capture_output=True, text=True)
        assert result.returncode != 0
        assert "does not have value" in result.stderr + result.stdout
