#!/usr/bin/env bash
# Every trap of the corpus's bad/ folder behaves as its README says: a clear
# message naming the file and line, the right exit status, never a crash or
# a hang; the other inputs of the same run are still analysed.
#   bad_corpus.sh CBANA CORPUS_DIR
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
cbana=$1
bad=$2/bad
pass=0 fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# expect NAME STATUS PATTERN... -- ARGS: every PATTERN (grep -E) must occur
expect() {
  local name=$1 want=$2; shift 2
  local pats=()
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  timeout 300 "$cbana" "$@" >"$out" 2>&1
  local got=$? ok=1
  [ "$got" -eq "$want" ] || ok=0
  for p in "${pats[@]}"; do grep -qE -- "$p" "$out" || { ok=0; echo "  missing: $p"; }; done
  if [ $ok -eq 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $got (want $want)"; sed 's/^/  | /' "$out" | head -30
  fi
}

expect syntax_error 2 'syntax_error\.c:[0-9]+:[0-9]+: error' \
  -- analyze "$bad/syntax_error.c"
expect unknown_extern 2 'mystery' 'unknown_extern\.c:5' \
  -- analyze "$bad/unknown_extern.c"
# input 0 never ends: stopped at the budget, said so; input 1 runs.
expect endless 3 'budget' '"index": 1' '"status": "error"' '"index": 2' \
  '"status": "ok"' \
  -- analyze "$bad/endless.c" --inputs "$bad/endless.inputs" --budget 2000000 \
  --format json
# malloc(2^50) returns NULL: the program's own error path, exit code 3.
expect huge_alloc 0 '"exit_code": 3' '"status": "ok"' 'out of memory' \
  -- analyze "$bad/huge_alloc.c" --format json
# input 100000000 writes past a: the access, the line and the object.
expect out_of_bounds 3 'out_of_bounds\.c:8' '\ba\b' '"exit_code": 3' \
  -- analyze "$bad/out_of_bounds.c" --inputs "$bad/out_of_bounds.inputs" \
  --format json
# a malformed inputs line stops only its own input
printf '1\n"unterminated\n' >"$out.inputs"
expect bad_inputs_line 3 'inputs:2' '"status": "ok"' \
  -- analyze "$bad/endless.c" --inputs "$out.inputs" --format json
rm -f "$out.inputs"
expect missing_inputs_file 2 'no-such\.inputs' \
  -- analyze "$bad/endless.c" --inputs "$bad/no-such.inputs"
expect bad_cache_flag 2 'D1' -- analyze "$bad/endless.c" --D1=1000,3,64

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
