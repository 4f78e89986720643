#!/usr/bin/env bash
# Slicing (analysis/slice.h, --slice, off by default): which runs skip
# values, and which must be redone unsliced, as --stats reports them for
# the cases of
# tests/unit/engine/progs/slice_cases.c. Whether the counts are right is
# fast_identity_progs' question (the same cases against --exact-engine);
# this test fails when slicing silently stops happening, or when a stale
# read goes unnoticed, and checks that printed numbers come out as the
# native executable prints them.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/slice_cases.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
run() { # run NAME MODE ARGS... (analyze flags after --slice)
  local name=$1 mode=$2
  shift 2
  "$cbana" analyze "$src" --args "$mode" --quiet --stats --format json \
    -o "$tmp/$name.json" --slice "$@" >"$tmp/$name.err" 2>&1
  echo "exit $?" >>"$tmp/$name.err"
}

# the native executable's own output, for the printed numbers
clang-14 -O2 -o "$tmp/native" "$src" -lm 2>"$tmp/cc.err" ||
  clang -O2 -o "$tmp/native" "$src" -lm 2>>"$tmp/cc.err" || cat "$tmp/cc.err"
output() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["output"], end="")' "$1"; }

# reuse: bytes a sliced loop left stale, stored over with needed
# integers; the stores (the fast loop's too) make them exact, so reading
# them is no stale read
for mode in print fields copy reuse; do
  run "$mode" "$mode"
  has 'exit 0' "$tmp/$mode.err" "$mode: exit"
  has '[1-9][0-9]* loops sliced' "$tmp/$mode.err" "$mode: loops run without their values"
  hasnt 'run again unsliced' "$tmp/$mode.err" "$mode: no redo"
  "$tmp/native" "$mode" >"$tmp/$mode.native"
  if [ "$(output "$tmp/$mode.json")" = "$(cat "$tmp/$mode.native")" ]; then ok; else
    bad "$mode: output '$(output "$tmp/$mode.json")' vs native '$(cat "$tmp/$mode.native")'"
  fi
done

# fill: the sliced loops' stores of a constant and of a value from before
# the loop are written, so the reads that pick branches and elements are
# exact; iota: a sliced loop's stores of its induction variable are not,
# and reading them is stale
run fill fill
has 'exit 0' "$tmp/fill.err" "fill: exit"
has '[1-9][0-9]* loops sliced' "$tmp/fill.err" "fill: loops run without their values"
hasnt 'run again unsliced' "$tmp/fill.err" "fill: invariant stores written, no redo"
"$tmp/native" fill >"$tmp/fill.native"
if [ "$(output "$tmp/fill.json")" = "$(cat "$tmp/fill.native")" ]; then ok; else
  bad "fill: output '$(output "$tmp/fill.json")' vs native '$(cat "$tmp/fill.native")'"
fi
run iota iota
has 'exit 0' "$tmp/iota.err" "iota: exit"
has '1 inputs needed a skipped value, run again unsliced \(first: .*slice_cases.c:[0-9]+: a needed read' \
  "$tmp/iota.err" "iota: the unwritten induction values are stale, the run redone"

run sqrt sqrt
has 'exit 0' "$tmp/sqrt.err" "sqrt: exit"
has '[1-9][0-9]* loops sliced' "$tmp/sqrt.err" "sqrt: loops run without their values"
hasnt 'run again unsliced' "$tmp/sqrt.err" "sqrt: never bound natively, no redo"
"$tmp/native" sqrt >"$tmp/sqrt.native"
if [ "$(output "$tmp/sqrt.json")" = "$(cat "$tmp/sqrt.native")" ]; then ok; else
  bad "sqrt: output '$(output "$tmp/sqrt.json")' vs native '$(cat "$tmp/sqrt.native")'"
fi
run sqrtneg sqrtneg
has 'exit 0' "$tmp/sqrtneg.err" "sqrtneg: exit"
has 'run again unsliced \(first: .*slice_cases.c:[0-9]+: the native run bound sqrt' \
  "$tmp/sqrtneg.err" "sqrtneg: bound natively, redone"

run pun pun
has 'exit 0' "$tmp/pun.err" "pun: exit"
has '1 inputs needed a skipped value, run again unsliced \(first: .*slice_cases.c:[0-9]+: a needed read' \
  "$tmp/pun.err" "pun: the stale read is found and the run redone"

# main's return value: the exit status only; the function that computes
# it runs its loop sliced (the return value needed by no caller), and the
# status is the native run's
run status status
has 'exit 0' "$tmp/status.err" "status: exit"
has 'loop templates: 3 loops, .* 3 loops sliced' "$tmp/status.err" \
  "status: the returned sum's loop runs sliced"
