#!/usr/bin/env bash
# Native kernels of the blocks that have run (frontend/jit_compile.c):
# tests/unit/engine/progs/kernel_late.c's loop takes its other side only
# late, where the kernel first made has no code and leaves to the
# interpreter, until the function is made again with it; made first at
# -O0, it is made again at -O1 once it has run long (--stats counts
# both). The kernels compile beside the engine as users run it, in a
# fresh cache directory, then again from that cache (the index keeps
# each function's blocks), and all at once (--wait-kernels): each report
# must be the reference interpreter's byte for byte, and the output and
# exit status the native executable's.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/kernel_late.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
run() { # run NAME ARGS... (exit status appended to NAME.err)
  local name=$1
  shift
  XDG_CACHE_HOME="$tmp/cache" "$cbana" analyze "$src" --quiet --format json \
    -o "$tmp/$name.json" "$@" >"$tmp/$name.err" 2>&1
  echo "exit $?" >>"$tmp/$name.err"
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0][sys.argv[2]], end="")' "$1" "$2"; }

clang-14 -O2 -o "$tmp/native" "$src" 2>"$tmp/cc.err" || cat "$tmp/cc.err"
"$tmp/native" >"$tmp/native.out"
echo "$?" >"$tmp/native.status"

run ref --exact-engine
run cold --stats
run warm --stats
run eager --wait-kernels
has 'exit [0-9]+' "$tmp/ref.err" "reference: ran"
has 'compiled: [0-9]+ of their functions. [0-9]+, [1-9][0-9]* compiles again with more blocks, [1-9][0-9]* to faster code' \
  "$tmp/cold.err" "cold: compiled again with the late blocks, and at -O1"
has 'native kernels: [1-9][0-9]* functions .* [1-9][0-9]* operations run by them' \
  "$tmp/warm.err" "warm: kernels from the cache"
for r in cold warm eager; do
  same "$tmp/$r.json" "$tmp/ref.json" "$r vs exact"
done
if [ "$(field "$tmp/ref.json" output)" = "$(cat "$tmp/native.out")" ]; then ok; else
  bad "output '$(field "$tmp/ref.json" output)' vs native '$(cat "$tmp/native.out")'"
fi
if [ "$(field "$tmp/ref.json" exit_code)" = "$(cat "$tmp/native.status")" ]; then ok; else
  bad "exit code $(field "$tmp/ref.json" exit_code) vs native $(cat "$tmp/native.status")"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
