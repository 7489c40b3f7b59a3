"""Functions written by real TensorFlow run here to TensorFlow's numbers (`tgraph run
GRAPH.pb`): GraphDefs whose library holds the bodies of StatelessIf / StatelessWhile (a
tf.compat.v1 graph with control flow v2: a cond, a factorial loop, an RNN-style loop over a
TensorArray, a cond inside a loop, nested loops), of tf.function concrete functions calling
tf.functions (StatefulPartitionedCall / PartitionedCall, an If and a While inside), and of a
tf.function over variables frozen without lowering its control flow
(convert_variables_to_constants_v2(lower_control_flow=False)), and of TF1 Defun functions
called by name. `tgraph info` lists the functions and finds nothing missing to run them; the
call ops' OpDefs are TensorFlow's."""
import os
import subprocess
import tempfile

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1

TOOL = os.environ["TGRAPH_TOOL"]
RTOL = 1e-5


def v2_control_flow_graph():
    g = tf.Graph()
    with g.as_default():
        tf1.enable_control_flow_v2()
        try:
            x = tf1.placeholder(tf.float32, [3], name="x")
            n = tf1.placeholder(tf.float32, [], name="n")
            seq = tf1.placeholder(tf.float32, [5, 2, 4], name="seq")  # time, batch, features

            y = tf1.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0 + n, lambda: x - 1.0, name="pick")
            tf.identity(y, name="y")

            _, fact = tf1.while_loop(lambda i, acc: i <= n, lambda i, acc: (i + 1.0, acc * i),
                                     (tf.constant(1.0), tf.constant(1.0)), name="fact")
            tf.identity(fact, name="fact_out")

            # h_t = tanh(x_t W + h_{t-1} U), every h_t kept in a TensorArray.
            rng = np.random.RandomState(0)
            w = tf.constant(rng.randn(4, 3).astype(np.float32) * 0.5)
            u = tf.constant(rng.randn(3, 3).astype(np.float32) * 0.5)
            steps = tf.shape(seq)[0]
            ta = tf.TensorArray(tf.float32, size=steps)

            def rnn_body(t, h, ta):
                h = tf.tanh(tf.matmul(seq[t], w) + tf.matmul(h, u))
                return t + 1, h, ta.write(t, h)
            _, h_last, ta = tf1.while_loop(lambda t, h, ta: t < steps, rnn_body,
                                           (tf.constant(0), tf.zeros([2, 3]), ta), name="rnn")
            tf.identity(h_last, name="h_last")
            tf.identity(ta.stack(), name="hs")

            # A cond inside a loop, and a loop inside a loop.
            def outer_body(i, total):
                inner = tf1.while_loop(lambda j, t: j < i, lambda j, t: (j + 1.0, t + j * x[0]),
                                       (tf.constant(0.0), tf.constant(0.0)))[1]
                step = tf1.cond(i > 2.0, lambda: inner, lambda: -i)
                return i + 1.0, total + step
            _, total = tf1.while_loop(lambda i, t: i < n, outer_body,
                                      (tf.constant(0.0), tf.constant(0.0)), name="outer")
            tf.identity(total, name="total")
        finally:
            tf1.disable_control_flow_v2()
    return g


V2_FETCHES = ["y:0", "fact_out:0", "h_last:0", "hs:0", "total:0"]


def v2_feeds(sign):
    rng = np.random.RandomState(1)
    return {"x": np.array([1.0, 2.0, 3.0], np.float32) * sign,
            "n": np.float32(5.0 if sign > 0 else 3.0),
            "seq": rng.randn(5, 2, 4).astype(np.float32)}


