#!/usr/bin/env bash
# The op forms of native kernels beyond the scalar integer set
# (frontend/jit_ops_fp.c, jit_ops_vec.c, jit_ops_intr.c, switches in
# jit_ops.c) and the machine code's accesses on an inline sqrt's paths:
# tests/unit/engine/progs/kernel_fp.c, kernel_vec.c, kernel_switch.c and
# kernel_sqrt.c, each mode run by the fast engine with the kernels
# compiled first and by the reference interpreter (--exact-engine). The
# reports must be equal byte for byte, and `cbana paths` (the branch
# counts) too; most of each mode's operations must run in a kernel (a form
# left to the interpreter would make the kernel leave before it every
# time); and where C defines every value, the output must be the native
# executable's.
set -u
cbana=$1
progs=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
# share NAME PERCENT: at least PERCENT of NAME's operations ran in kernels
share() {
  local all k
  all=$(grep -oP '^  operations \K[0-9]+' "$tmp/$1.err")
  k=$(grep -oP '[0-9]+(?= operations run by them)' "$tmp/$1.err")
  if [ -n "$all" ] && [ -n "$k" ] && [ $((k * 100)) -ge $((all * $2)) ]; then ok; else
    bad "$1: ${k:-no} of ${all:-?} operations in kernels, under $2 %"
  fi
}

# case: PROG MODE SHARE NATIVE (SHARE 0: compared only; NATIVE 0: the
# output has values C leaves undefined, or NaNs meeting NaNs, whose
# payload x86 takes from the first operand after the compiler's order)
cases="kernel_fp f32 40 0
kernel_fp f64 30 1
kernel_fp intr 50 1
kernel_fp edge 0 0
kernel_vec f32 40 1
kernel_vec i32 40 1
kernel_vec mixed 0 1
kernel_vec lanes 0 1
kernel_vec masks 40 1
kernel_vec ptrs 40 1
kernel_vec popcnt 40 1
kernel_switch vm 40 1
kernel_switch bytes 40 1
kernel_sqrt pos 90 1
kernel_sqrt mixed 90 1"

for p in kernel_fp kernel_vec kernel_switch kernel_sqrt; do
  flags=$(cat "$progs/$p.cflags" 2>/dev/null || echo -O2)
  # shellcheck disable=SC2086
  clang-14 $flags -o "$tmp/$p" "$progs/$p.c" -lm 2>"$tmp/$p.cc" ||
    clang $flags -o "$tmp/$p" "$progs/$p.c" -lm 2>>"$tmp/$p.cc" || cat "$tmp/$p.cc"
done

while read -r p mode pct native; do
  src=$progs/$p.c
  flags=$(cat "$progs/$p.cflags" 2>/dev/null || echo -O2)
  n=$p.$mode
  run "$n" analyze "$src" --cflags "$flags" --args "$mode" --stats --wait-kernels
  run "$n.ref" analyze "$src" --cflags "$flags" --args "$mode" --exact-engine
  has 'exit 0' "$tmp/$n.err" "$n: exit"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
  [ "$pct" -gt 0 ] && share "$n" "$pct"
  if [ "$native" = 1 ]; then
    "$tmp/$p" "$mode" >"$tmp/$n.native"
    if [ "$(output "$tmp/$n.json")" = "$(cat "$tmp/$n.native")" ]; then ok; else
      bad "$n: output '$(output "$tmp/$n.json")' vs native '$(cat "$tmp/$n.native")'"
    fi
  fi
  if quick; then break; fi
done <<<"$cases"

# the branch counts of the switches
flags=$(cat "$progs/kernel_switch.cflags" 2>/dev/null || echo -O2)
run paths paths "$progs/kernel_switch.c" --cflags "$flags" --args vm --wait-kernels
run paths.ref paths "$progs/kernel_switch.c" --cflags "$flags" --args vm --exact-engine
same "$tmp/paths.json" "$tmp/paths.ref.json" "paths: fast vs exact"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