hasnt 'run again unsliced' "$tmp/status.err" "status: no redo"
"$tmp/native" status >/dev/null
want=$?
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["exit_code"])' "$tmp/status.json")
if [ "$got" = "$want" ]; then ok; else bad "status: exit code $got vs native $want"; fi

run branch branch
has 'exit 0' "$tmp/branch.err" "branch: exit"
hasnt 'run again unsliced' "$tmp/branch.err" "branch: compared floats are computed"

# a native run that never ends is killed; the model stops at its budget
start=$(date +%s)
run spin spin --budget 20000000
has 'exit 3' "$tmp/spin.err" "spin: the input stops"
has 'run again unsliced' "$tmp/spin.err" "spin: redone unsliced"
if [ $(($(date +%s) - start)) -lt 120 ]; then ok; else bad "spin: took $(($(date +%s) - start)) s"; fi

# a native run started ahead of the printf (driver_native.h) that the
# model never reaches, as it stops at its budget first: killed then, not
# waited for (its deadline is 10 s). The budget is small, so that the
# model's own run stays well under 8 s under the sanitizers beside
# another test (20 M operations took 9 s there, session 27)
start=$(date +%s)
run late late --budget 5000000
has 'exit 3' "$tmp/late.err" "late: the input stops"
has 'stopped after 5000000 operations' "$tmp/late.err" "late: at the budget"
hasnt 'run again unsliced' "$tmp/late.err" "late: no redo"
if [ $(($(date +%s) - start)) -lt 8 ]; then ok; else bad "late: took $(($(date +%s) - start)) s"; fi

# PolyBench kernels whose every loop must run sliced: sqrt's argument
# (cholesky, correlation, gramschmidt), vector reductions and selects of
# compared ints (floyd-warshall, nussinov), an extractelement of a
# two-lane vector (gramschmidt: its one slot, not two)
pb=$(cd "$(dirname "$0")/../../polybench" && pwd)
for k in linear-algebra/solvers/cholesky datamining/correlation \
  linear-algebra/solvers/gramschmidt medley/floyd-warshall medley/nussinov; do
  name=$(basename "$k")
  "$cbana" analyze "$pb/$k.c" --cflags "-O2 -DMINI_DATASET -I$pb" --quiet \
    --slice --stats --format json -o "$tmp/$name.json" >"$tmp/$name.err" 2>&1
  echo "exit $?" >>"$tmp/$name.err"
  has 'exit 0' "$tmp/$name.err" "$name: exit"
  has 'templates: ([0-9]+) loops, .*; \1 loops sliced' "$tmp/$name.err" \
    "$name: every template loop sliced"
  hasnt 'run again unsliced' "$tmp/$name.err" "$name: no redo"
done

run noslice print --no-slice
has ' 0 loops sliced' "$tmp/noslice.err" "--slice --no-slice: nothing sliced"

# The default: nothing sliced, and the program is never executed. Where
# strace is, it lists what cbana executes: --slice runs the executable it
# keeps, the default only the compiler, the linker and glibc's probe.
execs() { # execs NAME ARGS...: the paths NAME's run executed
  local name=$1
  shift
  strace -f -qq -e trace=execve -o "$tmp/$name.trace" "$cbana" analyze \
    "$src" --args print --quiet --stats -o /dev/null "$@" >"$tmp/$name.err" 2>&1
  grep -o 'execve("[^"]*"' "$tmp/$name.trace" | sed 's/^execve("//; s/"$//' |
    grep -v "^$cbana\$" >"$tmp/$name.execs"
}
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
  execs default
  has ' 0 loops sliced' "$tmp/default.err" "default: nothing sliced"
  has '/usr/bin/(clang|ld)' "$tmp/default.execs" "default: strace sees the compile"
  grep -vE '/(clang[^/]*|ld[^/]*|valgrind[^/]*|cbana-glibc-probe)$' \
    "$tmp/default.execs" >"$tmp/default.others"
  hasnt '^' "$tmp/default.others" "default: executes only the compiler, linker, probe"
  execs sliced --slice
  has '/cbana-run-[^/]*/prog$' "$tmp/sliced.execs" "--slice: runs the program"
else
  echo "no usable strace: the default's no-execution check is skipped"
  "$cbana" analyze "$src" --args print --quiet --stats -o /dev/null \
    >"$tmp/default.err" 2>&1
  has ' 0 loops sliced' "$tmp/default.err" "default: nothing sliced"
fi
run exact print --exact-engine
has ' 0 loops sliced' "$tmp/exact.err" "--exact-engine: nothing sliced"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
