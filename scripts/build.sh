#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh BUILD_DIR [cmake args...]
# TGRAPH_TARGETS (space-separated) builds only those targets instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$1
shift
jobs=${TGRAPH_JOBS:-$(nproc)}
# Let ccache reuse objects across checkouts in different directories (CI clones afresh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B "$build_dir" -G Ninja "$@"
targets=()
[ -n "${TGRAPH_TARGETS:-}" ] && targets=(--target ${TGRAPH_TARGETS})
cmake --build "$build_dir" -j "$jobs" "${targets[@]}"
