#!/bin/sh
# ctest driver of example.digits_mlp_amp: trains the digits MLP twice from the same seed,
# in float and with automatic mixed precision (--amp: the products in bfloat16), and
# requires the two final test accuracies to lie within one percentage point.
# usage: amp_test.sh PYTHON export_digits.py DATA_FILE DIGITS_MLP [digits_mlp options...]
# Exits 77 (skipped) when the export finds no scikit-learn, or when the CPU has no native
# bfloat16 kernels (the --amp run then has no Casts: it ran all in float, proving nothing).
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

casts=$(printf '%s\n' "$amp" | sed -n 's/^mixed precision: \([0-9]*\) Casts .*/\1/p')
[ -n "$casts" ] || fail "no 'mixed precision:' line in the --amp run"
if [ "$casts" -eq 0 ]; then
  echo "digits_mlp amp test: skipped: no native bfloat16 kernels on this CPU"
  exit 77
fi
a=$(accuracy "$fp32")
b=$(accuracy "$amp")
[ -n "$a" ] && [ -n "$b" ] || fail "no test accuracy line"
echo "digits_mlp amp test: float $a%, mixed precision $b%"
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1.0) }' ||
  fail "mixed precision's accuracy $b% is more than 1 point from float's $a%"
