#!/usr/bin/env bash
# bench/compare: tgraph against real TensorFlow, side by side, in one command (issue 20).
# Builds what it needs (tgraph's library and CPU plugin in BUILD unless --no-build, the two
# runners and the peak probe), writes the GraphDefs once with TF's tf.compat.v1 (cached outside
# the checkout), checks that both runtimes compute the same results, times them in alternating
# rounds and writes bench/RESULTS.md. See bench/README.md, "bench/compare".
#
# Usage: bench/compare/run.sh [--quick] [--build DIR] [--no-build] [--work DIR] [--rounds N]
#                             [--time S] [--only w1,w2] [--out FILE] [--note TEXT]
#   --quick      2 rounds of 0.3 s per process (about 1 minute) instead of 7 of 1 s
#   --build DIR  tgraph build tree (default build/); configured Release and built (tgraph and
#                tgraph_cpu only, TGRAPH_JOBS jobs) unless --no-build
#   --work DIR   where the runners are compiled (default BUILD/bench-compare)
#   --out FILE   default bench/RESULTS.md ("-": print only)
# Environment: TGRAPH_TF_PYTHON (default: the python of scripts/tf_venv.sh, created on first use).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=build work="" build_it=1 rounds=7 seconds=1.0 warmup=0.3 only="" out=bench/RESULTS.md note=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) rounds=2 seconds=0.3 warmup=0.2 ;;
    --build) build=$2; shift ;;
    --no-build) build_it=0 ;;
    --work) work=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --time) seconds=$2; shift ;;
    --only) only=$2; shift ;;
    --out) out=$2; shift ;;
    --note) note=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cd "$root"
build=$(realpath -m "$build")
work=$(realpath -m "${work:-$build/bench-compare}")
python=${TGRAPH_TF_PYTHON:-$(scripts/tf_venv.sh)}

if [ "$build_it" = 1 ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    TGRAPH_TARGETS="tgraph tgraph_cpu" scripts/build.sh "$build" -DCMAKE_BUILD_TYPE=Release \
      -DTGRAPH_BUILD_TESTS=OFF -DTGRAPH_BUILD_BENCH=OFF
  else
    cmake --build "$build" -j "${TGRAPH_JOBS:-$(nproc)}" --target tgraph tgraph_cpu
  fi
fi
[ -e "$build/c_api/libtgraph.so" ] || { echo "run.sh: no $build/c_api/libtgraph.so" >&2; exit 1; }

# The runners: one source, compiled against each C API. TF's headers and libraries come from
# the wheel (rpath to its directory); tgraph's from this checkout and the build tree.
tf_dir=$("$python" -c 'import os, importlib.util as u; print(os.path.dirname(u.find_spec("tensorflow").origin))')
mkdir -p "$work"
cflags=(-O2 -std=c11 -Wall -Wextra -Werror)
if [ "$here/runner.c" -nt "$work/runner_tf" ] || [ ! -e "$work/runner_tf" ]; then
  cc "${cflags[@]}" -DRUNNER_TF -I"$tf_dir/include" "$here/runner.c" -o "$work/runner_tf" \
    -L"$tf_dir" -l:libtensorflow_cc.so.2 -l:libtensorflow_framework.so.2 -Wl,-rpath,"$tf_dir"
fi
if [ "$here/runner.c" -nt "$work/runner_tgraph" ] || [ ! -e "$work/runner_tgraph" ]; then
  cc "${cflags[@]}" -I"$root/c_api/include" -I"$root/sdk/include" "$here/runner.c" \
    -o "$work/runner_tgraph" -L"$build/c_api" -ltgraph -Wl,-rpath,"$build/c_api"
fi
if [ "$here/peak.c" -nt "$work/peak" ] || [ ! -e "$work/peak" ]; then
  cc "${cflags[@]}" "$here/peak.c" -o "$work/peak" -lpthread
fi

# The graphs, written once per version of make_graphs.py and of TensorFlow.
key=$( (cat "$here/make_graphs.py"; "$python" -c 'import importlib.metadata as m; print(m.version("tensorflow-cpu"))' 2>/dev/null) | sha256sum | cut -c1-16)
graphs=${XDG_CACHE_HOME:-$HOME/.cache}/tgraph/bench-compare/graphs-$key
if [ ! -f "$graphs/manifest.json" ]; then
  rm -rf "$graphs.tmp" && mkdir -p "$graphs.tmp"
  TF_CPP_MIN_LOG_LEVEL=2 "$python" "$here/make_graphs.py" "$graphs.tmp"
  rm -rf "$graphs" && mv "$graphs.tmp" "$graphs"
fi

commit=$(git -C "$root" describe --always --dirty 2>/dev/null || true)
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ "$build_type" = Release ] || echo "run.sh: warning: $build is a '${build_type:-?}' build, not Release" >&2
commit="$commit, ${build_type:-unknown} build"
args=(--graphs "$graphs" --tf-runner "$work/runner_tf" --tgraph-runner "$work/runner_tgraph"
      --peak "$work/peak" --plugins "$build/plugins" --rounds "$rounds" --time "$seconds"
      --warmup "$warmup" --tgraph-commit "$commit")
[ -n "$only" ] && args+=(--only "$only")
[ -n "$note" ] && args+=(--note "$note")
[ "$out" != "-" ] && args+=(--out "$out")
exec "$python" "$here/compare.py" "${args[@]}"
