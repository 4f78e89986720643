#!/bin/sh
# Build the paper workloads (load_loop, br_path2, br_path3, tc, pr).
#
#   bench/workloads/build.sh [-o OUTDIR] [NAME ...]
#
# Each NAME.c is compiled with
#   $CC -std=c11 -O2 -g -gdwarf-4 -Wall -Wextra $CFLAGS -o OUTDIR/NAME NAME.c
# (CC defaults to clang). OUTDIR defaults to build/workloads. Each program's
# input sets are in NAME.inputs beside its source: one argument line per
# set, '#' starts a comment.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$here/../../build/workloads
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- load_loop br_path2 br_path3 tc pr
mkdir -p "$out"
for name in "$@"; do
  # shellcheck disable=SC2086
  ${CC:-clang} -std=c11 -O2 -g -gdwarf-4 -Wall -Wextra ${CFLAGS:-} \
    -o "$out/$name" "$here/$name.c"
done
