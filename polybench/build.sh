#!/bin/sh
# Build the PolyBench/C 4.2.1 kernels of cbana.
#
#   polybench/build.sh [-s SIZE] [-o OUTDIR] [KERNEL ...]
#   polybench/build.sh --list
#
# SIZE is MINI, SMALL, MEDIUM, LARGE (default, as in PolyBench) or
# EXTRALARGE. Each kernel is compiled with
#   $CC -O2 -g -gdwarf-4 -D${SIZE}_DATASET $CFLAGS -o OUTDIR/NAME SRC -lm
# (CC defaults to clang; CFLAGS adds flags, e.g. "-Wall -Wextra -Werror",
# or "-O0" to override the optimisation level). Without KERNEL names every
# kernel is built. OUTDIR defaults to build/polybench/SIZE. --list prints
# "NAME SOURCE" lines, one per kernel, SOURCE relative to polybench/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
size=LARGE
out=
list=0

while [ $# -gt 0 ]; do
  case $1 in
    -s) size=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done

case $size in
  MINI|SMALL|MEDIUM|LARGE|EXTRALARGE) ;;
  *) echo "build.sh: size must be MINI, SMALL, MEDIUM, LARGE or EXTRALARGE" >&2
     exit 2 ;;
esac

kernels() {
  (cd "$here" && find datamining linear-algebra medley stencils -name '*.c' |
    LC_ALL=C sort | while read -r src; do
      echo "$(basename "$src" .c) $src"
    done)
}

if [ $list -eq 1 ]; then
  kernels
  exit 0
fi

[ -n "$out" ] || out=$here/../build/polybench/$size
mkdir -p "$out"

cc=${CC:-clang}
extra=${CFLAGS:-}
status=0
kernels | while read -r name src; do
  if [ $# -gt 0 ]; then
    want=0
    for k in "$@"; do [ "$k" = "$name" ] && want=1; done
    [ $want -eq 1 ] || continue
  fi
  # shellcheck disable=SC2086
  $cc -O2 -g -gdwarf-4 -D"${size}"_DATASET $extra -o "$out/$name" \
    "$here/$src" -lm || { echo "build.sh: $name failed" >&2; exit 1; }
done || status=1
exit $status
