"""Resource variables against real TensorFlow: graphs that TF 2.x's tf.compat.v1 writes with
only eager execution disabled (so variables are resource variables: VarHandleOp,
ReadVariableOp, AssignVariableOp, ResourceApply*, ResourceGather, ResourceScatter*) import
and run here with TF's numbers.

(a) MLPs trained with GradientDescent, Momentum, Adam, RMSProp and Adagrad, and an
embedding trained through sparse gradients (ResourceScatterAdd, ResourceSparseApply*): TF's
GraphDef is imported through the Python binding, init and N train steps run here, and the
losses and final values match TF's step by step. (b) ResourceGather and the ResourceScatter
ops' values. (c) A TF checkpoint of resource variables restored here through the
MetaGraph's SaverDef (`tgraph run --restore`, and the binding's import_meta_graph +
Saver.restore). (d) Reading an uninitialized resource variable fails with
FAILED_PRECONDITION naming the variable, not a crash. (e) Every op's OpDef is TF's.
"""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()  # TF2's default variables stay resource variables

TOOL = os.environ["TGRAPH_TOOL"]
BUILD = pathlib.Path(os.environ["TGRAPH_BUILD_DIR"])
sys.path.insert(0, str(BUILD / "python"))
import tgraph as tg  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_list_op_defs import test_op_def_matches_tensorflow as check_op_def  # noqa: E402

STEPS = 6


def batch(seed, n=16):
    r = np.random.RandomState(seed)
    return (r.randn(n, 4).astype(np.float32), r.randn(n, 3).astype(np.float32))


def build_mlp(make_optimizer):
    """An MLP of resource variables; returns (graph, names of init, train, loss, values)."""
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        y = tf1.placeholder(tf.float32, [None, 3], name="y")
        # Initial values from numpy (random initializers' streams are TF's own).
        r = np.random.RandomState(11)
        with tf1.variable_scope("l1"):
            w1 = tf1.get_variable("W", initializer=r.randn(4, 8).astype(np.float32) * 0.5)
            b1 = tf1.get_variable("b", [8], initializer=tf1.constant_initializer(0.1))
        with tf1.variable_scope("l2"):
            w2 = tf1.get_variable("W", initializer=r.randn(8, 3).astype(np.float32) * 0.5)
            b2 = tf1.get_variable("b", [3], initializer=tf1.zeros_initializer())
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2) + b2
        loss = tf.reduce_mean(tf.square(logits - y), name="loss")
        train = make_optimizer().minimize(loss, name="train")
        init = tf1.global_variables_initializer()
        values = [tf.identity(v, name="value_%d" % i) for i, v in enumerate([w1, b1, w2, b2])]
        saver = tf1.train.Saver()
    types = {n.op for n in g.as_graph_def().node}
    assert "VarHandleOp" in types and "VariableV2" not in types, sorted(types)
    return g, saver, init.name, train.name, loss.name, [v.name for v in values], types


def train_tensorflow(g, init, train, loss, values):
    losses = []
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        for step in range(STEPS):
            bx, by = batch(step)
            feed = {"x:0": bx, "y:0": by}
            losses.append(sess.run(loss, feed))
            sess.run(train, feed)
        return losses, sess.run(values)


def new_tgraph_session(graph_def):
    g = tg.Graph()
    with g.as_default():
        tg.import_graph_def(graph_def, name="")
    return g, tg.Session(graph=g)


def train_tgraph(graph_def, init, train, loss, values):
    _, sess = new_tgraph_session(graph_def)
    losses = []
    sess.run(init)
    for step in range(STEPS):
        bx, by = batch(step)
        feed = {"x:0": bx, "y:0": by}
        losses.append(sess.run(loss, feed))
        sess.run(train, feed)
    out = sess.run(values)
    sess.close()
    return losses, out


class RawOptimizer:
    """minimize() with one raw ResourceApply* op per variable and a zero `accum` slot."""

    def __init__(self, op, **args):
        self.op, self.args = op, args

    def minimize(self, loss, name):
        params = tf1.trainable_variables()
        grads = tf.gradients(loss, params)
        updates = []
        for v, grad in zip(params, grads):
            accum = tf1.get_variable(v.op.name + "/accum", initializer=tf1.zeros_initializer(),
                                     shape=v.shape, trainable=False)
            updates.append(getattr(tf.raw_ops, self.op)(var=v.handle, accum=accum.handle, grad=grad,
                                                        **self.args))
        return tf.group(*updates, name=name)


