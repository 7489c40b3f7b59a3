"""tf.cond, tf.case and tf.while_loop (control flow v1 over TG_NewCond / TG_NewWhile): node
names, untaken branches, loops, nesting, gradients (through conds, loops and conds in loops,
against TensorFlow's and finite differences; TensorFlow's own gradient graphs of such loops
and of nested loops imported and run), errors, and the same graphs run by real
TensorFlow (tf.compat.v1 with control flow v2 off)."""
import collections

import numpy as np
import pytest

import tgraph as tf


def test_cond_picks_a_branch_and_names_nodes_as_tensorflow():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant(3.0, name="x")
    y = tf.cond(p, lambda: x + 1, lambda: x * 2)
    assert y.name == "cond/Merge:0"
    assert y.dtype == tf.float32
    g = tf.get_default_graph()
    for name in ("cond/Switch", "cond/switch_t", "cond/switch_f", "cond/pred_id", "cond/add",
                 "cond/mul"):
        g.get_operation_by_name(name)
    with tf.Session() as sess:
        assert sess.run(y, {p: True}) == 4.0
        assert sess.run(y, {p: False}) == 6.0
    # A second cond gets a unique scope; a name is used as the scope.
    assert tf.cond(p, lambda: x, lambda: x).name == "cond_1/Merge:0"
    assert tf.cond(p, lambda: x, lambda: x, name="pick").name == "pick/Merge:0"


def test_untaken_branch_with_assign_add_does_not_run():
    v = tf.Variable(0.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: tf.constant(-1.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            assert sess.run(r, {p: False}) == -1.0
        assert sess.run(v) == 0.0  # never ran
        assert sess.run(r, {p: True}) == 1.0
        assert sess.run(r, {p: True}) == 2.0
        assert sess.run(v) == 2.0


def test_cond_structures_operations_and_singletons():
    p = tf.placeholder(tf.bool, [])
    a, b = tf.constant(1), tf.constant(2.0)
    Pair = collections.namedtuple("Pair", "i f")
    out = tf.cond(p, lambda: {"k": Pair(a, b), "z": [a]}, lambda: {"k": Pair(a * 3, b / 2),
                                                                    "z": [a + 1]})
    assert isinstance(out["k"], Pair) and isinstance(out["z"], list)
    assert tf.cond(p, lambda: [a], lambda: [a]).name.startswith("cond_1/Merge")  # unpacked
    assert isinstance(tf.cond(p, lambda: [a], lambda: [a], strict=True), list)
    # Python values become constants in the branch; an Operation stands for the pivot.
    c = tf.cond(p, lambda: 5, lambda: 7)
    v = tf.Variable(0, name="counter")
    op = tf.cond(p, lambda: tf.assign_add(v, 10).op, lambda: tf.no_op())
    assert op.dtype == tf.bool
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out, {p: False})
        assert got["k"].i == 3 and got["k"].f == 1.0 and got["z"] == [2]
        assert sess.run(c, {p: True}) == 5 and sess.run(c, {p: False}) == 7
        sess.run(op, {p: False})
        assert sess.run(v) == 0
        assert sess.run(op, {p: True})
        assert sess.run(v) == 10


def test_cond_errors():
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="must not be a Python bool"):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        tf.cond(p, x, lambda: x)
    with pytest.raises(TypeError, match="'false_fn' argument required"):
        tf.cond(p, lambda: x)
    with pytest.raises(ValueError, match="same type"):
        tf.cond(p, lambda: x, lambda: tf.constant(1))
    with pytest.raises(ValueError, match="Incompatible return values"):
        tf.cond(p, lambda: [x, x], lambda: [x, x, x])
    with pytest.raises(ValueError, match="'true_fn' must have a return value"):
        tf.cond(p, lambda: None, lambda: x)
    with pytest.raises(ValueError):  # the predicate must be a bool
        tf.cond(tf.constant(1.0), lambda: x, lambda: x)
    g = tf.get_default_graph()
    assert g.get_name_scope() == ""  # every failure closed its scope and builder
    # After all that, a cond still builds and runs.
    y = tf.cond(p, lambda: x + 1, lambda: x - 1)
    with tf.Session() as sess:
        assert sess.run(y, {p: False}) == 0.0


