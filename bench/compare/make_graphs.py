#!/usr/bin/env python3
"""Writes the GraphDefs of bench/compare with TensorFlow's tf.compat.v1, once, into a cache
directory: NAME.pb, the raw feed files NAME.feedI.bin and manifest.json (what to feed, fetch,
run, and how to check and count each workload; file names relative to the directory). Both runners then import the same bytes.

Initial values are numpy arrays (Consts in the graph) rather than TF's random initializers,
so both runtimes start from the same weights and their outputs and losses can be compared.

Run with the python of scripts/tf_venv.sh:  make_graphs.py OUT_DIR
"""
import json
import math
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1


class Writer:
    def __init__(self, out):
        self.out = out
        self.manifest = {"tensorflow": tf.__version__, "workloads": []}

    def add(self, name, graph, feeds, fetches, targets=(), init=(), unit="us", work=1.0,
            check=None, **extra):
        """feeds: {tensor name: numpy array}. unit: "us" (time per run), "GFLOP/s" (work =
        FLOP per run) or "samples/s" (work = samples per run). check: how outputs compare."""
        path = os.path.join(self.out, name + ".pb")
        graph_def = graph if isinstance(graph, tf1.GraphDef) else graph.as_graph_def()
        with open(path, "wb") as f:
            f.write(graph_def.SerializeToString())
        feed_list = []
        for i, (tensor, value) in enumerate(feeds.items()):
            file = os.path.join(self.out, "%s.feed%d.bin" % (name, i))
            value.tofile(file)
            dtype = {np.float32: "float", np.int32: "int32", np.int64: "int64"}[value.dtype.type]
            feed_list.append({"tensor": tensor, "dtype": dtype, "shape": list(value.shape),
                              "file": os.path.basename(file)})
        entry = {"name": name, "graph": os.path.basename(path), "feeds": feed_list, "fetches": list(fetches),
                 "targets": list(targets), "init": list(init), "unit": unit, "work": work,
                 "check": check or {"runs": 1, "rtol": 1e-5}, "nodes": len(graph_def.node)}
        entry.update(extra)
        self.manifest["workloads"].append(entry)

    def save(self):
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump(self.manifest, f, indent=1)


def chain(w, nodes):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [], name="x")
        c = tf.constant(1.0, name="c")
        last = x
        for i in range(nodes):
            last = tf.add(last, c, name="add%d" % i)  # AddV2
    w.add("chain%d" % nodes, g, {"x:0": np.array(2.0, np.float32)}, [last.name],
          check={"runs": 1, "rtol": 0, "expect": 2.0 + nodes})


def matmul(w, n, bf16=False):
    rng = np.random.RandomState(n)
    g = tf1.Graph()
    with g.as_default():
        a0 = rng.standard_normal((n, n)).astype(np.float32)
        b0 = rng.standard_normal((n, n)).astype(np.float32)
        if bf16:  # bf16 variables initialized by a Cast of the float values
            a = tf1.Variable(tf.cast(a0, tf.bfloat16), name="A")
            b = tf1.Variable(tf.cast(b0, tf.bfloat16), name="B")
        else:
            a = tf1.Variable(a0, name="A")
            b = tf1.Variable(b0, name="B")
        c = tf.matmul(a, b, name="C")
        init = tf1.global_variables_initializer()
    w.add("matmul%d%s" % (n, "_bf16" if bf16 else ""), g, {}, [c.name], init=[init.name],
          unit="GFLOP/s", work=2.0 * n ** 3,
          check={"runs": 1, "rtol": 2e-2 if bf16 else 1e-4, "scale": "max"})


def dense(h, n_in, n_out, name, rng, relu):
    W = tf1.Variable(rng.normal(0, math.sqrt(2.0 / n_in), (n_in, n_out)).astype(np.float32),
                     name=name + "/W")
    b = tf1.Variable(np.zeros(n_out, np.float32), name=name + "/b")
    z = tf.nn.bias_add(tf.matmul(h, W), b)
    return tf.nn.relu(z) if relu else z


def mlp(w, batch=128):
    rng = np.random.RandomState(1)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 784], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        h = dense(x, 784, 512, "l1", rng, True)
        h = dense(h, 512, 512, "l2", rng, True)
        logits = dense(h, 512, 10, "l3", rng, False)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        train = tf1.train.AdamOptimizer(1e-3).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
    feeds = {"x:0": rng.standard_normal((batch, 784)).astype(np.float32),
             "y:0": rng.randint(0, 10, batch).astype(np.int64)}
    w.add("mlp", g, feeds, [loss.name], [train.name], [init.name], unit="samples/s",
          work=batch, check={"runs": 10, "rtol": 1e-4})


