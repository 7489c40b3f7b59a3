"""Session.run's cached run plans (session.py, _RunPlan): a repeated run with the same fetches
and feed keys takes the cached plan and behaves exactly as the first (results, structures,
TF's errors), and a plan made stale by set_shape is made again."""
import collections

import numpy as np
import pytest

import tgraph as tf


def test_repeated_runs_use_one_plan_and_keep_structures():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x * 2.0
    s = tf.reduce_sum(x)
    Pair = collections.namedtuple("Pair", ["double", "total"])
    with tf.Session() as sess:
        for i in range(3):
            v = np.arange(3, dtype=np.float32) + i
            out = sess.run([y, (s, Pair(y, s))], {x: v})
            assert isinstance(out, list) and isinstance(out[1], tuple)
            assert isinstance(out[1][1], Pair)
            np.testing.assert_array_equal(out[0], v * 2)
            assert out[1][0] == v.sum() and out[1][1].total == v.sum()
            assert sess.run(s, {x: [1.0, 2.0]}) == 3.0  # a Python list, converted
        assert len(sess._run_plans) == 2


def test_equal_fetches_in_other_containers_keep_their_types():
    a, b = tf.constant(1), tf.constant(2)
    P = collections.namedtuple("P", ["a", "b"])
    Q = collections.namedtuple("Q", ["x", "y"])  # P(a, b) == Q(a, b) == (a, b)
    with tf.Session() as sess:
        for _ in range(2):
            assert type(sess.run(P(a, b))) is P
            assert type(sess.run(Q(a, b))) is Q
            assert type(sess.run((a, b))) is tuple
            assert sess.run([a, b]) == [1, 2]


def test_errors_on_a_cached_plan_match_the_first_run():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.identity(x)
    with tf.Session() as sess:
        sess.run(y, {x: np.ones((1, 2), np.float32)})  # makes the plan
        for _ in range(2):
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(1, 3\) for "
                                                 r"Tensor 'x:0', which has shape"):
                sess.run(y, {x: np.ones((1, 3), np.float32)})
            with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
                sess.run(y, {x: y})
            with pytest.raises(ValueError, match="Cannot feed value"):
                sess.run(y, {x: [["a", "b"]]})
        # The plan still works after the errors (nothing leaked into its arrays).
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((3, 2), np.float32)}),
                                      np.ones((3, 2)))


def test_set_shape_after_a_run_is_checked():
    x = tf.placeholder(tf.float32, None, name="x")
    y = tf.identity(x)
    with tf.Session() as sess:
        assert sess.run(y, {x: np.ones(4, np.float32)}).shape == (4,)
        x.set_shape([2])
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(y, {x: np.ones(4, np.float32)})
        assert sess.run(y, {x: np.ones(2, np.float32)}).shape == (2,)


def test_run_errors_and_closed_session_through_the_plan():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.identity(x)
    sess = tf.Session()
    sess.run(y, {x: [1.0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="x"):
        sess.run(y)  # the placeholder not fed: the run's status, raised as TF's class
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(y, {x: [1.0]})


def test_unhashable_fetches_and_feed_mappings_take_the_general_path():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x + 1.0
    feeds = collections.OrderedDict([(x, [1.0])])
    with tf.Session() as sess:
        assert sess.run({"y": y}, feeds)["y"].tolist() == [2.0]
        assert sess.run([{"y": [y]}], {x: [2.0]})[0]["y"][0].tolist() == [3.0]
        assert sess.run(y, {"x:0": [3.0]}).tolist() == [4.0]  # a key by name
