"""Graph building contexts and collections: device placement, colocation, collections,
finalize, get_*_by_name, default graphs (shared/seeds/003, 002)."""
import pytest

import tgraph as tf


def test_device_strings_functions_and_none():
    g = tf.Graph()
    with g.as_default():
        with g.device("/gpu:0"):
            a = tf.constant(1.0, name="a")
            with g.device(None):
                b = tf.constant(2.0, name="b")
        def matmul_on_gpu(op):
            return "/device:GPU:0" if op.type == "MatMul" else "/cpu:0"
        with g.device(matmul_on_gpu):
            m = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
            c = tf.constant(3.0, name="c")
    assert a.device == "/device:GPU:0" and a.op.device == "/device:GPU:0"
    assert b.device == ""
    assert m.device == "/device:GPU:0"
    assert c.device == "/device:CPU:0"


def test_device_placement_runs_on_cpu():
    with tf.device("/cpu:0"):
        with tf.name_scope("embed"):
            embed_matrix = tf.Variable(tf.random_uniform([10, 4], -1.0, 1.0), name="embed_matrix")
    assert embed_matrix.op.name == "embed/embed_matrix"
    assert embed_matrix.device == "/device:CPU:0"
    with tf.Session(config=tf.ConfigProto(log_device_placement=False)) as sess:
        sess.run(tf.global_variables_initializer())
        v = sess.run(embed_matrix)
    assert v.shape == (10, 4) and (v >= -1).all() and (v < 1).all()


def test_soft_placement_of_an_unknown_device():
    with tf.device("/device:GPU:7"):
        x = tf.constant(2.0) * 3.0
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(x) == 6.0
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(x)
        assert "GPU:7" in str(e.value)


def test_colocate_with():
    a = tf.constant(1.0, name="a")
    with tf.colocate_with(a.op):
        b = tf.constant(2.0, name="b")
    assert b.op.get_attr("_class") == [b"loc:@a"]
    assert b.op.colocation_groups() == [b"loc:@a"]


def test_collections():
    a = tf.constant(1.0, name="a")
    loss = tf.identity(a, name="loss")
    tf.add_to_collection("training_collection", a)
    tf.add_to_collection("training_collection", loss.op)
    tf.add_to_collection("training_collection", "a python string")
    items = tf.get_collection("training_collection")
    assert items[0] is a and items[1] is loss.op and items[2] == "a python string"
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(2.0, name="w", trainable=False)
    assert tf.global_variables() == [v, w]
    assert tf.trainable_variables() == [v]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [v]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="w") == [w]
    keys = tf.get_default_graph().get_all_collection_keys()
    assert "training_collection" in keys and "variables" in keys
    tf.get_default_graph().clear_collection("training_collection")
    assert tf.get_collection("training_collection") == []


def test_get_by_name_and_finalize():
    g = tf.Graph()
    with g.as_default():
        final = tf.identity(tf.constant(1.0), name="final_op")
    assert g.get_tensor_by_name("final_op:0") is final
    assert g.get_operation_by_name("final_op") is final.op
    assert g.get_operation_by_name("final_op").outputs[0] is final
    assert final.op.graph is g and tf.get_default_graph() is not g
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("final_op")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("final_op:3")
    g.finalize()
    assert g.finalized
    with g.as_default():
        with pytest.raises(RuntimeError):
            tf.constant(2.0)


def test_operation_introspection():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.constant([[1.0], [2.0]], name="w")
    y = tf.matmul(x, w, transpose_b=False, name="y")
    z = tf.nn.relu(y, name="z")
    assert y.op.type == "MatMul"
    assert y.op.inputs == [x, w]
    assert y.consumers() == [z.op]
    assert y.value_index == 0
    assert y.op.get_attr("transpose_a") is False
    assert y.op.get_attr("T") == tf.float32
    assert x.op.get_attr("shape").dim[1].size == 2
    with pytest.raises(ValueError):
        y.op.get_attr("nope")
    assert y.op.node_def.name == "y"
    assert y.op.values() == (y,)


def test_name_scope_yields_scope_string_and_reentry():
    with tf.name_scope("outer") as scope:
        assert scope == "outer/"
        with tf.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            c = tf.constant(1, name="c")
    with tf.name_scope("outer") as again:
        assert again == "outer_1/"
    with tf.name_scope(scope):
        d = tf.constant(1, name="d")
    assert c.op.name == "outer/inner/c" and d.op.name == "outer/d"


def test_tensor_operators_and_slicing():
    x = tf.constant([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]])
    m = tf.constant([[1.0], [1.0], [1.0], [1.0]])
    ops = {"add": x + 1, "radd": 1 + x, "sub": x - 1, "rsub": 10 - x, "mul": x * 2,
           "div": x / 2, "floordiv": x // 2, "mod": x % 3, "pow": x ** 2, "neg": -x,
           "matmul": x @ m, "slice": x[1:, ::2], "index": x[0], "last": x[-1, -1],
           "newaxis": x[None, 0], "lt": x < 3, "ge": x >= 11, "abs": abs(-x)}
    assert ops["add"].op.name == "add" and ops["radd"].op.name == "add_1"
    assert ops["slice"].op.type == "StridedSlice" and ops["lt"].op.type == "Less"
    with tf.Session() as sess:
        v = sess.run(ops)
    xv = sess_x = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]
    import numpy as np
    xv = np.array(sess_x, np.float32)
    assert (v["add"] == xv + 1).all() and (v["radd"] == 1 + xv).all()
    assert (v["rsub"] == 10 - xv).all() and (v["div"] == xv / 2).all()
    assert (v["floordiv"] == xv // 2).all() and (v["mod"] == xv % 3).all()
    assert (v["pow"] == xv ** 2).all() and (v["neg"] == -xv).all()
    assert (v["matmul"] == xv @ np.ones((4, 1), np.float32)).all()
    assert (v["slice"] == xv[1:, ::2]).all() and (v["index"] == xv[0]).all()
    assert v["last"] == 12.0 and v["newaxis"].shape == (1, 4)
    assert (v["lt"] == (xv < 3)).all() and (v["ge"] == (xv >= 11)).all()
    assert (v["abs"] == xv).all()
    with pytest.raises(TypeError):
        bool(x)
    assert {x: 1}[x] == 1  # tensors hash by identity, as TF 1.x


def test_graphs_are_separate_and_default_stack():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        a = tf.constant(1)
        with g2.as_default():
            b = tf.constant(2)
            assert tf.get_default_graph() is g2
        assert tf.get_default_graph() is g1
    assert a.graph is g1 and b.graph is g2 and a.name == b.name == "Const:0"
    with pytest.raises(ValueError):
        tf.add(a, b)
    with g1.as_default():
        with pytest.raises(AssertionError):
            tf.reset_default_graph()
