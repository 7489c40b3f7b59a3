#!/bin/sh
# ctest driver of example.digits_mlp: exports the digits, trains on them with --graph-out and
# --save-dir, then checks what the run printed (one plain line per epoch since stdout is no
# terminal, the step-stats table, the summary, the checkpoint restored to the same accuracy),
# the files it kept, and that the graph file imports through the C API.
# usage: run_test.sh PYTHON export_digits.py DATA_FILE GRAPH_FILE DIGITS_MLP IMPORT_GRAPH_CHECK
#                    [digits_mlp options...]
# Exits 77 (skipped) when the export finds no scikit-learn.
set -u
python=$1 exporter=$2 data=$3 graph=$4 program=$5 import_check=$6
shift 6

fail() {
  printf "digits_mlp test: %s\n" "$*" >&2
  exit 1
}

# Fails unless the output holds `count` lines matching the extended regex (or at least one
# when count is "+").
expect_lines() {
  count=$1 regex=$2 what=$3
  found=$(printf '%s\n' "$output" | grep -c -E -e "$regex")
  if [ "$count" = "+" ]; then
    [ "$found" -ge 1 ] || fail "no $what in the output (regex: $regex)"
  else
    [ "$found" -eq "$count" ] || fail "$found lines of $what, expected $count (regex: $regex)"
  fi
}

"$python" "$exporter" "$data"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

rm -f "$graph"
save_dir=$(mktemp -d) || fail "no temporary directory"
trap 'rm -rf "$save_dir"' EXIT
output=$("$program" --graph-out "$graph" --save-dir "$save_dir" "$@" "$data" </dev/null)
rc=$?
printf '%s\n' "$output"
[ "$rc" -eq 0 ] || fail "digits_mlp exited with $rc"

epochs=$(printf '%s\n' "$output" | sed -n 's/^model: .* \([0-9][0-9]*\) epochs* of .*/\1/p')
[ -n "$epochs" ] || fail "no model line giving the number of epochs"
# Not a terminal: each epoch is one finished line, with a full bar and the test accuracy.
bar='\[#+\] step +([0-9]+)/\1'
figures='loss [0-9.]+  acc +[0-9.]+%  +[0-9,]+ samples/s  test +[0-9.]+%'
expect_lines "$epochs" "^epoch +[0-9]+/$epochs $bar  $figures\$" "finished epoch lines"
if printf '%s' "$output" | tr -d '\n' | grep -q "$(printf '\r')"; then
  fail "carriage returns in the output although stdout is not a terminal"
fi
expect_lines 1 '^step stats of one training step' "step-stats heading"
expect_lines 1 '^  node +op +device +start_us +dur_us +share +out_bytes$' "step-stats header"
expect_lines 15 '^  [^ ].* [0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9]% +[0-9,]+$' \
  "step-stats rows"
expect_lines 1 '^  total: [0-9]+ nodes, [0-9.]+ us of node time' "step-stats total"
expect_lines 1 '^  training time  +[0-9.]+ s' "training time"
expect_lines 1 '^  throughput  +[0-9,]+ samples/s in the steps$' "throughput"
expect_lines 1 '^  final train loss  +[0-9.]+' "final train loss"
expect_lines 1 '^  test accuracy  +[0-9.]+% of [0-9]+ held-out images \(OK' "test accuracy"

expect_lines 1 '^  event file  +.*/events\.out\.tfevents\.[0-9]{10}\.' "event file line"
expect_lines 1 '^  checkpoint  +.*/model\.ckpt-[0-9]+ ' "checkpoint line"
expect_lines 1 '^  restored  +from .*\.meta alone, in a new session: test accuracy [0-9.]+% \(the same\)$' \
  "restored line"
prefix=$(printf '%s\n' "$output" | sed -n 's/^  checkpoint  *\([^ ]*\) .*/\1/p')
for f in "$prefix.index" "$prefix.data-00000-of-00001" "$prefix.meta" "$save_dir/checkpoint"; do
  [ -s "$f" ] || fail "--save-dir left no $f"
done
ls "$save_dir"/events.out.tfevents.* >/dev/null 2>&1 || fail "--save-dir left no event file"

[ -s "$graph" ] || fail "--graph-out wrote no graph to $graph"
"$import_check" "$graph" || fail "$graph does not import as a GraphDef"

# On a terminal the epoch line redraws itself in place: one epoch under a pseudo-terminal
# (util-linux's script) must print a carriage return that does not end a line.
cr=$(printf '\r')
tty_output=$(script -qec "'$program' --epochs 1 --min-accuracy 0 '$data'" /dev/null </dev/null)
rc=$?
[ "$rc" -eq 0 ] || fail "digits_mlp under a pseudo-terminal exited with $rc"
printf '%s\n' "$tty_output" | sed "s/$cr\$//" | grep -q "^${cr}epoch 1/1 .*${cr}epoch 1/1 " ||
  fail "no epoch line redrawn in place on a terminal"
