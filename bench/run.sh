#!/usr/bin/env bash
# Builds and runs cbana's benchmarks: bench/run.sh [BUILD_DIR [NAME...]].
#
# NAME is a CMake benchmark target in bench/ (listed below with its
# arguments: its output, a markdown table, is printed and copied to
# bench/tmp/NAME.out for pasting into bench/results/NAME.md), or one of
# the cbana-vs-cachegrind comparisons of bench/compare.py: MINI, SMALL,
# MEDIUM (PolyBench at that size and the paper workloads) and tableV (the
# paper's Table V, 1000 br_path inputs), which write bench/results/NAME.md
# (and .json). Without NAMEs: sim_bench MINI SMALL tableV, and MEDIUM too
# when BENCH_MEDIUM=1 (it runs cachegrind for about an hour on 2 cores;
# cachegrind's results are cached in bench/tmp/cg, so a rerun only reruns
# cbana). BENCH_JOBS sets the process pool (default 2).
set -euo pipefail
build=${1:-build}
shift || true
here=$(cd "$(dirname "$0")" && pwd)

# name -> arguments; add new benchmarks here.
declare -A benches=(
  [sim_bench]=""
  [collect_bench]=""
)
compares=(MINI SMALL MEDIUM tableV)

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=("${!benches[@]}" MINI SMALL tableV)
  [ "${BENCH_MEDIUM:-0}" = 1 ] && names+=(MEDIUM)
fi
mkdir -p "$here/tmp"
status=0
for name in "${names[@]}"; do
  if [[ " ${compares[*]} " == *" $name "* ]]; then
    echo "== compare $name"
    python3 "$here/compare.py" "$name" --cbana "$build/cbana" \
      --jobs "${BENCH_JOBS:-2}" || status=1
    continue
  fi
  if [ -z "${benches[$name]+set}" ]; then
    echo "bench/run.sh: unknown benchmark '$name' (${!benches[*]} ${compares[*]})" >&2
    exit 2
  fi
  cmake --build "$build" --target "$name" >/dev/null
  echo "== $name"
  # shellcheck disable=SC2086 # the arguments are a word list
  "$build/bench/$name" ${benches[$name]} | tee "$here/tmp/$name.out"
done
exit $status
