#!/usr/bin/env bash
# By-value struct arguments (tests/e2e/data/byval): the caller's copy of
# a 48-byte struct from the heap (16-byte loads; the stores into the
# argument area are the machine code's stack accesses) and of a 140-byte
# one (`rep movsq`, then the rest), on the call's line, against live
# cachegrind: the call lines' accesses equal, and the callee's reads of
# its copy (the IR's loads through the by-value pointer are the machine
# code's %rsp-relative loads, not accesses beside them), own-code L1D
# misses within validate's tolerance, the output the native run's.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/byval" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1
command -v valgrind >/dev/null || { echo "no valgrind: skipped"; exit 0; }
"$cbana" validate --quiet "$src/main.c" "$src/point.c" --args 1000 \
  --top 100 >val.out 2>&1
st=$?
[ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
for line in main.c:23 main.c:24 point.c:3 point.c:8; do
  awk -v l="$line" '$1 == l && NF == 5 { found = 1; if ($2 != $3) { print l ": cbana " $2 ", cachegrind " $3; exit 1 } }
       END { if (!found) { print l ": not in the table"; exit 1 } }' val.out && ok || bad "accesses of $line"
done
"$cbana" analyze --quiet "$src/main.c" "$src/point.c" --args 1000 \
  --format json -o r.json || bad "analyze"
clang -O2 -o native "$src/main.c" "$src/point.c" && ./native 1000 >native.out
python3 -c 'import json,sys; r=json.load(open("r.json"))["runs"][0]; sys.exit(r["output"] != open("native.out").read())' && ok || bad "output"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
