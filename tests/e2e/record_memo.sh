#!/usr/bin/env bash
# The record memo (cachemodel/memo_records.c) from the command line:
# PageRank (bench/workloads/pr.c) sweeps one graph again and again, and
# with --no-classify the memo counts most sweeps without running them
# (--stats must say so). The default mode classifies misses, where no memo
# runs: every access is simulated. Both must count the same, level by
# level and line by line, variable by variable (those both modes name),
# with the two caches the memo meets most (cachegrind's two levels,
# skylake's three). The unit test test_cache_record_memo holds the memo
# to the brute-force model; this checks the path through the driver, the
# pipeline and the report.
set -u
cbana=$1
root=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
src=$root/bench/workloads/pr.c
for cache in cachegrind skylake; do
  "$cbana" analyze "$src" --args "20000 200000 1 6" --cache $cache \
    --no-classify --stats --format json -o "$tmp/memo.$cache.json" \
    2>"$tmp/stats.$cache" || bad "$cache, --no-classify: exit $?"
  "$cbana" analyze "$src" --args "20000 200000 1 6" --cache $cache \
    --format json -o "$tmp/full.$cache.json" 2>/dev/null ||
    bad "$cache, default mode: exit $?"
  if grep -qE 'records counted as repeats without running them: [1-9]' \
    "$tmp/stats.$cache"; then ok; else
    bad "$cache: the memo counted no records:"
    cat "$tmp/stats.$cache"
  fi
  if python3 - "$tmp/memo.$cache.json" "$tmp/full.$cache.json" <<'PY'; then ok; else bad "$cache: the counts differ"; fi
import json, sys
a, b = (json.load(open(f))["runs"][0]["caches"][0] for f in sys.argv[1:3])
def counts(c):
    out = {"levels": {k: (v["accesses"], v["misses"], v["writes"])
                      for k, v in c["levels"].items()}}
    for view, key in (("lines", ("file", "line")),
                      ("variables", ("name", "function")),
                      ("functions", ("name",))):
        out[view] = sorted((tuple(e[k] for k in key), json.dumps(e["accesses"]),
                            json.dumps(e["misses"])) for e in c[view])
    return out
x, y = counts(a), counts(b)
# the default mode adds allocation sites as variables: the ones both name
names = {e[0] for e in x["variables"]} & {e[0] for e in y["variables"]}
for c in (x, y):
    c["variables"] = [e for e in c["variables"] if e[0] in names]
if len(names) < 3:
    print("too few variables in common:", names, file=sys.stderr)
    sys.exit(1)
for k in x:
    if x[k] != y[k]:
        print("differs:", k, file=sys.stderr)
        sys.exit(1)
PY
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
