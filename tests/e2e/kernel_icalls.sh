#!/usr/bin/env bash
# Calls through pointers native kernels make themselves (frontend/jit_call.c:
# the callee found by its address, its frame pushed by its entry,
# kernel.h's io->entries): the modes of
# tests/unit/engine/progs/kernel_icalls.c, each run by the fast engine with
# the kernels compiled first (--wait-kernels; --jobs 2, records written
# non-temporally for the simulation's thread, and --jobs 1), with the
# kernels compiled as the run goes (cold, blocks and tiers), and by the
# reference interpreter (--exact-engine): the reports must be equal byte
# for byte, and the output the native executable's. The calls must be the
# kernels' own (--stats: few left to the engine), but those the engine
# keeps (a struct by value, a tail call, a variadic callee, the C
# library's calls of a comparator). The budget running out in a recursion
# through pointers must stop the run where the interpreter stops it.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_icalls.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

build_native

# case: ARGS MAX-ENGINE-CALLS (a few before the kernels, from main)
# (qsort: the C library's calls of the comparator are the library
# model's, not counted); engine: per iteration, by_value and sum_va are
# the engine's, seven and op1 (tail_through's, inlined) the kernels'
cases="methods 200000|8
table 100000|8
rec 20|8
qsort 3000|8
engine 3000|6010"

# each case's runs with one cache directory (the modelled process's
# environment names it), the cold run first after the reference's
while IFS='|' read -r args most; do
  n=${args// /.}
  export XDG_CACHE_HOME="$tmp/cache.$n"
  run "$n.ref" analyze "$src" --args "$args" --exact-engine
  run "$n.cold" analyze "$src" --args "$args"
  run "$n" analyze "$src" --args "$args" --stats --wait-kernels --jobs 2
  run "$n.inline" analyze "$src" --args "$args" --wait-kernels --jobs 1
  has 'exit 0' "$tmp/$n.err" "$n: exit"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
  same "$tmp/$n.inline.json" "$tmp/$n.ref.json" "$n: in line vs exact"
  same "$tmp/$n.cold.json" "$tmp/$n.ref.json" "$n: cold vs exact"
  engine_calls "$n" "$most"
  # shellcheck disable=SC2086
  "$tmp/native" $args >"$tmp/$n.native"
  if [ "$(output "$tmp/$n.json")" = "$(cat "$tmp/$n.native")" ]; then ok; else
    bad "$n: output '$(output "$tmp/$n.json")' vs native '$(cat "$tmp/$n.native")'"
  fi
  if quick; then break; fi
done <<<"$cases"

# the budget runs out in a recursion through pointers, and among methods
for c in "rec 22|300001" "methods 200000|1500007"; do
  args=${c%|*}
  export XDG_CACHE_HOME="$tmp/cache.budget.${args// /.}"
  budget_stop "$args" "${c#*|}"
  if quick; then break; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
