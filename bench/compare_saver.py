#!/usr/bin/env python3
"""tf.train.Saver against tgraph's Saver, side by side in one run: the same N float variables
of M MiB (1 GiB by default), saved and restored R times by each, alternating, in the V2
format on the same disk. Prints each side's median seconds, GB/s and the ratio.

Run with the python of scripts/tf_venv.sh (real TensorFlow) and a build tree:
  $(scripts/tf_venv.sh) bench/compare_saver.py [--build build] [--variables 16] [--mib 64] [--runs 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()


def tensorflow_times(directory, variables, mib, runs):
    g = tf1.Graph()
    with g.as_default():
        for i in range(variables):
            tf1.Variable(tf.fill([mib * 1024, 256], 1.0 + i), name="v%d" % i)
        saver = tf1.train.Saver(max_to_keep=1)
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = os.path.join(directory, "tf.ckpt")
            for _ in range(runs):
                t0 = time.perf_counter()
                saver.save(sess, prefix, write_meta_graph=False)
                save = time.perf_counter() - t0
                t0 = time.perf_counter()
                saver.restore(sess, prefix)
                yield save, time.perf_counter() - t0


def tgraph_times(program, directory, variables, mib, runs):
    out = subprocess.run([program, directory, str(variables), str(mib), str(runs)],
                         check=True, capture_output=True, text=True).stdout.split()
    pairs = dict(save=[], restore=[])
    for kind, seconds in zip(out[0::2], out[1::2]):
        pairs[kind].append(float(seconds))
    return list(zip(pairs["save"], pairs["restore"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--variables", type=int, default=16)
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--dir", default=None, help="where the checkpoints go (default: a temp dir)")
    a = p.parse_args()
    program = os.path.join(a.build, "bench", "saver_runs")
    os.environ["TGRAPH_PLUGIN_PATH"] = os.path.join(a.build, "plugins")
    gib = a.variables * a.mib / 1024.0
    results = {"tensorflow": [], "tgraph": []}
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        for _ in range(a.runs):  # alternate: one save+restore of each per round
            results["tensorflow"] += list(tensorflow_times(d, a.variables, a.mib, 1))
            results["tgraph"] += tgraph_times(program, d, a.variables, a.mib, 1)
    print("%d variables x %d MiB = %.2f GiB of float32, %d rounds, medians" %
          (a.variables, a.mib, gib, a.runs))
    med = {}
    for name, pairs in results.items():
        save = statistics.median(s for s, _ in pairs)
        restore = statistics.median(r for _, r in pairs)
        med[name] = (save, restore)
        gigabytes = gib * 1.073741824
        print("  %-10s save %6.3f s (%5.2f GB/s)   restore %6.3f s (%5.2f GB/s)" %
              (name, save, gigabytes / save, restore, gigabytes / restore))
    print("  tgraph / TensorFlow time: save %.2f, restore %.2f (below 1: tgraph faster)" %
          (med["tgraph"][0] / med["tensorflow"][0], med["tgraph"][1] / med["tensorflow"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
