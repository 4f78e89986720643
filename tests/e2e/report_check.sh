#!/usr/bin/env bash
# cbana check and cbana diff: the CI gate passes the original program and
# fails a slowed copy (tests/e2e/data/slow/matmul_heap.c: mm_ikj in jki
# order), naming the input, function and line; bad baselines exit 2.
set -u
cbana=$1 corpus=$2
data=$(cd "$(dirname "$0")/data" && pwd)
orig=$corpus/matmul_heap.c slow=$data/slow/matmul_heap.c inputs=$data/matmul.inputs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
expect_rc() { # expect_rc WANT GOT WHAT
  if [ "$2" -eq "$1" ]; then ok; else bad "$3: exit $2, want $1"; fi
}

"$cbana" check --quiet --baseline "$tmp/base.json" "$orig" --inputs "$inputs" --update >"$tmp/out" 2>&1
expect_rc 0 $? "check --update"
has "baseline written to $tmp/base.json" "$tmp/out" "check --update"

"$cbana" check --quiet --baseline "$tmp/base.json" "$orig" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 0 $? "check of the original"
has '2 comparisons within 1.00% of the baseline' "$tmp/out" "check of the original"

GITHUB_ACTIONS=true "$cbana" check --quiet --baseline "$tmp/base.json" "$slow" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 1 $? "check of the slowed copy"
has "^ok   input '64 0'" "$tmp/out" "the unchanged input passes"
has "^FAIL input '128 1'" "$tmp/out" "the slowed input fails"
has '^      mm_ikj ' "$tmp/out" "the function responsible"
has '^      matmul_heap.c:21 ' "$tmp/out" "the line responsible"
has "^::error file=$slow,line=21::" "$tmp/out" "workflow annotation"
# The numbers printed are the JSON reports' own.
"$cbana" analyze --quiet "$slow" --inputs "$inputs" --format json -o "$tmp/slow.json"
read -r before after < <(python3 - "$tmp/base.json" "$tmp/slow.json" <<'PY'
import json, sys
b, s = (json.load(open(f)) for f in sys.argv[1:3])
print(b["runs"][1]["caches"][0]["levels"]["L1D"]["misses"],
      s["runs"][1]["caches"][0]["levels"]["L1D"]["misses"])
PY
)
has "^FAIL input '128 1', cache cachegrind: L1D misses $before -> $after " "$tmp/out" "the JSON's numbers"

# A looser gate lets it through; another level is compared when asked.
"$cbana" check --quiet --baseline "$tmp/base.json" "$slow" --inputs "$inputs" --max-increase 100000 >"$tmp/out" 2>&1
expect_rc 0 $? "check --max-increase 100000"
"$cbana" check --quiet --baseline "$tmp/base.json" "$slow" --inputs "$inputs" --level LL >"$tmp/out" 2>&1
rc=$?
has "cache cachegrind: LL misses" "$tmp/out" "check --level LL"
"$cbana" check --quiet --baseline "$tmp/base.json" "$slow" --inputs "$inputs" --level L9 >"$tmp/out" 2>&1
expect_rc 2 $? "check --level L9"
has 'has no level L9' "$tmp/out" "check --level L9"
[ "$rc" -le 1 ] && ok || bad "check --level LL: exit $rc"

# Bad baselines: a clear message naming the file, exit 2.
"$cbana" check --baseline "$tmp/missing.json" "$orig" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 2 $? "missing baseline"
has "$tmp/missing.json: cannot read the baseline" "$tmp/out" "missing baseline"
printf '{"tool": "cbana", "runs": [' >"$tmp/trunc.json"
"$cbana" check --baseline "$tmp/trunc.json" "$orig" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 2 $? "truncated baseline"
has "$tmp/trunc.json: malformed JSON" "$tmp/out" "truncated baseline"
echo '{"runs": []}' >"$tmp/other.json"
"$cbana" check --baseline "$tmp/other.json" "$orig" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 2 $? "foreign JSON"
has "$tmp/other.json: not a cbana JSON report" "$tmp/out" "foreign JSON"
"$cbana" check "$orig" --inputs "$inputs" >"$tmp/out" 2>&1
expect_rc 2 $? "no --baseline"
has 'baseline FILE is required' "$tmp/out" "no --baseline"

# diff: no change against itself; the slowed copy's changes by level,
# function, line and variable.
"$cbana" diff "$tmp/base.json" "$tmp/base.json" >"$tmp/out" 2>&1
expect_rc 0 $? "diff of a report with itself"
has '^no change$' "$tmp/out" "diff of a report with itself"
"$cbana" diff "$tmp/base.json" "$tmp/slow.json" >"$tmp/out" 2>&1
expect_rc 1 $? "diff base slow"
has "^    L1D +[0-9]+ +$after " "$tmp/out" "diff: the level"
has '^    functions \(L1D misses\):' "$tmp/out" "diff: functions"
has '^      matmul_heap.c:21 ' "$tmp/out" "diff: lines"
has '^    variables \(L1D misses\):' "$tmp/out" "diff: variables"
"$cbana" diff "$tmp/base.json" "$tmp/trunc.json" >"$tmp/out" 2>&1
expect_rc 2 $? "diff of a malformed report"
has "$tmp/trunc.json: malformed JSON" "$tmp/out" "diff of a malformed report"
"$cbana" diff "$tmp/base.json" >"$tmp/out" 2>&1
expect_rc 2 $? "diff with one file"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
