#!/usr/bin/env bash
# Stopping an analysis from outside: SIGINT (Ctrl-C) and --timeout. The
# input that was running is reported stopped, with its counts so far and
# a message naming the input, the inputs done before it are reported in
# full, the report is written, and the exit status is 3
# (data/stop/long_run.c: its second input would take days).
set -u
cbana=$1
data=$(cd "$(dirname "$0")/data/stop" && pwd)
src=$data/long_run.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
json() { # json FILE EXPR: EXPR of the report r
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# The first input alone, timed: SIGINT must come after it, while the
# second runs, however slow this machine (a sanitizer build, a load).
start=$(date +%s.%N)
"$cbana" analyze "$src" --args 10 --quiet --format json -o "$tmp/one.json" \
  2>"$tmp/one.err"
echo "exit $?" >>"$tmp/one.err"
has 'exit 0' "$tmp/one.err" "first input alone: exit"
wait_s=$(python3 -c "import sys; print(max(4, 3 * ($(date +%s.%N) - $start) + 2))")

# SIGINT (as Ctrl-C sends it) while the second input runs; timeout
# --preserve-status gives cbana's own exit status, -k kills it if it
# does not stop; --foreground, because otherwise timeout signals cbana
# and then its whole process group, cbana again: a second SIGINT, which
# kills at once when the first was handled in between
timeout --foreground --preserve-status -k 120 -s INT "$wait_s" \
  "$cbana" analyze "$src" \
  --inputs "$data/long_run.inputs" --jobs 1 --format json -o "$tmp/int.json" \
  2>"$tmp/int.err"
echo "exit $?" >>"$tmp/int.err"
has 'exit 3' "$tmp/int.err" "SIGINT: exit status 3"
has "input 2 stopped: .*long_run.c:[0-9]+: interrupted by SIGINT after [1-9][0-9]* operations in main" \
  "$tmp/int.err" "SIGINT: the message names the input"
hasnt 'input 1 stopped' "$tmp/int.err" "SIGINT: the first input is not stopped"
if [ -s "$tmp/int.json" ]; then
  ok
  # the first input as when it ran alone; the second stopped, with the
  # counts of what ran
  if [ "$(json "$tmp/int.json" 'r["runs"][0]["caches"]')" = \
    "$(json "$tmp/one.json" 'r["runs"][0]["caches"]')" ] &&
    [ "$(json "$tmp/int.json" 'r["runs"][0]["output"]')" = \
      "$(json "$tmp/one.json" 'r["runs"][0]["output"]')" ]; then ok; else
    bad "SIGINT: input 1's report differs from its run alone"
  fi
  has '^error interrupted by SIGINT after' <(json "$tmp/int.json" \
    '"%s %s" % (r["runs"][1]["status"], r["runs"][1]["error"]["message"])') \
    "SIGINT: input 2 is reported stopped"
  ops=$(json "$tmp/int.json" 'r["runs"][1]["operations"]')
  acc=$(json "$tmp/int.json" 'r["runs"][1]["caches"][0]["levels"]["L1D"]["accesses"]')
  if [ "$ops" -gt 0 ] && [ "$acc" -gt 0 ]; then ok; else
    bad "SIGINT: input 2 has no counts ($ops operations, $acc accesses)"
  fi
else
  bad "SIGINT: no report written"
fi

# --timeout: the second input stops at its time limit, the first runs
start=$(date +%s)
"$cbana" analyze "$src" --inputs "$data/long_run.inputs" --jobs 1 \
  --timeout 1.5 --format json -o "$tmp/time.json" 2>"$tmp/time.err"
echo "exit $?" >>"$tmp/time.err"
has 'exit 3' "$tmp/time.err" "--timeout: exit status 3"
has "input 2 stopped: .*long_run.c:[0-9]+: stopped after [1-9][0-9]* operations in main: the time limit \(1.5 s\) ran out" \
  "$tmp/time.err" "--timeout: the message names the input and the limit"
hasnt 'input 1 stopped' "$tmp/time.err" "--timeout: the first input runs"
if [ $(($(date +%s) - start)) -lt 60 ]; then ok; else
  bad "--timeout: took $(($(date +%s) - start)) s"
fi

# Progress on a terminal (script(1) gives cbana one): a line after each
# input when there are several, and from a second into a long run; none
# with --quiet, none when stderr is no terminal (every run above)
if command -v script >/dev/null; then
  printf '10\n10\n' >"$tmp/two.inputs"
  script -qec "$cbana analyze $src --inputs $tmp/two.inputs --jobs 1 -o /dev/null" \
    "$tmp/two.tty" >/dev/null 2>&1
  has 'cbana: 2/2 inputs, 34.1M operations, [0-9.]+[kM]? accesses, 0:[0-9]{2}' \
    "$tmp/two.tty" "progress: a line per input"
  script -qec "$cbana analyze $src --args 1000000000 --timeout $wait_s -o /dev/null" \
    "$tmp/long.tty" >/dev/null 2>&1
  has 'cbana: [0-9.]+[kMG]? operations, [0-9.]+[kMG]? accesses, 0:[0-9]{2}' \
    "$tmp/long.tty" "progress: a long run's line"
  script -qec "$cbana analyze $src --inputs $tmp/two.inputs --quiet -o /dev/null" \
    "$tmp/quiet.tty" >/dev/null 2>&1
  hasnt 'operations,' "$tmp/quiet.tty" "progress: none with --quiet"
fi
hasnt 'operations,' "$tmp/int.err" "progress: none when stderr is no terminal"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
