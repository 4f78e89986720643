#!/usr/bin/env bash
# Loop templates' iterations run natively (frontend/jit_tpl.c): the modes
# of tests/unit/engine/progs/kernel_tpl.c, each run by the fast engine
# with the kernels compiled first (--wait-kernels), which must run
# template iterations by native code (--stats), and by the reference
# interpreter (--exact-engine): the reports must be equal byte for byte,
# a budget's stop inside such a loop included. The printed values and
# the exit status must be what the native executable gives.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_tpl.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

clang-14 -O2 -o "$tmp/native" "$src" -lm 2>"$tmp/cc.err" ||
  clang -O2 -o "$tmp/native" "$src" -lm 2>>"$tmp/cc.err" || cat "$tmp/cc.err"

native_iters='loop templates: .*\([1-9][0-9]* by native code\)'
for mode in reduce inplace cross pages narrow; do
  run "$mode" analyze "$src" --args "$mode" --stats --wait-kernels
  run "$mode.ref" analyze "$src" --args "$mode" --exact-engine
  has 'exit 0' "$tmp/$mode.err" "$mode: exit"
  has "$native_iters" "$tmp/$mode.err" "$mode: native template iterations"
  same "$tmp/$mode.json" "$tmp/$mode.ref.json" "$mode: fast vs exact"
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

# the budget runs out while a template's loop runs: the template stops
# short of it, and the interpreter where the reference does
run budget analyze "$src" --args "reduce 100000" --budget 1500000 --wait-kernels
run budget.ref analyze "$src" --args "reduce 100000" --budget 1500000 --exact-engine
has 'exit 3' "$tmp/budget.err" "budget: exit"
has 'stopped after 1500000 operations' "$tmp/budget.err" "budget: message"
same "$tmp/budget.json" "$tmp/budget.ref.json" "budget: fast vs exact"

# --no-kernels: no loop runs from a template (they need the loops' native
# iterations), the same report
run none analyze "$src" --args reduce --stats --no-kernels
has 'loop templates: 0 loops' "$tmp/none.err" "none: no template"
same "$tmp/none.json" "$tmp/reduce.ref.json" "none: fast vs exact"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
