#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/<target>/ (seed-*; crash-* and cov-* files are kept).

Usage: make_corpus.py [TARGET...] (every target without arguments). op_run's seeds need the
tgraph tool of a build (TGRAPH_TOOL, else build/tools/tgraph) to list the ops.

Run with the TensorFlow venv's python (scripts/tf_venv.sh): the GraphDefs, MetaGraphs,
checkpoints and event files are TensorFlow's own, the .npy files numpy's. Deterministic
apart from what TensorFlow itself writes (wall times in event files)."""
import functools
import os
import random
import struct
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
# TF1 graphs, as tgraph reads them: reference variables, Switch/Merge control flow.
v1.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def out_dir(target):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if name.startswith("seed-"):
            os.remove(os.path.join(d, name))
    return d


def write(target_dir, name, data):
    with open(os.path.join(target_dir, "seed-" + name), "wb") as f:
        f.write(data)


@functools.lru_cache(maxsize=None)
def graphs():
    """Small TF1 graphs: name -> (graph, saver or None)."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = v1.get_variable("w", [3, 2], initializer=v1.ones_initializer())
        b = v1.get_variable("b", [2], initializer=v1.zeros_initializer())
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        loss = tf.reduce_mean(tf.square(y), name="loss")
        v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        out["mlp"] = (g, v1.train.Saver())
    g = tf.Graph()
    with g.as_default():
        img = v1.placeholder(tf.float32, [1, 8, 8, 2], name="img")
        k = tf.constant(np.ones([3, 3, 2, 4], np.float32), name="k")
        c = tf.nn.conv2d(img, k, [1, 1, 1, 1], "SAME", name="conv")
        p = tf.nn.max_pool2d(c, 2, 2, "VALID", name="pool")
        tf.reshape(p, [-1, 64], name="flat")
        out["conv"] = (g, None)
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1, 2], [3, 4]], name="a")
        s = tf.constant(["x", "yy"], name="s")
        pred = v1.placeholder(tf.bool, [], name="pred")
        r = tf.cond(pred, lambda: a * 2, lambda: a + 1, name="cond")
        tf.concat([r, a], axis=0, name="cat")
        tf.strings.join([s, s], separator="-", name="join")
        tf.gather(a, [1, 0], name="gather")
        out["cond"] = (g, None)
    g = tf.Graph()
    with g.as_default():
        i = tf.constant(0, name="i")
        v1.while_loop(lambda i: i < 10, lambda i: i + 1, [i], name="loop")
        out["while"] = (g, None)
    return out


def graphdef_corpus(gs):
    d = out_dir("graphdef_import")
    for name, (g, _) in gs.items():
        gd = g.as_graph_def()
        write(d, name + ".pb", gd.SerializeToString())
    # One in text format (the target tries it when binary parsing fails).
    write(d, "cond.pbtxt", str(gs["cond"][0].as_graph_def()).encode())


def meta_graph_corpus(gs):
    d = out_dir("meta_graph_import")
    for name, (g, saver) in gs.items():
        with g.as_default():
            mg = v1.train.export_meta_graph(
                saver_def=saver.as_saver_def() if saver else None)
        write(d, name + ".meta", mg.SerializeToString())
    with gs["conv"][0].as_default():
        write(d, "conv.metatxt", str(v1.train.export_meta_graph()).encode())


