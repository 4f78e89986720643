# checks.sh: the counters and assertions the e2e scripts share, sourced
# (`. "$(dirname "$0")/checks.sh"`). Each script ends with
#   echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
# shellcheck shell=bash
pass=0 fail=0
# quick: CBANA_E2E_QUICK=1, set by `make check-san` (docs/ci.md): a
# script's loops over cases end after their first case (`if quick; then
# break; fi` at the loop's end), so the sanitizer build runs each script
# on one case of each kind. The variable is taken out of the environment:
# the programs a script runs (natively, under valgrind, modelled) see the
# release pass's, whose size moves their stack (glibc_thresholds' copies
# are one access a call off at some alignments).
quick_=${CBANA_E2E_QUICK:-0}
unset CBANA_E2E_QUICK
quick() { [ "$quick_" = 1 ]; }
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
has() { # has PATTERN FILE WHAT: FILE has a line matching PATTERN
  if grep -qE -- "$1" "$2"; then ok; else bad "$3: no /$1/ in:"; cat "$2"; fi
}
hasnt() { # hasnt PATTERN FILE WHAT: no line of FILE matches PATTERN
  if grep -qE -- "$1" "$2"; then bad "$3: /$1/ in:"; cat "$2"; else ok; fi
}
same() { # same FILE FILE WHAT: the two reports are equal byte for byte
  if cmp -s "$1" "$2"; then ok; else bad "$3: reports differ"; diff "$1" "$2" | head -20; fi
}
# run NAME COMMAND ARGS...: cbana COMMAND ARGS with a JSON report in
# $tmp/NAME.json, its messages and exit status in $tmp/NAME.err
run() {
  local name=$1
  shift
  "$cbana" "$@" --quiet --format json -o "$tmp/$name.json" \
    >"$tmp/$name.err" 2>&1
  echo "exit $?" >>"$tmp/$name.err"
}
output() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["output"], end="")' "$1"; }
exit_code() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["exit_code"])' "$1"; }
# engine_calls NAME MAX: at most MAX calls of the program's functions the
# kernels left to the engine (--stats in $tmp/NAME.err)
engine_calls() {
  local n
  n=$(grep -oP "left to the engine: \K[0-9]+" "$tmp/$1.err")
  if [ -n "$n" ] && [ "$n" -le "$2" ]; then ok; else
    bad "$1: ${n:-no count of} calls left to the engine, over $2"
  fi
}
# build_native: $src built at -O2 as $tmp/native (clang-14, else clang)
build_native() {
  clang-14 -O2 -o "$tmp/native" "$src" 2>"$tmp/cc.err" ||
    clang -O2 -o "$tmp/native" "$src" 2>>"$tmp/cc.err" || cat "$tmp/cc.err"
}
# budget_stop ARGS BUDGET: $src run with ARGS until BUDGET operations,
# kernels compiled first and by the reference interpreter: both stop
# there (exit 3, the budget's message) with equal reports
budget_stop() {
  local n=budget.${1// /.}
  run "$n" analyze "$src" --args "$1" --budget "$2" --wait-kernels
  run "$n.ref" analyze "$src" --args "$1" --budget "$2" --exact-engine
  has 'exit 3' "$tmp/$n.err" "$n: exit"
  has "stopped after $2 operations" "$tmp/$n.err" "$n: message"
  same "$tmp/$n.json" "$tmp/$n.ref.json" "$n: fast vs exact"
}
