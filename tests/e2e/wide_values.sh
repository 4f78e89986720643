#!/usr/bin/env bash
# Wide values (program.h): the programs tests/unit/engine/progs/wide_*.c
# (odd-width bit-field integers, __int128, long double) at -O0 and -O2:
# cbana's run prints what the native executable prints and exits as it
# does, for each input; and `cbana validate` against live cachegrind has
# the own code's L1D misses within tolerance, and its accesses equal to
# cachegrind's where the IR's accesses are the machine code's (bit-fields
# and long double at -O2: split odd-width accesses, one 10-byte
# fld/fstp); validate's verdict, which also holds accesses to the
# tolerance, is required there.
set -u
cbana=$1
dir=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
for prog in wide_bitfields wide_int128 wide_ldouble; do
  for opt in -O2 -O0; do
    clang $opt -w -o "$tmp/native" "$dir/$prog.c" -lm 2>"$tmp/cc.err" ||
      { bad "$prog $opt: native build"; cat "$tmp/cc.err"; continue; }
    while read -r args; do
      "$tmp/native" $args >"$tmp/native.out"
      echo "exit $?" >>"$tmp/native.out"
      "$cbana" analyze "$dir/$prog.c" --cflags "$opt" --args "$args" \
        --format json --quiet -o "$tmp/r.json" 2>"$tmp/r.err"
      python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["runs"][0]
print(r["output"] or "", end=""); print("exit", r["exit_code"])' \
        "$tmp/r.json" >"$tmp/cbana.out" 2>>"$tmp/r.err"
      if cmp -s "$tmp/native.out" "$tmp/cbana.out"; then ok; else
        bad "$prog $opt '$args': output or exit status differs"
        diff "$tmp/native.out" "$tmp/cbana.out" | head -10
        head -5 "$tmp/r.err"
      fi
      if quick; then break; fi
    done <"$dir/$prog.inputs"
    args=$(head -1 "$dir/$prog.inputs")
    "$cbana" validate "$dir/$prog.c" --cflags "$opt" --args "$args" \
      >"$tmp/v.out" 2>&1
    has '^  L1D misses .* ok$' "$tmp/v.out" "$prog $opt: validate's own L1D misses"
    if [ "$opt" = -O2 ] && [ "$prog" != wide_int128 ]; then
      has 'every input within tolerance' "$tmp/v.out" "$prog $opt: validate"
      # own code: "accesses  CBANA  CACHEGRIND  GAP"
      has '^  accesses +([0-9]+) +\1 ' "$tmp/v.out" \
        "$prog $opt: own accesses equal to cachegrind's"
    fi
    if quick; then break; fi
  done
  if quick; then break; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
