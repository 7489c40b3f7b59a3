#!/usr/bin/env bash
# MatMul 1024 in a session with the default build's CPU variants, in one run: the variant the
# loader chose for this machine, the baseline variant (TGRAPH_CPU_VARIANT=x86-64), and the
# ceiling: the same Eigen contraction called directly from session_bench, compiled with
# -march=native. With a second build tree configured -DTGRAPH_CPU_ARCH=native, its session
# MatMul (a whole -march=native build of the plugin) runs in the same rounds too.
#
# usage: bench/cpu_variants.sh BUILD_DIR [NATIVE_BUILD_DIR] [ROUNDS]
# Both trees need the session_bench target (Release; see bench/README.md).
set -euo pipefail
build=$1
native=${2:-}
rounds=${3:-3}
filter='BM_SessionMatMul/n:1024/feed:0|BM_EigenMatMul/n:1024'

# GFLOP/s of the benchmarks matching $2, run from session_bench in $1 (env in $3...).
gflops() {
  local tree=$1 pattern=$2
  shift 2
  env "$@" "$tree/bench/session_bench" --benchmark_filter="$pattern" \
    --benchmark_min_time=1 --benchmark_format=json 2>/dev/null |
    python3 -c 'import json,sys
for b in json.load(sys.stdin)["benchmarks"]:
    print(b["name"].split("/")[0], round(b["GFLOP/s"], 1))'
}

declare -A samples
for ((r = 1; r <= rounds; ++r)); do
  while read -r name value; do
    case $name in
      BM_SessionMatMul) samples[chosen]+="$value " ;;
      BM_EigenMatMul) samples[eigen_native]+="$value " ;;
    esac
  done < <(gflops "$build" "$filter")
  while read -r name value; do
    samples[baseline]+="$value "
  done < <(gflops "$build" 'BM_SessionMatMul/n:1024/feed:0' TGRAPH_CPU_VARIANT=x86-64)
  if [ -n "$native" ]; then
    while read -r name value; do
      samples[native_build]+="$value "
    done < <(gflops "$native" 'BM_SessionMatMul/n:1024/feed:0')
  fi
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
chosen=$(echo "${samples[chosen]}" | median)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "chosen variant: $("$build/tools/tgraph" plugins 2>/dev/null | grep -m1 'CPU variant level' | cut -d: -f2 | sed 's/^ //')"
echo "MatMul 1024 fp32, 2 threads, GFLOP/s (median of $rounds rounds; samples in brackets):"
for key in chosen baseline native_build eigen_native; do
  [ -n "${samples[$key]:-}" ] || continue
  m=$(echo "${samples[$key]}" | median)
  printf '  %-13s %7s  (chosen / this = %s)  [%s]\n' "$key" "$m" \
    "$(python3 -c "print(f'{$chosen / $m:.1%}')")" "${samples[$key]% }"
done
