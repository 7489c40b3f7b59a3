"""The seeds' printed examples of names, reprs and the variable subgraph (shared/seeds/002),
asserting what they print."""
import numpy as np
import pytest
from google.protobuf import text_format

import tgraph as tf


def test_initializer_constant_placeholder_variable_reprs():
    init = tf.global_variables_initializer()
    assert (init.name, init.type) == ("init", "NoOp")
    tf.global_variables_initializer()
    a = tf.global_variables_initializer()
    assert (a.name, a.type) == ("init_2", "NoOp")
    b = tf.constant(1.0)
    c = tf.constant(2.0, name="c")
    d = tf.add(b, c, name="d")
    e = tf.Variable(1.0)
    f = tf.placeholder(tf.float32, shape=(2, 2))
    assert str(b) == 'Tensor("Const:0", shape=(), dtype=float32)'
    assert str(c) == 'Tensor("c:0", shape=(), dtype=float32)'
    assert str(d) == 'Tensor("d:0", shape=(), dtype=float32)' and str(d.shape) == "()"
    assert repr(e) == "<tf.Variable 'Variable:0' shape=() dtype=float32_ref>"
    assert e.name == "Variable:0" and str(e.shape) == "()"
    assert str(f) == 'Tensor("Placeholder:0", shape=(2, 2), dtype=float32)'
    assert str(f.shape) == "(2, 2)"
    assert str(tf.constant(1.0)) == 'Tensor("Const_1:0", shape=(), dtype=float32)'
    assert tf.constant(1.0).name == "Const_2:0"
    assert str(tf.add(b, c)) == 'Tensor("Add:0", shape=(), dtype=float32)'
    assert tf.add(b, c, name="d").name == "d_1:0"


def test_tensor_list_repr_and_eval():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    c = tf.add(a, b)
    assert repr([a, b, c]) == ("[<tf.Tensor 'Const:0' shape=() dtype=float32>, "
                               "<tf.Tensor 'Const_1:0' shape=() dtype=float32>, "
                               "<tf.Tensor 'Add:0' shape=() dtype=float32>]")
    with tf.Session() as sess:
        assert c.eval() == 3.0
        assert sess.run([a, b, c]) == [1.0, 2.0, 3.0]
        assert sess.run(tf.add(a, b)) == 3.0


def test_constant_graph_def_as_printed():
    tf.constant([1, 2, 3, 4, 5, 6, 7])
    tf.global_variables_initializer()
    gd = tf.get_default_graph().as_graph_def()
    assert isinstance(gd, tf.GraphDef)
    assert [(n.name, n.op) for n in gd.node] == [("Const", "Const"), ("init", "NoOp")]
    const = gd.node[0]
    assert const.attr["dtype"].type == 3  # DT_INT32
    t = const.attr["value"].tensor
    assert t.dtype == 3 and [d.size for d in t.tensor_shape.dim] == [7]
    content = t.tensor_content or np.asarray(t.int_val, np.int32).tobytes()
    assert content == b"\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000" \
                      b"\005\000\000\000\006\000\000\000\007\000\000\000"


def test_variable_subgraph_nodes_as_printed():
    tf.Variable(2)
    tf.global_variables_initializer()
    gd = tf.get_default_graph().as_graph_def()
    nodes = {n.name: n for n in gd.node}
    assert [n.name for n in gd.node] == ["Variable/initial_value", "Variable", "Variable/Assign",
                                         "Variable/read", "init"]
    assert nodes["Variable/initial_value"].op == "Const"
    t = nodes["Variable/initial_value"].attr["value"].tensor
    # TF writes int_val: 2; tgraph may write the same value as tensor_content.
    assert list(t.int_val) == [2] or np.frombuffer(t.tensor_content, np.int32).tolist() == [2]
    assert t.dtype == 3 and t.tensor_shape.dim == []
    assert nodes["Variable"].op == "VariableV2"
    assert nodes["Variable"].attr["dtype"].type == 3
    assert nodes["Variable"].attr["shape"].shape.dim == []
    assert nodes["Variable"].attr["container"].s == b""
    assert nodes["Variable"].attr["shared_name"].s == b""
    assign = nodes["Variable/Assign"]
    assert assign.op == "Assign" and list(assign.input) == ["Variable", "Variable/initial_value"]
    assert list(assign.attr["_class"].list.s) == [b"loc:@Variable"]
    assert assign.attr["use_locking"].b and assign.attr["validate_shape"].b
    read = nodes["Variable/read"]
    assert read.op == "Identity" and list(read.input) == ["Variable"]
    assert list(read.attr["_class"].list.s) == [b"loc:@Variable"]
    assert list(nodes["init"].input) == ["^Variable/Assign"]
    # The text form is TF's protobuf text format.
    assert 'name: "Variable/read"' in text_format.MessageToString(gd)


def test_placeholder_without_shape_is_unknown_rank():
    tf.placeholder(tf.float32)
    node = tf.get_default_graph().as_graph_def().node[0]
    assert (node.name, node.op) == ("Placeholder", "Placeholder")
    assert node.attr["shape"].shape.unknown_rank
    assert node.attr["dtype"].type == 1


def test_variable_names_made_unique():
    var = tf.Variable(1)
    var1 = tf.Variable(2)
    var2 = tf.Variable(3, name="foo")
    var3 = tf.Variable(4, name="foo")
    var4 = tf.Variable(tf.random_normal([2, 3], stddev=1, seed=1))
    assert [v.op.name for v in (var, var1, var2, var3)] == ["Variable", "Variable_1", "foo",
                                                          "foo_1"]
    assert var4.shape.as_list() == [2, 3]


def test_name_scope_variable_names_repeatable_after_reset():
    for _ in range(3):
        tf.reset_default_graph()
        with tf.name_scope("conv1"):
            weights1 = tf.Variable([1.0, 2.0], name="weights")
            bias1 = tf.Variable([0.3], name="bias")
        with tf.name_scope("conv2"):
            weights2 = tf.Variable([4.0, 2.0], name="weights")
            bias2 = tf.Variable([0.33], name="bias")
        assert [weights1.name, weights2.name, bias1.name, bias2.name] == [
            "conv1/weights:0", "conv2/weights:0", "conv1/bias:0", "conv2/bias:0"]


def test_placeholder_op_str_is_its_node_def():
    with tf.name_scope("data"):
        center_words = tf.placeholder(tf.int32, shape=[128], name="center_words")
    text = str(center_words.op)
    assert text.startswith('name: "data/center_words"\nop: "Placeholder"\n')
    assert "size: 128" in text
    assert repr(center_words.op) == "<tf.Operation 'data/center_words' type=Placeholder>"


def test_shapes_get_and_set():
    c = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert c.get_shape().as_list() == [2, 3]
    p = tf.placeholder(tf.float32, shape=[None, 3])
    assert str(p.get_shape()) == "(?, 3)"
    p.set_shape([4, 3])
    assert p.shape.as_list() == [4, 3]
    with pytest.raises(ValueError):
        p.set_shape([5, 3])


def test_variable_from_a_callable_builds_under_initializer():
    v = tf.Variable(lambda: tf.zeros([2]), name="v")
    w = tf.Variable(lambda: tf.ones([3]))
    assert [o.name for o in tf.get_default_graph().get_operations()] == [
        "v/Initializer/zeros", "v", "v/Assign", "v/read",
        "Variable/Initializer/ones", "Variable", "Variable/Assign", "Variable/read"]
    assert v.name == "v:0" and w.name == "Variable:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w).tolist() == [1.0, 1.0, 1.0]
