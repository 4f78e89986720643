#!/usr/bin/env bash
# Variables libc defines (tests/e2e/data/libvars: stdout and optind, read
# through the executable's GOT) are placed where the process has them, in
# libc's data: `cbana dump` shows them at libc's symbol values' page
# offsets (nm -D), the loop's lines that read them keep their lines cached
# as in live cachegrind (they missed every iteration when placed in the
# array's set), own-code L1D misses within validate's tolerance, the fast
# engine's report equal to the reference interpreter's, the output the
# native run's.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/libvars" && pwd)/main.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1

clang -O2 -o native "$src" && ./native 20000 >native.out || bad "native"
libc=$(ldd ./native | awk '/libc\.so/ { print $3 }')
"$cbana" dump "$src" --cflags -O2 >dump.txt 2>&1 || bad "dump exit"
for v in stdout optind _IO_2_1_stdout_; do
  want=$(nm -D --defined-only "$libc" | awk -v v="$v" '$3 ~ "^" v "(@|$)" { print $1 }')
  got=$(awk -v v="$v" '$1 == v && $2 == "addr" { print $3 }' dump.txt)
  if [ -n "$want" ] && [ -n "$got" ] &&
    [ $((got % 4096)) -eq $((16#$want % 4096)) ] && [ $((got)) -gt $((16#$want)) ]; then
    ok
  else
    bad "$v at '$got', libc's symbol at '$want'"
  fi
done

run fast analyze "$src" --cflags -O2 --args 20000 --wait-kernels
run ref analyze "$src" --cflags -O2 --args 20000 --exact-engine
has "^exit 0" "$tmp/fast.err" "analyze exit"
same fast.json ref.json "fast vs exact"
output ref.json >ref.out
cmp -s ref.out native.out && ok || bad "output: $(cat ref.out) vs native $(cat native.out)"

if command -v valgrind >/dev/null; then
  "$cbana" validate "$src" --cflags -O2 --args 20000 --top 100 >val.out 2>&1
  st=$?
  [ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
  # the lines reading stdout and optind: accesses equal, misses within 2
  for l in main.c:17 main.c:18; do
    awk -v l="$l" '$1 == l && NF == 5 { found = 1; if ($2 != $3 || $4 - $5 > 2 || $5 - $4 > 2) { print l ": cbana " $2 " " $4 ", cachegrind " $3 " " $5; exit 1 } }
         END { if (!found) { print l ": not in the table"; exit 1 } }' val.out && ok || bad "line $l"
  done
fi

# environ holds envp from the start (data/libvars/environ.c walks it as
# MallocBench/gawk does; unset, the walk read through a null pointer):
# the modelled output is the real run's under valgrind (its environment
# strings), the fast engine's report the reference's, own accesses and
# L1D misses equal to cachegrind's
env_src=$(dirname "$src")/environ.c
run env_fast analyze "$env_src" --wait-kernels
run env_ref analyze "$env_src" --exact-engine
has "^exit 0" "$tmp/env_fast.err" "environ: analyze exit"
same env_fast.json env_ref.json "environ: fast vs exact"
if command -v valgrind >/dev/null; then
  "$cbana" validate "$env_src" >env_val.out 2>&1
  st=$?
  [ $st -eq 0 ] && ok || { bad "environ: validate exit $st"; cat env_val.out; }
  has "identical to the real run's" env_val.out "environ: output"
  awk '/own code/ { own = 1 } own && $1 == "accesses" { a = ($2 == $3); next }
       own && $1 == "L1D" { exit !(a && $3 == $4) }' env_val.out &&
    ok || { bad "environ: own accesses or L1D misses differ"; cat env_val.out; }
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
