#!/usr/bin/env bash
# Every test: install dependencies, build (Release, -Werror: the main job's configuration,
# so its warnings are caught here too), and run the whole suite under ctest; then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer (both replay every fuzz
# corpus; TGRAPH_CI_FUZZ_SECONDS > 0 adds a libFuzzer stage, clang); then the C API tests
# built with ThreadSanitizer (sessions, concurrent runs), loading the first build's CPU plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
jobs=${TGRAPH_JOBS:-$(nproc)}

# Real TensorFlow, for the interop tests (created once, outside the checkout).
tf_python=$(scripts/tf_venv.sh)

scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DTGRAPH_BUILD_BENCH=ON \
  "-DTGRAPH_TF_PYTHON=$tf_python"
# The Python tests' fixture (python.venv, tests/python/make_venv.py) builds the binding's
# wheel from this tree with scikit-build-core, compiling nothing, and pip-installs it into
# build/python-venv: the python.* tests run against the installed package.
ctest --test-dir build --output-on-failure -j "$jobs"

# The CPU plugin's baseline and AVX2 variants only (each variant is a whole build of the
# Eigen kernels): the suite runs the baseline and the one chosen for this CPU, and every
# machine this runs on has AVX2; the release stage above builds and tests all three.
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DTGRAPH_BUILD_BENCH=OFF \
  "-DTGRAPH_SANITIZE=address;undefined" "-DTGRAPH_CPU_VARIANTS=x86-64;x86-64-v3"
# use_tls=0: LeakSanitizer's exit-time scan of dynamic TLS crashes intermittently ("Tracer
# caught signal 11") on the worker threads of PoCL, the OpenCL platform the device tests run
# on (its drivers are dlopen'ed and use dynamic TLS). Without TLS as a root, the only false
# leaks are glibc's per-thread dlerror buffers, suppressed by name in tests/lsan_suppressions.txt.
# The CPU kernel suite runs here as its two whole-suite processes (cpu.kernel_coverage and
# cpu.kernel_coverage.x86-64: every test of it, for both variants), not once more test by
# test as the release stage runs it: under ASan each process pays over half a second for
# loading the instrumented plugins; the repeat took about 220 s of test time (355 processes).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="use_tls=0:suppressions=$PWD/tests/lsan_suppressions.txt" \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -E '^cpu\.[A-Z]'

# Fuzzing (fuzz/README.md). Both suites above already replay every fuzz target's corpus
# (fuzz.replay.*, the second under ASan+UBSan), crash inputs included. With
# TGRAPH_CI_FUZZ_SECONDS > 0 the libFuzzer build (clang, build-fuzz: the core, the C API and
# the savers; op_run loads the release build's CPU plugin) also fuzzes each target from its
# corpus for that long: a crash fails the stage and leaves its input in
# build-fuzz/fuzz-work/<target>/. Off by default: a cold clang build of the core costs about
# 2,600 s of compile time, most of what the whole suite takes on 2 cores.
if [ "${TGRAPH_CI_FUZZ_SECONDS:-0}" -gt 0 ]; then
  TGRAPH_JOBS=$jobs TGRAPH_FUZZ_CPU_PLUGIN="$PWD/build/plugins/libtgraph_cpu.so" \
    fuzz/run.sh all "$TGRAPH_CI_FUZZ_SECONDS"
fi

TGRAPH_TARGETS=c_api_tests scripts/build.sh build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTGRAPH_BUILD_BENCH=OFF -DTGRAPH_SANITIZE=thread \
  "-DTGRAPH_TEST_CPU_PLUGIN=$PWD/build/plugins/libtgraph_cpu.so"
# Session suites only: two GraphDef text-format tests crash under TSan inside protobuf's
# map-field code (header code compiled here with -fsanitize=thread calling into Debian's
# uninstrumented libprotobuf), before any thread of ours is involved.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build-tsan --output-on-failure -j "$jobs" -R '^c_api\.Session'