OPTIMIZERS = {
    "gradient_descent": (lambda: tf1.train.GradientDescentOptimizer(0.1), "ResourceApplyGradientDescent"),
    "momentum": (lambda: tf1.train.MomentumOptimizer(0.05, 0.9), "ResourceApplyMomentum"),
    "nesterov": (lambda: tf1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True), "ResourceApplyMomentum"),
    "adam": (lambda: tf1.train.AdamOptimizer(0.01), "ResourceApplyAdam"),
    "rmsprop": (lambda: tf1.train.RMSPropOptimizer(0.01, momentum=0.5), "ResourceApplyRMSProp"),
    "centered_rmsprop": (lambda: tf1.train.RMSPropOptimizer(0.01, centered=True), "ResourceApplyCenteredRMSProp"),
    "adagrad": (lambda: tf1.train.AdagradOptimizer(0.1), "ResourceApplyAdagrad"),
    "adadelta": (lambda: tf1.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6), "ResourceApplyAdadelta"),
    # Keras' optimizers' update ops, applied through tf.raw_ops (this Keras builds no TF1
    # graphs): accum slots made as TF makes them, zeros.
    "keras_momentum": (lambda: RawOptimizer("ResourceApplyKerasMomentum", lr=0.05, momentum=0.9),
                       "ResourceApplyKerasMomentum"),
    "keras_nesterov": (lambda: RawOptimizer("ResourceApplyKerasMomentum", lr=0.05, momentum=0.9,
                                            use_nesterov=True), "ResourceApplyKerasMomentum"),
    "adagrad_v2": (lambda: RawOptimizer("ResourceApplyAdagradV2", lr=0.1, epsilon=1e-3),
                   "ResourceApplyAdagradV2"),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_mlp_trains_as_in_tensorflow(name):
    make, op = OPTIMIZERS[name]
    g, _, init, train, loss, values, types = build_mlp(make)
    assert op in types, sorted(types)
    want_losses, want_values = train_tensorflow(g, init, train, loss, values)
    got_losses, got_values = train_tgraph(g.as_graph_def(), init, train, loss, values)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5, atol=1e-6)
    for got, want in zip(got_values, want_values):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # Training changed something: the comparison is not of untouched initial values.
    assert want_losses[-1] != want_losses[0]


def build_embedding(make_optimizer):
    g = tf.Graph()
    with g.as_default():
        ids = tf1.placeholder(tf.int32, [None], name="ids")
        y = tf1.placeholder(tf.float32, [None, 4], name="y")
        table = tf1.get_variable("table", initializer=np.arange(40, dtype=np.float32).reshape(10, 4) / 40.0)
        rows = tf.gather(table, ids)  # ResourceGather; its gradient is sparse (IndexedSlices)
        loss = tf.reduce_sum(tf.square(rows - y), name="loss")
        train = make_optimizer().minimize(loss, name="train")
        init = tf1.global_variables_initializer()
        value = tf.identity(table, name="table_value")
    return g, init.name, train.name, loss.name, value.name


@pytest.mark.parametrize("name,make,op", [
    ("gradient_descent", lambda: tf1.train.GradientDescentOptimizer(0.1), "ResourceScatterAdd"),
    ("adagrad", lambda: tf1.train.AdagradOptimizer(0.1), "ResourceSparseApplyAdagrad"),
    ("momentum", lambda: tf1.train.MomentumOptimizer(0.1, 0.9), "ResourceSparseApplyMomentum"),
    ("adam", lambda: tf1.train.AdamOptimizer(0.05), "ResourceScatterAdd"),
    ("adadelta", lambda: tf1.train.AdadeltaOptimizer(1.0), "ResourceSparseApplyAdadelta"),
    ("rmsprop", lambda: tf1.train.RMSPropOptimizer(0.05, momentum=0.5), "ResourceSparseApplyRMSProp"),
])
def test_embedding_trains_through_sparse_updates(name, make, op):
    g, init, train, loss, value = build_embedding(make)
    types = {n.op for n in g.as_graph_def().node}
    assert op in types and "ResourceGather" in types, sorted(types)
    r = np.random.RandomState(5)
    feeds = [{"ids:0": r.randint(0, 10, size=6).astype(np.int32),  # duplicates included
              "y:0": r.randn(6, 4).astype(np.float32)} for _ in range(STEPS)]
    want = []
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        for feed in feeds:
            want.append(sess.run(loss, feed))
            sess.run(train, feed)
        want_table = sess.run(value)
    _, sess = new_tgraph_session(g.as_graph_def())
    got = []
    sess.run(init)
    for feed in feeds:
        got.append(sess.run(loss, feed))
        sess.run(train, feed)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sess.run(value), want_table, rtol=1e-5, atol=1e-6)


