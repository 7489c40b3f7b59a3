"""Saver, MetaGraphs, checkpoints, GraphDef import/export, freezing, event files (seeds/002's
save/restore, import_meta_graph and collections through a MetaGraph; seeds/000's restore)."""
import os

import numpy as np
import pytest

import tgraph as tf


def _model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable([0.5], name="b")
    y = tf.add(tf.matmul(x, w), b, name="final_op")
    return x, w, b, y


def test_save_restore_and_latest_checkpoint(tmp_path):
    x, w, b, y = _model()
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, [[3.0], [4.0]]))
        paths = [saver.save(sess, prefix, global_step=i) for i in (1, 2, 3)]
    assert paths[-1] == prefix + "-3"
    assert saver.last_checkpoints == [prefix + "-2", prefix + "-3"]
    assert not os.path.exists(prefix + "-1.index")
    assert os.path.exists(prefix + "-3.meta")
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-3"
    ckpt = tf.train.get_checkpoint_state(str(tmp_path))
    assert ckpt.model_checkpoint_path == prefix + "-3"
    assert dict(tf.train.list_variables(str(tmp_path))) == {"b": [1], "global_step": [],
                                                             "w": [2, 1]}
    assert tf.train.load_variable(str(tmp_path), "w").tolist() == [[3.0], [4.0]]
    with tf.Session() as sess:
        if ckpt and ckpt.model_checkpoint_path:
            saver.restore(sess, ckpt.model_checkpoint_path)
        assert sess.run(y, {x: [[1.0, 1.0]]}).tolist() == [[7.5]]
        assert sess.run(step) == 0
    assert tf.train.latest_checkpoint(str(tmp_path / "none")) is None


def test_import_meta_graph_restores_graph_and_collections(tmp_path):
    x, w, b, y = _model()
    tf.add_to_collection("training_collection", y)
    saver = tf.train.Saver()
    checkpoint_path = str(tmp_path / "trigger_model_all")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, checkpoint_path)
    tf.reset_default_graph()
    config = tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=True))
    with tf.Session(config=config) as sess:
        saver = tf.train.import_meta_graph(checkpoint_path + ".meta")
        saver.restore(sess, checkpoint_path)
        graph = sess.graph
        output1 = graph.get_tensor_by_name("final_op:0")
        output2 = graph.get_operation_by_name("final_op").outputs[0]
        assert output1 is output2
        assert output1.op is graph.get_operation_by_name("final_op")
        x2 = graph.get_tensor_by_name("x:0")
        assert sess.run(output1, {x2: [[1.0, 1.0]]}).tolist() == [[3.5]]
        assert tf.get_collection("training_collection") == [output1]
        assert [v.name for v in tf.trainable_variables()] == ["w:0", "b:0"]


def test_export_meta_graph_message(tmp_path):
    _model()
    mg = tf.train.export_meta_graph(str(tmp_path / "my_graph.meta"))
    assert isinstance(mg, tf.MetaGraphDef)
    assert [n.name for n in mg.graph_def.node][:2] == ["x", "w/initial_value"]
    assert "trainable_variables" in mg.collection_def
    assert os.path.getsize(tmp_path / "my_graph.meta") == len(mg.SerializeToString())


def test_graph_def_roundtrip_and_import(tmp_path):
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.placeholder(tf.float32, name="c")
    d = a * b + c
    e = tf.multiply(d, 2, name="e")
    gd = tf.get_default_graph().as_graph_def()
    assert [n.name for n in gd.node] == ["a", "b", "c", "mul", "add", "e/y", "e"]
    assert list(gd.node[3].input) == ["a", "b"]
    path = tf.train.write_graph(gd, str(tmp_path), "g.pbtxt")
    assert 'name: "mul"' in open(path).read()
    with tf.Graph().as_default() as g2:
        x = tf.constant(3.0, name="x")
        e2, mul = tf.import_graph_def(gd, input_map={"a:0": x},
                                      return_elements=["e:0", "mul"])
        assert e2.name == "import/e:0" and mul.name == "import/mul"
        with tf.Session() as sess:
            feed = {g2.get_tensor_by_name("import/b:0"): 2.0,
                    g2.get_tensor_by_name("import/c:0"): 1.0}
            assert sess.run(e2, feed) == 14.0
        tf.import_graph_def(gd, name="")
        assert g2.get_operation_by_name("mul").type == "Mul"


def test_freeze_variables_to_constants():
    x, w, b, y = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), ["final_op"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["w"] == "Const" and ops["b"] == "Const" and "w/Assign" not in ops
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(frozen, return_elements=["final_op:0"], name="")
        with tf.Session() as sess:
            assert sess.run(out, {"x:0": [[1.0, 1.0]]}).tolist() == [[3.5]]


def test_file_writer_and_summaries(tmp_path):
    loss = tf.placeholder(tf.float32, [], name="loss")
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("h", tf.constant([1.0, 2.0, 3.0]))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path / "lr0.1"), sess.graph)
        for step in range(3):
            writer.add_summary(sess.run(merged, {loss: 1.0 / (step + 1)}), step)
        writer.close()
    files = os.listdir(tmp_path / "lr0.1")
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.")
    assert os.path.getsize(tmp_path / "lr0.1" / files[0]) > 100
    assert tf.summary.merge_all(key="nothing") is None