def cnn(w, batch=64):
    rng = np.random.RandomState(2)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        y = tf1.placeholder(tf.int64, [None], name="y")
        h = x
        for i, (cin, cout) in enumerate([(1, 32), (32, 64)]):
            k = tf1.Variable(rng.normal(0, math.sqrt(2.0 / (25 * cin)), (5, 5, cin, cout))
                             .astype(np.float32), name="conv%d/W" % i)
            b = tf1.Variable(np.zeros(cout, np.float32), name="conv%d/b" % i)
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, k, [1, 1, 1, 1], "SAME"), b))
            h = tf.nn.max_pool2d(h, 2, 2, "SAME")
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        logits = dense(h, 7 * 7 * 64, 10, "fc", rng, False)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
        train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
    feeds = {"x:0": rng.uniform(0, 1, (batch, 28, 28, 1)).astype(np.float32),
             "y:0": rng.randint(0, 10, batch).astype(np.int64)}
    w.add("cnn", g, feeds, [loss.name], [train.name], [init.name], unit="samples/s",
          work=batch, check={"runs": 10, "rtol": 1e-3})


def word2vec(w, batch=128, vocab=50000, dim=128, sampled=64):
    """The seeds' skip-gram step (CS20 word2vec): embedding_lookup, nce_loss, SGD lr 1.0."""
    rng = np.random.RandomState(3)
    g = tf1.Graph()
    with g.as_default():
        center = tf1.placeholder(tf.int32, [batch], name="center_words")
        target = tf1.placeholder(tf.int32, [batch, 1], name="target_words")
        embed_matrix = tf1.Variable(rng.uniform(-1, 1, (vocab, dim)).astype(np.float32),
                                    name="embed_matrix")
        embed = tf.nn.embedding_lookup(embed_matrix, center, name="embed")
        nce_weight = tf1.Variable(
            np.clip(rng.normal(0, 1, (vocab, dim)), -2, 2).astype(np.float32) / math.sqrt(dim),
            name="nce_weight")
        nce_bias = tf1.Variable(np.zeros(vocab, np.float32), name="nce_bias")
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weight, biases=nce_bias,
                                             labels=target, inputs=embed,
                                             num_sampled=sampled, num_classes=vocab),
                              name="loss")
        train = tf1.train.GradientDescentOptimizer(1.0).minimize(loss, name="train")
        init = tf1.global_variables_initializer()
    # Zipf-like ids, as a corpus gives them.
    ids = lambda *shape: np.minimum(  # noqa: E731
        np.exp(rng.uniform(0, math.log(vocab + 1), shape)).astype(np.int64) - 1,
        vocab - 1).astype(np.int32)
    feeds = {"center_words:0": ids(batch), "target_words:0": ids(batch, 1)}
    # The sampled candidates come from each runtime's own random generator, so the losses
    # can only agree statistically: compared over several steps with a loose tolerance.
    w.add("word2vec", g, feeds, [loss.name], [train.name], [init.name], unit="samples/s",
          work=batch, check={"runs": 10, "rtol": 0.1, "mean": True})


LSTM = {"batch": 32, "steps": 20, "features": 32, "units": 128}


def freeze_keras(model, input_shape, path):
    """Writes `model`'s forward pass (training=False) frozen as the model zoo of issue 19
    freezes it: a tf.function whose variables convert_variables_to_constants_v2 turns into
    Consts (lowering a layer's loop to TF1 dataflow control flow over TensorList ops). Needs
    TF2 behaviour, so it runs in a process of its own (main() disables it for the other
    graphs); prints the feed's and the fetch's names as JSON."""
    from tensorflow.python.framework.convert_to_constants import \
        convert_variables_to_constants_v2
    fn = tf.function(lambda x: model(x, training=False))
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function(
        tf.TensorSpec(input_shape, tf.float32, name="x")))
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    print(json.dumps({"feed": frozen.inputs[0].name, "fetch": frozen.outputs[0].name}))


def frozen_keras_graph(w, name):
    """The GraphDef `make_graphs.py --keras-NAME` writes into the output directory, and its
    feed's and fetch's names."""
    path = os.path.join(w.out, name + ".pb")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--keras-" + name, path],
                          check=True, capture_output=True, text=True)
    names = json.loads(done.stdout.strip().splitlines()[-1])
    with open(path, "rb") as f:
        return tf1.GraphDef.FromString(f.read()), names


