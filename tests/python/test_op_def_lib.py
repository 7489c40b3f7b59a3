"""tgraph.op_def_lib: op signatures from the registry, the generic builder, tf.raw_ops."""
import pytest

import tgraph as tf
from tgraph import op_def_lib


def test_snake_case_names():
    assert op_def_lib.snake("MatMul") == "mat_mul"
    assert op_def_lib.snake("Conv2D") == "conv2d"
    assert op_def_lib.snake("BiasGeluGrad") == "bias_gelu_grad"
    assert op_def_lib.snake("SoftmaxCrossEntropyWithLogits") == \
        "softmax_cross_entropy_with_logits"


def test_signatures_are_parsed():
    concat = op_def_lib.op_signature("ConcatV2")
    values = concat.inputs[0]
    assert values.name == "values" and values.number_attr == "N" and values.type_attr == "T"
    assert concat.attrs["Tidx"].has_default and concat.attrs["N"].kind == "int"
    assign = op_def_lib.op_signature("Assign")
    assert assign.inputs[0].is_ref
    assert op_def_lib.op_signature("VariableV2").is_stateful
    conv = op_def_lib.op_signature("Conv2D")
    assert conv.attrs["padding"].kind == "string" and conv.attrs["strides"].kind == "list(int)"
    assert "MatMul" in op_def_lib.registered_ops()
    with pytest.raises(tf.errors.NotFoundError):
        op_def_lib.op_signature("NoSuchOp")


def test_raw_ops_and_python_value_inputs():
    x = tf.raw_ops.AddV2(x=tf.constant([1.0, 2.0]), y=3, name="sum")
    assert x.op.name == "sum" and x.op.inputs[1].op.name == "sum/y"
    pack = tf.raw_ops.Pack(values=[1, 2, 3], axis=0)
    unpacked = tf.raw_ops.Unpack(value=pack, num=3)
    assert isinstance(unpacked, list) and len(unpacked) == 3
    uniq = tf.raw_ops.Unique(x=tf.constant([3, 1, 3]))
    assert uniq.y.dtype == tf.int32 and uniq.idx.dtype == tf.int32
    with tf.Session() as sess:
        assert sess.run(x).tolist() == [4.0, 5.0]
        assert sess.run(unpacked) == [1, 2, 3]
        assert sess.run(uniq.y).tolist() == [3, 1]
    with pytest.raises(AttributeError):
        tf.raw_ops.NoSuchOp
    with pytest.raises(TypeError):
        tf.raw_ops.MatMul(a=tf.constant([[1.0]]), b=tf.constant([[1.0]]), bogus=1)
    assert "MatMul" in dir(tf.raw_ops)
