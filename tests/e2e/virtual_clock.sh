#!/usr/bin/env bash
# The virtual clock: one nanosecond per executed operation, plus what
# sleep() slept. A loop that waits for clock() to tick ends (with a clock
# standing still it never did); every engine reads the same time at the
# same operation, so the program prints the same times under the
# default engine, --exact-engine, --no-kernels and --wait-kernels; the
# times grow with the work; sleep(2) moves time() and gettimeofday() by
# 2 s and not clock() or getrusage's CPU time.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/clock" && pwd)/clock.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
for mode in default --exact-engine --no-kernels --wait-kernels; do
  m=$mode; [ "$m" = default ] && m=""
  # shellcheck disable=SC2086
  run "$mode" analyze "$src" --args 200000 --timeout 120 $m
  has "^exit 0$" "$tmp/$mode.err" "$mode: finished"
  output "$tmp/$mode.json" >"$tmp/$mode.out"
done
for mode in --exact-engine --no-kernels --wait-kernels; do
  same "$tmp/default.out" "$tmp/$mode.out" "$mode's output against the default engine's"
done
python3 - "$tmp/default.out" <<'PY' && ok || bad "times"
import sys
w = open(sys.argv[1]).read().split()
# SUM spins N t1..t5 slept S US us NS ns SEC ru CPU
spins = int(w[2]); t = [int(x) for x in w[3:8]]
assert spins > 0, w
assert all(b > a for a, b in zip(t, t[1:])), t
# work(n*(k+1)) after k: the time each step adds grows with it
d = [t[0]] + [b - a for a, b in zip(t, t[1:])]
assert all(b > a for a, b in zip(d, d[1:])), d
assert w[9] == "2" and int(w[10]) // 1000000 == 2, w
cpu = float(w[-1])
assert 0 < cpu < 1, cpu  # sleep is no CPU time
PY
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