def write_keras_lstm(path):
    """A Keras LSTM layer, frozen."""
    keras = tf.keras
    keras.utils.set_random_seed(7)
    c = LSTM
    model = keras.Sequential([keras.Input((c["steps"], c["features"])),
                              keras.layers.LSTM(c["units"])])
    freeze_keras(model, (c["batch"], c["steps"], c["features"]), path)


def lstm(w):
    """The LSTM model's step of issue 19: a frozen Keras LSTM layer's forward pass (a while
    loop of `steps` iterations, each reading a TensorList element, two MatMuls and the gates),
    batch fed, the last output fetched."""
    graph_def, names = frozen_keras_graph(w, "lstm")
    c = LSTM
    x = np.random.RandomState(4).uniform(-1, 1, (c["batch"], c["steps"], c["features"]))
    w.add("lstm", graph_def, {names["feed"]: x.astype(np.float32)}, [names["fetch"]], unit="samples/s",
          work=c["batch"], check={"runs": 1, "rtol": 1e-4}, iterations=c["steps"])


# Keras applications at batch 1 (issue 20's first table has ResNet50): input size, and the
# constructor's extra arguments.
APPLICATIONS = {
    "resnet50": (224, "ResNet50"),
    "mobilenet_v2": (224, "MobileNetV2"),
    "inception_v3": (299, "InceptionV3"),
    "efficientnet_b0": (224, "EfficientNetB0"),
    "xception": (299, "Xception"),
    "densenet121": (224, "DenseNet121"),
}


def write_keras_application(name, path):
    """A Keras application (random weights: weights=None), frozen. Its batch normalizations
    get random statistics first, as a trained model has: a fresh one's zero means and offsets
    would turn each normalization's offset into an add of zeros, which a graph optimizer
    drops, and the model would not be the one users run."""
    keras = tf.keras
    keras.utils.set_random_seed(11)
    size, ctor = APPLICATIONS[name]
    model = getattr(keras.applications, ctor)(weights=None, input_shape=(size, size, 3))
    rng = np.random.RandomState(12)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            # gamma and beta where the layer has them (InceptionV3's have no gamma), then the
            # moving mean and variance.
            values = []
            for weight in layer.weights:
                if "moving_variance" in weight.name or "gamma" in weight.name:
                    values.append(rng.uniform(0.5, 1.5, weight.shape))
                else:
                    values.append(rng.uniform(-0.2, 0.2, weight.shape))
            layer.set_weights([v.astype(np.float32) for v in values])
    freeze_keras(model, (1, size, size, 3), path)


def application(w, name):
    """Inference of a frozen Keras application at batch 1 (ResNet50: 53 convolutions, each
    with its batch normalization; MobileNetV2: depthwise separable blocks; InceptionV3:
    1x7 / 7x1 and 5x5 windows, concatenations; EfficientNetB0: swish, an IdentityN after
    each, squeeze-and-excitation; Xception: separable convolutions, a 1536x2048 filter;
    DenseNet121: concatenations, each normalized before its Relu), the classifier's softmax
    fetched."""
    graph_def, names = frozen_keras_graph(w, name)
    size = APPLICATIONS[name][0]
    x = np.random.RandomState(13).uniform(0, 1, (1, size, size, 3))
    w.add(name, graph_def, {names["feed"]: x.astype(np.float32)}, [names["fetch"]],
          check={"runs": 1, "rtol": 1e-4})


def main():
    if sys.argv[1] == "--keras-lstm":
        write_keras_lstm(sys.argv[2])
        return
    if sys.argv[1].startswith("--keras-") and sys.argv[1][len("--keras-"):] in APPLICATIONS:
        write_keras_application(sys.argv[1][len("--keras-"):], sys.argv[2])
        return
    tf1.disable_v2_behavior()
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    w = Writer(out)
    chain(w, 1)
    chain(w, 10)
    matmul(w, 256)
    matmul(w, 1024)
    matmul(w, 1024, bf16=True)
    mlp(w)
    cnn(w)
    word2vec(w)
    lstm(w)
    for name in APPLICATIONS:
        application(w, name)
    w.save()
    print("wrote %d workloads to %s" % (len(w.manifest["workloads"]), out))


if __name__ == "__main__":
    main()
