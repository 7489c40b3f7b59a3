#!/bin/sh
# ctest driver of example.digits_mlp_amp: trains the digits MLP twice from the same seed,
# in float and with automatic mixed precision (--amp: the products in bfloat16), and
# requires the two final test accuracies to lie within one percentage point.
# usage: amp_test.sh PYTHON export_digits.py DATA_FILE DIGITS_MLP [digits_mlp options...]
# Exits 77 (skipped) when the export finds no scikit-learn, or when the --amp run converted
# nothing (no more Casts than the float run: it ran all in float, proving nothing). ctest
# runs it with TGRAPH_ONEDNN_BF16=native, so every CPU with AVX512_BF16 or AMX converts.
set -u
python=$1 exporter=$2 data=$3 program=$4
shift 4

fail() {
  printf "digits_mlp amp test: %s\n" "$*" >&2
  exit 1
}

"$python" "$exporter" "$data"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

accuracy() {
  printf '%s\n' "$1" | sed -n 's/^  test accuracy  *\([0-9.]*\)% .*/\1/p'
}

fp32=$("$program" --quiet "$@" "$data" </dev/null) || fail "the float run failed"
printf '%s\n' "$fp32"
amp=$("$program" --quiet --amp "$@" "$data" </dev/null) || fail "the --amp run failed"
printf '%s\n' "$amp"

float_casts=$(printf '%s\n' "$fp32" | sed -n 's/^float: \([0-9]*\) Casts .*/\1/p')
amp_casts=$(printf '%s\n' "$amp" | sed -n 's/^mixed precision: \([0-9]*\) Casts .*/\1/p')
[ -n "$float_casts" ] || fail "no 'float:' Casts line in the float run"
[ -n "$amp_casts" ] || fail "no 'mixed precision:' Casts line in the --amp run"
if [ "$amp_casts" -le "$float_casts" ]; then
  echo "digits_mlp amp test: skipped: the --amp run converted nothing (no bfloat16 kernel ranks with float's on this CPU)"
  exit 77
fi
a=$(accuracy "$fp32")
b=$(accuracy "$amp")
[ -n "$a" ] && [ -n "$b" ] || fail "no test accuracy line"
echo "digits_mlp amp test: float $a%, mixed precision $b%"
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1.0) }' ||
  fail "mixed precision's accuracy $b% is more than 1 point from float's $a%"
