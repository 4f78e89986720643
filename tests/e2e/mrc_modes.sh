#!/usr/bin/env bash
# The two miss-ratio curves (docs/cache-config.md): rand_gather touches
# about 20500 lines, more than the 16384 the default sample holds, so its
# curves are sampled (rate 1/2); `--mrc exact` gives every stack distance.
# The classes and every other count are the same in both; the sampled
# curve is exact at each level's capacity and below 32 lines, and within
# 0.02 of the exact miss ratio elsewhere; a bad value is refused. The
# same for `cbana sim --mrc=exact` on a trace of 30000 lines.
set -u
cbana=$1 corpus=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
rg=$corpus/rand_gather.c
"$cbana" analyze --quiet "$rg" --args "1 3" --format json -o "$tmp/s.json" && ok || bad "analyze"
"$cbana" analyze --quiet "$rg" --args "1 3" --mrc exact --format json -o "$tmp/e.json" && ok || bad "analyze --mrc exact"
python3 - "$tmp/s.json" "$tmp/e.json" <<'PY' && ok || bad "sampled against exact curve"
import json, sys
s, e = (json.load(open(f))["runs"][0]["caches"][0] for f in sys.argv[1:3])
assert s["miss_ratio_curve_sampling"] == {"L1D": 2, "LL": 2}, s["miss_ratio_curve_sampling"]
assert e["miss_ratio_curve_sampling"] == {"L1D": 1, "LL": 1}, e["miss_ratio_curve_sampling"]
for k in ("levels", "lines", "variables", "functions", "data", "findings", "sets"):
    assert s[k] == e[k], k
for lv in ("L1D", "LL"):
    cap = s["geometry"][lv]["size"] // s["geometry"][lv]["line"]
    refs = s["levels"][lv]["accesses"]
    ps, pe = s["miss_ratio_curve"][lv], e["miss_ratio_curve"][lv]
    assert [p["lines"] for p in ps] == [p["lines"] for p in pe], lv
    for a, b in zip(ps, pe):
        if a["lines"] < 32 or a["lines"] == cap:
            assert a["misses"] == b["misses"], (lv, a, b)
        assert abs(a["misses"] - b["misses"]) <= 0.02 * refs, (lv, a, b, refs)
    assert any(a != b for a, b in zip(ps, pe)), "the sampled curve is the exact one: no sampling tested"
PY
# cbana sim: a trace of 30000 lines (sweeps and random reads), both curves.
python3 - "$tmp/t.din" <<'PY'
import random, sys
random.seed(5)
with open(sys.argv[1], "w") as f:
    for r in range(3):
        for i in range(30000):
            f.write("0 %x 8\n" % (0x100000 + 64 * i))
            f.write("0 %x 8\n" % (0x100000 + 64 * random.randrange(30000)))
PY
"$cbana" sim --format json "$tmp/t.din" >"$tmp/s.sim" && ok || bad "sim"
"$cbana" sim --format json --mrc=exact "$tmp/t.din" >"$tmp/e.sim" && ok || bad "sim --mrc=exact"
python3 - "$tmp/s.sim" "$tmp/e.sim" <<'PY' && ok || bad "sim: sampled against exact curve"
import json, sys
s, e = (json.load(open(f)) for f in sys.argv[1:3])
for lv in ("L1D", "LL"):
    a, b = s[lv], e[lv]
    assert {k: v for k, v in a.items() if k != "mrc"} == {k: v for k, v in b.items() if k != "mrc"}, lv
    assert len(a["mrc"]) == len(b["mrc"]) and a["mrc"] != b["mrc"], lv
    for p, q in zip(a["mrc"], b["mrc"]):
        assert p["lines"] == q["lines"], (p, q)
        assert abs(p["misses"] - q["misses"]) <= 0.02 * a["line_refs"], (lv, p, q)
PY
"$cbana" analyze --quiet "$rg" --args "1 3" --mrc sometimes >"$tmp/out" 2>&1
[ $? -eq 2 ] && ok || bad "--mrc sometimes: exit status"
has "--mrc takes 'sampled' or 'exact', not 'sometimes'" "$tmp/out" "--mrc sometimes"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
