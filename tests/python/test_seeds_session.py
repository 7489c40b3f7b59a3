"""The seeds' Session examples: fetch structures, feeds, pruning, control dependencies
(3 vs 12), update order, scopes and variables (shared/seeds/002, 000, 001)."""
import collections

import numpy as np
import pytest

import tgraph as tf


def test_fetch_nested_structures():
    a = tf.constant(1.0)
    b = tf.constant([1, 2])
    Pair = collections.namedtuple("Pair", ["x", "y"])
    with tf.Session() as sess:
        out = sess.run({"a": a, "l": [a, (b, a)], "p": Pair(a, b), "op": b.op})
    assert out["a"] == 1.0 and out["op"] is None
    assert isinstance(out["l"], list) and isinstance(out["l"][1], tuple)
    assert out["l"][1][0].tolist() == [1, 2]
    assert isinstance(out["p"], Pair) and out["p"].y.tolist() == [1, 2]


def test_feed_square_as_printed():
    x = tf.placeholder(tf.float32, shape=[3])
    y = tf.square(x)
    with tf.Session() as sess:
        assert sess.run(y, {x: [1.0, 2.0, 3.0]}).tolist() == [1.0, 4.0, 9.0]
        assert sess.run(y, {x: [0.0, 0.0, 5.0]}).tolist() == [0.0, 0.0, 25.0]
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(y)
        assert "Placeholder" in str(e.value)
        with pytest.raises(ValueError) as e:
            sess.run(y, {x: 37.0})
        assert "Placeholder:0" in str(e.value) and "(3,)" in str(e.value)


def test_softmax_of_matmul_with_initializer_run():
    x = tf.constant([[37.0, -23.0], [1.0, 4.0]])
    w = tf.Variable(tf.random_uniform([2, 2]))
    y = tf.matmul(x, w)
    output = tf.nn.softmax(y)
    with tf.Session() as sess:
        sess.run(w.initializer)
        out = sess.run(output)
        y_val, output_val = sess.run([y, output])
    assert out.shape == (2, 2) and np.allclose(out.sum(axis=1), 1.0)
    e = np.exp(y_val - y_val.max(axis=1, keepdims=True))
    assert np.allclose(output_val, e / e.sum(axis=1, keepdims=True), atol=1e-6)


def test_python_operators_on_variables():
    a = tf.Variable(tf.ones([2, 2]), trainable=False)
    b = a * 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        av, bv = sess.run([a, b])
    assert av.tolist() == [[1, 1], [1, 1]] and bv.tolist() == [[2, 2], [2, 2]]


def test_numpy_reshape_of_a_variable_fails():
    a = tf.Variable(tf.zeros([50, 12]), trainable=False)
    with pytest.raises((ValueError, NotImplementedError, TypeError)):
        np.reshape(a, (12, 50))


def test_only_fetched_fragment_runs():
    state = tf.Variable(0.0, dtype=tf.float32)
    one = tf.constant(1.0, dtype=tf.float32)
    new_val = tf.add(state, one)
    update = tf.assign(state, new_val)
    tf.assign(state, 10000)  # never fetched: never runs
    init = tf.initialize_all_variables()
    with tf.Session() as sess:
        sess.run(init)
        for i in range(3):
            u, n = sess.run([update, new_val])
            assert u == n == i + 1.0
        assert sess.run(state) == 3.0
        # With the initializer run again each time, the values restart.
        for _ in range(2):
            sess.run(init)
            assert sess.run(update) == 1.0


