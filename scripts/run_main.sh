#!/usr/bin/env bash
# The main job: installs the dependencies, builds Release into build-release, then trains a
# model end to end through the C API (examples/digits_mlp: an MLP on scikit-learn's 8x8
# digits), saves it (checkpoint, MetaGraph, TensorBoard event file), restores it from those
# files into a new session and evaluates again, lists the checkpoint with `tgraph info` and
# draws the training graph with `tgraph dot`. Exits non-zero if any step fails,
# the test accuracy under 95% included.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-release

scripts/install_deps.sh
scripts/build.sh "$build" -DCMAKE_BUILD_TYPE=Release -DTGRAPH_BUILD_TESTS=OFF \
  -DTGRAPH_BUILD_BENCH=OFF

# Debian's python3-sklearn serves /usr/bin/python3, which may not be the first python3 on
# PATH (pyenv, virtual environments): take the first one that imports scikit-learn.
python=
for candidate in /usr/bin/python3 $(command -v python3 || true); do
  if [ -x "$candidate" ] && "$candidate" -c 'import sklearn' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "run_main: no python3 imports scikit-learn (scripts/install_deps.sh installs" \
    "python3-sklearn)" >&2
  exit 1
fi
"$python" examples/digits_mlp/export_digits.py "$build/digits.bin"

echo
# The checkpoint, MetaGraph and event file go to a fresh directory each run (a second run's
# checkpoint would otherwise join the first's in the state file).
model_dir="$build/digits_model"
rm -rf "$model_dir"
mkdir -p "$model_dir"
"$build/examples/digits_mlp" --graph-out "$build/digits_mlp.pb" --save-dir "$model_dir" \
  "$build/digits.bin"

# What the checkpoint holds, as the tool lists it (the newest one the state file names).
latest=$(sed -n 's/^model_checkpoint_path: "\(.*\)"$/\1/p' "$model_dir/checkpoint")
echo
echo "\$ tgraph info $model_dir/$latest"
"$build/tools/tgraph" info "$model_dir/$latest"

"$build/tools/tgraph" dot "$build/digits_mlp.pb" > "$build/digits_mlp.dot"
echo
echo "TensorBoard: tensorboard --logdir $model_dir (the graph, loss and accuracies per epoch)"
echo "the training graph, in Graphviz DOT: $build/digits_mlp.dot"
echo "render it with Graphviz (Debian package graphviz):"
echo "  dot -Tsvg $build/digits_mlp.dot -o $build/digits_mlp.svg"