class Boom(Exception):
    pass


def test_exception_in_a_branch_or_body_aborts_and_propagates():
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)

    def bad():
        _ = x * 2
        raise Boom("in the branch")

    with pytest.raises(Boom):
        tf.cond(p, bad, lambda: x)
    with pytest.raises(Boom):
        tf.cond(p, lambda: x, bad)
    with pytest.raises(Boom):
        tf.while_loop(lambda i: i < 3.0, lambda i: bad(), [x])
    with pytest.raises(Boom):
        tf.while_loop(lambda i: bad(), lambda i: i + 1, [x])
    g = tf.get_default_graph()
    assert g.get_name_scope() == ""
    # New ops are at the top level and outside any branch or loop: they run unconditionally.
    z = x + 41
    assert z.name == "add_1:0" or z.op.name.count("/") == 0
    y = tf.while_loop(lambda i: i < 3.0, lambda i: i + 1, [x])
    with tf.Session() as sess:
        assert sess.run(z) == 42.0
        assert sess.run(y) == 3.0


def test_while_loop_factorial_and_node_names():
    n = tf.placeholder(tf.float32, [], name="n")
    i, fact = tf.while_loop(lambda i, acc: i <= n, lambda i, acc: (i + 1, acc * i), [1.0, 1.0])
    assert (i.name, fact.name) == ("while/Exit:0", "while/Exit_1:0")
    g = tf.get_default_graph()
    for name in ("while/Enter", "while/Enter_1", "while/Merge", "while/Merge_1",
                 "while/LoopCond", "while/Switch", "while/Switch_1", "while/Identity",
                 "while/Identity_1", "while/NextIteration", "while/NextIteration_1",
                 "while/Exit", "while/Const", "while/Const_1"):
        g.get_operation_by_name(name)
    assert g.get_operation_by_name("while/Enter").get_attr("frame_name") == \
        b"while/while_context"
    assert g.get_operation_by_name("while/Enter").get_attr("parallel_iterations") == 10
    with tf.Session() as sess:
        for k, expect in ((5, 120), (0, 1), (1, 1), (10, 3628800)):
            assert sess.run(fact, {n: k}) == expect


def test_while_loop_structures_single_var_and_maximum_iterations():
    # A single loop variable: body may return the tensor itself; the result is the tensor.
    r = tf.while_loop(lambda v: v < 10, lambda v: v + 3, [tf.constant(0)])
    assert r.name == "while/Exit:0"
    assert isinstance(tf.while_loop(lambda v: v < 10, lambda v: [v + 3], [0],
                                    return_same_structure=True), list)
    State = collections.namedtuple("State", "step total")
    s = tf.while_loop(lambda st, xs: st.step < 4,
                      lambda st, xs: (State(st.step + 1, st.total + xs[0] * xs[1]), xs),
                      (State(tf.constant(0), tf.constant(0.0)), [tf.constant(2.0), 1.5]))
    assert isinstance(s[0], State) and isinstance(s[1], list)
    capped = tf.while_loop(lambda v: v < 100, lambda v: v * 2, [1], maximum_iterations=5,
                           name="capped")
    assert capped.name == "capped/Exit_1:0"
    tf.get_default_graph().get_operation_by_name("capped/iteration_counter")
    with tf.Session() as sess:
        assert sess.run(r) == 12
        got = sess.run(s)
        assert got[0].step == 4 and got[0].total == 12.0
        assert sess.run(capped) == 32


