#!/usr/bin/env bash
# --sim-threads (cachemodel/parallel.c): column walks split by cache set
# over threads must give the report of one thread, byte for byte, and the
# split must really happen (--stats). The unit test test_cache_split
# checks the counters against the brute-force model; this one checks the
# whole path from the command line: the driver, the pipeline and the
# report, on a nest that walks columns of a 1200 x 512 array (one new
# line per access, so every inner loop is long enough to be split), a
# row walk, and the records between the loops.
set -u
cbana=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cols=$(dirname "$0")/data/split/cols.c
for t in 1 2 4; do
  for cache in cachegrind skylake; do
    "$cbana" analyze "$cols" --cflags "-O2 -DPASSES=2" --no-classify \
      --sim-threads $t \
      --cache $cache --stats --quiet --format json \
      -o "$tmp/r.$t.$cache.json" 2>"$tmp/e.$t.$cache" ||
      bad "threads $t, $cache: exit $?"
  done
done
for cache in cachegrind skylake; do
  for t in 2 4; do
    if cmp -s "$tmp/r.1.$cache.json" "$tmp/r.$t.$cache.json"; then ok; else
      bad "threads $t, $cache: the report differs from one thread's"
      diff <(python3 -m json.tool "$tmp/r.1.$cache.json") \
        <(python3 -m json.tool "$tmp/r.$t.$cache.json") | head -20
    fi
    if grep -qE ' [1-9][0-9]* split by set over [2-9] threads' \
      "$tmp/e.$t.$cache"; then ok; else
      bad "threads $t, $cache: no block was split:"
      cat "$tmp/e.$t.$cache"
    fi
  done
  if grep -q ' 0 split by set over 1 threads' "$tmp/e.1.$cache"; then ok; else
    bad "threads 1, $cache: split"
    cat "$tmp/e.1.$cache"
  fi
done
# With classification nothing is split (the 3C shadow is one for all sets)
"$cbana" analyze "$cols" --cflags "-O2 -DPASSES=2" --sim-threads 2 \
  --stats --quiet --format json -o "$tmp/cl.json" 2>"$tmp/cl.err" || bad "classify: exit $?"
if ! grep -qE ' [1-9][0-9]* split by set' "$tmp/cl.err"; then ok; else
  bad "classification: split"
  cat "$tmp/cl.err"
fi
# A bad value is refused with the option's name
if "$cbana" analyze "$cols" --sim-threads x >/dev/null 2>"$tmp/bad.err"
then bad "--sim-threads x: exit 0"; else ok; fi
if grep -q -- '--sim-threads' "$tmp/bad.err"; then ok; else
  bad "--sim-threads x: message"
  cat "$tmp/bad.err"
fi
echo "sim_threads: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
