"""More of the seeds' printed examples (shared/seeds/002, 003): scatter_update, counting
parameters, the files a save makes, feeding a placeholder, get_shape reprs."""
import os

import numpy as np
import pytest

import tgraph as tf


def test_scatter_update_rows_as_printed():
    for indices, updates, expected in (
            ([0, 1], [[1, 1, 0, 0], [1, 0, 4, 0]], [[1, 1, 0, 0], [1, 0, 4, 0]]),
            ([1], [[1, 0, 4, 0]], [[0, 0, 0, 0], [1, 0, 4, 0]])):
        g = tf.Graph()
        with g.as_default():
            a = tf.Variable(initial_value=[[0, 0, 0, 0], [0, 0, 0, 0]])
            b = tf.scatter_update(a, indices, updates)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            assert str(sess.run(a)) == "[[0 0 0 0]\n [0 0 0 0]]"
            assert sess.run(b).tolist() == expected


def test_count_trainable_parameters():
    tf.get_variable("w", [784, 512])
    tf.get_variable("b", [512])
    tf.Variable(tf.zeros([10]), trainable=False, name="not_counted")
    total, parts = 0, []
    for variable in tf.trainable_variables():
        shape = variable.get_shape()
        n = 1
        for dim in shape:
            n *= dim.value
        total += n
        parts.append("%s %d" % (variable.name, n) if len(shape) == 1 else
                     "%s %s=%d" % (variable.name, str(shape), n))
    assert parts == ["w:0 (784, 512)=401408", "b:0 512"]
    assert "Total %d variables, %s params" % (len(tf.trainable_variables()),
                                              "{:,}".format(total)) == \
        "Total 2 variables, 401,920 params"


def test_save_makes_tf_files_and_restore(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = tf.get_variable("a", [])
    b = tf.get_variable("b", [])
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    sess = tf.Session()
    sess.run(init)
    saved = sess.run([a, b])
    saver.save(sess, "./tftcp.model")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "tftcp.model.data-00000-of-00001",
                                            "tftcp.model.index", "tftcp.model.meta"]
    tf.reset_default_graph()
    a = tf.get_variable("a", [])
    b = tf.get_variable("b", [])
    saver = tf.train.Saver()
    sess = tf.Session()
    saver.restore(sess, "./tftcp.model")
    assert sess.run([a, b]) == saved


def test_placeholder_feed_as_printed():
    a = tf.placeholder(tf.float32, shape=[3])
    b = tf.constant([5, 5, 5], tf.float32)
    c = a + b
    with tf.Session() as sess:
        assert sess.run(c, feed_dict={a: [1, 2, 3]}).tolist() == [6, 7, 8]
        assert tf.get_default_graph().is_feedable(a)


def test_matmul_shapes_as_printed():
    c = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert repr(c.get_shape()) == "TensorShape([Dimension(2), Dimension(3)])"
    d = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert repr(d.get_shape()) == "TensorShape([Dimension(4), Dimension(2)])"
    with pytest.raises(ValueError):
        tf.matmul(c, d)
    f = tf.matmul(c, d, transpose_a=True, transpose_b=True)
    assert repr(f.get_shape()) == "TensorShape([Dimension(3), Dimension(4)])"
    e = tf.matmul(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[1.0, 1.0], [0.0, 1.0]]))
    sess = tf.Session()
    assert sess.run(e).tolist() == [[1.0, 3.0], [3.0, 7.0]]
    with sess.as_default():
        assert e.eval().tolist() == tf.get_default_session().run(e).tolist()
    assert e.value_index == 0 and e.op.outputs == [e] and e.graph is tf.get_default_graph()
    _ = np
