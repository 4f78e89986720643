#!/usr/bin/env bash
# The command line's own contract: help exits 0, misuse exits 2 with a message.
set -u
cbana=$1
fail=0 pass=0
expect() { # expect STATUS PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  local out; out=$("$cbana" "$@" 2>&1); local got=$?
  if [ "$got" -eq "$want" ] && grep -qE -- "$pat" <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: cbana $* -> $got: $out"
  fi
}
expect 0 'usage: cbana' -- --help
expect 2 'usage: cbana' --
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 'cbana [0-9]' -- --version
expect 0 'usage: cbana help' -- help help
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