def test_gather_and_scatter_values():
    g = tf.Graph()
    with g.as_default():
        v = tf1.get_variable("v", initializer=np.arange(12, dtype=np.float32).reshape(4, 3))
        idx = tf.constant([[3, 0], [3, 1]], dtype=tf.int64)
        gathered = tf.identity(tf.gather(v, idx), name="gathered")
        add = tf1.scatter_add(v, [1, 1, 2], np.ones((3, 3), np.float32) * [[1], [10], [100]], name="add")
        sub = tf1.scatter_sub(v, [0], [[0.5, 0.5, 0.5]], name="sub")
        upd = tf1.scatter_update(v, [3], [[-1.0, -2.0, -3.0]], name="upd")
        counter = tf1.get_variable("counter", initializer=np.int64(5), dtype=tf.int64)
        inc = counter.assign_add(7, read_value=False, name="inc")
        dec = counter.assign_sub(2, read_value=False, name="dec")
        shape = tf.identity(tf.raw_ops.VariableShape(input=v.handle, out_type=tf.int64), name="shape")
        inited = tf.identity(tf1.is_variable_initialized(v), name="inited")
        count = tf.identity(counter, name="count")
        init = tf1.global_variables_initializer()
    types = {n.op for n in g.as_graph_def().node}
    for op in ["ResourceGather", "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate",
               "AssignAddVariableOp", "AssignSubVariableOp", "VariableShape", "VarIsInitializedOp"]:
        assert op in types, (op, sorted(types))
    steps = [add.op.name, sub.op.name, upd.op.name, inc.name, dec.name]
    fetches = ["gathered:0", "shape:0", "count:0", "v/Read/ReadVariableOp:0", "inited:0"]
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        want = [sess.run(fetches)]
        for op in steps:
            sess.run(op)
            want.append(sess.run(fetches))
    _, sess = new_tgraph_session(g.as_graph_def())
    assert not sess.run("inited:0")
    sess.run(init.name)
    got = [sess.run(fetches)]
    for op in steps:
        sess.run(op)
        got.append(sess.run(fetches))
    for w_row, g_row in zip(want, got):
        for w, o in zip(w_row, g_row):
            assert np.asarray(o).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(o, w)


def test_tensorflow_checkpoint_of_resource_variables_restores_here(tmp_path):
    g, saver, init, train, loss, values, _ = build_mlp(lambda: tf1.train.AdamOptimizer(0.01))
    bx, by = batch(0)
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        for step in range(3):
            sess.run(train, {"x:0": batch(step)[0], "y:0": batch(step)[1]})
        prefix = saver.save(sess, str(tmp_path / "model"))
        want_loss = sess.run(loss, {"x:0": bx, "y:0": by})
        want_values = sess.run(values)
    meta = prefix + ".meta"
    # The command-line tool: the MetaGraph's own restore op (RestoreV2 -> AssignVariableOp).
    np.save(tmp_path / "x.npy", bx)
    np.save(tmp_path / "y.npy", by)
    args = [TOOL, "run", meta, "--restore", prefix, "--npy-out", str(tmp_path / "out"),
            "--feed", "x:0=%s" % (tmp_path / "x.npy"), "--feed", "y:0=%s" % (tmp_path / "y.npy"),
            "--fetch", loss] + sum([["--fetch", v] for v in values], [])
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / (loss.replace(":", "_") + ".npy"))
    np.testing.assert_allclose(got, want_loss, rtol=1e-5, atol=1e-6)
    for v, w in zip(values, want_values):
        np.testing.assert_array_equal(np.load(tmp_path / "out" / (v.replace(":", "_") + ".npy")), w)
    # The binding: import_meta_graph + Saver.restore, then training goes on from there
    # (the Adam slots and beta powers were restored too) exactly as in TF.
    with tf1.Session(graph=g) as sess:
        saver.restore(sess, prefix)
        sess.run(train, {"x:0": bx, "y:0": by})
        want_after = sess.run(values)
    tgg = tg.Graph()
    with tgg.as_default():
        restorer = tg.train.import_meta_graph(meta)
        with tg.Session(graph=tgg) as sess:
            restorer.restore(sess, prefix)
            np.testing.assert_allclose(sess.run(loss, {"x:0": bx, "y:0": by}), want_loss, rtol=1e-5, atol=1e-6)
            sess.run(train, {"x:0": bx, "y:0": by})
            got_after = sess.run(values)
            for got, want in zip(got_after, want_after):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            # tgraph's own Saver over the imported resource variables (ReadVariableOp ->
            # SaveV2): TensorFlow restores what it wrote.
            saved = tg.train.Saver().save(sess, str(tmp_path / "again"))
        # The MetaGraph's variable collections name the resource variables.
        names = sorted(v.name for v in tg.global_variables())
        assert "l1/W:0" in names and "l2/b:0" in names, names
    with tf1.Session(graph=g) as sess:
        saver.restore(sess, saved)
        for got, want in zip(sess.run(values), got_after):
            np.testing.assert_array_equal(got, want)