def checkpoint_corpus():
    d = out_dir("checkpoint_read")
    cases = {
        "floats": {"w": np.arange(6, dtype=np.float32).reshape(2, 3),
                   "b": np.zeros([2], np.float64)},
        "mixed": {"i": np.array([1, -2, 3], np.int64), "s": np.array([b"a", b"bc", b""]),
                  "t": np.array(True), "h": np.ones([2, 2], np.float16),
                  "c": np.array([1 + 2j], np.complex64)},
        "empty": {"e": np.zeros([0, 4], np.int32)},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, values in cases.items():
            g = tf.Graph()
            with g.as_default():
                vs = [v1.Variable(v, name=k) for k, v in values.items()]
                saver = v1.train.Saver(vs)
                with v1.Session() as sess:
                    sess.run(v1.global_variables_initializer())
                    prefix = saver.save(sess, os.path.join(tmp, name), write_meta_graph=False)
            index = open(prefix + ".index", "rb").read()
            data = open(prefix + ".data-00000-of-00001", "rb").read()
            assert len(index) < 65536
            write(d, name + ".ckpt", struct.pack("<H", len(index)) + index + data)
        # A partitioned variable: its slices are assembled on reading.
        g = tf.Graph()
        with g.as_default():
            pv = v1.get_variable("p", [6, 2], initializer=v1.ones_initializer(),
                                 partitioner=v1.fixed_size_partitioner(3))
            saver = v1.train.Saver(list(pv))
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                prefix = saver.save(sess, os.path.join(tmp, "part"), write_meta_graph=False)
        index = open(prefix + ".index", "rb").read()
        data = open(prefix + ".data-00000-of-00001", "rb").read()
        write(d, "partitioned.ckpt", struct.pack("<H", len(index)) + index + data)


def event_corpus():
    d = out_dir("event_file_read")
    with tempfile.TemporaryDirectory() as tmp:
        g = tf.Graph()
        with g.as_default():
            x = tf.constant([1.0, 2.0, 3.0])
            summaries = v1.summary.merge([
                v1.summary.scalar("loss", tf.reduce_mean(x)),
                v1.summary.histogram("hist", x),
                v1.summary.text("note", tf.constant("hello")),
            ])
            writer = v1.summary.FileWriter(tmp, graph=g)
            with v1.Session() as sess:
                for step in range(2):
                    writer.add_summary(sess.run(summaries), step)
            writer.close()
        for i, name in enumerate(sorted(os.listdir(tmp))):
            write(d, "events%d" % i, open(os.path.join(tmp, name), "rb").read())
        # A record truncated in its data, and an empty file.
        data = open(os.path.join(tmp, sorted(os.listdir(tmp))[0]), "rb").read()
        write(d, "truncated", data[: len(data) // 2])
        write(d, "empty", b"")


def npy_corpus():
    d = out_dir("npy_read")
    arrays = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64_fortran": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "i64_be": np.arange(4, dtype=">i8"),
        "bool": np.array([True, False, True]),
        "c64": np.array([1 + 2j, 3 - 4j], np.complex64),
        "f16": np.ones([2, 2], np.float16),
        "u8_scalar": np.array(7, np.uint8),
        "empty": np.zeros([0, 3], np.int32),
        "bytes": np.array([b"ab", b"c"]),
        "unicode": np.array(["h\u00e9", "x"]),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, a in arrays.items():
            path = os.path.join(tmp, name + ".npy")
            np.save(path, a)
            write(d, name + ".npy", open(path, "rb").read())
        # Format 2.0 (a 4-byte header length).
        path = os.path.join(tmp, "v2.npy")
        with open(path, "wb") as f:
            np.lib.format.write_array(f, np.arange(3, dtype=np.int16), version=(2, 0))
        write(d, "v2.npy", open(path, "rb").read())


def fnv1a32(name):
    """op_run.cc's OpHash."""
    h = 2166136261
    for c in name.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


# op_run.cc's Excluded: ops the target leaves out (a seed for one would run another op).
OP_RUN_EXCLUDED = ("Save", "Restore", "File", "Print", "Merge", "Sharded", "Writer", "Queue",
                   "Barrier")


def op_run_corpus():
    # One seed per op the tgraph tool lists (TGRAPH_TOOL, else build/tools/tgraph): the op's
    # 4-byte name hash, which op_run maps to that op whatever ops are added later, then bytes
    # that decode into attrs and small inputs (values near 0 make valid axes and sizes), drawn
    # from a generator seeded with the op's name, so each op's seed stays the same too.
    tool = os.environ.get("TGRAPH_TOOL", os.path.join(HERE, "..", "build", "tools", "tgraph"))
    listing = subprocess.run([tool, "ops"], check=True, capture_output=True, text=True).stdout
    names = sorted({line.split("(", 1)[0] for line in listing.splitlines()
                    if line and not line[0].isspace() and "(" in line})
    d = out_dir("op_run")
    for name in names:
        if any(word in name for word in OP_RUN_EXCLUDED):
            continue
        rng = random.Random("op_run:" + name)
        tail = bytes(rng.choice([0, 0, 1, 2, 3, 200, 255, rng.randrange(256)]) for _ in range(48))
        write(d, name, struct.pack("<I", fnv1a32(name)) + tail)


def main():
    # make_corpus.py [TARGET...]: only those targets' seeds (all without arguments).
    writers = {"graphdef_import": lambda: graphdef_corpus(graphs()),
               "meta_graph_import": lambda: meta_graph_corpus(graphs()),
               "checkpoint_read": checkpoint_corpus, "event_file_read": event_corpus,
               "npy_read": npy_corpus, "op_run": op_run_corpus}
    targets = sys.argv[1:] or list(writers)
    unknown = [t for t in targets if t not in writers]
    if unknown:
        print("unknown targets: %s (known: %s)" % (", ".join(unknown), ", ".join(writers)),
              file=sys.stderr)
        return 2
    for target in targets:
        writers[target]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
