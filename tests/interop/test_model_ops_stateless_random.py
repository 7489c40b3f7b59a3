"""TensorFlow's stateless random ops (tf.random.stateless_*, Keras initializers and dropout in
TF 2.x graphs), differentially against TensorFlow, bit for bit: each case builds a TF1 graph
with the exact raw ops (constant shapes, seeds, keys and counters), runs it in TensorFlow,
writes the GraphDef, runs it with `tgraph run` on 1 and on 4 intra-op threads and requires
identical bits (sizes not a multiple of the 4-word Philox block, and sizes large enough for
both runtimes to split the work over threads). The OpDefs match TensorFlow's (args, attrs,
defaults, and every type attr's allowed types)."""
import re
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import op_def_registry

from test_list_op_defs import TOOL
from test_list_op_defs import test_op_def_matches_tensorflow as op_def_matches
from test_model_ops import RAW, run_tensorflow

OPS = ["StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
       "StatelessRandomUniformInt", "StatelessRandomUniformFullInt",
       "StatelessRandomGetKeyCounter", "StatelessRandomGetAlg",
       "StatelessRandomGetKeyCounterAlg", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
       "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2",
       "StatelessRandomUniformFullIntV2", "StatelessShuffle"]
FLOAT_OPS = ["StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"]
FLOATS = [tf.float32, tf.float64, tf.float16, tf.bfloat16]
SIZES = [[1], [5], [3, 7], [1000, 1001]]
SEEDS = [(0, 0), (7, -3), (-1, 2**40 + 3)]


@pytest.mark.parametrize("name", OPS)
def test_op_def(name):
    op_def_matches(name)


@pytest.mark.parametrize("name", OPS)
def test_allowed_types(name):
    done = subprocess.run([TOOL, "ops", name], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = op_def_registry.get(name)
    for attr in want.attr:
        if attr.type != "type" or not attr.allowed_values.list.type:
            continue  # StatelessShuffle's T: any type (test_op_def checks the kind)
        line = next(l for l in done.stdout.splitlines() if re.match(rf"\s+attr {attr.name}: ", l))
        ours = set(t.strip() for t in re.search(r"\{(.*)\}", line).group(1).split(","))
        ours = {"half" if t == "float16" else t for t in ours}
        theirs = set(types_pb2.DataType.Name(t)[3:].lower()
                     for t in attr.allowed_values.list.type)
        assert ours == theirs, attr.name


def run_tgraph(tmp_path, graph, fetches, threads):
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    out = tmp_path / f"out{threads}"
    args = [TOOL, "run", str(tmp_path / "graph.pb"), "--npy-out", str(out),
            "--intra-op-threads", str(threads)]
    for name in fetches:
        args += ["--fetch", name]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [np.load(out / (name.replace(":", "_") + ".npy")) for name in fetches]


def check_bits(tmp_path, build):
    """Runs build()'s fetches in TensorFlow and in tgraph (1 and 4 threads): same dtypes,
    shapes and bits. bfloat16 results are cast to float32 in the graph (exact)."""
    graph = tf.Graph()
    with graph.as_default():
        outs = [tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t for t in build()]
    fetches = [t.name for t in outs]
    expected = run_tensorflow(graph, {}, fetches)
    for threads in (1, 4):
        got = run_tgraph(tmp_path, graph, fetches, threads)
        for name, e, g in zip(fetches, expected, got):
            e = np.asarray(e)
            assert g.dtype == e.dtype, name
            assert g.shape == e.shape, name
            if e.tobytes() != g.tobytes():
                bad = np.flatnonzero(e.reshape(-1).view(np.uint8) != g.reshape(-1).view(np.uint8))
                first = bad[0] // e.itemsize
                pytest.fail(f"{name} ({threads} threads): {bad.size} bytes differ, first at element "
                            f"{first}: tf {e.reshape(-1)[first]} tgraph {g.reshape(-1)[first]}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_seeded_floats(tmp_path, op, dtype):
    def build():
        outs = []
        for shape in SIZES:
            for i, seed in enumerate(SEEDS):
                seed_dtype = tf.int32 if i == 1 else tf.int64
                if seed_dtype == tf.int32 and abs(seed[1]) >= 2**31:
                    continue
                outs.append(getattr(RAW, op)(shape=tf.constant(shape, tf.int32),
                                             seed=tf.constant(seed, seed_dtype), dtype=dtype))
        return outs
    check_bits(tmp_path, build)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("op", [o + "V2" for o in FLOAT_OPS])
def test_key_counter_floats(tmp_path, op, dtype):
    def build():
        outs = []
        for shape in SIZES:
            # Counters include a low word that overflows into the high one.
            for key, counter, alg in [(0, (0, 0), 1), (123456789, (1, 2), 3),
                                      (2**64 - 5, (2**64 - 3, 2**63), 1)]:
                outs.append(getattr(RAW, op)(
                    shape=tf.constant(shape, tf.int64), key=tf.constant(np.array([key], np.uint64)),
                    counter=tf.constant(np.array(counter, np.uint64)), alg=tf.constant(alg, tf.int32),
                    dtype=dtype))
        return outs
    check_bits(tmp_path, build)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=lambda d: d.name)
def test_uniform_int(tmp_path, dtype):
    big = 2**31 - 1 if dtype == tf.int32 else 2**63 - 1
    ranges = [(0, 1), (-10, 1000), (-big - 1, big), (-7, big // 3)]

    def build():
        outs = []
        for shape in SIZES:
            for lo, hi in ranges:
                outs.append(RAW.StatelessRandomUniformInt(
                    shape=tf.constant(shape), seed=tf.constant((5, -6), tf.int64),
                    minval=tf.constant(lo, dtype), maxval=tf.constant(hi, dtype)))
                key, counter = RAW.StatelessRandomGetKeyCounter(seed=tf.constant((8, 9)))
                outs.append(RAW.StatelessRandomUniformIntV2(
                    shape=tf.constant(shape), key=key, counter=counter,
                    alg=tf.constant(1), minval=tf.constant(lo, dtype),
                    maxval=tf.constant(hi, dtype)))
        return outs
    check_bits(tmp_path, build)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.uint32, tf.uint64],
                         ids=lambda d: d.name)
def test_full_int(tmp_path, dtype):
    def build():
        outs = []
        for shape in SIZES:
            outs.append(RAW.StatelessRandomUniformFullInt(
                shape=tf.constant(shape), seed=tf.constant((-5, 6), tf.int32), dtype=dtype))
            outs.append(RAW.StatelessRandomUniformFullIntV2(
                shape=tf.constant(shape), key=tf.constant([99], tf.uint64),
                counter=tf.constant(np.array((2**64 - 1, 7), np.uint64)), alg=tf.constant(3),
                dtype=dtype))
        return outs
    check_bits(tmp_path, build)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, np.int64, np.uint8])