def test_binding_differentiates_and_updates_imported_variables():
    """tgraph.gradients(loss, trainable_variables()) over a TF MetaGraph's resource variables
    (the gradient reaches each handle through TF's own ReadVariableOps) is TF's
    tf.gradients; fetching a variable gives its value; assign / assign_add / assign_sub go
    through AssignVariableOp and friends."""
    g, _, init, _, loss, _, _ = build_mlp(lambda: tf1.train.GradientDescentOptimizer(0.1))
    meta = tf1.train.export_meta_graph(graph=g)
    bx, by = batch(3)
    feed = {"x:0": bx, "y:0": by}
    with g.as_default():
        tf_grads = tf.gradients(g.get_tensor_by_name(loss), tf1.trainable_variables())
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        want = sess.run(tf_grads, feed)
        want_b = sess.run(tf1.trainable_variables()[1])
    tgg = tg.Graph()
    with tgg.as_default():
        tg.train.import_meta_graph(meta)
        variables = tg.trainable_variables()
        assert [v.op.name for v in variables] == ["l1/W", "l1/b", "l2/W", "l2/b"]
        assert all(v.dtype == tg.float32 for v in variables)
        grads = tg.gradients(tgg.get_tensor_by_name(loss), variables)
        b = variables[1]
        set_b = b.assign(np.full(8, 2.0, np.float32))
        add_b = b.assign_add(np.full(8, 0.5, np.float32))
        sub_b = b.assign_sub(np.full(8, 1.0, np.float32))
        with tg.Session(graph=tgg) as sess:
            sess.run(tg.global_variables_initializer())
            for got, w in zip(sess.run(grads, feed), want):
                np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(sess.run(b), want_b)
            np.testing.assert_array_equal(sess.run(set_b), np.full(8, 2.0, np.float32))
            np.testing.assert_array_equal(sess.run(add_b), np.full(8, 2.5, np.float32))
            np.testing.assert_array_equal(sess.run(sub_b), np.full(8, 1.5, np.float32))
            np.testing.assert_array_equal(b.eval(session=sess), np.full(8, 1.5, np.float32))


def test_freezing_resource_variables_gives_tensorflow_a_constant_graph(tmp_path):
    """convert_variables_to_constants over resource variables (a TF checkpoint restored
    here): each VarHandleOp becomes a Const of its value, its ReadVariableOps Identities and
    its ResourceGathers GatherV2s; TensorFlow runs the frozen GraphDef to its own numbers."""
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        ids = tf1.placeholder(tf.int32, [None], name="ids")
        r = np.random.RandomState(2)
        w = tf1.get_variable("w", initializer=r.randn(4, 3).astype(np.float32))
        table = tf1.get_variable("table", initializer=r.randn(5, 3).astype(np.float32))
        out = tf.add(tf.matmul(x, w), tf.gather(table, ids), name="out")
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(out * out))
        init = tf1.global_variables_initializer()
        saver = tf1.train.Saver()
    feed = {"x:0": r.randn(2, 4).astype(np.float32), "ids:0": np.array([4, 1], np.int32)}
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, feed)
        prefix = saver.save(sess, str(tmp_path / "model"))
        want = sess.run("out:0", feed)
    tgg = tg.Graph()
    with tgg.as_default():
        restorer = tg.train.import_meta_graph(prefix + ".meta")
        with tg.Session(graph=tgg) as sess:
            restorer.restore(sess, prefix)
            frozen = tg.graph_util.convert_variables_to_constants(sess, tgg.as_graph_def(), ["out"])
    frozen_def = tf1.GraphDef()
    frozen_def.ParseFromString(frozen.SerializeToString())
    types = {n.op for n in frozen_def.node}
    assert not types & {"VarHandleOp", "ReadVariableOp", "ResourceGather"}, sorted(types)
    assert "GatherV2" in types
    fg = tf.Graph()
    with fg.as_default():
        tf.import_graph_def(frozen_def, name="")
    with tf1.Session(graph=fg) as sess:
        np.testing.assert_allclose(sess.run("out:0", feed), want, rtol=1e-6)


