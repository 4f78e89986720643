#!/usr/bin/env bash
# Native kernels (frontend/jit*.c, docs/architecture.md): the cases of
# tests/unit/engine/progs/kernel_cases.c, each run by the fast engine
# with the kernels compiled first (--wait-kernels), which must run part of
# it in a kernel (--stats), and by the reference
# interpreter (--exact-engine): the reports must be equal byte for byte,
# the budget's and a zero divisor's stops included, and `cbana paths`
# (the branch counts) too. Every value is the kernels' own, so the
# printed checksums and the exit status must be what the native
# executable gives.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_cases.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

build_native

# --jobs 2 for one input: the simulation on a thread of its own, fed
# through the pipe, into which the kernels write their records with
# non-temporal stores; --jobs 1: in line, the records plain
for mode in gather hash chase rewrite cross status; do
  run "$mode" analyze "$src" --args "$mode" --stats --wait-kernels --jobs 2
  run "$mode.inline" analyze "$src" --args "$mode" --wait-kernels --jobs 1
  run "$mode.ref" analyze "$src" --args "$mode" --exact-engine
  has 'exit 0' "$tmp/$mode.err" "$mode: exit"
  has 'native kernels: [1-9][0-9]* functions .* [1-9][0-9]* operations run by them' \
    "$tmp/$mode.err" "$mode: run in a kernel"
  same "$tmp/$mode.json" "$tmp/$mode.ref.json" "$mode: fast vs exact"
  same "$tmp/$mode.inline.json" "$tmp/$mode.ref.json" "$mode: in line vs exact"
  "$tmp/native" "$mode" >"$tmp/$mode.native"
  echo "$?" >"$tmp/$mode.status"
  if [ "$(exit_code "$tmp/$mode.json")" = "$(cat "$tmp/$mode.status")" ]; then ok; else
    bad "$mode: exit code $(exit_code "$tmp/$mode.json") vs native $(cat "$tmp/$mode.status")"
  fi
  if [ "$(output "$tmp/$mode.json")" = "$(cat "$tmp/$mode.native")" ]; then ok; else
    bad "$mode: output '$(output "$tmp/$mode.json")' vs native '$(cat "$tmp/$mode.native")'"
  fi
  if quick; then break; fi
done

# a zero divisor loaded in the kernel's loop: the interpreter reports it
run divzero analyze "$src" --args divzero --stats --wait-kernels
run divzero.ref analyze "$src" --args divzero --exact-engine
has 'exit 3' "$tmp/divzero.err" "divzero: exit"
has 'kernel_cases.c:[0-9]+: division by zero in main' "$tmp/divzero.err" "divzero: message"
same "$tmp/divzero.json" "$tmp/divzero.ref.json" "divzero: fast vs exact"

# the budget runs out inside the kernel's loop
run budget analyze "$src" --args "gather 5000" --budget 300000 --wait-kernels
run budget.ref analyze "$src" --args "gather 5000" --budget 300000 --exact-engine
has 'exit 3' "$tmp/budget.err" "budget: exit"
has 'stopped after 300000 operations' "$tmp/budget.err" "budget: message"
same "$tmp/budget.json" "$tmp/budget.ref.json" "budget: fast vs exact"

# the branch counts behind `cbana paths`
run paths paths "$src" --args gather --wait-kernels
run paths.ref paths "$src" --args gather --exact-engine
same "$tmp/paths.json" "$tmp/paths.ref.json" "paths: fast vs exact"

# as users run it: the kernels compile beside the engine, which takes them
# up mid-run; long enough for that to happen
run async analyze "$src" --args "gather 400000" --stats
run async.ref analyze "$src" --args "gather 400000" --exact-engine
has 'native kernels: [1-9][0-9]* functions .* [1-9][0-9]* operations run by them' \
  "$tmp/async.err" "async: kernels taken up mid-run"
same "$tmp/async.json" "$tmp/async.ref.json" "async: fast vs exact"

# --no-kernels: none compiled, the same report
run none analyze "$src" --args gather --stats --no-kernels
hasnt 'native kernels' "$tmp/none.err" "none: no kernels"
same "$tmp/none.json" "$tmp/gather.ref.json" "none: fast vs exact"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
