#!/bin/sh
# Run PolyBench kernels under cachegrind and print one table row per kernel.
#
#   polybench/measure.sh [-s SIZE] [-j JOBS] [-d BUILDDIR] [KERNEL ...]
#
# Builds the kernels at SIZE (default MEDIUM) with build.sh, then runs each
# (JOBS at a time, default 2) as
#   valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 \
#            --LL=1048576,16,64 ./KERNEL
# and prints "| name | SIZE | Dr+Dw | D1 misses | seconds |" rows (markdown,
# in the order the runs finish). D1 misses = D1mr + D1mw; seconds is the wall
# time of the whole valgrind run. Rows go to stdout; cachegrind's output
# files stay in BUILDDIR (default build/polybench/SIZE).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
size=MEDIUM
jobs=2
dir=
one=

while [ $# -gt 0 ]; do
  case $1 in
    -s) size=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    --one) one=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "measure.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ -n "$dir" ] || dir=$here/../build/polybench/$size

run_one() {
  name=$1
  out=$dir/cachegrind.out.$name
  t0=$(date +%s.%N)
  valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 \
    --LL=1048576,16,64 --cachegrind-out-file="$out" "$dir/$name" \
    >"$dir/$name.stdout" 2>"$dir/$name.valgrind"
  t1=$(date +%s.%N)
  # events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
  awk -v name="$name" -v size="$size" -v t0="$t0" -v t1="$t1" '
    /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
    /^summary:/ {
      printf "| %s | %s | %.0f | %.0f | %.1f |\n", name, size,
        $(col["Dr"] + 1) + $(col["Dw"] + 1),
        $(col["D1mr"] + 1) + $(col["D1mw"] + 1), t1 - t0
    }' "$out"
}

if [ -n "$one" ]; then
  run_one "$one"
  exit 0
fi

"$here/build.sh" -s "$size" -o "$dir" "$@"

if [ $# -gt 0 ]; then
  names=$*
else
  names=$("$here/build.sh" --list | cut -d' ' -f1)
fi

for n in $names; do echo "$n"; done |
  xargs -P "$jobs" -I{} "$0" -s "$size" -d "$dir" --one {}
