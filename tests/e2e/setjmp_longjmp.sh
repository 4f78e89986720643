#!/usr/bin/env bash
# setjmp and longjmp (analysis/process/libc_setjmp.c) on tests/e2e/data/setjmp:
# error recovery out of a recursion many frames deep, setjmp in a loop, a
# longjmp from a callee of a callee with the value 0, a jump through a
# memcpy'd jmp_buf, a longjmp out of nested native kernels.
# The output and exit status must be the native run's; the default
# engine's report, the kernels' compiled first (--wait-kernels) and the
# reference interpreter's equal byte for byte; against live cachegrind,
# every own-code line's accesses equal and own-code L1D misses within
# validate's tolerance, and the whole process's accesses grow from 20 to
# 40 rounds by what cachegrind's grow (setjmp's and longjmp's own traffic
# in libc, the pointer guard's reads, __pthread_cleanup_upto's); the
# same with -D_FORTIFY_SOURCE=2 (__longjmp_chk); at -O0 the own-code
# lines (no spills after a call that never returns). A jump to a function
# that returned, and a saved signal mask, stop the input with an error
# naming the line.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/setjmp" && pwd)/jumps.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1

clang -O2 -o native "$src" && ./native 20 >native.out
native_st=$?
run fast analyze "$src" --args 20
run exact analyze "$src" --args 20 --exact-engine
run kern analyze "$src" --args 20 --wait-kernels --jobs 2 --stats
has 'exit 0' fast.err "analyze exit"
same fast.json exact.json "default vs exact engine"
same kern.json exact.json "kernels vs exact engine"
if [ "$(output fast.json)" = "$(cat native.out)" ]; then ok; else
  bad "output '$(output fast.json)' vs native '$(cat native.out)'"
fi
[ "$(exit_code fast.json)" = "$native_st" ] && ok ||
  bad "exit status $(exit_code fast.json), native $native_st"
# every function ran as a kernel, main and bound (which call setjmp)
# too: probe's longjmp left probe's, step's and scan's kernels, descend's
# left the kernels of its recursion
n=$(grep -oP "native kernels: \K[0-9]+" kern.err)
[ "${n:-0}" -ge 12 ] && ok || bad "kernels compiled: ${n:-none}"
has 'operations run by them \((9[0-9]|100)\.' kern.err "kernels' share"

command -v valgrind >/dev/null || {
  echo "$pass passed, $fail failed (no valgrind: cachegrind skipped)"
  [ "$fail" -eq 0 ]
  exit
}
# whole NAME: the whole process's accesses, cbana's and cachegrind's
whole() { awk '/^  whole process/ { w = 1 } w && $1 == "accesses" { print $2, $3; exit }' "$1"; }
for mode in plain fortify O0; do
  flags=-O2
  [ $mode = fortify ] && flags="-O2 -D_FORTIFY_SOURCE=2"
  [ $mode = O0 ] && flags=-O0
  for n in 20 40; do
    v=$mode.$n
    "$cbana" validate --quiet "$src" --cflags "$flags" --args $n --top 200 \
      >$v.out 2>&1
    st=$?
    [ $st -eq 0 ] && ok || { bad "$v: validate exit $st"; cat $v.out; }
    awk '/^  own code/ { o = 1 } o && $1 == "accesses" { f = 1; exit !($2 == $3) }
         END { if (!f) exit 1 }' $v.out && ok || bad "$v: own-code accesses differ"
    has '^  L1D misses .* ok$' $v.out "$v: own-code L1D misses"
    awk '$1 ~ /^jumps\.c:/ && NF == 5 { n++; if ($2 != $3) { print; bad = 1 } }
         END { exit bad || n < 30 }' $v.out && ok || bad "$v: a line's accesses differ"
  done
  # (-O0's stdio calls leave the whole process a gap that moves with the
  # digits printed, not with the rounds: not this model's)
  [ $mode = O0 ] && continue
  read -r cb20 cg20 <<<"$(whole $mode.20.out)"
  read -r cb40 cg40 <<<"$(whole $mode.40.out)"
  [ -n "$cb20" ] && [ $((cb40 - cb20)) -eq $((cg40 - cg20)) ] && ok ||
    bad "$mode: whole process grows by $((cb40 - cb20)), cachegrind's by $((cg40 - cg20))"
  if quick; then break; fi
done
"$cbana" dump "$src" --cflags "-O2 -D_FORTIFY_SOURCE=2" >dump.out 2>&1
has 'libc:__longjmp_chk' dump.out "fortified longjmp"

# what the model does not follow: an error naming the line, exit non-zero
line() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
run returned analyze "$src" --args returned
hasnt 'exit 0' returned.err "returned: exit"
has "jumps\.c:$(line 'longjmp(err_buf, 1000').*longjmp to a jmp_buf .* has returned" \
  returned.err "returned: message"
run mask analyze "$src" --args mask
hasnt 'exit 0' mask.err "mask: exit"
has "jumps\.c:$(line 'return sigsetjmp').*sigsetjmp saving the signal mask" \
  mask.err "mask: message"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
