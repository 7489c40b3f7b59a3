#!/usr/bin/env python3
"""Drives bench/compare: checks that TensorFlow's and tgraph's runners compute the same
results on every workload of manifest.json, then times them in alternating rounds (TF first
in even rounds, tgraph first in odd ones, the FMA peak probe at the start of each round) and
writes the results as Markdown (bench/RESULTS.md). Run by bench/compare/run.sh, which builds
the runners and writes the graphs; see bench/README.md.

Only the standard library and numpy (from the TF venv) are used; TensorFlow itself is not
imported here: each side runs in its own process, through its C API.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# Issue 20's targets: workload -> (description, test on the row's figures).
TARGETS = {
    "chain10": "≥ 5× less time than TF",
    "matmul1024": "≥ 80% of the FMA peak and ≥ 1.1× TF",
    "matmul1024_bf16": "≥ 3× tgraph's fp32 (AMX), ≥ 1.5× (AVX512_BF16 only)",
    "mlp": "≥ 1.3× TF",
    "cnn": "≥ 1.2× TF",
    "word2vec": "≥ 1.5× TF",
}

LABELS = {
    "chain1": "1-node scalar chain with a feed, per run",
    "chain10": "10-node scalar chain with a feed, per run",
    "matmul256": "MatMul 256 fp32 (variables, result fetched)",
    "matmul1024": "MatMul 1024 fp32 (variables, result fetched)",
    "matmul1024_bf16": "MatMul 1024 bf16",
    "mlp": "MLP 784-512-512-10 training step, Adam, batch 128 (TF's graph)",
    "mlp_amp": "the same MLP step with automatic mixed precision (bf16) on both sides",
    "cnn": "CNN training step (2× conv5x5+ReLU+maxpool, dense), SGD, batch 64",
    "word2vec": "word2vec step: nce_loss, vocab 50k, dim 128, batch 128, 64 sampled, SGD",
    "lstm": "Keras LSTM layer forward, frozen (while loop over TensorLists): batch 32, "
            "20 steps, 32→128",
    "resnet50": "Keras ResNet50 inference, frozen: batch 1, 224×224×3",
    "mobilenet_v2": "Keras MobileNetV2 inference, frozen: batch 1, 224×224×3",
    "inception_v3": "Keras InceptionV3 inference, frozen: batch 1, 299×299×3",
    "efficientnet_b0": "Keras EfficientNetB0 inference, frozen: batch 1, 224×224×3",
    "xception": "Keras Xception inference, frozen: batch 1, 299×299×3",
    "densenet121": "Keras DenseNet121 inference, frozen: batch 1, 224×224×3",
}


def cpu_info():
    model, flags = platform.processor() or "unknown", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model in ("unknown", ""):
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    break
    except OSError:
        pass
    shown = [f for f in flags if f in ("avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                                        "avx512_bf16", "avx512_fp16", "avx512_vnni", "avx_vnni")
             or f.startswith("amx")]
    return model, shown, set(flags)


def run(cmd, env, timeout=900, with_stderr=False):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.startswith("error")] or \
            p.stderr.strip().splitlines()[-3:]
        raise RuntimeError(" / ".join(lines) or "exit status %d" % p.returncode)
    return (p.stdout, p.stderr) if with_stderr else p.stdout


def runner_args(w):
    args = [os.path.join(w["dir"], w["graph"])]
    for f in w["feeds"]:
        shape = ",".join(str(d) for d in f["shape"]) or "scalar"
        args += ["--feed", "%s=%s:%s:%s" % (f["tensor"], f["dtype"], shape,
                                             os.path.join(w["dir"], f["file"]))]
    for t in w["fetches"]:
        args += ["--fetch", t]
    for t in w["targets"]:
        args += ["--target", t]
    for t in w["init"]:
        args += ["--init", t]
    return args + w.get("args", [])


def load_dump(line, directory):
    _, run_i, fetch_i, dtype, ndims, *dims = line.split()
    raw = np.fromfile(os.path.join(directory, "r%s_f%s.bin" % (run_i, fetch_i)),
                      dtype={"float": np.float32, "int32": np.int32, "int64": np.int64,
                             "bfloat16": np.uint16}[dtype])
    if dtype == "bfloat16":  # the high half of a float32
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float64).reshape([int(d) for d in dims])


def outputs(runner, w, threads, env):
    with tempfile.TemporaryDirectory() as d:
        out = run([runner] + runner_args(w) + ["--threads", str(threads), "--check",
                                               str(w["check"]["runs"]), "--dump", d], env)
        return [load_dump(l, d) for l in out.splitlines() if l.startswith("dump ")]


def check(w, runners, threads, env):
    """(ok, text): whether tgraph's outputs agree with TensorFlow's within the workload's
    tolerance (and with the expected value where there is one)."""
    got = {}
    for side, runner in runners.items():
        try:
            got[side] = outputs(runner, w, threads, env)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return False, "%s fails: %s" % (side, e)
    tf_out, tg_out = got["tensorflow"], got["tgraph"]
    c = w["check"]
    if len(tf_out) != len(tg_out) or any(a.shape != b.shape for a, b in zip(tf_out, tg_out)):
        return False, "shapes differ: TF %s, tgraph %s" % ([a.shape for a in tf_out],
                                                           [b.shape for b in tg_out])
    if "expect" in c:
        bad = [float(a) for a in tf_out + tg_out if float(a) != c["expect"]]
        return (not bad), "exact (%g)" % c["expect"] if not bad else "expected %g, got %s" % (
            c["expect"], bad)
    if c.get("mean"):  # sampled: the mean over the runs
        a, b = np.mean([float(x) for x in tf_out]), np.mean([float(x) for x in tg_out])
        err = abs(a - b) / abs(a)
        return err <= c["rtol"], "mean of %d losses: TF %.4f, tgraph %.4f (rel. diff %.1e, tol %g)" % (
            len(tf_out), a, b, err, c["rtol"])
    err = max(float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(a))), 1e-30)
              for a, b in zip(tf_out, tg_out))
    what = "%d runs" % len(tf_out) if len(tf_out) > 1 else "output"
    return err <= c["rtol"], "%s: max |diff| / max |TF| = %.1e (tol %g)" % (what, err, c["rtol"])


class Server:
    """A runner in --serve mode: imported, initialized and warmed up, then one timed batch
    per request."""

    def __init__(self, runner, w, threads, env, warmup):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(
            [runner] + runner_args(w) + ["--threads", str(threads), "--warmup", str(warmup),
                                         "--serve", "1"],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True,
            bufsize=1)
        self.info = {}
        while "ready" not in self.info:
            key, _, value = self._line().partition(" ")
            self.info[key] = value.strip()

    def _fail(self):
        self.kill()
        self.err.seek(0)
        lines = self.err.read().splitlines()
        raise RuntimeError(" / ".join([l for l in lines if l.startswith("error")] or lines[-3:])
                           or "exit status %s" % self.p.returncode)

    def _line(self):
        line = self.p.stdout.readline()
        if not line:
            self._fail()
        return line

    def batch(self):
        """ns per run of one batch."""
        self.p.stdin.write("b\n")
        self.p.stdin.flush()
        return float(self._line().split()[1])

    def finish(self):
        self.p.stdin.write("q\n")
        self.p.stdin.close()
        for line in self.p.stdout.read().splitlines():
            key, _, value = line.partition(" ")
            self.info[key] = value.strip()
        if self.p.wait(timeout=120) != 0:
            self._fail()

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def timed_pairs(runners, w, threads, env, warmup, seconds, first):
    """One round of one workload: both runners started (first `first`), then single batches
    alternating between them (which goes first alternates too) for about `seconds` each, at
    least 5 pairs. Returns {side: (batches, info)} and the pairs' TF/tgraph time ratios."""
    sides = [first] + [s for s in runners if s != first]
    servers = {}
    try:
        for side in sides:
            servers[side] = Server(runners[side], w, threads, env, warmup)
        batches = {side: [] for side in sides}
        ratios = []
        start = time.monotonic()
        k = 0
        while k < 5 or time.monotonic() - start < 2 * seconds:
            pair = {}
            for side in (sides if k % 2 == 0 else sides[::-1]):
                time.sleep(0.002)  # let the other side's pool threads stop spinning
                pair[side] = servers[side].batch()
                batches[side].append(pair[side])
            ratios.append(pair["tensorflow"] / pair["tgraph"])
            k += 1
        for side in sides:
            servers[side].finish()
        return {side: (batches[side], servers[side].info) for side in sides}, ratios
    finally:
        for server in servers.values():
            server.kill()