def run_here(path, feeds, fetches):
    with tempfile.TemporaryDirectory() as d:
        args = [TOOL, "run", str(path)]
        for name, value in feeds.items():
            np.save(os.path.join(d, name + ".npy"), value)
            args += ["--feed", f"{name}:0=" + os.path.join(d, name + ".npy")]
        out = os.path.join(d, "out")
        args += ["--npy-out", out]
        for f in fetches:
            args += ["--fetch", f]
        result = subprocess.run(args, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr + result.stdout
        return [np.load(os.path.join(out, f.replace(":", "_") + ".npy")) for f in fetches]


def check_close(got, want, names):
    for name, a, b in zip(names, got, want):
        b = np.asarray(b)
        assert a.shape == b.shape, name
        scale = max(float(np.max(np.abs(b))) if b.size else 0.0, 1e-30)
        assert float(np.max(np.abs(a - b))) / scale <= RTOL if b.size else True, name


def info(path):
    result = subprocess.run([TOOL, "info", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def v2_graph(tmp_path_factory):
    g = v2_control_flow_graph()
    gd = g.as_graph_def()
    ops = {node.op for node in gd.node}
    assert {"StatelessIf", "StatelessWhile"} <= ops, ops
    assert not ({"Switch", "Merge", "Enter"} & ops), ops
    assert len(gd.library.function) >= 6
    path = tmp_path_factory.mktemp("functions") / "v2.pb"
    path.write_bytes(gd.SerializeToString())
    return g, path


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_control_flow_v2_runs_to_tensorflows_numbers(v2_graph, sign):
    g, path = v2_graph
    feeds = v2_feeds(sign)
    with tf1.Session(graph=g) as sess:
        want = sess.run(V2_FETCHES, {k + ":0": v for k, v in feeds.items()})
    check_close(run_here(path, feeds, V2_FETCHES), want, V2_FETCHES)


def test_info_lists_the_functions_and_nothing_missing(v2_graph):
    _, path = v2_graph
    text = info(path)
    assert "Functions (" in text, text
    assert "nothing: every op is defined and has a kernel" in text, text


# ---- tf.function calling tf.function ----

@tf.function
def inner(a, b):
    return tf.tanh(a) * b + 1.0


@tf.function
def looped(a):
    # A While in a function, with a nested call in its body.
    i = tf.constant(0)
    while i < 3:
        a = inner(a, a)
        i += 1
    return a


@tf.function
def outer(a, b):
    c = inner(a, b)
    if tf.reduce_sum(c) > 0:  # an If in a function
        d = looped(c) + inner(b, c)
    else:
        d = c - 1.0
    return d, c * 2.0


def concrete_graph(tmp_path_factory):
    spec = tf.TensorSpec([2, 3], tf.float32)
    concrete = outer.get_concrete_function(spec, spec)
    gd = concrete.graph.as_graph_def()
    path = tmp_path_factory.mktemp("functions") / "nested.pb"
    path.write_bytes(gd.SerializeToString())
    inputs = [t.name for t in concrete.inputs]
    outputs = [t.name for t in concrete.outputs]
    return concrete, gd, path, inputs, outputs


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_nested_tf_functions_run_to_tensorflows_numbers(tmp_path_factory, sign):
    concrete, gd, path, inputs, outputs = concrete_graph(tmp_path_factory)
    ops = {node.op for node in gd.node}
    body_ops = {n.op for f in gd.library.function for n in f.node_def}
    assert "StatefulPartitionedCall" in ops | body_ops or "PartitionedCall" in ops | body_ops
    assert {"If", "StatelessIf"} & (body_ops | ops)
    assert {"While", "StatelessWhile"} & (body_ops | ops)
    rng = np.random.RandomState(2)
    a = (rng.rand(2, 3).astype(np.float32) + 0.1) * sign
    b = (rng.rand(2, 3).astype(np.float32) + 0.1) * sign
    want = [t.numpy() for t in concrete(tf.constant(a), tf.constant(b))]
    feeds = {inputs[0].split(":")[0]: a, inputs[1].split(":")[0]: b}
    check_close(run_here(path, feeds, outputs), want, outputs)


# ---- a model over variables, frozen without lowering its control flow ----

def test_variables_frozen_without_lowering_run_here(tmp_path_factory):
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)

    w = tf.Variable(np.random.RandomState(3).randn(3, 3).astype(np.float32), name="w")
    scale = tf.Variable(0.5, name="scale")

    @tf.function
    def step(h):
        return tf.tanh(tf.matmul(h, w))

    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    def model(x):
        h = x
        for _ in tf.range(4):
            h = step(h) * scale
        if tf.reduce_mean(h) > 0:
            return h + scale
        return h - scale

    frozen = convert_variables_to_constants_v2(model.get_concrete_function(),
                                               lower_control_flow=False)
    gd = frozen.graph.as_graph_def()
    ops = {n.op for n in gd.node} | {n.op for f in gd.library.function for n in f.node_def}
    assert {"While", "StatelessWhile"} & ops, ops
    assert not ({"VarHandleOp", "ReadVariableOp"} & {n.op for n in gd.node}), ops
    path = tmp_path_factory.mktemp("functions") / "frozen.pb"
    path.write_bytes(gd.SerializeToString())
    x = np.random.RandomState(4).randn(2, 3).astype(np.float32)
    want = [model(tf.constant(x)).numpy()]
    inputs = [t.name for t in frozen.inputs]
    outputs = [t.name for t in frozen.outputs]
    check_close(run_here(path, {inputs[0].split(":")[0]: x}, outputs), want, outputs)
    assert "nothing: every op is defined and has a kernel" in info(path)


# ---- the call ops are TensorFlow's ----

FUNCTIONAL_OPS = ["PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
                  "StatelessCase", "While", "StatelessWhile"]


@pytest.mark.parametrize("name", FUNCTIONAL_OPS)
def test_functional_op_defs_match_tensorflow(name):
    import re
    from tensorflow.core.framework import types_pb2
    from tensorflow.python.framework import op_def_registry

    def tf_args(args):
        return [(a.name, a.type_attr or a.type_list_attr or types_pb2.DataType.Name(a.type)[3:].lower())
                for a in args]

    def parse_args(text):
        return [tuple(p.strip() for p in part.split(":")) for part in text.split(",")] if text.strip() else []

    done = subprocess.run([TOOL, "ops", name], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    m = re.match(r"(\w+)\((.*)\) -> \((.*)\)", lines[0])
    assert m and m.group(1) == name, lines[0]
    want = op_def_registry.get(name)
    assert parse_args(m.group(2)) == tf_args(want.input_arg)
    assert parse_args(m.group(3)) == tf_args(want.output_arg)
    assert ("[stateful]" in lines[0]) == want.is_stateful
    attrs = {}
    for line in lines[1:]:
        a = re.match(r"\s+attr (\w+): ([^=]+?)( = .*)?$", re.sub(r" >= -?\d+", "", line))
        if a:
            attrs[a.group(1)] = (a.group(2).strip(), a.group(3) is not None)
    assert attrs == {a.name: (a.type, a.HasField("default_value")) for a in want.attr}
    assert any("kernels: CPU" in line for line in lines), done.stdout


# ---- TF1 Defun: nodes whose op type is a function's name ----

def test_defun_calls_run_as_partitioned_calls(tmp_path_factory):
    from tensorflow.python.framework import function

    g = tf.Graph()
    with g.as_default():
        @function.Defun(tf.float32, tf.float32)
        def inner(x, y):
            return x * y + 1.0

        @function.Defun(tf.float32)
        def outer(x):  # calls inner directly too
            return inner(x, x) * 2.0, x - 1.0

        a = tf1.placeholder(tf.float32, [2], name="a")
        p, q = outer(a)
        tf.identity(p, name="p")
        tf.identity(q, name="q")
    gd = g.as_graph_def()
    names = {f.signature.name for f in gd.library.function}
    assert any(n.op in names for n in gd.node)
    path = tmp_path_factory.mktemp("functions") / "defun.pb"
    path.write_bytes(gd.SerializeToString())
    a = np.array([1.5, -2.0], np.float32)
    with tf1.Session(graph=g) as sess:
        want = sess.run(["p:0", "q:0"], {"a:0": a})
    check_close(run_here(path, {"a": a}, ["p:0", "q:0"]), want, ["p:0", "q:0"])
