#!/bin/bash
# Two cbana builds (or two settings of one) compared fairly on a noisy
# 2-core host: both run at the same time, each pinned to a core, one
# simulation thread each (--no-split --jobs 1), then again with the cores
# swapped, so that the host's phase and each core's speed reach both
# alike. Runs one after the other misled in both directions here
# (fast_notes.md: nussinov LARGE gave one build 0.66 of the
# other's time alternated, then 1.14 a few minutes later).
#
#   bench/ab_pinned.sh [-r ROUNDS] "[ENV=V ...] CBANA_A" "[ENV=V ...] CBANA_B" \
#                      SOURCE.c "CFLAGS"
#
# e.g. bench/ab_pinned.sh build-old/cbana build/cbana \
#        polybench/medley/nussinov.c "-O2 -DLARGE_DATASET -Ipolybench"
#      bench/ab_pinned.sh "CBANA_SIMD=1 build/cbana" "CBANA_SIMD=0 build/cbana" ...
# Prints each run's simulation and analysis CPU (--stats) and B's over
# A's summed over all rounds, and checks that the two reports agree
# apart from their times. ROUNDS: pairs of rounds (default 1: one round
# and its swap).
set -u
rounds=1
while getopts r: o; do
  case $o in
    r) rounds=$OPTARG ;;
    *) sed -n '2,19p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 4 ]; then
  sed -n '2,19p' "$0"
  exit 2
fi
a=$1 b=$2 src=$3 cflags=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one SIDE CPU CMD: CMD (env settings, then cbana) on core CPU
one() {
  local side=$1 cpu=$2 cmd=$3
  # shellcheck disable=SC2086 # CMD: env settings and a path, split on purpose
  taskset -c "$cpu" env $cmd analyze "$src" --budget 1000000000000 \
    --cflags "$cflags" --no-classify --no-split --jobs 1 --quiet --stats \
    --format json -o "$work/$side.json" 2> "$work/$side.stats"
  local rc=$?
  local sim an
  sim=$(grep 'cache simulation' "$work/$side.stats" | awk '{print $3}')
  an=$(grep '^  analysis' "$work/$side.stats" | sed 's/.*(\([0-9.]*\) s cpu.*/\1/')
  printf '%s core %s: simulation %s s cpu, analysis %s s cpu (exit %d)\n' \
    "$side" "$cpu" "${sim:-?}" "${an:-?}" "$rc"
  echo "$side ${sim:-0}" >> "$work/$side.sims"
}

status=0
for _ in $(seq "$rounds"); do
  for swap in 0 1; do
    one A "$swap" "$a" &
    one B "$((1 - swap))" "$b" &
    wait
    if ! cmp -s <(grep -v '"seconds\|time' "$work/A.json") \
      <(grep -v '"seconds\|time' "$work/B.json"); then
      echo "the two reports differ (apart from times)"
      status=1
    fi
  done
done
# B's simulation CPU over A's, all rounds summed
awk '{ t[$1] += $2 } END { if (t["A"] > 0)
  printf "simulation cpu: A %.3f s, B %.3f s, B/A %.3f\n", t["A"], t["B"], t["B"] / t["A"] }' \
  "$work/A.sims" "$work/B.sims"
exit $status
