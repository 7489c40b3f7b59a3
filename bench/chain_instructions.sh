#!/usr/bin/env bash
# Instructions per run and per extra chain node, counted by callgrind inside TG_SessionRun:
# exact and repeatable on a noisy machine, unlike wall time. Needs valgrind (Debian
# package `valgrind`) and a build tree with the chain_runs target.
#   bench/chain_instructions.sh [BUILD_DIR]     (default: build)
set -euo pipefail
build=${1:-build}
driver=$build/bench/chain_runs
[ -x "$driver" ] || { echo "no $driver: build the chain_runs target first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
export TGRAPH_PLUGIN_PATH=$build/plugins
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions of `runs` runs of a chain of `nodes` ops.
count() {  # op nodes runs
  valgrind --tool=callgrind --toggle-collect=TG_SessionRun \
    --callgrind-out-file="$out/$1.$2.$3" "$driver" "$1" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate "$out/$1.$2.$3" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}
# The first run plans: the difference of 3000 and 1000 runs leaves 2000 planned runs.
per_run() { echo $(( ($(count "$1" "$2" 3000) - $(count "$1" "$2" 1000)) / 2000 )); }

for op in identity add; do
  one=$(per_run $op 1)
  many=$(per_run $op 101)
  echo "$op: $one instructions per run of 1 node, $many of 101, $(( (many - one) / 100 )) per extra node"
done