def test_nested_loops_and_cond_in_a_loop():
    # for i in range(3): for j in range(4): total += i
    def outer_body(i, total):
        _, inner_total = tf.while_loop(lambda j, t: j < 4, lambda j, t: (j + 1, t + i),
                                       [0, total], name="inner")
        return i + 1, inner_total

    i, total = tf.while_loop(lambda i, t: i < 3, outer_body, [0, 0], name="outer")
    tf.get_default_graph().get_operation_by_name("outer/inner/Exit")
    # sum over k in range(5) of (k < 2.5 ? 10 * k : k)
    _, s = tf.while_loop(lambda k, acc: k < 5.0,
                         lambda k, acc: (k + 1, acc + tf.cond(k < 2.5, lambda: k * 10,
                                                              lambda: k)),
                         [0.0, 0.0])
    assert s.op.graph.get_operation_by_name("while/cond/Merge") is not None
    with tf.Session() as sess:
        assert sess.run([i, total]) == [3, (0 + 1 + 2) * 4]
        assert sess.run(s) == 37.0


def test_loop_variables_from_a_variable_and_outside_tensors():
    v = tf.Variable(0.0, name="v")
    x = tf.placeholder(tf.float32, [], name="x")

    def body(k):
        with tf.control_dependencies([tf.assign_add(v, tf.to_float(k) * x)]):
            return k + 1

    k = tf.while_loop(lambda k: k < 4, body, [0], parallel_iterations=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(k, {x: 2.5}) == 4
        assert sess.run(v) == (0 + 1 + 2 + 3) * 2.5


def test_body_op_on_loop_invariants_only_runs_once_per_iteration():
    v = tf.Variable(0.0, name="v")
    x = tf.placeholder(tf.float32, [], name="x")

    def body(k):
        with tf.control_dependencies([tf.assign_add(v, x)]):
            return k + 1

    k = tf.while_loop(lambda k: k < 4, body, [0], parallel_iterations=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(k, {x: 2.5}) == 4
        assert sess.run(v) == 10.0


def test_while_loop_errors():
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tf.while_loop(1, lambda v: v, [x])
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
        tf.while_loop(lambda v: v < 2, lambda v: v, [x], parallel_iterations=0)
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        tf.while_loop(lambda v: v < 2, lambda v: v, [])
    with pytest.raises(ValueError, match="same number of elements|same nested structure"):
        tf.while_loop(lambda a, b: a < 2, lambda a, b: [a], [x, x])
    with pytest.raises(ValueError, match="loop variable 0"):  # a bool for a float variable
        tf.while_loop(lambda v: v < 2, lambda v: v < 1.0, [x])
    with pytest.raises(ValueError, match="enters the loop with shape"):
        tf.while_loop(lambda v: tf.size(v) < 4, lambda v: tf.concat([v, v], 0),
                      [tf.constant([1.0])])
    with pytest.raises(ValueError):  # a float condition
        tf.while_loop(lambda v: v, lambda v: v, [x])
    assert tf.get_default_graph().get_name_scope() == ""


def test_cond_gradients_follow_the_taken_branch():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    y1 = tf.cond(p, lambda: x * x, lambda: 3.0 * x)
    y2 = tf.cond(p, lambda: 2.0 * x, lambda: tf.constant(5.0))
    (d1,) = tf.gradients(y1, [x])
    (d2,) = tf.gradients(y2, [x])
    with tf.Session() as sess:
        assert sess.run([d1, d2], {p: True, x: 2.0}) == [4.0, 2.0]
        assert sess.run([d1, d2], {p: False, x: 2.0}) == [3.0, 0.0]


def test_gradients_through_while_loops_match_tensorflow():
    def build(m):
        n = m.placeholder(m.float32, [], name="n")
        x = m.placeholder(m.float32, [3], name="x")
        # x^4 by a loop (x an invariant), and a loop variable squared three times.
        _, p = m.while_loop(lambda i, p: i < 4, lambda i, p: (i + 1, p * x), [0, m.ones([3])])
        _, v = m.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * v), [0, n],
                            parallel_iterations=1)
        dx, dn = m.gradients(m.reduce_sum(p) + v, [x, n])
        return [p, v, dx, dn], {"n": n, "x": x}

    feeds = [{"n": 0.9, "x": [0.5, 1.5, -2.0]}, {"n": -1.1, "x": [1.0, 0.25, 3.0]}]
    (a, b), _ = _run_both(build, feeds)
    _close(a, b)
    assert a[0][3] == pytest.approx(8 * 0.9 ** 7, rel=1e-5)


