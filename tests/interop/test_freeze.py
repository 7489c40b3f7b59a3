"""Freezing interop: tgraph freezes a 2-layer MLP (tests/interop/freeze_mlp.c, over the C API)
and TensorFlow runs the frozen GraphDef to the same numbers; tgraph's extract_sub_graph and
remove_training_nodes give what TensorFlow's graph_util gives on the same GraphDefs."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

PROGRAM = Path(os.environ["TGRAPH_BUILD_DIR"]) / "tests" / "interop_freeze_mlp"
TF_GRAPH_UTIL = tf.compat.v1.graph_util


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    assert PROGRAM.exists(), f"{PROGRAM} is not built (target interop_freeze_mlp)"
    directory = tmp_path_factory.mktemp("freeze")
    done = subprocess.run([str(PROGRAM), str(directory)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return directory


def floats(path):
    return np.array([float(line) for line in path.read_text().split()], dtype=np.float32)


def graph_def(path):
    gd = tf.compat.v1.GraphDef()
    gd.ParseFromString(path.read_bytes())
    return gd


def run_in_tensorflow(gd, x):
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(gd, name="")
        with tf.compat.v1.Session(graph=graph) as sess:
            return sess.run("output:0", feed_dict={"x:0": x})


def ops(gd):
    return [(node.name, node.op) for node in gd.node]


def test_frozen_graph_runs_in_tensorflow_to_the_same_numbers(out_dir):
    x = floats(out_dir / "input.txt").reshape(4, 3)
    expected = floats(out_dir / "output.txt").reshape(4, 2)
    got = run_in_tensorflow(graph_def(out_dir / "frozen.pb"), x)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)
    # And in tgraph itself, from the frozen GraphDef alone.
    np.testing.assert_allclose(floats(out_dir / "frozen_output.txt").reshape(4, 2), expected,
                               rtol=1e-6, atol=0)


def test_frozen_graph_has_constants_instead_of_variables(out_dir):
    frozen = graph_def(out_dir / "frozen.pb")
    kinds = {op for _, op in ops(frozen)}
    assert not kinds & {"VariableV2", "Variable", "Assign", "NoOp", "RandomUniform",
                        "TruncatedNormal"}, kinds
    by_name = {node.name: node for node in frozen.node}
    for var in ["layer1/weights", "layer1/biases", "layer2/weights", "layer2/biases"]:
        assert by_name[var].op == "Const"
        assert by_name[var].attr["dtype"].type == tf.float32.as_datatype_enum
        assert by_name[var + "/read"].op == "Identity"
    weights = tf.make_ndarray(by_name["layer1/weights"].attr["value"].tensor)
    assert weights.shape == (3, 5)
    limit = np.sqrt(6.0 / (3 + 5))  # get_variable's default: glorot_uniform
    assert np.all(np.abs(weights) < limit) and np.any(weights != 0)
    np.testing.assert_array_equal(
        tf.make_ndarray(by_name["layer1/biases"].attr["value"].tensor), np.full(5, 0.1, np.float32))
    # The full graph did have them.
    full_kinds = {op for _, op in ops(graph_def(out_dir / "full.pb"))}
    assert {"VariableV2", "Assign"} <= full_kinds


def test_extract_sub_graph_matches_tensorflow(out_dir):
    full = graph_def(out_dir / "full.pb")
    ours = graph_def(out_dir / "extracted.pb")
    theirs = TF_GRAPH_UTIL.extract_sub_graph(full, ["output"])
    assert ops(ours) == ops(theirs)
    assert "init" not in {name for name, _ in ops(ours)}
    with pytest.raises(AssertionError):
        TF_GRAPH_UTIL.extract_sub_graph(full, ["missing"])  # ours: INVALID_ARGUMENT (C API test)


def test_remove_training_nodes_matches_tensorflow(out_dir):
    frozen = graph_def(out_dir / "frozen.pb")
    ours = graph_def(out_dir / "pruned.pb")
    theirs = TF_GRAPH_UTIL.remove_training_nodes(frozen, ["output"])
    assert [(n.name, n.op, list(n.input)) for n in ours.node] == \
        [(n.name, n.op, list(n.input)) for n in theirs.node]
    assert "Identity" not in {op for _, op in ops(ours)}
    x = floats(out_dir / "input.txt").reshape(4, 3)
    expected = floats(out_dir / "output.txt").reshape(4, 2)
    np.testing.assert_allclose(run_in_tensorflow(ours, x), expected, rtol=1e-6, atol=0)