def test_reading_an_uninitialized_variable_is_failed_precondition(tmp_path):
    g, _, init, train, loss, values, _ = build_mlp(lambda: tf1.train.GradientDescentOptimizer(0.1))
    (tmp_path / "graph.pb").write_bytes(g.as_graph_def().SerializeToString())
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--fetch", values[0]],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "l1/W" in done.stderr and "uninitialized" in done.stderr, done.stderr
    _, sess = new_tgraph_session(g.as_graph_def())
    bx, by = batch(0)
    with pytest.raises(tg.errors.FailedPreconditionError, match="l1/W"):
        sess.run(loss, {"x:0": bx, "y:0": by})
    with pytest.raises(tg.errors.FailedPreconditionError, match="uninitialized"):
        sess.run(train, {"x:0": bx, "y:0": by})
    # The session is still usable: initialize and train.
    sess.run(init)
    sess.run(train, {"x:0": bx, "y:0": by})
    assert np.isfinite(sess.run(loss, {"x:0": bx, "y:0": by}))


@pytest.mark.parametrize("v2", [True, False], ids=["functional", "v1_frames"])
def test_handles_flow_through_loops_and_conds(v2):
    """A while loop updating one variable and reading another, and a cond reading it: TF 2's
    While/If (the handle is a function argument) and TF 1's frames (Enter/Switch of it)."""
    if not v2:
        tf1.disable_control_flow_v2()
    try:
        g = tf.Graph()
        with g.as_default():
            v = tf1.get_variable("v", initializer=np.float32(1.5))
            acc = tf1.get_variable("acc", initializer=np.zeros(3, np.float32))

            def body(i, x):
                with tf.control_dependencies([acc.assign_add(tf.ones(3) * tf.cast(i, tf.float32))]):
                    return i + 1, x * v.read_value() + 1.0

            _, out = tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), tf.constant(2.0)])
            c = tf.cond(out > 10.0, lambda: v.read_value() * 2.0, lambda: v.read_value() * 3.0)
            out = tf.identity(out, name="out")
            c = tf.identity(c, name="c")
            accv = tf.identity(acc.read_value(), name="accv")
            init = tf1.global_variables_initializer()
    finally:
        tf1.enable_control_flow_v2()
    types = {n.op for n in g.as_graph_def().node}
    assert ("While" in types) == v2 and ("Enter" in types) != v2, sorted(types)
    with tf1.Session(graph=g) as sess:
        sess.run(init)
        want = sess.run([out, c])
        want.append(sess.run(accv))
    _, sess = new_tgraph_session(g.as_graph_def())
    sess.run(init.name)
    got = sess.run(["out:0", "c:0"])
    got.append(sess.run("accv:0"))
    for w, o in zip(want, got):
        np.testing.assert_allclose(o, w, rtol=1e-6)


OPS = ["VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
       "AssignSubVariableOp", "VarIsInitializedOp", "DestroyResourceOp", "VariableShape",
       "ResourceGather", "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate",
       "ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyKerasMomentum",
       "ResourceApplyAdam", "ResourceApplyRMSProp", "ResourceApplyCenteredRMSProp",
       "ResourceApplyAdagrad", "ResourceApplyAdagradV2", "ResourceSparseApplyMomentum",
       "ResourceSparseApplyKerasMomentum", "ResourceSparseApplyRMSProp",
       "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyAdagrad",
       "ResourceSparseApplyAdagradV2", "ResourceApplyAdadelta", "ResourceSparseApplyAdadelta"]


@pytest.mark.parametrize("name", OPS)
def test_op_def_matches_tensorflow(name):
    check_op_def(name)