def test_scatter_update():
    v = tf.Variable([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], name="v")
    upd = tf.scatter_update(v, [0, 2], [[9.0, 9.0], [7.0, 7.0]])
    add = tf.scatter_add(v, [1], [[10.0, 10.0]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(upd).tolist() == [[9.0, 9.0], [2.0, 2.0], [7.0, 7.0]]
        sess.run(add)
        assert sess.run(v).tolist() == [[9.0, 9.0], [12.0, 12.0], [7.0, 7.0]]


def test_run_options_and_metadata():
    x = tf.constant([1.0, 2.0])
    y = tf.reduce_sum(x * x, name="y")
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    meta = tf.RunMetadata()
    with tf.Session() as sess:
        assert sess.run(y, options=opts, run_metadata=meta) == 5.0
    names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
    assert "y" in names
    assert meta.step_stats.dev_stats[0].device.endswith("CPU:0")


def test_run_metadata_names_the_thread_of_each_node():
    # Two independent products, fed so that nothing folds: the caller (thread 0) keeps one,
    # an inter-op pool thread (1 or 2) runs the other.
    x = tf.placeholder(tf.float32, [128, 128], name="x")
    left = tf.matmul(x, x, name="left")
    right = tf.matmul(x, x, transpose_b=True, name="right")
    total = tf.add(left, right, name="total")
    config = tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1)
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session(config=config) as sess:
        for _ in range(3):
            meta = tf.RunMetadata()
            sess.run(total, feed_dict={x: np.ones([128, 128], np.float32)}, options=opts,
                     run_metadata=meta)
            threads = {n.node_name: n.thread_id
                       for d in meta.step_stats.dev_stats for n in d.node_stats}
            assert {threads["left"], threads["right"]} <= {0, 1, 2}
            assert threads["left"] != threads["right"]


def test_variable_helpers():
    v = tf.Variable(tf.ones([2]), name="v")
    w = tf.Variable(v.initialized_value() * 2, name="w")
    rep = tf.report_uninitialized_variables()
    with tf.Session() as sess:
        assert sorted(sess.run(rep).tolist()) == [b"v", b"w"]
        sess.run(tf.variables_initializer([v, w]))
        assert sess.run(w).tolist() == [2.0, 2.0]
        assert sess.run(tf.is_variable_initialized(v))
        v.load([5.0, 6.0], sess)
        assert sess.run(v).tolist() == [5.0, 6.0]
        sess.run(v.assign_add([1.0, 1.0]))
        assert v.eval(sess).tolist() == [6.0, 7.0]
    _ = np
    with pytest.raises(ValueError):
        tf.Variable(None)


def _traced_types(fetch, feed, config=None):
    meta = tf.RunMetadata()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session(config=config) as sess:
        value = sess.run(fetch, feed_dict=feed, options=opts, run_metadata=meta)
    types = sorted(n.timeline_label.split(" = ")[1][:-2]
                   for d in meta.step_stats.dev_stats for n in d.node_stats)
    return value, types


def test_rewriter_config_switches_the_plan_time_rewrites():
    # -(relu(identity(x) @ w + b) * (0.5 + 0.5)): folding, then x * 1, Identity removal and (no
    # faster plain MatMul kernel being loaded, such as oneDNN's) fusion to do.
    from tgraph.protos import RewriterConfig as rc
    x = tf.placeholder(tf.float32, [2, 2])
    w = tf.constant([[0.5, -1.0], [2.0, 0.25]])
    b = tf.constant([0.25, -0.5])
    one = tf.add(tf.constant(0.5), tf.constant(0.5))
    y = -(tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.identity(x), w), b)) * one)
    feed = {x: np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)}

    def config(**switches):
        return tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=rc(**switches)))

    # The rewrites are on by default.
    on_value, on_types = _traced_types(y, feed)
    assert not {"AddV2", "Mul", "Identity"} & set(on_types), on_types
    # disable_meta_optimizer: none runs; every op of the graph does.
    off_value, off_types = _traced_types(y, feed, config(disable_meta_optimizer=True))
    assert {"MatMul", "BiasAdd", "Relu", "AddV2", "Mul", "Identity"} <= set(off_types)
    np.testing.assert_array_equal(on_value, off_value)
    # One switch OFF: only its rewrite stays undone.
    value, types = _traced_types(y, feed, config(constant_folding=rc.OFF))
    assert "AddV2" in types and "Mul" in types and "Identity" not in types
    np.testing.assert_array_equal(on_value, value)
    value, types = _traced_types(y, feed, config(remapping=rc.OFF))
    assert "MatMul" in types and "_FusedMatMul" not in types and "AddV2" not in types
    np.testing.assert_array_equal(on_value, value)
    # TF's dependency optimizer also removes Identity nodes.
    assert "Identity" in _traced_types(y, feed, config(dependency_optimization=rc.OFF))[1]
    # An explicit optimizer list runs only those.
    value, types = _traced_types(y, feed, config(optimizers=["constfold"]))
    assert "AddV2" not in types and "Identity" in types and "Mul" in types
    np.testing.assert_array_equal(on_value, value)
    # Mixed precision (off by default) is switched ON by either of TF's fields, 23 and 31;
    # it rounds through bfloat16 only where a native bf16 kernel is loaded.
    assert rc.DESCRIPTOR.fields_by_name["auto_mixed_precision"].number == 23
    assert rc.DESCRIPTOR.fields_by_name["auto_mixed_precision_onednn_bfloat16"].number == 31
    for field in ("auto_mixed_precision", "auto_mixed_precision_onednn_bfloat16"):
        value, types = _traced_types(y, feed, config(**{field: rc.ON}))
        np.testing.assert_allclose(on_value, value, rtol=2e-2, atol=1e-2)
    # A ConfigProto serialized by TensorFlow (the field numbers match) reads the same.
    parsed = tf.ConfigProto.FromString(config(disable_meta_optimizer=True).SerializeToString())
    assert parsed.graph_options.rewrite_options.disable_meta_optimizer
