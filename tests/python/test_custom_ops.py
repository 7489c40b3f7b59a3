"""load_op_library: the SDK's custom-op example (BiasGelu) used from Python, with generated
snake_case functions, attrs as keyword arguments, and its plugin-registered gradient."""
import math
import os

import numpy as np
import pytest

import tgraph as tf

PLUGIN = os.environ.get("TGRAPH_TEST_BIAS_GELU")
pytestmark = pytest.mark.skipif(not PLUGIN, reason="TGRAPH_TEST_BIAS_GELU is not set")


def _gelu(v):
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


def test_generated_functions_run_and_differentiate():
    mod = tf.load_op_library(PLUGIN)
    assert sorted(mod.OP_LIST) == ["BiasGelu", "BiasGeluGrad"]
    assert callable(mod.bias_gelu) and callable(mod.bias_gelu_grad)
    assert "gelu" in mod.bias_gelu.__doc__
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    b = tf.Variable([0.5, -0.5, 0.0], name="b")
    y = mod.bias_gelu(x, b, approximate=False, name="act")
    assert y.op.name == "act" and y.op.type == "BiasGelu"
    assert y.op.get_attr("approximate") is False
    assert y.shape.as_list() == [2, 3]
    (dx,) = tf.gradients(tf.reduce_sum(y), [x])
    xs = np.array([[0.0, 1.0, -1.0], [2.0, -2.0, 0.5]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, g = sess.run([y, dx], {x: xs})
    bias = np.array([0.5, -0.5, 0.0])
    expected = np.vectorize(_gelu)(xs + bias)
    assert np.allclose(out, expected, atol=1e-5)
    assert g.shape == (2, 3) and np.all(np.isfinite(g))
    # Loading again returns the same plugin and the same functions.
    again = tf.load_op_library(PLUGIN)
    assert again.OP_LIST == mod.OP_LIST
    assert tf.raw_ops.BiasGelu(x=x, bias=b).op.type == "BiasGelu"


def test_missing_library_is_not_found():
    with pytest.raises(tf.errors.NotFoundError) as e:
        tf.load_op_library("/nonexistent/libnothing.so")
    assert "libnothing" in str(e.value)
