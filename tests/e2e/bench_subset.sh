#!/bin/sh
# make check's quick subset of `make bench`: a few PolyBench kernels at
# MINI and a few paper workload inputs, cbana against cachegrind
# (bench/compare.py MINI --check): every row must be within max(1%, 20
# misses) of cachegrind's own-code L1D misses, except the kernels of XFAIL
# below, which are printed with their measured gap (XFAIL, or XPASS once
# they pass: then take them off the list).
#
#   tests/e2e/bench_subset.sh SOURCE_DIR CBANA OUT_DIR CACHE_DIR
#
# OUT_DIR gets MINI-subset.md and .json; CACHE_DIR keeps cachegrind's
# results between runs (the normal and sanitizer builds share it).
set -eu
src=$1
cbana=$2
out=$3
cache=$4

# Known gaps (kernel names, no spaces):
XFAIL=""
# A kernel of each category, every workload program with its "small"
# inputs (br_path2, br_path3, tc, pr), three load_loop rows; with
# CBANA_E2E_QUICK=1 (the sanitizer build, docs/ci.md), the first.
set -- gemm atax jacobi-2d floyd-warshall durbin deriche \
  br_path2 br_path3 tc pr "load_loop array heap line 600 50" \
  "load_loop soa stack rand 1000 10" "load_loop aos global ir 1000 10"
[ "${CBANA_E2E_QUICK:-0}" = 1 ] && set -- "$1"
unset CBANA_E2E_QUICK # the programs' environment: the release pass's
# shellcheck disable=SC2086 # XFAIL is a word list
exec python3 "$src/bench/compare.py" MINI --check --jobs 2 \
  --cbana "$cbana" --out "$out" --tmp "$cache" ${XFAIL:+--xfail $XFAIL} \
  --only "$@"
