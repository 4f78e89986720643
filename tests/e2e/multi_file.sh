#!/usr/bin/env bash
# A program of several C files (tests/e2e/data/multifile): each file's
# static `step`, which the linked module renames step.N, found at its own
# address in the executable (its machine code's return-address accesses
# are counted on its own line); a leaf function with no IR access named
# in the per-line and per-function views; the output that of the native
# executable; the accesses of every line equal to cachegrind's
# (`cbana validate`'s per-line table).
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/multifile" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
files="$src/main.c $src/table.c $src/leaf.c"
cd "$tmp" || exit 1

# shellcheck disable=SC2086
"$cbana" analyze --quiet $files --args 3000 --format json -o r.json
has_exit=$?
[ $has_exit -eq 0 ] && ok || bad "analyze exit $has_exit"
# shellcheck disable=SC2086
clang -O2 -o native $files && ./native 3000 >native.out || bad "native build"
python3 - r.json native.out <<'PY' && ok || bad "report"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["output"] == open(sys.argv[2]).read(), run["output"]
c = run["caches"][0]
lines = {(l["file"].rsplit("/", 1)[-1], l["line"]): l for l in c["lines"]}
for k, l in lines.items():
    assert l["function"], f"line {k} has no function"
# the two statics' return addresses: one access a call, each on its line
assert lines[("main.c", 11)]["function"] == "step", lines[("main.c", 11)]
assert lines[("main.c", 11)]["accesses"] == 3000, lines[("main.c", 11)]
assert lines[("table.c", 3)]["function"] == "step", lines.get(("table.c", 3))
assert lines[("table.c", 3)]["accesses"] == 3000, lines.get(("table.c", 3))
assert lines[("leaf.c", 1)]["function"] == "leaf", lines[("leaf.c", 1)]
fns = {(f["name"], f["file"].rsplit("/", 1)[-1]) for f in c["functions"]}
for want in [("step", "main.c"), ("step", "table.c"), ("leaf", "leaf.c"),
             ("fill", "table.c"), ("table_sum", "table.c")]:
    assert want in fns, (want, fns)
PY

if command -v valgrind >/dev/null; then
  # shellcheck disable=SC2086
  "$cbana" validate --quiet $files --args 3000 >val.out 2>&1
  st=$?
  [ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
  # per line: cbana's accesses equal cachegrind's
  awk '$1 ~ /\.c:[0-9]+$/ && NF == 5 { n++; if ($2 != $3) { print "line " $1 ": cbana " $2 ", cachegrind " $3; d++ } }
       END { if (n < 8) { print "only " n " lines"; d++ } exit d > 0 }' val.out && ok || bad "validate's per-line accesses"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
