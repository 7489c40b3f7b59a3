"""Frozen Keras models that issue 19 found blocked by missing ops now run here: a Transformer
encoder block (MultiHeadAttention's Einsum, LayerNormalization's SquaredDifference and
StopGradient, exact gelu's Erfc) and MobileNetV2 (DepthwiseConv2dNative). Each is frozen with
convert_variables_to_constants_v2, run in TensorFlow and with `tgraph run` on the same input,
and the outputs compared relative to their scale."""
import os
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

TOOL = os.environ["TGRAPH_TOOL"]
keras = tf.keras


def freeze_and_compare(tmp_path, model, shape, rtol=1e-4):
    fn = tf.function(lambda x: model(x, training=False))
    frozen = convert_variables_to_constants_v2(
        fn.get_concrete_function(tf.TensorSpec(shape, tf.float32)))
    graph_def = frozen.graph.as_graph_def()
    (tmp_path / "model.pb").write_bytes(graph_def.SerializeToString())
    x = np.random.RandomState(0).rand(*shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    expected = frozen(tf.constant(x))
    expected = (expected[0] if isinstance(expected, (list, tuple)) else expected).numpy()
    feed, fetch = frozen.inputs[0].name, frozen.outputs[0].name
    done = subprocess.run([TOOL, "run", str(tmp_path / "model.pb"), "--feed",
                           f"{feed}={tmp_path / 'x.npy'}", "--fetch", fetch, "--npy-out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / (fetch.replace(":", "_") + ".npy"))
    assert got.shape == expected.shape
    scale = np.abs(expected).max()
    assert scale > 0
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale)
    return {node.op for node in graph_def.node}


def test_transformer_encoder_block(tmp_path):
    keras.utils.set_random_seed(1)
    inputs = keras.Input((10, 32))
    attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
    h = keras.layers.LayerNormalization()(inputs + attended)
    f = keras.layers.Dense(64, activation="gelu")(h)
    out = keras.layers.LayerNormalization()(h + keras.layers.Dense(32)(f))
    ops = freeze_and_compare(tmp_path, keras.Model(inputs, out), (2, 10, 32))
    assert {"Einsum", "SquaredDifference", "StopGradient", "Erfc"} <= ops, ops


@pytest.mark.parametrize("alpha", [0.35])
def test_mobilenet_v2(tmp_path, alpha):
    keras.utils.set_random_seed(2)
    model = keras.applications.MobileNetV2(weights=None, input_shape=(64, 64, 3), alpha=alpha,
                                           classifier_activation=None)
    ops = freeze_and_compare(tmp_path, model, (2, 64, 64, 3))
    assert "DepthwiseConv2dNative" in ops, ops


def test_efficientnet_b0(tmp_path):
    """EfficientNet's swish is an activation with a custom gradient: Keras writes an IdentityN
    after each one, which a frozen graph keeps (it did not import before). Batch norms get
    random statistics, as a trained model's, so that each folds into a bias and the swish
    fuses after it (_FusedConv2D / _FusedDepthwiseConv2dNative with _MklSwish)."""
    keras.utils.set_random_seed(3)
    model = keras.applications.EfficientNetB0(weights=None, input_shape=(64, 64, 3),
                                              classifier_activation=None)
    rng = np.random.RandomState(4)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(np.float32)
                               if "variance" in w.name or "gamma" in w.name
                               else rng.uniform(-0.2, 0.2, w.shape).astype(np.float32)
                               for w in layer.weights])
    ops = freeze_and_compare(tmp_path, model, (1, 64, 64, 3))
    assert {"IdentityN", "DepthwiseConv2dNative", "Sigmoid"} <= ops, ops
