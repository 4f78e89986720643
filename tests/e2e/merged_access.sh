#!/usr/bin/env bash
# Loads and stores the x86 backend merged into one wider access
# (frontend/machine_merge.c; tests/e2e/data/merged/merged_pairs.c): the
# object code must still show the merges (else the test proves nothing),
# `cbana dump` must count them, every line's accesses (and the misses of
# the lines that merge) must equal live cachegrind's (`cbana validate`'s
# per-line table), and the
# reports of the fast engine (with the native kernels compiled first, and
# without them) must equal the reference interpreter's byte for byte, its
# output the native executable's.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/merged" && pwd)/merged_pairs.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1

# the merges: a 16-byte load and store of the swap's first pair (lines 20,
# 24), of the four floats (36, 37), an 8-byte load and store of the
# struct (41, 42); none on the lines whose access went into another's
clang -O2 -g -c "$src" -o m.o && clang -O2 -o native "$src" || bad "clang"
objdump -d -l --no-show-raw-insn -M intel m.o |
  awk '/merged_pairs.c:[0-9]+$/ { n = split($0, x, ":"); ln = x[n]; next }
       /PTR \[/ && !/rip|rsp|lea|nop/ { w = $0 ~ /PTR \[[^]]*\],/ ? "w" : "r";
         sz = $0 ~ /XMMWORD/ ? 16 : $0 ~ /QWORD/ ? 8 : 4; print ln, w, sz }' >acc.txt
for want in "20 r 16" "24 w 16" "36 r 16" "37 w 16" "41 r 8" "42 w 8"; do
  has "^$want\$" acc.txt "clang's merge on line ${want%% *}"
done
for none in 25 38 39 40 43; do
  hasnt "^$none " acc.txt "an access of its own on line $none"
done

"$cbana" dump "$src" --cflags -O2 >dump.txt 2>&1 || bad "dump exit"
has "^merged accesses: 6 loads and stores merged into a neighbour's wider access, 0 wider" \
  dump.txt "dump's count"

./native 4096 >native.out
"$cbana" analyze "$src" --cflags -O2 --args 4096 --quiet --format json -o fast.json --wait-kernels --jobs 2 ||
  bad "analyze exit"
"$cbana" analyze "$src" --cflags -O2 --args 4096 --quiet --format json -o nokernel.json --no-kernels ||
  bad "analyze --no-kernels exit"
"$cbana" analyze "$src" --cflags -O2 --args 4096 --quiet --format json -o ref.json --exact-engine ||
  bad "analyze --exact-engine exit"
same fast.json ref.json "fast (kernels) vs exact"
same nokernel.json ref.json "fast (no kernels) vs exact"
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["output"], end="")' ref.json >ref.out
cmp -s ref.out native.out && ok || bad "output: $(cat ref.out) vs native $(cat native.out)"

if command -v valgrind >/dev/null; then
  "$cbana" validate "$src" --cflags -O2 --args 4096 --top 1000 >val.out 2>&1
  st=$?
  [ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
  # per line: cbana's accesses equal cachegrind's, and so do the L1D
  # misses of the two functions' lines
  awk '$1 ~ /\.c:[0-9]+$/ && NF == 5 { n++; split($1, x, ":"); f = x[2] >= 15 && x[2] <= 45;
         if ($2 != $3 || (f && $4 != $5)) { print "line " $1 ": cbana " $2 " " $4 ", cachegrind " $3 " " $5; d++ } }
       END { if (n < 20) { print "only " n " lines"; d++ } exit d > 0 }' val.out && ok || bad "validate's per-line accesses"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
