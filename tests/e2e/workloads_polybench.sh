#!/bin/sh
# The 30 PolyBench kernels at MINI_DATASET: they build without warnings
# (-std=c11 -Wall -Wextra -Werror), run natively, exit 0 and print one
# checksum line; two runs print the same; -O0 prints the same as -O2 (no
# optimisation changes the arithmetic); the checksum is the one recorded in
# polybench/checksums_mini.txt; and that is what an independent Python
# transcription of each kernel computes (workloads_polybench_ref.py, same
# operation order, so bit-identical; skipped if python3 is missing).
#
#   workloads_polybench.sh SOURCE_ROOT BUILD_DIR
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
src=$1
out=$2
pb=$src/polybench
mkdir -p "$out"

CFLAGS="-std=c11 -Wall -Wextra -Werror" "$pb/build.sh" -s MINI -o "$out/O2" &
p1=$!
CFLAGS="-std=c11 -O0" "$pb/build.sh" -s MINI -o "$out/O0" &
p2=$!
wait $p1 || { echo "FAIL: build at -O2"; exit 1; }
wait $p2 || { echo "FAIL: build at -O0"; exit 1; }

fail=0
count=0
while read -r name value; do
  case $name in '#'*|'') continue ;; esac
  count=$((count + 1))
  if ! a=$("$out/O2/$name"); then
    echo "FAIL $name: non-zero exit"
    fail=1
    continue
  fi
  b=$("$out/O2/$name")
  c=$("$out/O0/$name")
  case $a in
    *[!0-9eE.+-]*|'') echo "FAIL $name: not one number: '$a'"; fail=1 ;;
  esac
  [ "$a" = "$b" ] || { echo "FAIL $name: two runs differ: $a / $b"; fail=1; }
  [ "$a" = "$c" ] || { echo "FAIL $name: -O0 gives $c, -O2 $a"; fail=1; }
  [ "$a" = "$value" ] ||
    { echo "FAIL $name: checksum $a, expected $value"; fail=1; }
done <"$pb/checksums_mini.txt"

if command -v python3 >/dev/null 2>&1; then
  python3 "$src/tests/e2e/workloads_polybench_ref.py" >"$out/ref.txt" ||
    { echo "FAIL: workloads_polybench_ref.py"; fail=1; }
  grep -v '^#' "$pb/checksums_mini.txt" | diff - "$out/ref.txt" ||
    { echo "FAIL: checksums_mini.txt differs from the Python reference"; fail=1; }
else
  echo "note: python3 missing, reference computation skipped"
fi

listed=$("$pb/build.sh" --list | wc -l)
[ "$count" -eq 30 ] && [ "$listed" -eq 30 ] ||
  { echo "FAIL: $count checksums, $listed kernels (want 30)"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $count kernels"
exit $fail
