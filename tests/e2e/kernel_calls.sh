#!/usr/bin/env bash
# Calls native kernels make themselves (frontend/jit_call.c): the modes of
# tests/unit/engine/progs/kernel_calls.c, each run by the fast engine with
# the kernels compiled first (--wait-kernels; --jobs 2, records written
# non-temporally for the simulation's thread, and --jobs 1) and by the
# reference interpreter (--exact-engine): the reports must be equal byte
# for byte, and the output the native executable's. The calls must be
# the kernels' own (--stats: few left to the engine, but those the engine
# keeps: a struct passed by value; calls through pointers are
# kernel_icalls.sh's). The budget
# running out deep in a recursion, and the modelled stack overflowing,
# must stop the run where the interpreter stops it.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_calls.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

build_native

# case: ARGS MAX-ENGINE-CALLS (-1: not checked)
# fib: 46367 calls; mutual: the frame and slot stacks grow through the
# engine a few times; args: each usebig (by value) is the engine's;
# mixed: the calls through leafp are the kernels' too; deep: past the
# native stack's room for nested kernels the engine takes the calls;
# tail: the jumps are the kernels' own
cases="fib 22|4
tail 20000|10
mutual 3000|40
args 3000|3010
mixed 60|10
deep 100000|-1
tree 8|4"

while IFS='|' read -r args most; do
  n=${args// /.}
  run "$n" analyze "$src" --args "$args" --stats --wait-kernels --jobs 2
  run "$n.inline" analyze "$src" --args "$args" --wait-kernels --jobs 1
  run "$n.ref" analyze "$src" --args "$args" --exact-engine
  has 'exit 0' "$tmp/$n.err" "$n: exit"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
  same "$tmp/$n.inline.json" "$tmp/$n.ref.json" "$n: in line vs exact"
  [ "$most" -ge 0 ] && engine_calls "$n" "$most"
  # shellcheck disable=SC2086
  "$tmp/native" $args >"$tmp/$n.native"
  if [ "$(output "$tmp/$n.json")" = "$(cat "$tmp/$n.native")" ]; then ok; else
    bad "$n: output '$(output "$tmp/$n.json")' vs native '$(cat "$tmp/$n.native")'"
  fi
  if quick; then break; fi
done <<<"$cases"

# the budget runs out deep in a recursion: in fib's kernels, in a mutual
# recursion's, past the native stack's room for nested kernels, and among
# tail calls
for c in "fib 24|300001" "mutual 3000|20011" "deep 100000|650003" \
  "tail 20000|700001"; do
  budget_stop "${c%|*}" "${c#*|}"
  if quick; then break; fi
done

# the modelled stack overflows (8 MiB by default): the engine's error
run overflow analyze "$src" --args "deep 2000000" --wait-kernels
run overflow.ref analyze "$src" --args "deep 2000000" --exact-engine
has 'exit 3' "$tmp/overflow.err" "overflow: exit"
has 'stack overflow calling deep' "$tmp/overflow.err" "overflow: message"
same "$tmp/overflow.json" "$tmp/overflow.ref.json" "overflow: fast vs exact"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