def test_shuffle(tmp_path, dtype):
    def build():
        outs = []
        for shape in [(), (1,), (2,), (5,), (37, 2, 2), (4099,), (1000, 7)]:
            x = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
            for key, counter, alg in [(0, (0, 0), 1), (2**64 - 1, (2**64 - 1, 3), 3),
                                      (77, (2**32, 9), 1)]:
                outs.append(RAW.StatelessShuffle(
                    value=tf.constant(x), key=tf.constant(np.array([key], np.uint64)),
                    counter=tf.constant(np.array(counter, np.uint64)),
                    alg=tf.constant(alg)))
        return outs
    check_bits(tmp_path, build)


def test_key_counter_alg(tmp_path):
    def build():
        outs = [RAW.StatelessRandomGetAlg()]
        for seed, dt in [((0, 0), tf.int64), ((7, -3), tf.int32), ((-2**62, 2**40), tf.int64)]:
            outs += list(RAW.StatelessRandomGetKeyCounter(seed=tf.constant(seed, dt)))
            outs += list(RAW.StatelessRandomGetKeyCounterAlg(seed=tf.constant(seed, dt)))
        return outs
    check_bits(tmp_path, build)


def test_tf2_style_initializer_graph(tmp_path):
    """What TF 2.x Python writes for tf.random.stateless_* in a graph: GetKeyCounter feeding
    the V2 ops, then the scale and shift."""
    def build():
        seed = tf.constant([3, 4], tf.int64)
        return [tf.random.stateless_uniform([17, 5], seed, minval=-0.5, maxval=0.5),
                tf.random.stateless_normal([33], seed, mean=1.0, stddev=2.0, dtype=tf.float64),
                tf.random.stateless_truncated_normal([9, 9], seed, stddev=0.1),
                tf.random.stateless_uniform([11], seed, minval=-4, maxval=40, dtype=tf.int32)]
    check_bits(tmp_path, build)


def test_bad_seed_names_the_node(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        RAW.StatelessRandomUniformInt(shape=tf.constant([3]), seed=tf.constant([1, 2]),
                                      minval=tf.constant(5), maxval=tf.constant(5),
                                      name="draw")
    (tmp_path / "graph.pb").write_bytes(graph.as_graph_def().SerializeToString())
    done = subprocess.run([TOOL, "run", str(tmp_path / "graph.pb"), "--fetch", "draw"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "draw" in done.stderr and "minval < maxval" in done.stderr, done.stderr