def test_gradients_of_tensorflows_dynamic_rnn_graph_match_tensorflows():
    """TensorFlow builds a dynamic_rnn (a while loop over TensorArrays, with
    sequence_length); tgraph imports the forward graph and differentiates it itself."""
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    tf1.disable_control_flow_v2()

    class Cell:
        state_size = output_size = property(lambda self: 4)

        def __init__(self, w, u):
            self.w, self.u = w, u

        def zero_state(self, batch, dtype):
            return tf1.zeros([batch, 4], dtype)

        def __call__(self, x, h, scope=None):
            h = tf1.tanh(tf1.matmul(x, self.w) + tf1.matmul(h, self.u))
            return h, h

    rng = np.random.RandomState(3)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [2, 5, 3], name="x")
        w = tf1.placeholder(tf1.float32, [3, 4], name="w")
        lengths = tf1.placeholder(tf1.int32, [2], name="lengths")
        u = tf1.constant(rng.randn(4, 4).astype(np.float32) * 0.5)
        out, _ = tf1.nn.dynamic_rnn(Cell(w, u), x, sequence_length=lengths, dtype=tf1.float32)
        y = tf1.reduce_sum(out * out, name="y")
        graph_def = g.as_graph_def()
        feeds = {"x:0": rng.randn(2, 5, 3).astype(np.float32),
                 "w:0": rng.randn(3, 4).astype(np.float32), "lengths:0": np.array([5, 2], np.int32)}
        with tf1.Session() as sess:
            want = sess.run([y] + tf1.gradients(y, [x, w]), feeds)
    assert {"TensorArrayReadV3", "TensorArrayWriteV3", "Enter"} <= {n.op for n in graph_def.node}

    tf.import_graph_def(graph_def, name="")
    t = tf.get_default_graph().get_tensor_by_name
    grads = tf.gradients(t("y:0"), [t("x:0"), t("w:0")])
    with tf.Session() as sess:
        got = sess.run([t("y:0")] + grads, {t(k): v for k, v in feeds.items()})
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(b).max())


def _cond_loop(m, x, v0):
    """A loop whose body holds a cond on the loop variable, and a cond nested in a branch:
    which iterations take which branch depends on the values."""
    def body(i, v):
        def big():
            return m.cond(i < 2, lambda: m.sigmoid(v) * x, lambda: v - x * v)
        v = m.cond(m.reduce_sum(v) < 1.0, lambda: v * x + 0.5, big)
        return i + 1, v
    _, v = m.while_loop(lambda i, v: i < 5, body, [0, v0])
    return v


def test_gradients_through_a_loop_with_conds_match_tensorflow():
    def build(m):
        x = m.placeholder(m.float32, [2], name="x")
        v0 = m.placeholder(m.float32, [2], name="v0")
        v = _cond_loop(m, x, v0)
        dx, dv0 = m.gradients(m.reduce_sum(v * v), [x, v0])
        return [v, dx, dv0], {"x": x, "v0": v0}

    feeds = [{"x": [0.9, 1.1], "v0": [0.3, -0.2]}, {"x": [1.5, -0.7], "v0": [0.8, 0.6]},
             {"x": [0.2, 0.4], "v0": [2.0, 1.0]}]
    (a, b), _ = _run_both(build, feeds)
    _close(a, b)


