#!/usr/bin/env bash
# The main job: install dependencies, build, and run the tgraph program.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DTGRAPH_BUILD_TESTS=OFF -DTGRAPH_BUILD_BENCH=OFF
./build/tools/tgraph
