"""MetaGraphs between tgraph and real TensorFlow (tf.compat.v1, graph mode).

TF writes an MLP with variables, a GradientDescent train_op with a global step, a Saver and
user collections of operations, tensors, ints, floats and strings; tests/interop's
meta_graph_client (C, over c_api.h) imports it, prints what it rebuilt and writes it again;
TF's import_meta_graph reads tgraph's file back with the same collections, variables and
SaverDef. A MetaGraph tgraph writes for a graph it built imports and trains in TF. Bad
files give a clear error naming the file.
"""
import os
import pathlib
import subprocess

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_v2_behavior()  # graph mode and reference variables (VariableV2), as in TF 1.x

BUILD = pathlib.Path(os.environ["TGRAPH_BUILD_DIR"])
CLIENT = BUILD / "tests" / "interop_meta_graph_client"

USER_COLLECTIONS = ["my_ops", "my_tensors", "my_ints", "my_floats", "my_strings"]


def run_client(*args, check=True):
    proc = subprocess.run([str(CLIENT), *map(str, args)], capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def parse_client_output(stdout):
    """{"collections": {key: (kind, [items])}, "variables": {name: fields}, "saver_def": n}"""
    out = {"collections": {}, "variables": {}, "saver_def": None}
    for line in stdout.splitlines():
        head, _, rest = line.partition(" ")
        if head == "collection":
            key, kind, items = (rest.split(" ", 2) + [""])[:3]
            out["collections"][key] = (kind, items.split("|") if items else [])
        elif head == "variable":
            name, trainable, initializer, snapshot, initial = rest.split(" ")
            out["variables"][name] = dict(trainable=trainable == "1", initializer=initializer,
                                          snapshot=snapshot, initial_value=initial)
        elif head == "saver_def":
            out["saver_def"] = int(rest)
    return out


def build_tf_graph():
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(7)
        x = tf1.placeholder(tf.float32, [None, 4], name="x")
        labels = tf1.placeholder(tf.float32, [None, 3], name="labels")
        with tf1.variable_scope("layer1"):
            w1 = tf1.get_variable("W", [4, 8])
            b1 = tf1.get_variable("b", [8], initializer=tf1.zeros_initializer())
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf1.variable_scope("layer2"):
            w2 = tf1.get_variable("W", [8, 3])
            b2 = tf1.get_variable("b", [3], initializer=tf1.zeros_initializer())
            logits = tf.nn.bias_add(tf.matmul(h, w2), b2, name="logits")
        loss = tf.reduce_mean(tf.square(logits - labels), name="loss")
        global_step = tf1.train.get_or_create_global_step()
        train_op = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        tf1.add_to_collection(tf1.GraphKeys.TRAIN_OP, train_op)
        tf1.add_to_collection(tf1.GraphKeys.LOSSES, loss)
        tf1.add_to_collection("my_ops", h.op)
        tf1.add_to_collection("my_tensors", logits)
        tf1.add_to_collection("my_ints", 3)
        tf1.add_to_collection("my_ints", -7)
        tf1.add_to_collection("my_floats", 0.5)
        tf1.add_to_collection("my_strings", b"alpha")
        tf1.add_to_collection("my_strings", b"beta")
        saver = tf1.train.Saver()
    return g, saver


@pytest.fixture(scope="module")
def tf_meta(tmp_path_factory):
    path = tmp_path_factory.mktemp("tf") / "model.meta"
    g, saver = build_tf_graph()
    with g.as_default():
        meta = saver.export_meta_graph(str(path))
    return path, meta


def read_meta(path):
    meta = tf1.MetaGraphDef()
    meta.ParseFromString(pathlib.Path(path).read_bytes())
    return meta


def collection_values(meta, key):
    col = meta.collection_def[key]
    return list(getattr(col, col.WhichOneof("kind")).value)


def import_in_tf(path):
    """(graph, saver) after tf.compat.v1.train.import_meta_graph."""
    g = tf.Graph()
    with g.as_default():
        saver = tf1.train.import_meta_graph(str(path))
    return g, saver


def train_one_step(g, seed=0):
    rng = np.random.default_rng(seed)
    feeds = {"x:0": rng.standard_normal((5, 4)).astype(np.float32),
             "labels:0": rng.standard_normal((5, 3)).astype(np.float32)}
    with g.as_default(), tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        before = sess.run("loss:0", feeds)
        sess.run(tf1.get_collection(tf1.GraphKeys.TRAIN_OP), feeds)
        after = sess.run("loss:0", feeds)
        step = sess.run(tf1.train.get_global_step())
    return before, after, step


def test_tgraph_rebuilds_what_tensorflow_wrote(tf_meta, tmp_path):
    path, meta = tf_meta
    out = parse_client_output(run_client("roundtrip", path, tmp_path / "tg.meta").stdout)
    cols = out["collections"]
    g, _ = build_tf_graph()
    with g.as_default():
        tf_vars = tf1.global_variables()
        assert [v.op.name for v in tf_vars] == cols["variables"][1]
        assert cols["variables"][0] == "variable"
        assert [v.op.name for v in tf1.trainable_variables()] == cols["trainable_variables"][1]
        assert cols["global_step"] == ("variable", ["global_step"])
        trainable = {v.op.name for v in tf1.trainable_variables()}
        for v in tf_vars:
            got = out["variables"][v.op.name]
            assert got["trainable"] == (v.op.name in trainable)
            assert got["initializer"] == v.initializer.name
            assert got["snapshot"] == v.value().name
            assert got["initial_value"] == v.initial_value.name
        # minimize() adds its op to train_op too: the collection holds it twice.
        assert cols["train_op"] == ("operation", [o.name for o in tf1.get_collection("train_op")])
    assert cols["losses"] == ("output", ["loss:0"])
    assert cols["my_ops"] == ("operation", ["layer1/Relu"])
    assert cols["my_tensors"] == ("output", ["layer2/logits:0"])
    assert cols["my_ints"] == ("int64", ["3", "-7"])
    assert cols["my_floats"] == ("float", ["0.5"])
    assert cols["my_strings"] == ("bytes", ["alpha", "beta"])
    assert out["saver_def"] == len(meta.saver_def.SerializeToString())


def test_tensorflow_imports_tgraphs_reexport(tf_meta, tmp_path):
    path, meta = tf_meta
    tg_path = tmp_path / "tg.meta"
    run_client("roundtrip", path, tg_path)
    ours = read_meta(tg_path)
    # Same SaverDef, same collections (VariableDefs byte for byte), same nodes.
    assert ours.saver_def == meta.saver_def
    assert sorted(ours.collection_def) == sorted(meta.collection_def)
    for key in meta.collection_def:
        assert collection_values(ours, key) == collection_values(meta, key), key
    assert [n.name for n in ours.graph_def.node] == [n.name for n in meta.graph_def.node]

    g, saver = import_in_tf(tg_path)
    assert saver is not None and saver.saver_def == meta.saver_def
    with g.as_default():
        assert [v.name for v in tf1.global_variables()] == [
            "layer1/W:0", "layer1/b:0", "layer2/W:0", "layer2/b:0", "global_step:0"]
        assert len(tf1.trainable_variables()) == 4
        for key in USER_COLLECTIONS + ["train_op", "losses"]:
            ref, _ = build_tf_graph()
            with ref.as_default():
                want = [getattr(x, "name", x) for x in tf1.get_collection(key)]
            assert [getattr(x, "name", x) for x in tf1.get_collection(key)] == want, key
    before, after, step = train_one_step(g)
    assert after < before and step == 1


def test_import_scope_and_export_scope_give_the_same_graph(tf_meta, tmp_path):
    path, meta = tf_meta
    out = parse_client_output(
        run_client("roundtrip", path, tmp_path / "scoped.meta", "imported").stdout)
    assert out["collections"]["my_tensors"] == ("output", ["imported/layer2/logits:0"])
    assert "imported/layer1/W" in out["variables"]
    scoped = read_meta(tmp_path / "scoped.meta")
    assert [n.name for n in scoped.graph_def.node] == [n.name for n in meta.graph_def.node]
    assert scoped.saver_def == meta.saver_def
    for key in meta.collection_def:
        assert collection_values(scoped, key) == collection_values(meta, key), key


def test_tensorflow_imports_a_graph_tgraph_built(tmp_path):
    path = tmp_path / "built.meta"
    out = parse_client_output(run_client("build", path).stdout)
    g, saver = import_in_tf(path)
    assert saver is not None  # TF makes a default Saver for the variables
    with g.as_default():
        names = [v.op.name for v in tf1.global_variables()]
        assert names == out["collections"]["variables"][1]
        assert "global_step" in names
        assert [v.op.name for v in tf1.trainable_variables()] == [
            "layer1/W", "layer1/b", "layer2/W", "layer2/b"]
        assert tf1.get_collection("my_ints") == [3, -7]
        assert tf1.get_collection("my_floats") == [0.5]
        assert tf1.get_collection("my_strings") == [b"alpha", b"beta"]
        assert [t.name for t in tf1.get_collection("my_tensors")] == ["layer2/logits:0"]
        assert [o.name for o in tf1.get_collection("my_ops")] == ["layer1/Relu"]
    before, after, step = train_one_step(g)
    assert after < before and step == 1


@pytest.mark.parametrize("corrupt", ["truncated", "garbage", "missing"])
def test_bad_meta_files_fail_with_a_status_naming_the_file(tf_meta, tmp_path, corrupt):
    path, _ = tf_meta
    bad = tmp_path / f"{corrupt}.meta"
    if corrupt == "truncated":
        data = path.read_bytes()
        bad.write_bytes(data[: len(data) * 2 // 3])
    elif corrupt == "garbage":
        bad.write_bytes(b"\x00\xffnot a MetaGraphDef\x17" * 10)
    proc = run_client("roundtrip", bad, tmp_path / "out.meta", check=False)
    assert proc.returncode == 1
    want = "NOT_FOUND" if corrupt == "missing" else "INVALID_ARGUMENT"
    assert want in proc.stderr and str(bad) in proc.stderr, proc.stderr
    assert not (tmp_path / "out.meta").exists()
