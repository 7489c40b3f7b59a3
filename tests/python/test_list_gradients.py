"""Gradients through TensorList loops end to end: a Keras LSTM layer frozen as the model zoo
freezes it (convert_variables_to_constants_v2 lowers its loop to Enter / Merge / Switch /
NextIteration / Exit over TensorList ops, the input list passed round as a loop variable) is
imported here and differentiated by tgraph's own gradient builder; TensorFlow's
GradientTape on the Keras model gives the expected gradient."""
import numpy as np
import pytest

import tgraph as tf


@pytest.mark.parametrize("return_sequences", [False, True])
def test_frozen_keras_lstm_input_gradient_matches_tensorflow(return_sequences):
    tf2 = pytest.importorskip("tensorflow")
    from tensorflow.python.framework.convert_to_constants import \
        convert_variables_to_constants_v2
    keras = tf2.keras
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((5, 3)),
                              keras.layers.LSTM(4, return_sequences=return_sequences)])
    fn = tf2.function(lambda x: model(x, training=False))
    frozen = convert_variables_to_constants_v2(
        fn.get_concrete_function(tf2.TensorSpec((2, 5, 3), tf2.float32)))
    x = np.random.RandomState(0).randn(2, 5, 3).astype(np.float32)
    xt = tf2.constant(x)
    with tf2.GradientTape() as tape:
        tape.watch(xt)
        y = model(xt, training=False)
        loss = tf2.reduce_sum(y * y)
    want_y, want = y.numpy(), tape.gradient(loss, xt).numpy()

    graph_def = frozen.graph.as_graph_def()
    assert {"TensorListFromTensor", "TensorListGetItem", "TensorListSetItem", "Enter",
            "NextIteration"} <= {n.op for n in graph_def.node}
    tf.import_graph_def(graph_def, name="")
    g = tf.get_default_graph()
    x_in = g.get_tensor_by_name(frozen.inputs[0].name)
    out = g.get_tensor_by_name(frozen.outputs[0].name)
    (dx,) = tf.gradients(tf.reduce_sum(out * out), [x_in])
    assert dx is not None
    with tf.Session() as sess:
        got_y, got = sess.run([out, dx], {x_in: x})
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
