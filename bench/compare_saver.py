#!/usr/bin/env python3
"""tf.train.Saver against tgraph's Saver and plain file I/O, side by side in one run: the same
N float variables of M MiB (1 GiB by default), in the V2 format on the same disk. Each round
measures, for each of the three sides in a rotating order:

  save          TF's and tgraph's Saver.save; plain: write(2) of the same bytes + fsync
  warm restore  every checkpoint file in the page cache (read through it beforehand,
                checked with mincore); plain: read(2) of the file into fresh memory
  cold restore  every checkpoint file of both savers and the plain file synced and evicted
                (posix_fadvise(POSIX_FADV_DONTNEED), checked with mincore) right before

Each side's save is followed by an fsync of its files (untimed: TF's save does not sync, and
its write-back must not slow down whatever runs next). Before the rounds, each saver's first
restore in its process (which allocates the restored tensors' memory afresh) is measured once.

Prints each side's median seconds, range and GB/s, and the ratios tgraph / TF (time) and
tgraph / plain (throughput). Run with the python of scripts/tf_venv.sh (real TensorFlow) and a
build tree that has bench/saver_runs and the plugins:
  $(scripts/tf_venv.sh) bench/compare_saver.py [--build build] [--variables 16] [--mib 64] [--runs 3]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_cache  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()

KINDS = ("save", "warm", "cold")


class TensorFlowSide:
    name = "tensorflow"

    def __init__(self, directory, variables, mib):
        self.directory = directory
        self.prefix = os.path.join(directory, "model.ckpt")
        self.graph = tf1.Graph()
        with self.graph.as_default():
            for i in range(variables):
                tf1.Variable(tf.fill([mib * 1024, 256], 1.0 + i), name="v%d" % i)
            self.saver = tf1.train.Saver(max_to_keep=1)
            self.sess = tf1.Session(graph=self.graph)
            self.sess.run(tf1.global_variables_initializer())

    def files(self):
        return glob.glob(os.path.join(self.directory, "*"))

    def save(self):
        t0 = time.perf_counter()
        self.saver.save(self.sess, self.prefix, write_meta_graph=False)
        return time.perf_counter() - t0

    def restore(self):
        t0 = time.perf_counter()
        self.saver.restore(self.sess, self.prefix)
        return time.perf_counter() - t0

    def close(self):
        self.sess.close()


class TgraphSide:
    name = "tgraph"

    def __init__(self, program, directory, variables, mib):
        self.directory = directory
        self.process = subprocess.Popen([program, directory, str(variables), str(mib)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self._expect("ready")

    def _expect(self, word):
        line = self.process.stdout.readline().split()
        if not line or line[0] != word:
            raise RuntimeError("saver_runs: expected %r, got %r (exit %s)" %
                               (word, line, self.process.poll()))
        return float(line[1]) if len(line) > 1 else None

    def _run(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._expect(command)

    def files(self):
        return glob.glob(os.path.join(self.directory, "*"))

    def save(self):
        return self._run("save")

    def restore(self):
        return self._run("restore")

    def close(self):
        self.process.stdin.close()
        self.process.wait()


class PlainSide:
    """The yardstick: the same bytes written with write(2) + fsync, read with read(2) into
    memory allocated and faulted in once beforehand, as a saver's restores after the first
    reuse theirs (tgraph's buffer pool keeps the restored tensors' buffers; faulting 1 GiB of
    fresh memory in costs about as much as copying it on the project's VM)."""
    name = "plain"

    def __init__(self, directory, nbytes):
        self.path = os.path.join(directory, "plain.bin")
        self.data = np.ones(nbytes // 4, dtype=np.float32)
        self.nbytes = nbytes
        self.out = np.ones(nbytes, dtype=np.uint8)  # faulted in

    def files(self):
        return [self.path] if os.path.exists(self.path) else []

    def save(self):
        view = memoryview(self.data).cast("B")
        t0 = time.perf_counter()
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            done = 0
            while done < len(view):
                done += os.write(fd, view[done:done + (1 << 30)])
            os.fsync(fd)
        finally:
            os.close(fd)
        return time.perf_counter() - t0

    def restore(self):
        t0 = time.perf_counter()
        view = memoryview(self.out)
        with open(self.path, "rb", buffering=0) as f:
            done = 0
            while done < self.nbytes:
                got = f.readinto(view[done:done + (1 << 30)])
                if not got:
                    raise RuntimeError("%s is short" % self.path)
                done += got
        return time.perf_counter() - t0

    def close(self):
        pass


def summary(values):
    return statistics.median(values), min(values), max(values)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--variables", type=int, default=16)
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--dir", default=None, help="where the checkpoints go (default: a temp dir)")
    p.add_argument("--plugins", default=None,
                   help="the saver plugins' directory (default: BUILD/plugins; another build's "
                        "for a before/after comparison with the same saver_runs)")
    a = p.parse_args()
    program = os.path.join(a.build, "bench", "saver_runs")
    os.environ["TGRAPH_PLUGIN_PATH"] = a.plugins or os.path.join(a.build, "plugins")
    nbytes = a.variables * a.mib << 20
    times = {}
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        for sub in ("tensorflow", "tgraph"):
            os.mkdir(os.path.join(d, sub))
        sides = [TensorFlowSide(os.path.join(d, "tensorflow"), a.variables, a.mib),
                 TgraphSide(program, os.path.join(d, "tgraph"), a.variables, a.mib),
                 PlainSide(d, nbytes)]
        for s in sides:
            times[s.name] = {k: [] for k in KINDS}

        def all_files():
            return [f for s in sides for f in s.files()]

        first = {}
        try:
            # A process's first restore allocates the restored tensors' memory afresh (later
            # ones reuse it: tgraph's buffer pool, TF's allocator); a model is usually restored
            # once per process, so it is measured on its own, files warm, before the rounds.
            for s in sides[:2]:
                s.save()
                page_cache.warm(s.files())
                first[s.name] = s.restore()
            for r in range(a.runs):
                order = sides[r % 3:] + sides[:r % 3]  # each side first once in 3 rounds
                for s in order:
                    times[s.name]["save"].append(s.save())
                    page_cache.sync(s.files())  # its write-back must not slow the next side
                for s in order:
                    share = page_cache.warm(s.files())
                    if share < 0.99:
                        print("warning: only %.1f%% of %s's files stayed cached" %
                              (100 * share, s.name), file=sys.stderr)
                    times[s.name]["warm"].append(s.restore())
                for s in order:
                    left = page_cache.evict(all_files())
                    if left > 0.01:
                        print("warning: %.1f%% of the pages stayed cached before %s's cold "
                              "restore" % (100 * left, s.name), file=sys.stderr)
                    times[s.name]["cold"].append(s.restore())
                print("round %d: %s" % (r + 1, "  ".join(
                    "%s %s" % (s.name, " ".join("%s %.2f" % (k, times[s.name][k][-1])
                                                for k in KINDS)) for s in order)),
                      file=sys.stderr)
        finally:
            for s in sides:
                s.close()

    gib = nbytes / float(1 << 30)
    gigabytes = nbytes / 1e9
    print("%d variables x %d MiB = %.2f GiB of float32, %d rounds; median [min-max] seconds, "
          "GB/s of the median" % (a.variables, a.mib, gib, a.runs))
    med = {}
    for name in ("tensorflow", "tgraph", "plain"):
        med[name] = {}
        cells = []
        for k in KINDS:
            m, lo, hi = summary(times[name][k])
            med[name][k] = m
            cells.append("%s %6.3f [%.2f-%.2f] (%5.2f GB/s)" % (k, m, lo, hi, gigabytes / m))
        print("  %-10s %s" % (name, "   ".join(cells)))
    print("  first restore in a fresh process (files warm, one each): tensorflow %.3f s, "
          "tgraph %.3f s" % (first["tensorflow"], first["tgraph"]))
    print("  tgraph / TensorFlow time (below 1: tgraph faster): %s" % ", ".join(
        "%s %.2f" % (k, med["tgraph"][k] / med["tensorflow"][k]) for k in KINDS))
    print("  tgraph / plain throughput (target >= 0.7):          %s" % ", ".join(
        "%s %.2f" % (k, med["plain"][k] / med["tgraph"][k]) for k in KINDS))
    print("  TensorFlow / plain throughput:                      %s" % ", ".join(
        "%s %.2f" % (k, med["plain"][k] / med["tensorflow"][k]) for k in KINDS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
