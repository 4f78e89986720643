#!/usr/bin/env bash
# The command line's own contract: help exits 0, misuse exits 2 with a message.
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
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
for cmd in annotate paths check diff merge report; do
  expect 0 "usage: cbana $cmd" -- help $cmd
  expect 0 "usage: cbana $cmd" -- $cmd --help
done
expect 2 'give exactly two JSON reports' -- diff a.json
expect 2 "--shard is K/N with 1 <= K <= N, not '4/3'" -- analyze a.c --inputs in.txt --shard 4/3
expect 2 "--shard is K/N with 1 <= K <= N, not '1'" -- analyze a.c --inputs in.txt --shard 1
expect 2 '--shard slices an --inputs file' -- analyze a.c --shard 1/2
expect 2 'give the JSON reports to join' -- merge
expect 2 "--format is text, html or sarif, not 'json'" -- report a.json --format json
expect 2 'a.json: cannot read the report' -- report a.json
expect 2 "--timeout needs a number of seconds > 0, not '0'" -- analyze a.c --timeout 0
expect 2 "--timeout needs a number of seconds > 0, not '5s'" -- analyze a.c --timeout 5s
# The man page renders and names every subcommand of the table.
man_page=$(dirname "$0")/../../docs/cbana.1
if command -v man >/dev/null; then
  page=$(MANWIDTH=80 man -l "$man_page" 2>&1)
  for cmd in analyze annotate paths check diff merge report validate sim dump; do
    if grep -qE "^ +$cmd\b" <<<"$page"; then pass=$((pass + 1)); else
      fail=$((fail + 1)); echo "FAIL: man page has no $cmd"; fi
  done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