def fmt_time(ns):
    return "%.2f µs" % (ns / 1e3) if ns < 1e6 else "%.2f ms" % (ns / 1e6)


def figure(w, ns):
    if w["unit"] == "GFLOP/s":
        return w["work"] / ns, "%.1f GFLOP/s" % (w["work"] / ns)
    if w["unit"] == "samples/s":
        v = w["work"] / ns * 1e9
        return v, "%.1fk samples/s (%s/step)" % (v / 1e3, fmt_time(ns))
    return ns, fmt_time(ns)


def spread(values, f):
    lo, hi = min(values), max(values)
    return f(lo) if lo == hi else "%s–%s" % (f(lo), f(hi))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", required=True, help="directory of make_graphs.py")
    p.add_argument("--tf-runner", required=True)
    p.add_argument("--tgraph-runner", required=True)
    p.add_argument("--peak", required=True)
    p.add_argument("--plugins", required=True, help="tgraph's plugin directory")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--time", type=float, default=1.0, help="timed seconds per process")
    p.add_argument("--warmup", type=float, default=0.3)
    p.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    p.add_argument("--out", default=None, help="Markdown file to write (default: stdout only)")
    p.add_argument("--note", default="", help="a line for the results (e.g. the machine's load)")
    p.add_argument("--tgraph-commit", default="")
    a = p.parse_args()

    with open(os.path.join(a.graphs, "manifest.json")) as f:
        manifest = json.load(f)
    # mlp_amp: the MLP's graph again, each runtime with its automatic mixed precision (TF's
    # auto_mixed_precision_onednn_bfloat16, tgraph's auto_mixed_precision); bf16 products
    # on both sides round differently, so the losses agree only to bf16 precision.
    listed = list(manifest["workloads"])
    listed += [dict(w, name="mlp_amp", args=["--amp", "1"], check=dict(w["check"], rtol=5e-2))
               for w in manifest["workloads"] if w["name"] == "mlp"]
    workloads = [dict(w, dir=a.graphs) for w in listed
                 if not a.only or w["name"] in a.only.split(",")]
    env = dict(os.environ, TGRAPH_PLUGIN_PATH=a.plugins, TF_CPP_MIN_LOG_LEVEL="2")
    runners = {"tensorflow": a.tf_runner, "tgraph": a.tgraph_runner}
    versions = {}
    for side, runner in runners.items():
        # With tgraph's plugin messages on (stderr): the oneDNN plugin's says its ISA and how it
        # runs bf16 (bf16_mode.h).
        out, err = run([runner, os.path.join(a.graphs, "chain1.pb"), "--warmup", "0", "--time",
                        "0", "--feed",
                        "x:0=float:scalar:" + os.path.join(a.graphs, "chain1.feed0.bin"),
                        "--fetch", "add0:0"], dict(env, TGRAPH_LOG_PLUGIN_INFO="1"),
                       with_stderr=True)
        versions[side] = out.split("\n", 1)[0].split()[1]
        if side == "tgraph":
            versions["plugins"] = " ".join(
                l.split(None, 1)[1] for l in out.splitlines() if l.startswith("plugins "))
            versions["onednn"] = next((l.split("onednn: ", 1)[1] for l in err.splitlines()
                                       if "onednn: oneDNN" in l), "")

    # Correctness first: a workload whose outputs differ (or that fails) is not timed.
    checks = {}
    for w in workloads:
        ok, text = check(w, runners, a.threads, env)
        text = text.replace(a.graphs.rstrip("/") + "/", "")  # the cache's path says nothing
        checks[w["name"]] = (ok, text)
        print("check %-16s %s  %s" % (w["name"], "ok  " if ok else "FAIL", text), flush=True)

    times = {w["name"]: {"tensorflow": [], "tgraph": [], "first": {"tensorflow": [],
                                                                   "tgraph": []}, "load": [],
                         "best": {"tensorflow": [], "tgraph": []},
                         "rss": {"tensorflow": [], "tgraph": []}, "pairs": []}
             for w in workloads}
    peaks, isa = [], ""
    for r in range(a.rounds):
        out = run([a.peak, str(a.threads), "0.5"], env)
        peaks.append(float(out.split("peak_gflops")[1].split()[0]))
        isa = out.split()[1]
        for w in workloads:
            if not checks[w["name"]][0]:
                continue
            try:
                result, ratios = timed_pairs(runners, w, a.threads, env, a.warmup, a.time,
                                             "tensorflow" if r % 2 == 0 else "tgraph")
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                checks[w["name"]] = (False, "fails while timed: %s" % e)
                continue
            t = times[w["name"]]
            t["pairs"].append(ratios)
            for side, (batches, info) in result.items():
                t[side].append(statistics.median(batches))
                t["best"][side].append(min(batches))
                t["first"][side].append(float(info["first_ns"]))
                if "runs_peak_rss_bytes" in info:
                    t["rss"][side].append(float(info["runs_peak_rss_bytes"]))
                if side == "tgraph":
                    t["load"].append(float(info["load_ns"]))
            print("round %d %-16s TF %s  tgraph %s" % (
                r, w["name"], fmt_time(times[w["name"]]["tensorflow"][-1])
                if times[w["name"]]["tensorflow"] else "-",
                fmt_time(times[w["name"]]["tgraph"][-1]) if times[w["name"]]["tgraph"] else "-"),
                flush=True)
    peak = max(peaks)

    model, shown_flags, flags = cpu_info()
    lines = []
    add = lines.append
    add("# bench/compare: tgraph against TensorFlow, side by side\n")
    add("Written by `bench/compare/run.sh` on %s. Regenerate with that command (see "
        "bench/README.md, \"bench/compare\").\n" % datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    add("- CPU: %s, %d logical CPUs; flags: %s" % (model, os.cpu_count() or 0,
                                                    " ".join(shown_flags) or "(none)"))
    add("- TensorFlow %s (the tensorflow-cpu wheel's C library, `libtensorflow_cc.so.2`, "
        "default options: grappler and oneDNN on)" % versions["tensorflow"])
    add("- tgraph %s%s (its C API, `libtgraph.so`; plugins loaded: %s, from `%s`)" % (
        versions["tgraph"], " at " + a.tgraph_commit if a.tgraph_commit else "",
        versions.get("plugins") or "none",
        os.path.relpath(a.plugins) if not os.path.relpath(a.plugins).startswith("..")
        else a.plugins))
    if versions.get("onednn"):
        add("- tgraph's oneDNN plugin: %s" % versions["onednn"])
    add("- Threads: intra-op %d and inter-op %d in both sessions (TF: `ConfigProto` through "
        "`TF_SetConfig`)%s" % (a.threads, a.threads,
                               "; tgraph runs a plan's steps one at a time, since its intra-op "
                               "threads cover every CPU (docs/ARCHITECTURE.md, Threading)"
                               if a.threads >= (os.cpu_count() or 1) else ""))
    add("- Method: the same GraphDef files (written by TF's `tf.compat.v1`) imported by each "
        "runtime in its own process. %d rounds; in each, per workload, both processes are "
        "started (import, session, init, first run, %.1f s of warm-up; which one starts first "
        "alternates), then they run single batches of about 20 ms in turn, pair after pair "
        "(which goes first alternates), for about %.1f s each. A side's figure is the median "
        "over the rounds of its median batch; the ratio is the median over all pairs of "
        "their time ratios (the two batches of a pair run within ~40 ms of each other, so a "
        "change of the machine's load touches both); its range is the rounds' medians."
        % (a.rounds, a.warmup, a.time))
    add("- FMA peak (`peak.c`, %s, %d threads, best of each round): %.1f GFLOP/s "
        "(rounds: %s)" % (isa, a.threads, peak, ", ".join("%.0f" % x for x in peaks)))
    loadavg = ""
    try:
        loadavg = open("/proc/loadavg").read().split()[:3]
        loadavg = "load average at the end %s" % " ".join(loadavg)
    except OSError:
        pass
    add("- Machine state: %s. %s\n" % (loadavg or "unknown load",
                                       a.note or "Other processes were not paused: figures "
                                       "are noisy, the interleaved ratios less so."))

    add("| workload | TensorFlow | tgraph | tgraph / TF (speed) | best batches | target | met |")
    add("|---|---|---|---|---|---|---|")
    figures = {}
    met_lines = []
    for w in workloads:
        name = w["name"]
        ok, text = checks[name]
        label = LABELS.get(name, name)
        target = TARGETS.get(name, "—")
        tf_t, tg_t = times[name]["tensorflow"], times[name]["tgraph"]
        if not ok or not tf_t or not tg_t:
            add("| %s | — | — | — | — | %s | not measured: %s |" % (label, target,
                                                                text.replace("|", "/")))
            continue
        # The ratio: the median over every pair of batches; its range: the rounds' medians.
        ratio = statistics.median(x for pairs in times[name]["pairs"] for x in pairs)
        ratios = [statistics.median(pairs) for pairs in times[name]["pairs"]]
        tf_ns, tg_ns = statistics.median(tf_t), statistics.median(tg_t)
        figures[name] = (tf_ns, tg_ns, ratio)
        tf_v, tf_s = figure(w, tf_ns)
        tg_v, tg_s = figure(w, tg_ns)
        if w["unit"] == "GFLOP/s" and not name.endswith("bf16"):  # an fp32 peak
            tf_s += " (%.0f%% of peak)" % (100 * tf_v / peak)
            tg_s += " (%.0f%% of peak)" % (100 * tg_v / peak)
        ratio_s = "%.2f× (%s)" % (ratio, spread(ratios, lambda x: "%.2f" % x))
        met = "—"
        if name == "chain10":
            met = "met" if ratio >= 5 else "not met"
        elif name == "matmul1024":
            met = "met" if tg_v >= 0.8 * peak and ratio >= 1.1 else "not met (%.0f%% of peak)" % (
                100 * tg_v / peak)
        elif name in ("mlp", "cnn", "word2vec"):
            met = "met" if ratio >= {"mlp": 1.3, "cnn": 1.2, "word2vec": 1.5}[name] else "not met"
        elif name == "matmul1024_bf16" and "matmul1024" in figures:
            over_fp32 = figures["matmul1024"][1] / tg_ns
            need = 3.0 if "amx_bf16" in flags else 1.5 if "avx512_bf16" in flags else None
            ratio_s += "; %.2f× tgraph's fp32" % over_fp32
            met = "no bf16 hardware" if need is None else (
                "met" if over_fp32 >= need else "not met (%.2f×)" % over_fp32)
            # The plugin's probe of this CPU's bf16 dot-product rate (bf16_mode.h): below
            # the target, no bf16 kernel can reach it here.
            rate = re.search(r"dot products at ([0-9.]+)x the FMA rate",
                             versions.get("onednn", ""))
            if rate and met.startswith("not met") and float(rate.group(1)) < need:
                met += "; not reachable: this CPU's AVX512_BF16 dot products run at %s× its " \
                       "FMA rate" % rate.group(1)
        best = min(times[name]["best"]["tensorflow"]) / min(times[name]["best"]["tgraph"])
        add("| %s | %s | %s | %s | %.2f× | %s | %s |" % (label, tf_s, tg_s, ratio_s, best,
                                                         target, met))
        if met.startswith(("met", "not met")):
            met_lines.append((name, met))
    if "mlp" in figures:
        tf_f, tg_f = times["mlp"]["first"]["tensorflow"], times["mlp"]["first"]["tgraph"]
        n = min(len(tf_f), len(tg_f))
        ratios = [tf_f[i] / tg_f[i] for i in range(n)]
        add("| MLP: GraphDef import + session + init + first step (time to first result; "
            "tgraph's plugin loading, %s, not included, nor TF's library loading) | " %
            fmt_time(statistics.median(times["mlp"]["load"])) +
            "%s | %s | %.2f× (%s) | — | — | — |" % (
                fmt_time(statistics.median(tf_f)), fmt_time(statistics.median(tg_f)),
                statistics.median(ratios), spread(ratios, lambda x: "%.2f" % x)))
    for name in ("mlp", "cnn"):
        if name not in figures:
            continue
        tf_r, tg_r = times[name]["rss"]["tensorflow"], times[name]["rss"]["tgraph"]
        if not tf_r or not tg_r:
            add("| peak memory of the %s step | — | — | — | — | ≤ TF's | not measured (no "
                "/proc/self/clear_refs) |" % name.upper())
            continue
        tf_m, tg_m = statistics.median(tf_r), statistics.median(tg_r)
        add("| peak memory of the %s step (resident size's rise during the runs) | %.1f MiB | "
            "%.1f MiB | %s | — | ≤ TF's | %s |" % (
                name.upper(), tf_m / 2**20, tg_m / 2**20,
                "%.2f× TF's" % (tg_m / tf_m) if tf_m > 0 else "—",
                "met" if tg_m <= tf_m else "not met"))
    add("")
    add("\"best batches\": the ratio of the two sides' fastest batches over all rounds "
        "(the least disturbed ones: on a loaded machine, closer to what each does alone). "
        "The targets are judged on the medians. Peak memory: the rise of the process's "
        "resident size over its size after init (graph, session, variables) during the first "
        "and the timed runs, from the high-water mark `VmHWM` reset after init through "
        "`/proc/self/clear_refs`; median of the rounds. It counts what each runtime's "
        "allocator keeps resident, not the bytes its tensors hold at the peak. % of peak: "
        "the probe counts each thread's own CPU time (what the cores do while they run it), "
        "the GEMMs the wall clock, so on a loaded machine the fractions are understated.")
    add("")
    add("Correctness, checked once per workload before timing (a workload that fails it is "
        "not timed):\n")
    for w in workloads:
        ok, text = checks[w["name"]]
        add("- `%s` (%d nodes): %s — %s" % (w["name"], w["nodes"], "agree" if ok else "**FAILS**",
                                            text))
    add("")
    add("Per-round times (ns per run), TF / tgraph:\n")
    for w in workloads:
        t = times[w["name"]]
        if t["tensorflow"] and t["tgraph"]:
            add("- `%s`: %s" % (w["name"], ", ".join(
                "%.0f / %.0f" % (x, y) for x, y in zip(t["tensorflow"], t["tgraph"]))))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
