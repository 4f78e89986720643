#!/usr/bin/env bash
# Frames of the analysed program (tests/e2e/data/stack/frames.c: frames
# of different sizes, calls whose stack arguments the backend pushes,
# variadic calls with stack arguments, alloca, a VLA): the addresses of
# locals the program prints equal the native run's under `env -i
# valgrind` (docs/process-model.md 2), for working directories whose real
# path grows by 1 to 40 characters, two argv[0] lengths, at -O0 and -O2;
# and validate against live cachegrind: own-code L1D misses within
# tolerance, the walk line's accesses equal.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/stack" && pwd)/frames.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
command -v valgrind >/dev/null || { echo "no valgrind: skipped"; exit 0; }
cd "$tmp" || exit 1
mkdir -p bin
for O in 0 2; do
  clang -O$O -g -o bin/f$O "$src" || { bad "clang -O$O"; continue; }
  ln -sf f$O bin/frames_with_a_longer_name$O
  for L in 1 2 5 8 9 13 16 17 24 25 31 32 33 40; do
    d=$tmp/$(printf 'c%.0s' $(seq 1 "$L"))
    mkdir -p "$d"
    for a0 in "$tmp/bin/f$O" "$tmp/bin/frames_with_a_longer_name$O"; do
      (cd "$d" && env -i valgrind --tool=none -q "$a0" 3 >native.out 2>/dev/null)
      (cd "$d" && "$cbana" analyze --quiet "$src" --cflags "-O$O" --args 3 \
        --argv0 "$a0" --format json -o r.json >/dev/null 2>&1) ||
        { bad "analyze -O$O cwd+$L"; continue; }
      python3 - "$d/r.json" "$d/native.out" <<'PY' && ok || bad "addresses -O$O cwd+$L argv0 $a0"
import json, sys
got = json.load(open(sys.argv[1]))["runs"][0]["output"]
want = open(sys.argv[2]).read()
if got != want or "main 0x" not in want:
    for g, w in zip(got.splitlines(), want.splitlines()):
        if g != w:
            print("cbana:", g, " native:", w)
    sys.exit(1)
PY
      if quick; then break; fi
    done
    if quick; then break; fi
  done
  if quick; then break; fi
done
# per line against cachegrind at -O2 (validate's own-code misses gate,
# and the walk's accesses)
"$cbana" validate --quiet "$src" --args 3 --top 100 >val.out 2>&1
st=$?
[ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
awk '$1 == "frames.c:17" && NF == 5 { found = 1; if ($2 != $3) { print "frames.c:17: cbana " $2 ", cachegrind " $3; exit 1 } }
     END { if (!found) { print "frames.c:17: not in the table"; exit 1 } }' val.out && ok || bad "accesses of frames.c:17"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
