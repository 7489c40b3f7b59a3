#!/usr/bin/env python3
"""Automatic mixed precision against float on one runtime, interleaved: two runner processes
of the same side (tgraph's or TF's runner), one plain and one with --amp 1, each imported,
initialized and warmed up, then single batches of the same workload in turn, pair after pair
(which goes first alternates), as compare.py times TF against tgraph. Prints each round's
median batch per process and the median over all pairs of float time / AMP time (the speed-up;
a pair's two batches run within ~40 ms of each other, so load changes touch both).
On a CPU where tgraph's oneDNN plugin computes bf16 no faster than float (no AMX, slow
AVX512_BF16: its load message says "widened"), mixed precision converts nothing unless
TGRAPH_ONEDNN_BF16=native is set (plugins/onednn/bf16_mode.h).

Usage (after bench/compare/run.sh has built the runners and written the graphs):
  amp_ab.py --runner BUILD/bench-compare/runner_tgraph --graphs DIR [--workload mlp]
            [--plugins BUILD/plugins] [--rounds 5] [--time 1.0] [--threads 2]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (Server: a runner in --serve mode)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runner", required=True)
    p.add_argument("--graphs", required=True)
    p.add_argument("--workload", default="mlp")
    p.add_argument("--plugins", default="")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--time", type=float, default=1.0)
    p.add_argument("--warmup", type=float, default=0.3)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    with open(os.path.join(a.graphs, "manifest.json")) as f:
        w = next(dict(x, dir=a.graphs) for x in json.load(f)["workloads"] if x["name"] == a.workload)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    if a.plugins:
        env["TGRAPH_PLUGIN_PATH"] = a.plugins
    variants = {"float": w, "amp": dict(w, args=["--amp", "1"])}
    ratios, medians = [], {k: [] for k in variants}
    for r in range(a.rounds):
        order = ["float", "amp"] if r % 2 == 0 else ["amp", "float"]
        servers = {}
        try:
            for k in order:
                servers[k] = compare.Server(a.runner, variants[k], a.threads, env, a.warmup)
            batches = {k: [] for k in order}
            start, i = time.monotonic(), 0
            while i < 5 or time.monotonic() - start < 2 * a.time:
                pair = {}
                for k in (order if i % 2 == 0 else order[::-1]):
                    time.sleep(0.002)
                    pair[k] = servers[k].batch()
                    batches[k].append(pair[k])
                ratios.append(pair["float"] / pair["amp"])
                i += 1
            for k in order:
                servers[k].finish()
                medians[k].append(statistics.median(batches[k]))
        finally:
            for s in servers.values():
                s.kill()
        print("round %d: float %.3f ms/step, amp %.3f ms/step, %d pairs" % (
            r + 1, medians["float"][-1] / 1e6, medians["amp"][-1] / 1e6, i), flush=True)
    print("%s, %s: float %.3f ms/step, amp %.3f ms/step (medians of the rounds); "
          "float/amp time over %d interleaved pairs: median %.2fx (quartiles %.2f-%.2f)" % (
              a.workload, os.path.basename(a.runner), statistics.median(medians["float"]) / 1e6,
              statistics.median(medians["amp"]) / 1e6, len(ratios), statistics.median(ratios),
              *statistics.quantiles(ratios, n=4)[::2]))


if __name__ == "__main__":
    main()
