#!/usr/bin/env bash
# Installs what tgraph builds and tests with, on Debian 12. Idempotent: installs only what
# is missing, so a second run does nothing and needs no network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang
  libboost-dev libboost-graph-dev libboost-filesystem-dev
  libeigen3-dev libprotobuf-dev protobuf-compiler
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libgtest-dev libgmock-dev libbenchmark-dev
  # The tgraph tool's command-line parsing.
  libcli11-dev
  python3 python3-pip python3-venv
  # Checkpoint savers: LevelDB's table format is TensorFlow's .index format; safetensors'
  # header is JSON.
  libleveldb-dev nlohmann-json3-dev
  # plugins/onednn: oneDNN's CPU kernels (MatMul, BatchMatMul, Conv2D and its gradients).
  libdnnl-dev
  # The CPU plugin's image codec kernels (DecodeJpeg, DecodePng, EncodeJpeg, EncodePng...).
  libjpeg62-turbo-dev libpng-dev
  # The examples: scikit-learn's digits (examples/digits_mlp) and the fortune files, a plain
  # text corpus (examples/word2vec).
  python3-sklearn fortunes
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install_deps: all Debian packages present"
fi
