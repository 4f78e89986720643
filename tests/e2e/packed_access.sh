#!/usr/bin/env bash
# Packed structs' odd-width bit-fields and odd-size copies
# (tests/e2e/data/packed): the x86 backend reads an i24, i40 or i152
# bit-field storage otherwise than its legal pieces (DAGCombiner narrows
# a load to the bytes a field needs, widens one past the storage's end,
# folds a store into a read-modify-write; a volatile storage is read whole
# and VEX drops the loads whose value is overwritten unread), and copies
# 7-, 11- and 13-byte structs with overlapping moves. At -O2 and -O0, every
# line's accesses must equal live cachegrind's (`cbana validate`'s
# per-line table), the output the native run's, the three engines'
# reports equal; `cbana dump` must count the pairings (else the test
# proves nothing). A loop whose unrolled copy the pairing cannot place
# (packed_unrolled.c) must be named in analyze's warning. Not covered: a
# volatile load whose register is overwritten only past the end of VEX's
# superblock (cachegrind counts it; cbana drops it), and volatile copies
# (the engine's older model).
set -u
cbana=$1
dir=$(cd "$(dirname "$0")/data/packed" && pwd)
src=$dir/packed_bits.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1

for opt in -O2 -O0; do
  "$cbana" dump "$src" --cflags "$opt" >dump$opt.txt 2>&1 || bad "dump $opt exit"
  awk '/^odd-width integers:/ { paired = $3; unp = $13; dead = $18 }
       END { exit !(paired >= 16 && unp == 0 && dead >= 3) }' dump$opt.txt && ok ||
    { bad "dump $opt: odd-width pairings"; grep -E "^odd-width" dump$opt.txt; }

  clang $opt -o native$opt "$src" && ./native$opt 1000 >native$opt.out || bad "native $opt"
  for eng in "--wait-kernels --jobs 2" --no-kernels --exact-engine; do
    name=$(echo "$eng" | tr -dc 'a-z')
    # shellcheck disable=SC2086
    "$cbana" analyze "$src" --cflags "$opt" --args 1000 --quiet --format json \
      -o "$name$opt.json" $eng 2>"$name$opt.err" || bad "analyze $opt $eng exit"
    hasnt "could not be paired" "$name$opt.err" "analyze $opt $eng warns"
  done
  same waitkernelsjobs$opt.json exactengine$opt.json "$opt fast (kernels) vs exact"
  same nokernels$opt.json exactengine$opt.json "$opt fast (no kernels) vs exact"
  output exactengine$opt.json >ref$opt.out
  cmp -s ref$opt.out native$opt.out && ok || bad "$opt output: $(cat ref$opt.out) vs native $(cat native$opt.out)"

  if command -v valgrind >/dev/null; then
    "$cbana" validate "$src" --cflags "$opt" --args 1000 --top 1000 >val$opt.out 2>&1
    st=$?
    [ $st -eq 0 ] && ok || { bad "validate $opt exit $st"; cat val$opt.out; }
    awk '$1 ~ /packed_bits\.c:[0-9]+$/ && NF == 5 { n++; if ($2 != $3) { print "line " $1 ": cbana " $2 ", cachegrind " $3; d++ } }
         END { if (n < 25) { print "only " n " lines"; d++ } exit d > 0 }' val$opt.out && ok ||
      bad "validate $opt: per-line accesses"
  fi
done

"$cbana" analyze "$dir/packed_unrolled.c" --args 64 --quiet >unrolled.out 2>unrolled.err ||
  bad "analyze packed_unrolled exit"
has "warning: .*could not be paired.*packed_unrolled\.c:21 [^ ]*packed_unrolled\.c:22" unrolled.err \
  "the unrolled loop's lines named"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