def _tf_graph_with_gradients(build):
    """TensorFlow (control flow v1) builds the forward graph and its tf.gradients: the
    GraphDef with both, and TF's values of the fetches."""
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    tf1.disable_control_flow_v2()
    g = tf1.Graph()
    with g.as_default():
        feeds, y, xs = build(tf1)
        grads = tf1.gradients(y, xs)
        with tf1.Session() as sess:
            want = sess.run([y] + grads, {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    return g.as_graph_def(), feeds, [y.name] + [t.name for t in grads], want


def _run_imported(graph_def, feeds, fetch_names, y_name, x_names):
    """Imports TF's graph here and runs TF's gradient nodes, then differentiates TF's forward
    graph with tgraph's own gradient builder: both against TF's values."""
    tf.import_graph_def(graph_def, name="")
    t = tf.get_default_graph().get_tensor_by_name
    ours = tf.gradients(t(y_name), [t(n) for n in x_names], name="tgraph_gradients")
    with tf.Session() as sess:
        feed = {t(k): v for k, v in feeds.items()}
        return sess.run([t(n) for n in fetch_names], feed), sess.run(ours, feed)


def test_tensorflows_gradients_of_loops_with_conds_run_here_and_match_ours():
    def build(m):
        x = m.placeholder(m.float32, [2], name="x")
        v0 = m.placeholder(m.float32, [2], name="v0")
        v = _cond_loop(m, x, v0)
        y = m.reduce_sum(v * v, name="y")
        return {"x:0": np.array([0.9, 1.1], np.float32),
                "v0:0": np.array([0.3, -0.2], np.float32)}, y, [x, v0]

    graph_def, feeds, fetches, want = _tf_graph_with_gradients(build)
    ops = {n.op for n in graph_def.node}
    assert {"StackPushV2", "StackPopV2", "Switch", "Merge", "Exit"} <= ops
    theirs, ours = _run_imported(graph_def, feeds, fetches, "y:0", ["x:0", "v0:0"])
    for a, b in zip(theirs, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(ours, want[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gradients_through_a_loop_with_conds_match_finite_differences():
    x = tf.placeholder(tf.float64, [2], name="x")
    v0 = tf.placeholder(tf.float64, [2], name="v0")
    y = tf.reduce_sum(tf.square(_cond_loop(tf, x, v0)))
    dx, dv0 = tf.gradients(y, [x, v0])
    values = {x: np.array([0.9, 1.1]), v0: np.array([0.3, -0.2])}
    eps = 1e-6
    with tf.Session() as sess:
        got = sess.run([dx, dv0], values)
        for k, var in enumerate((x, v0)):
            for j in range(2):
                up, down = dict(values), dict(values)
                up[var] = values[var].copy()
                up[var][j] += eps
                down[var] = values[var].copy()
                down[var][j] -= eps
                numeric = (sess.run(y, up) - sess.run(y, down)) / (2 * eps)
                assert got[k][j] == pytest.approx(numeric, rel=1e-5, abs=1e-7)


def _nested_loops(m, x, v0):
    """Nested loops: the inner loop uses the outer counter and loop variable (invariants of
    its frame) and an outside value, and holds a cond."""
    def outer(i, acc):
        def inner(j, row):
            row = m.cond(j < 1, lambda: m.tanh(row * x + m.cast(i, m.float32)), lambda: row * acc)
            return j + 1, row
        _, row = m.while_loop(lambda j, row: j < 3, inner, (0, acc))
        return i + 1, row * 0.5 + acc
    _, acc = m.while_loop(lambda i, acc: i < 3, outer, (0, v0))
    return acc


def test_gradients_through_nested_loops_match_tensorflow():
    def build(m):
        x = m.placeholder(m.float32, [3], name="x")
        v0 = m.placeholder(m.float32, [3], name="v0")
        acc = _nested_loops(m, x, v0)
        dx, dv0 = m.gradients(m.reduce_sum(acc * acc), [x, v0])
        return [acc, dx, dv0], {"x": x, "v0": v0}

    feeds = [{"x": [0.5, -1.5, 0.8], "v0": [0.3, 0.2, -0.4]},
             {"x": [0.1, 0.7, -0.2], "v0": [-0.6, 0.9, 0.1]}]
    (a, b), _ = _run_both(build, feeds)
    _close(a, b)


def test_tensorflows_gradients_of_nested_loops_run_here_and_match_ours():
    def build(m):
        x = m.placeholder(m.float32, [3], name="x")
        v0 = m.placeholder(m.float32, [3], name="v0")
        y = m.reduce_sum(m.square(_nested_loops(m, x, v0)), name="y")
        return {"x:0": np.array([0.5, -1.5, 0.8], np.float32),
                "v0:0": np.array([0.3, 0.2, -0.4], np.float32)}, y, [x, v0]

    graph_def, feeds, fetches, want = _tf_graph_with_gradients(build)
    theirs, ours = _run_imported(graph_def, feeds, fetches, "y:0", ["x:0", "v0:0"])
    for a, b in zip(theirs, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(ours, want[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_case():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                default=lambda: tf.constant(100))
    only = tf.case([(x < 0, lambda: tf.constant(-1)), (x > 5, lambda: tf.constant(1))],
                   name="no_default")
    excl = tf.case([(x < 5, lambda: tf.constant(1)), (x < 10, lambda: tf.constant(2))],
                   default=lambda: tf.constant(3), exclusive=True)
    with pytest.raises(TypeError, match="2-tuple"):
        tf.case([x < 0])
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-3, 4, 12)] == [-1, 1, 100]
        assert [sess.run(only, {x: v}) for v in (-3, 7)] == [-1, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions"):
            sess.run(only, {x: 3})
        assert [sess.run(excl, {x: v}) for v in (7, 20)] == [2, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive"):
            sess.run(excl, {x: 3})


# ---- against real TensorFlow ----

def _run_both(build, feeds_list):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    tf1.disable_control_flow_v2()
    results, names = [], []
    for m in (tf, tf1):
        g = m.Graph()
        with g.as_default():
            fetches, inputs = build(m)
            names.append(sorted(op.name for op in g.get_operations()))
            with m.Session() as sess:
                sess.run(m.global_variables_initializer())
                results.append([sess.run(fetches, {inputs[k]: v for k, v in feeds.items()})
                                for feeds in feeds_list])
    return results, names


def _close(a, b):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _close(p, q)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_same_results_and_node_names_as_tensorflow():
    def build(m):
        n = m.placeholder(m.float32, [], name="n")
        p = m.placeholder(m.bool, [], name="p")
        v = m.placeholder(m.float32, [3], name="v")
        i, fact = m.while_loop(lambda i, acc: i <= n, lambda i, acc: (i + 1, acc * i),
                               [1.0, 1.0])
        y = m.cond(p, lambda: m.reduce_sum(v * v), lambda: m.reduce_max(v) * n)
        (dy,) = m.gradients(y, [v])
        z = m.while_loop(lambda k, s: k < 3,
                         lambda k, s: (k + 1, m.cond(k < 1, lambda: s * 2.0,
                                                     lambda: s + v)),
                         [0, v], name="mixed")
        return [fact, i, y, dy, z], {"n": n, "p": p, "v": v}

    feeds = [{"n": 5.0, "p": True, "v": [1.0, -2.0, 3.0]},
             {"n": 3.0, "p": False, "v": [0.5, 4.0, -1.0]}]
    (a, b), (na, nb) = _run_both(build, feeds)
    _close(a, b)
    # The nodes the conds and loops consist of are TensorFlow's, the Switch / Enter copies of
    # outside tensors included ('cond/mul/Switch'). (Not compared: the gradient graph.)
    flow = ("Enter", "Merge", "Switch", "LoopCond", "Identity", "NextIteration", "Exit",
            "switch", "pred")

    def structural(names):
        return {x for x in names if x.rsplit("/", 1)[0] in ("while", "cond", "mixed",
                                                             "mixed/cond")
                and x.rsplit("/", 1)[-1].split("_")[0] in flow}

    assert len(structural(na)) > 30
    assert structural(na) == structural(nb)

    def copies(names):
        return {x for x in names if not x.startswith("gradients") and x.count("/") >= 2
                and x.rsplit("/", 1)[-1].split("_")[0] in ("Switch", "Enter")}

    assert copies(na), na
    assert copies(na) == copies(nb), (sorted(copies(na) ^ copies(nb)))
