"""Bad input raises TF's exception class with a message naming the thing, never a crash."""
import numpy as np
import pytest

import tgraph as tf


def test_feed_wrong_shape_and_dtype():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x * 2
    with tf.Session() as sess:
        with pytest.raises(ValueError) as e:
            sess.run(y, {x: [1, 2, 3]})
        assert str(e.value) == "Cannot feed value of shape (3,) for Tensor 'x:0', which has " \
                               "shape '(2,)'"
        with pytest.raises(ValueError) as e:
            sess.run(y, {x: ["a", "b"]})
        assert "x:0" in str(e.value) or "could not convert" in str(e.value)
        with pytest.raises(TypeError):
            sess.run(y, {x: tf.constant([1.0, 2.0])})
        i = tf.placeholder(tf.int32, [], name="i")
        assert sess.run(i * 2, {i: 1.7}) == 2  # numpy's conversion, as TF


def test_fetch_from_another_graph():
    g2 = tf.Graph()
    with g2.as_default():
        z = tf.constant(1.0)
    tf.constant(2.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError) as e:
            sess.run(z)
        assert "is not an element of this graph" in str(e.value)
        assert "Const:0" in str(e.value)
        with pytest.raises(TypeError):
            sess.run(42)
        with pytest.raises(ValueError):
            sess.run("nope:0")


def test_closed_session():
    c = tf.constant(1.0)
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError) as e:
        sess.run(c)
    assert str(e.value) == "Attempted to use a closed Session."
    sess.close()  # idempotent


def test_import_graph_def_unknown_op():
    gd = tf.GraphDef()
    n = gd.node.add()
    n.name = "u"
    n.op = "NoSuchOp"
    with pytest.raises(tf.errors.NotFoundError) as e:
        tf.import_graph_def(gd)
    assert "NoSuchOp" in str(e.value)
    assert tf.get_default_graph().get_operations() == []


def test_uninitialized_variable_and_unfed_placeholder():
    v = tf.Variable(1.0, name="weights")
    p = tf.placeholder(tf.float32, name="p")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(v + 1)
        assert "weights" in str(e.value)
        assert e.value.error_code == tf.errors.FAILED_PRECONDITION
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(p)
        assert "'p'" in str(e.value) or "p" in str(e.value)
        assert isinstance(e.value, tf.errors.OpError)


def test_graph_construction_errors_are_value_errors():
    a = tf.constant([[1.0, 2.0]])
    with pytest.raises(ValueError) as e:
        tf.matmul(a, a)
    assert "MatMul" in str(e.value)
    with pytest.raises(TypeError):
        tf.add(tf.constant(1), tf.constant(1.5))
    with pytest.raises(TypeError):
        tf.constant(1) + "x"


def test_fetched_arrays_share_the_tensor_buffer():
    c = tf.constant(np.arange(1000, dtype=np.float32))
    with tf.Session() as sess:
        a = sess.run(c)
        b = sess.run(c)
    from tgraph import _tensor_conv
    assert isinstance(a.base, _tensor_conv._BufferOwner)  # a view of the tensor's buffer
    assert not np.shares_memory(a, b)
    del b
    assert a.sum() == np.arange(1000).sum()  # the owner keeps the buffer alive


def _aligned(n: int, offset: int) -> np.ndarray:
    """n float32s whose data starts `offset` bytes past a 64-byte boundary."""
    raw = np.zeros(n * 4 + 128, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 64 + offset
    return raw[start:start + n * 4].view(np.float32)


def test_large_feeds_adopted_only_when_aligned():
    # A large feed is adopted (no copy) when its data is 64-byte aligned, else copied once
    # here (the library would copy it itself, then call back into Python to release it).
    from tgraph import _tensor_conv
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(x)
    aligned, unaligned = _aligned(1 << 16, 0), _aligned(1 << 16, 16)
    aligned[:] = unaligned[:] = 1.0

    def adoptions(value):
        before = next(_tensor_conv._keys)
        assert sess.run(y, {x: value}) == 1 << 16
        return next(_tensor_conv._keys) - before - 1

    with tf.Session() as sess:
        assert adoptions(aligned) == 1
        assert adoptions(unaligned) == 0
    assert _tensor_conv._pinned == {}


def test_large_feeds_are_adopted_and_released():
    x = tf.placeholder(tf.float32, [None])
    y = tf.identity(x)
    big = np.arange(1 << 16, dtype=np.float32)
    from tgraph import _tensor_conv
    with tf.Session() as sess:
        for _ in range(3):
            out = sess.run(y, {x: big})
            assert (out == big).all()
    del out
    import gc
    gc.collect()
    assert _tensor_conv._pinned == {}


def test_strings_are_bytes_objects():
    s = tf.constant(["ab", b"c\x00d"])
    p = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        out = sess.run(s)
        fed = sess.run(tf.identity(p), {p: np.array([b"x", b"yz"], dtype=object)})
    assert out.dtype == object and out.tolist() == [b"ab", b"c\x00d"]
    assert fed.tolist() == [b"x", b"yz"]
