#!/usr/bin/env bash
# Builds and runs cbana's benchmarks: bench/run.sh [BUILD_DIR [NAME...]].
# Each benchmark is a CMake target in bench/ listed below with its
# arguments; its output (a markdown table) is printed and copied to
# bench/tmp/NAME.out for pasting into bench/results/NAME.md.
set -euo pipefail
build=${1:-build}
shift || true
here=$(cd "$(dirname "$0")" && pwd)

# name -> arguments; add new benchmarks here.
declare -A benches=(
  [sim_bench]=""
)

names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${!benches[@]}")
mkdir -p "$here/tmp"
for name in "${names[@]}"; do
  if [ -z "${benches[$name]+set}" ]; then
    echo "bench/run.sh: unknown benchmark '$name' (${!benches[*]})" >&2
    exit 2
  fi
  cmake --build "$build" --target "$name" >/dev/null
  echo "== $name"
  # shellcheck disable=SC2086 # the arguments are a word list
  "$build/bench/$name" ${benches[$name]} | tee "$here/tmp/$name.out"
done
