"""tf.train.Saver both ways against real TensorFlow (tf.compat.v1, reference variables).

TF -> tgraph: TensorFlow builds an MLP plus one variable of every dtype both support, saves
a checkpoint and a MetaGraph; `tgraph run` imports the MetaGraph, restores the checkpoint by
running the graph's own SaverDef restore op, and computes the same output and values.

tgraph -> TF: tests/interop/save_mlp_client.c builds and saves an MLP through the C API; TF's
import_meta_graph + Saver.restore (found through our `checkpoint` state file) compute the
same output, and TF's list_variables reads the checkpoint.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_v2_behavior()  # graph mode and reference variables (VariableV2), as TF 1.x

TOOL = os.environ["TGRAPH_TOOL"]
BUILD = os.environ["TGRAPH_BUILD_DIR"]

# (name, dtype, value) of the extra variables, exercising every dtype both runtimes save.
EXTRA = [
    ("v_float64", np.float64, np.array([[1.5, -2.25], [1e300, -0.0]])),
    ("v_int32", np.int32, np.array([-7, 0, 2**31 - 1], dtype=np.int32)),
    ("v_int64", np.int64, np.array([2**62, -(2**63)], dtype=np.int64)),
    ("v_int16", np.int16, np.array([-300, 300], dtype=np.int16)),
    ("v_int8", np.int8, np.array([-128, 127], dtype=np.int8)),
    ("v_uint8", np.uint8, np.array([0, 255, 7], dtype=np.uint8)),
    ("v_uint16", np.uint16, np.array([65535], dtype=np.uint16)),
    ("v_bool", np.bool_, np.array([True, False, True])),
    ("v_half", np.float16, np.array([0.5, -2.0, 65504.0], dtype=np.float16)),
    ("v_complex64", np.complex64, np.array([1 + 2j, -3.5j], dtype=np.complex64)),
    ("v_scalar", np.float32, np.float32(3.25)),
    ("v_empty", np.float32, np.zeros((0, 3), dtype=np.float32)),
    ("v_large", np.float32, np.arange(1 << 20, dtype=np.float32).reshape(1024, 1024)),
]


def run_tool(*args, cwd=None):
    result = subprocess.run([TOOL, *args], capture_output=True, text=True, cwd=cwd)
    assert result.returncode == 0, result.stderr + result.stdout
    return result


def test_tensorflow_checkpoint_restores_here_by_its_saver_def():
    with tempfile.TemporaryDirectory() as d:
        rng = np.random.default_rng(7)
        x_value = rng.standard_normal((6, 4)).astype(np.float32)
        g = tf1.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [None, 4], name="x")
            h = x
            for scope, units, act in (("dense", 8, tf.nn.relu), ("dense_1", 3, tf.identity)):
                with tf1.variable_scope(scope):
                    w = tf1.get_variable("kernel", [h.shape[1], units])  # glorot_uniform
                    b = tf1.get_variable("bias", [units],
                                         initializer=tf1.random_normal_initializer(seed=3))
                h = act(tf.matmul(h, w) + b)
            tf.identity(h, name="y")
            for name, dtype, value in EXTRA:
                tf1.Variable(value, dtype=tf.as_dtype(dtype), name=name)
            tf1.Variable("a string", name="v_string")
            saver = tf1.train.Saver()
            with tf1.Session(graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                want = sess.run(
                    ["y:0", "dense/kernel:0", "v_string:0"] + [n + ":0" for n, _, _ in EXTRA],
                    {"x:0": x_value})
                prefix = saver.save(sess, os.path.join(d, "model.ckpt"), global_step=5)
        np.save(os.path.join(d, "x.npy"), x_value)
        out = os.path.join(d, "out")
        fetches = ["y:0", "dense/kernel:0"] + [n + ":0" for n, _, _ in EXTRA]
        args = ["run", prefix + ".meta", "--restore", prefix,
                "--feed", "x:0=" + os.path.join(d, "x.npy"), "--npy-out", out]
        for f in fetches:
            args += ["--fetch", f]
        args += ["--fetch", "v_string:0"]
        printed = run_tool(*args).stdout
        assert "a string" in printed
        got_y = np.load(os.path.join(out, "y_0.npy"))
        np.testing.assert_allclose(got_y, want[0], rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.load(os.path.join(out, "dense", "kernel_0.npy")), want[1])
        for (name, dtype, _), value in zip(EXTRA, want[3:]):
            got = np.load(os.path.join(out, name + "_0.npy"))
            assert got.dtype == np.dtype(dtype), name
            np.testing.assert_array_equal(got, value, err_msg=name)


def test_a_checkpoint_written_here_restores_in_tensorflow():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([os.path.join(BUILD, "tests", "interop_save_mlp_client"), d], check=True)
        x_value = np.fromfile(os.path.join(d, "x.f32"), dtype=np.float32).reshape(5, 4)
        y_value = np.fromfile(os.path.join(d, "y.f32"), dtype=np.float32).reshape(5, 3)
        latest = tf1.train.latest_checkpoint(d)
        assert latest == os.path.join(d, "model.ckpt-3")
        state = tf1.train.get_checkpoint_state(d)
        assert state.all_model_checkpoint_paths == [os.path.join(d, "model.ckpt-3")]
        names = dict(tf1.train.list_variables(latest))
        assert names == {"dense/kernel": [4, 8], "dense/bias": [8],
                         "dense_1/kernel": [8, 3], "dense_1/bias": [3]}
        g = tf1.Graph()
        with g.as_default():
            saver = tf1.train.import_meta_graph(latest + ".meta")
            assert saver is not None
            with tf1.Session(graph=g) as sess:
                saver.restore(sess, latest)
                got = sess.run("y:0", {"x:0": x_value})
        np.testing.assert_allclose(got, y_value, rtol=1e-6, atol=1e-6)


def test_a_corrupt_checkpoint_restores_nothing_here():
    with tempfile.TemporaryDirectory() as d:
        g = tf1.Graph()
        with g.as_default():
            tf1.Variable(np.arange(16, dtype=np.float32), name="v")
            saver = tf1.train.Saver()
            with tf1.Session(graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                prefix = saver.save(sess, os.path.join(d, "c"))
        data = prefix + ".data-00000-of-00001"
        raw = bytearray(open(data, "rb").read())
        raw[10] ^= 0xFF
        open(data, "wb").write(bytes(raw))
        result = subprocess.run([TOOL, "run", prefix + ".meta", "--restore", prefix,
                                 "--fetch", "v:0"], capture_output=True, text=True)
        assert result.returncode != 0
        assert "checksum mismatch" in result.stderr, result.stderr
        assert "c.data-00000-of-00001" in result.stderr and "'v'" in result.stderr, result.stderr


def test_a_sharded_tensorflow_saver_restores_and_saves_here():
    """TF's Saver(sharded=True): one part per device, merged. Its MetaGraph restores here by
    its SaverDef (restore_shard NoOps per device), and its own save op runs here too
    (StaticRegexFullMatch, Select, StringJoin, ShardedFilename, SaveV2 per device, Pack,
    MergeV2Checkpoints), writing a checkpoint TF reads back."""
    with tempfile.TemporaryDirectory() as d:
        a_value = np.arange(6, dtype=np.float32).reshape(2, 3)
        g = tf1.Graph()
        with g.as_default():
            with tf1.device("/cpu:0"):
                a = tf1.Variable(a_value, name="a")
            tf1.Variable(np.array([7, -8], dtype=np.int64), name="b")
            tf1.Variable("some text", name="s")
            tf.identity(tf.reduce_sum(a), name="total")
            saver = tf1.train.Saver(sharded=True)
            assert saver.saver_def.sharded
            with tf1.Session(graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                prefix = saver.save(sess, os.path.join(d, "model.ckpt"))
        assert sorted(f for f in os.listdir(d) if ".data-" in f) == [
            "model.ckpt.data-00000-of-00002", "model.ckpt.data-00001-of-00002"]
        # Restore TF's checkpoint, then run the graph's save op: its filename tensor defaults
        # to "model", relative to the working directory.
        printed = run_tool("run", prefix + ".meta", "--restore", prefix, "--fetch", "total:0",
                           "--fetch", "save/Identity:0", cwd=d).stdout
        assert "15" in printed, printed
        ours = os.path.join(d, "model")
        assert not os.path.exists(ours + "_temp"), os.listdir(d)
        assert os.path.exists(ours + ".data-00000-of-00002")
        assert os.path.exists(ours + ".data-00001-of-00002")
        assert dict(tf1.train.list_variables(ours)) == {"a": [2, 3], "b": [2], "s": []}
        np.testing.assert_array_equal(tf1.train.load_variable(ours, "a"), a_value)
        np.testing.assert_array_equal(tf1.train.load_variable(ours, "b"), [7, -8])
        assert tf1.train.load_variable(ours, "s") == b"some text"
