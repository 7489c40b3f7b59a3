#!/usr/bin/env python3
"""The Python binding (import tgraph as tf) against TensorFlow's tf.compat.v1 in one process,
the same graphs built with each, timed alternately:

  feed:  sess.run of a 1-node graph (Identity of a placeholder) with one 16-float feed;
         time per call (target: >= 5x less than TensorFlow's).
  callable: the same through sess.make_callable(y, [x]); time per call.
  mlp:   one training step of a 784-512-512-10 ReLU MLP with Adam on a batch of 128 random
         samples (sparse softmax cross entropy); samples per second (target: >= 1.3x TF's).

Run with the python of scripts/tf_venv.sh and a build tree's package:
  PYTHONPATH=build/python $(scripts/tf_venv.sh) bench/compare_python.py [--rounds 5]
"""
import argparse
import os
import statistics
import time

import numpy as np

import tgraph  # first: libtgraph and its plugins keep their own protobuf (RTLD_DEEPBIND)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()


def feed_graph(m, use_callable=False):
    g = m.Graph()
    with g.as_default():
        x = m.placeholder(m.float32, [None], name="x")
        y = m.identity(x, name="y")
    sess = m.Session(graph=g)
    value = np.ones(16, np.float32)
    if use_callable:
        call = sess.make_callable(y, [x])
    else:
        def call(v):
            return sess.run(y, {x: v})
    for _ in range(200):
        call(value)

    def step(n):
        t0 = time.perf_counter()
        for _ in range(n):
            call(value)
        return (time.perf_counter() - t0) / n
    return step


def mlp_graph(m, batch=128, seed=0):
    rng = np.random.RandomState(seed)
    xs = rng.rand(batch, 784).astype(np.float32)
    ys = rng.randint(0, 10, batch).astype(np.int32)
    g = m.Graph()
    with g.as_default():
        x = m.placeholder(m.float32, [None, 784], name="x")
        y = m.placeholder(m.int32, [None], name="y")
        h = x
        for i, (n_in, n_out) in enumerate([(784, 512), (512, 512), (512, 10)]):
            w = m.Variable(rng.randn(n_in, n_out).astype(np.float32) * 0.05, name=f"w{i}")
            b = m.Variable(np.zeros(n_out, np.float32), name=f"b{i}")
            h = m.matmul(h, w) + b
            if i < 2:
                h = m.nn.relu(h)
        loss = m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = m.train.AdamOptimizer(1e-3).minimize(loss)
        init = m.global_variables_initializer()
    sess = m.Session(graph=g)
    sess.run(init)
    for _ in range(5):
        sess.run(train, {x: xs, y: ys})

    def step(n):
        t0 = time.perf_counter()
        for _ in range(n):
            sess.run(train, {x: xs, y: ys})
        return batch * n / (time.perf_counter() - t0)
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--feed-calls", type=int, default=5000)
    ap.add_argument("--mlp-steps", type=int, default=20)
    args = ap.parse_args()

    for name, use_callable in (("feed", False), ("callable", True)):
        ours, theirs = feed_graph(tgraph, use_callable), feed_graph(tf1, use_callable)
        a, b = [], []
        for _ in range(args.rounds):
            a.append(ours(args.feed_calls))
            b.append(theirs(args.feed_calls))
        ta, tb = statistics.median(a) * 1e6, statistics.median(b) * 1e6
        # Each round's own ratio too: on a loaded machine the two halves of a round see about
        # the same load, so the median of those ratios moves less than the ratio of the medians.
        r = sorted(y / x for x, y in zip(a, b))
        print(f"{name + ':':9} tgraph {ta:.1f} us/call, TensorFlow {tb:.1f} us/call, "
              f"{tb / ta:.1f}x (per round: median {statistics.median(r):.1f}x, "
              f"{r[0]:.1f}-{r[-1]:.1f}x)")

    ours, theirs = mlp_graph(tgraph), mlp_graph(tf1)
    a, b = [], []
    for _ in range(args.rounds):
        a.append(ours(args.mlp_steps))
        b.append(theirs(args.mlp_steps))
    sa, sb = statistics.median(a), statistics.median(b)
    r = sorted(x / y for x, y in zip(a, b))
    print(f"mlp:      tgraph {sa:.0f} samples/s, TensorFlow {sb:.0f} samples/s, {sa / sb:.2f}x "
          f"(per round: median {statistics.median(r):.2f}x, {r[0]:.2f}-{r[-1]:.2f}x)")


if __name__ == "__main__":
    main()
