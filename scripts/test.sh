#!/usr/bin/env bash
# Every test: install dependencies, build, and run the whole suite under ctest; then the same
# suite built with AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
jobs=${TGRAPH_JOBS:-$(nproc)}

scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTGRAPH_BUILD_BENCH=ON
ctest --test-dir build --output-on-failure -j "$jobs"

scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DTGRAPH_BUILD_BENCH=OFF \
  "-DTGRAPH_SANITIZE=address;undefined"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
