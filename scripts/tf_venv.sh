#!/usr/bin/env bash
# Creates, once, the Python environment that the interop tests compare tgraph with: real
# TensorFlow (tensorflow-cpu), TensorBoard, numpy, pytest and safetensors (the reference reader
# and writer of that format) from PyPI, and scikit-build-core, which builds the Python
# binding's wheel from the build tree for the Python tests (tests/python/make_venv.py).
# Prints the path of its python. The environment lives
# outside the checkout (a fresh clone reuses it) at
# ${TGRAPH_TF_VENV:-~/.cache/tgraph/tf-venv}; it is rebuilt only when the list below changes.
set -euo pipefail
venv=${TGRAPH_TF_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tgraph/tf-venv}
requirements=(tensorflow-cpu==2.21.0 tensorboard numpy pytest safetensors "scikit-build-core>=0.10")
stamp="$venv/.tgraph-requirements"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${requirements[*]}" ]; then
  echo "tf_venv: installing ${requirements[*]} into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "${requirements[@]}" >&2
  echo "${requirements[*]}" > "$stamp"
fi
echo "$venv/bin/python"
