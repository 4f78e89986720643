#!/usr/bin/env bash
# The executable cbana links must be the one clang's driver links
# (frontend/link_cmd.c runs the driver's ld line, remembered in the cache
# directory): byte for byte, with the line first worked out, then taken
# from the cache, and with a remembered line whose ld fails (dropped, and
# the driver links). A link error still reads as the linker's.
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
cbana=$1
root=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
src=$root/polybench/linear-algebra/blas/gemm.c
flags="-O2 -DMINI_DATASET -I$root/polybench"
pass=0 fail=0
check() { # NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
# shellcheck disable=SC2086 # flags: several
clang-14 $flags -gdwarf-4 -c -o "$tmp/ref.o" "$src" &&
  clang-14 $flags -o "$tmp/ref" "$tmp/ref.o" -lm || { echo "FAIL: clang"; exit 1; }
link() { "$cbana" dump "$src" --cflags "$flags" --keep-exe "$tmp/$1" > /dev/null; }
link first
check "first link equals the driver's" cmp -s "$tmp/first" "$tmp/ref"
lines=("$tmp"/cache/cbana/link-*)
check "the line is remembered" test -f "${lines[0]}"
check "it holds placeholders" grep -q '^@CBANA_EXE@$' "${lines[0]}"
link second
check "the remembered line links the same" cmp -s "$tmp/second" "$tmp/ref"
# a remembered line whose ld fails: the driver links, the line is dropped
printf '/bin/false\n' > "${lines[0]}"
link third
check "a failing line falls back to the driver" cmp -s "$tmp/third" "$tmp/ref"
check "the failing line is dropped" test ! -s "${lines[0]}" -o ! -e "${lines[0]}"
# a line naming a file that is gone is not used
printf '/usr/bin/ld\n/nonexistent/crt1.o\n' > "${lines[0]}"
link fourth
check "a line with a missing file is not used" cmp -s "$tmp/fourth" "$tmp/ref"
# undefined functions: the linker's complaint, exit status 2
cat > "$tmp/undef.c" <<'C'
int nowhere(int);
int main(void) { return nowhere(1); }
C
"$cbana" analyze "$tmp/undef.c" --quiet > "$tmp/undef.out" 2>&1
st=$?
check "undefined function: exit 2 (got $st)" test "$st" -eq 2
check "undefined function named" grep -q "nowhere" "$tmp/undef.out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
