#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, TGRAPH_FUZZ=ON, in build-fuzz) and fuzzes TARGET, or
# every target in turn, for SECONDS each. Usage: fuzz/run.sh TARGET|all SECONDS [libFuzzer args]
#
# New inputs go to build-fuzz/fuzz-work/TARGET/corpus (the committed seed corpus fuzz/corpus/
# TARGET is read, never written); a crash leaves build-fuzz/fuzz-work/TARGET/crash-* and a
# non-zero exit. Copy a crash into fuzz/corpus/TARGET/ (as crash-<what>) once it is fixed: the
# replay tests (fuzz.replay.TARGET) then keep it fixed. op_run loads the CPU plugin of the
# release build (build/plugins) unless TGRAPH_FUZZ_CPU_PLUGIN names another: a fuzz tree does
# not build the Eigen kernels. TGRAPH_JOBS and TGRAPH_FUZZ_BUILD as for scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(graphdef_import meta_graph_import event_file_read checkpoint_read npy_read op_run)
if [ $# -lt 2 ]; then
  echo "usage: fuzz/run.sh TARGET|all SECONDS [libFuzzer args]; targets: ${all[*]}" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
build=${TGRAPH_FUZZ_BUILD:-build-fuzz}
targets=("${all[@]}")
[ "$target" = all ] || targets=("$target")

cpu_plugin=${TGRAPH_FUZZ_CPU_PLUGIN:-$PWD/build/plugins/libtgraph_cpu.so}
# -Werror stays with the GCC builds: this tree exists to find crashes.
CC=${CC:-clang} CXX=${CXX:-clang++} TGRAPH_TARGETS="${targets[*]/#/fuzz_}" scripts/build.sh "$build" \
  -DCMAKE_BUILD_TYPE=Debug -DTGRAPH_FUZZ=ON -DTGRAPH_BUILD_TESTS=OFF -DTGRAPH_BUILD_BENCH=OFF \
  -DTGRAPH_WERROR=OFF -DTGRAPH_WITH_OPENCL=OFF -DTGRAPH_WITH_CUDA=OFF \
  "-DTGRAPH_FUZZ_CPU_PLUGIN=$cpu_plugin"

status=0
for t in "${targets[@]}"; do
  work="$build/fuzz-work/$t"
  mkdir -p "$work/corpus"
  echo "== fuzz $t for ${seconds}s"
  # -rss_limit_mb (and malloc_limit_mb, which follows it): an input that makes the code
  # allocate what it declares fails here. -timeout: a hang is a crash too.
  rc=0
  # op_run: each input runs a session, some 27,000 coverage features; libFuzzer's entropic
  # schedule spent three quarters of the time updating their frequencies (perf:
  # InputCorpus::UpdateFeatureFrequency, a 4 MB table read at random per feature), so it
  # uses the plain schedule. Later arguments override this.
  schedule=()
  [ "$t" = op_run ] && schedule=(-entropic=0)
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$work/" "${schedule[@]}" "$@" "$work/corpus" \
    "fuzz/corpus/$t" \
    > "$work/log.txt" 2>&1 || rc=$?
  grep -E '^(#[0-9]+ +DONE|SUMMARY|stat::number_of_executed_units|stat::peak_rss_mb)' \
    "$work/log.txt" || true
  if [ "$rc" != 0 ]; then
    echo "!! fuzz $t failed (exit $rc): see $work/log.txt" >&2
    status=1
  fi
done
exit $status
