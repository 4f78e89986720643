#!/usr/bin/env bash
# Translation units kept in the cache directory (frontend/tu_cache.c): an
# unchanged rerun compiles nothing (--stats counts the units reused) and
# reports the same, with an executable byte for byte the fresh one; an
# edited header is compiled again and changes the result; --no-reuse
# compiles all; a failing compile is never kept. The branch scan kept with
# a unit (frontend/condtext.c) gives the dump made from scratch.
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
cbana=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo $tmp
export XDG_CACHE_HOME=$tmp/cache
pass=0 fail=0
check() { # NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
mkdir -p "$tmp/src/inc"
cat > "$tmp/src/inc/size.h" <<'C'
#define N 1000
C
cat > "$tmp/src/sum.c" <<'C'
#include <stdio.h>
#include "size.h"
long sum(const int *a, int n);
static int a[N];
int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i;
  printf("%ld\n", sum(a, N));
  return 0;
}
C
cat > "$tmp/src/util.c" <<'C'
long sum(const int *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}
C
cd "$tmp/src" || exit 1
# a unit is kept only when its files are older than the compile's start
# (clock ticks are coarse): the runs start a little after each edit
settle() { sleep 0.1; }
settle
run() { # NAME [ARGS...]: report in NAME.json, stats in NAME.err, exe NAME.exe
  local name=$1; shift
  "$cbana" analyze sum.c util.c --cflags "-O2 -Iinc" --stats --format json \
    -o "$tmp/$name.json" "$@" 2> "$tmp/$name.err"
}
reused() { grep -o '[0-9]* of [0-9]* translation units reused' "$tmp/$1.err"; }
keep() { "$cbana" dump sum.c util.c --cflags "-O2 -Iinc" --no-ops --keep-exe "$tmp/$1" "${@:2}" > /dev/null; }
accesses() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['caches'][0]['levels']['L1D']['accesses'])" "$1"; }
run first
check "cold: nothing reused ($(reused first))" test "$(reused first)" = "0 of 2 translation units reused"
run second
check "rerun: both reused ($(reused second))" test "$(reused second)" = "2 of 2 translation units reused"
check "rerun: no clang time" grep -q '^  compile  *0\.0[0-9]* s cpu' "$tmp/second.err"
check "rerun: the same report" cmp -s "$tmp/first.json" "$tmp/second.json"
keep fresh.exe --no-reuse
keep kept.exe
check "the executable from kept units is the fresh one" cmp -s "$tmp/fresh.exe" "$tmp/kept.exe"
# the dump (branch conditions as written, from the scan kept with the
# units) is the one made from scratch
"$cbana" dump sum.c util.c --cflags "-O2 -Iinc" > "$tmp/dump.kept"
"$cbana" dump sum.c util.c --cflags "-O2 -Iinc" --no-reuse > "$tmp/dump.fresh"
check "dump from kept units and scans is the fresh one" cmp -s "$tmp/dump.kept" "$tmp/dump.fresh"
check "the dump has the loops' conditions" grep -q '"i < n" sense' "$tmp/dump.kept"
check "the scans are kept" test -n "$(find "$XDG_CACHE_HOME" -name '*.scan')"
run none --no-reuse
check "--no-reuse compiles all ($(reused none))" test "$(reused none)" = "0 of 2 translation units reused"
# the header changes: sum.c compiles again, util.c is kept
echo '#define N 3000' > inc/size.h
settle
run edited
check "header edited: one unit reused ($(reused edited))" test "$(reused edited)" = "1 of 2 translation units reused"
check "header edited: the program prints the new sum" grep -q '"output": "4498500\\n"' "$tmp/edited.json"
check "before the edit: the old sum" grep -q '"output": "499500\\n"' "$tmp/first.json"
check "header edited: more accesses ($(accesses "$tmp/first.json") -> $(accesses "$tmp/edited.json"))" \
  test "$(accesses "$tmp/edited.json")" -gt "$(accesses "$tmp/first.json")"
run edited2
check "rerun after the edit: both reused ($(reused edited2))" test "$(reused edited2)" = "2 of 2 translation units reused"
check "rerun after the edit: the same report" cmp -s "$tmp/edited.json" "$tmp/edited2.json"
# two runs filling an empty cache at once leave complete entries
rm -rf "$XDG_CACHE_HOME/cbana/tu"
run racer1 & run racer2; wait
run after_race
check "after two runs at once: both reused ($(reused after_race))" test "$(reused after_race)" = "2 of 2 translation units reused"
check "after two runs at once: the same report" cmp -s "$tmp/edited.json" "$tmp/after_race.json"
check "no temporary files left" test -z "$(find "$XDG_CACHE_HOME" -name '*.tmp')"
# a unit whose object holds the time it compiled at is never kept; one
# that names __DATE__ only to define it is
cat > clock.c <<'C'
#include <stdio.h>
int main(void) { puts(__TIME__); return 0; }
C
cat > noclock.c <<'C'
#ifndef __DATE__
#define __DATE__ "unknown-date"
#endif
int main(void) { return 3; }
C
settle
one() { "$cbana" analyze "$1" --stats --quiet -o /dev/null 2> "$tmp/$2.err"; }
one clock.c clock1; one clock.c clock2
check "__TIME__ printed: not reused ($(reused clock2))" test "$(reused clock2)" = "0 of 1 translation units reused"
one noclock.c noclock1; one noclock.c noclock2
check "__DATE__ only defined: reused ($(reused noclock2))" test "$(reused noclock2)" = "1 of 1 translation units reused"
# a source that stops compiling is reported, not taken from the cache
echo 'int broken(void) { return }' >> util.c
run broken
st=$?
check "broken source: exit 2 (got $st)" test "$st" -eq 2
check "broken source: clang's message" grep -q "util.c:.*error" "$tmp/broken.err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
