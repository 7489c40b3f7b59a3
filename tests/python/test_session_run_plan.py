"""Session.run's cached run plans (session.py, _RunPlan): a repeated run with the same fetches
and feed keys takes the cached plan and behaves exactly as the first (results, structures,
TF's errors), and a plan made stale by set_shape is made again. Session.make_callable's
functions run through one such plan."""
import collections

import numpy as np
import pytest

import tgraph as tf
from tgraph import session as session_module


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


@pytest.fixture
def plan_counts(monkeypatch):
    """Counts fetch plans made and runs through each _RunPlan; the general path's _run fails
    the test (a callable that fell back to it, re-flattening and converting per call)."""
    counts = {"fetch_plans": 0, "runs": collections.Counter()}
    fetch_init, plan_run = session_module._FetchPlan.__init__, session_module._RunPlan.run

    def counting_init(self, *args):
        counts["fetch_plans"] += 1
        fetch_init(self, *args)

    def counting_run(self, sess, values):
        counts["runs"][id(self)] += 1
        return plan_run(self, sess, values)

    def no_general_path(*args, **kwargs):
        raise AssertionError("the general run path ran")

    monkeypatch.setattr(session_module._FetchPlan, "__init__", counting_init)
    monkeypatch.setattr(session_module._RunPlan, "run", counting_run)
    monkeypatch.setattr(session_module.BaseSession, "_run", no_general_path)
    return counts


def test_make_callable_runs_every_call_through_one_plan(plan_counts):
    x = tf.placeholder(tf.float32, [None], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    y = x * 2.0
    s = tf.reduce_sum(x)
    Pair = collections.namedtuple("Pair", ["double", "total"])
    with tf.Session() as sess:
        f = sess.make_callable([y, (s, Pair(y, s)), n + 1], [x, n])
        assert plan_counts["fetch_plans"] == 1
        for i in range(4):
            v = np.arange(3, dtype=np.float32) + i
            out = f(v, i)
            np.testing.assert_array_equal(out[0], v * 2)
            assert isinstance(out[1], tuple) and isinstance(out[1][1], Pair)
            assert out[1][0] == v.sum() and out[1][1].total == v.sum() and out[2] == i + 1
        assert f([1.0, 2.0], np.int32(5))[1][0] == 3.0  # a Python list, converted
        assert plan_counts["fetch_plans"] == 1  # no call flattened the fetches again
        assert list(plan_counts["runs"].values()) == [5]  # one plan ran every call
        g = sess.make_callable(s, [x])  # a plan of its own
        assert g(np.ones(2, np.float32)) == 2.0
        assert len(plan_counts["runs"]) == 2


def test_make_callable_checks_and_errors_as_run():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.identity(x)
    with tf.Session() as sess:
        f = sess.make_callable(y, [x])
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(1, 3\) for "
                                             r"Tensor 'x:0', which has shape"):
            f(np.ones((1, 3), np.float32))
        with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
            f(y)
        with pytest.raises(ValueError, match="Expected 1 feed values, got 2"):
            f(np.ones((1, 2), np.float32), 1)
        np.testing.assert_array_equal(f(np.ones((3, 2), np.float32)), np.ones((3, 2)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="x"):
            sess.make_callable(y)()  # the placeholder not fed
        with pytest.raises(TypeError, match="feed_list"):
            sess.make_callable(y, x)
        # A feed's set_shape after the plan was made: checked from the next call on.
        z = tf.placeholder(tf.float32, None, name="z")
        g = sess.make_callable(tf.identity(z), [z])
        assert g(np.ones(4, np.float32)).shape == (4,)
        z.set_shape([2])
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            g(np.ones(4, np.float32))
        assert g(np.ones(2, np.float32)).shape == (2,)
    with pytest.raises(RuntimeError, match="closed Session"):
        f(np.ones((1, 2), np.float32))


def test_make_callable_with_options_and_metadata():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.negative(x)
    with tf.Session() as sess:
        f = sess.make_callable(y, [x], accept_options=True)
        meta = tf.RunMetadata()
        out = f([1.0, 2.0], options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                run_metadata=meta)
        np.testing.assert_array_equal(out, [-1.0, -2.0])
        names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
        assert y.op.name in names
        np.testing.assert_array_equal(f([3.0]), [-3.0])
