#!/usr/bin/env bash
# Stack objects and pages in native kernels: the modes of
# tests/unit/engine/progs/kernel_frames.c, each run by the fast engine with
# the kernels compiled first (--wait-kernels; --jobs 2 and --jobs 1) and by
# the reference interpreter (--exact-engine): the reports must be equal
# byte for byte, and the output the native executable's. The kernels must
# run the allocas themselves, fixed and dynamic (--stats: no kernel left
# before an alloca, and so none before the `ret` of a frame the
# interpreter took over), and the loads and stores whose page the
# translation cache misses (none left before a load), and a `goto *`'s
# switch over label addresses (none left before a switch). A read of an
# unmapped address, a variable-length array past the stack, and the
# budget running out in the recursion must stop the run where the
# interpreter stops it, with its message.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_frames.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
# left NAME OP MAX: the kernels left before OP at most MAX times
left() {
  local n
  n=$(grep -oP "kernels left before: .*\b$2 \K[0-9]+" "$tmp/$1.err")
  if [ "${n:-0}" -le "$3" ]; then ok; else
    bad "$1: kernels left before $2 $n times, over $3"
    grep "left before" "$tmp/$1.err"
  fi
}

build_native

# case: ARGS|OP MAX,OP MAX...: the most leaves before each op
cases="search 12|alloca 0,ret 10,load 0
vla 200|alloca 0,ret 10
pages 20|load 0,store 0
cross 200|alloca 0
goto 200000|switch 0"

while IFS='|' read -r args most; do
  n=${args// /.}
  run "$n" analyze "$src" --args "$args" --stats --wait-kernels --jobs 2
  run "$n.inline" analyze "$src" --args "$args" --wait-kernels --jobs 1
  run "$n.ref" analyze "$src" --args "$args" --exact-engine
  has 'exit 0' "$tmp/$n.err" "$n: exit"
  has 'native kernels: [0-9]+ functions' "$tmp/$n.err" "$n: kernels"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
  same "$tmp/$n.inline.json" "$tmp/$n.ref.json" "$n: in line vs exact"
  IFS=, read -ra limits <<<"$most"
  for l in "${limits[@]}"; do
    # shellcheck disable=SC2086
    left "$n" $l
  done
  # shellcheck disable=SC2086
  "$tmp/native" $args >"$tmp/$n.native"
  if [ "$(output "$tmp/$n.json")" = "$(cat "$tmp/$n.native")" ]; then ok; else
    bad "$n: output '$(output "$tmp/$n.json")' vs native '$(cat "$tmp/$n.native")'"
  fi
  if quick; then break; fi
done <<<"$cases"

# runs that stop: ARGS|MESSAGE
stops="fault 0|invalid read of 8 bytes at 0x10,
huge 100000000|stack overflow: alloca of 100000000 bytes in huge"
while IFS='|' read -r args msg; do
  n=${args// /.}
  run "$n" analyze "$src" --args "$args" --wait-kernels
  run "$n.ref" analyze "$src" --args "$args" --exact-engine
  has 'exit 3' "$tmp/$n.err" "$n: exit"
  has "$msg" "$tmp/$n.err" "$n: message"
  has "$msg" "$tmp/$n.ref.err" "$n: the interpreter's message"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
  if quick; then break; fi
done <<<"$stops"

# the budget runs out in the search's recursion and among the VLAs
for c in "search 12|1000003" "vla 200|700001"; do
  budget_stop "${c%|*}" "${c#*|}"
  if quick; then break; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