def test_control_dependencies_3_vs_12():
    a_1 = tf.Variable(1)
    b_1 = tf.Variable(2)
    tf.assign(a_1, 10)
    add = tf.add(a_1, b_1)
    a_2 = tf.Variable(1)
    b_2 = tf.Variable(2)
    update_op = tf.assign(a_2, 10)
    with tf.control_dependencies([update_op]):
        add_with_dependencies = tf.add(a_2, b_2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ans_1, ans_2 = sess.run([add, add_with_dependencies])
    assert (ans_1, ans_2) == (3, 12)
    assert [op.name for op in add_with_dependencies.op.control_inputs] == [update_op.op.name]


def test_control_dependencies_none_clears():
    g = tf.get_default_graph()
    a, b = tf.no_op(name="a"), tf.no_op(name="b")
    c, d = tf.no_op(name="c"), tf.no_op(name="d")
    with g.control_dependencies([a, b]):
        x = tf.constant(1, name="x")
        with g.control_dependencies(None):
            y = tf.constant(2, name="y")
            with g.control_dependencies([c, d]):
                z = tf.constant(3, name="z")
    assert sorted(o.name for o in x.op.control_inputs) == ["a", "b"]
    assert y.op.control_inputs == []
    assert sorted(o.name for o in z.op.control_inputs) == ["c", "d"]


def test_scoping_variable_scope_vs_name_scope():
    def scoping(fn, scope1, scope2, vals):
        with fn(scope1):
            a = tf.Variable(vals[0], name="a")
            b = tf.get_variable("b", initializer=vals[1])
            c = tf.constant(vals[2], name="c")
            with fn(scope2):
                d = tf.add(a * b, c, name="res")
        return [a.name, b.name, c.name, d.name], d

    names1, d1 = scoping(tf.variable_scope, "scope_vars", "res", [1, 2, 3])
    names2, d2 = scoping(tf.name_scope, "scope_name", "res", [1, 2, 3])
    assert names1 == ["scope_vars/a:0", "scope_vars/b:0", "scope_vars/c:0",
                      "scope_vars/res/res:0"]
    assert names2 == ["scope_name/a:0", "b:0", "scope_name/c:0", "scope_name/res/res:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([d1, d2]) == [5, 5]


def test_auto_reuse_keeps_trainable_false():
    with tf.variable_scope("test", reuse=tf.AUTO_REUSE):
        a = tf.get_variable("weights", [1], trainable=False)
        b = tf.get_variable("weights", [1])
    assert a is b
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    variable_names = [v.name for v in tf.trainable_variables()]
    assert sess.run(variable_names) == []
    assert variable_names == []
    assert [v.name for v in tf.global_variables()] == ["test/weights:0"]


def test_get_variable_reuse_rules():
    v = tf.get_variable("var", [1])
    v1 = tf.get_variable("var1", [1], initializer=tf.constant_initializer(1.0))
    with pytest.raises(ValueError) as e:
        tf.get_variable("var", [1])
    assert "var" in str(e.value)
    with tf.variable_scope("", reuse=True) if False else tf.variable_scope("s"):
        w = tf.get_variable("w", [2])
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("w", [2]) is w
        with pytest.raises(ValueError):
            tf.get_variable("missing", [2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v1).tolist() == [1.0]
        assert sess.run(v).shape == (1,)


def test_global_step_eval_and_interactive_session():
    step = tf.train.get_or_create_global_step()
    sess = tf.InteractiveSession()
    sess.run(tf.global_variables_initializer())
    assert step.eval() == 0
    assert tf.constant(3).eval() == 3
    sess.close()
    with pytest.raises(ValueError):
        tf.constant(4).eval()


def test_reuse_variables():
    with tf.variable_scope("rnn") as scope:
        w = tf.get_variable("w", [2])
        assert scope.reuse is False
        scope.reuse_variables()
        assert scope.reuse is True
        assert tf.get_variable("w", [2]) is w
        assert tf.get_variable_scope().reuse is True
    assert tf.get_variable_scope().reuse is False
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE) as s2:
        assert s2.reuse is tf.AUTO_REUSE


def test_get_variable_with_a_constant_initializer():
    v = tf.get_variable("w", initializer=tf.constant([[1.0, 2.0]]))
    assert v.shape.as_list() == [1, 2] and v.dtype.base_dtype == tf.float32
    assert v.name == "w:0"
    x = tf.get_variable("x", initializer=tf.constant([1.0]) * 2)  # a computed tensor
    assert x.shape.as_list() == [1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v).tolist() == [[1.0, 2.0]]
        assert sess.run(x).tolist() == [2.0]
