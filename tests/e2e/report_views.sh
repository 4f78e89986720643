#!/usr/bin/env bash
# The views as a user gets them: annotate, paths (text, JSON,
# DOT), the data view in JSON, and the HTML page rendered by headless
# Chromium (the DOM after its scripts ran). Numbers are checked against
# the JSON report of the same analysis.
set -u
cbana=$1 corpus=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
mm=$corpus/matmul_heap.c
printf '48 0\n48 1\n' >"$tmp/mm.inputs"
"$cbana" analyze --quiet "$mm" --inputs "$tmp/mm.inputs" --format json -o "$tmp/mm.json" || bad "analyze json"

# annotate: line 11's numbers are the JSON's for that line.
"$cbana" annotate --quiet "$mm" --inputs "$tmp/mm.inputs" >"$tmp/ann" 2>&1
[ $? -eq 0 ] && ok || bad "annotate exit"
want=$(python3 - "$tmp/mm.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["runs"][0]["caches"][0]
l = next(r for r in c["lines"] if r["line"] == 11)
k = l["classes"]["L1D"]
print(l["accesses"], l["misses"]["L1D"], k["compulsory"], k["capacity"], k["conflict"], l["misses"]["LL"])
PY
)
got=$(awk '$7 == 11 { print $1, $2, $3, $4, $5, $6; exit }' "$tmp/ann")
[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "annotate line 11: '$got', JSON '$want'"
grep -qE '^ +\. +\. .* 3  #include <stdio.h>$' "$tmp/ann" && ok || bad "annotate: line 3 has no dots"
grep -qE ' 11  .*s \+= A\[i \* n \+ k\] \* B\[k \* n \+ j\];  \[(A, B|B, A)\]$' "$tmp/ann" && ok || bad "annotate: line 11's variables"
"$cbana" annotate --quiet "$mm" --inputs "$tmp/mm.inputs" --input 2 | grep -q '^-- input 2: 48 1' && ok || bad "annotate --input 2"
"$cbana" annotate --quiet "$mm" --inputs "$tmp/mm.inputs" --input 9 >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--input 9: there are 2 inputs' "$tmp/out" && ok || bad "annotate --input 9"
"$cbana" analyze --quiet "$mm" --inputs "$tmp/mm.inputs" --format annotate | cmp -s - "$tmp/ann" && ok || bad "analyze --format annotate differs from annotate"

# data view in JSON: working sets and classes add up.
python3 - "$tmp/mm.json" <<'PY' && ok || bad "data view JSON"
import json, sys
c = json.load(open(sys.argv[1]))["runs"][0]["caches"][0]
vs = c["data"]["variables"]
assert vs, "no variables"
for v in vs:
    k = v["classes"]["L1D"]
    assert k["compulsory"] + k["capacity"] + k["conflict"] == v["misses"]["L1D"], v
    assert v["working_set_lines"] >= 1, v
# B of mm_ijk: 48*48 doubles = 288 lines of 64 bytes (+1 if unaligned)
b = next(v for v in vs if v["name"] == "B (in mm_ijk)")
assert b["working_set_lines"] in (288, 289), b
assert sum(c["sets"]["L1D"]["misses"]) <= c["levels"]["L1D"]["misses"]
m = c["miss_ratio_curve"]["L1D"]
assert m[0]["lines"] == 1 and all(a["misses"] >= b["misses"] for a, b in zip(m, m[1:]))
PY

# paths: branch_paths has three classes decided by `n % 20 == 0` and `n % 3 == 0`.
bp=$corpus/branch_paths.c
"$cbana" paths --quiet "$bp" --inputs "$corpus/branch_paths.inputs" >"$tmp/paths" 2>&1
[ $? -eq 0 ] && ok || bad "paths exit"
grep -q '^8 inputs, 3 path classes' "$tmp/paths" && ok || bad "paths: 3 classes"
grep -qE '^  B[0-9]+ branch_paths.c:15 in main: n % 20 == 0$' "$tmp/paths" && ok || bad "paths: the first deciding branch"
"$cbana" paths --quiet "$bp" --inputs "$corpus/branch_paths.inputs" --format json -o "$tmp/paths.json"
python3 - "$tmp/paths.json" "$tmp/paths" <<'PY' && ok || bad "paths JSON"
import json, sys
d = json.load(open(sys.argv[1]))
b = next(b for b in d["branches"] if b["condition"] == "n % 20 == 0")
assert b["deciding"], b
oc = {c["path"]: c["outcomes"][str(b["id"])] for c in d["classes"]}
ins = {c["path"]: [i["args"][0] for i in c["inputs"]] for c in d["classes"]}
assert ins["P1"] == ["20", "40", "1000"], ins
assert oc["P1"] == "true" and oc["P2"] == "false", oc
text = open(sys.argv[2]).read()
for c in d["classes"]:
    for i in c["inputs"]:
        assert "L1D misses %d" % i["misses"]["L1D"] in text, i
PY
"$cbana" paths --quiet "$bp" --inputs "$corpus/branch_paths.inputs" --format dot >"$tmp/paths.dot"
grep -qE '^  B[0-9]+ -> P1 \[label="true"\];$' "$tmp/paths.dot" && grep -q '^digraph' "$tmp/paths.dot" && ok || bad "paths DOT"
if command -v dot >/dev/null; then dot -Tsvg "$tmp/paths.dot" >/dev/null && ok || bad "dot rejects the graph"; fi
"$cbana" paths --quiet "$bp" --args 1 --format html >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q 'format is text, json or dot' "$tmp/out" && ok || bad "paths --format html"
"$cbana" analyze "$mm" --format pdf >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "not 'pdf'" "$tmp/out" && ok || bad "analyze --format pdf"

# HTML in a real browser.
"$cbana" analyze --quiet "$mm" --inputs "$tmp/mm.inputs" --format html -o "$tmp/mm.html" || bad "analyze html"
if grep -qE '(src|href)="https?:' "$tmp/mm.html"; then bad "the page loads something from the network"; else ok; fi
if ! command -v chromium >/dev/null; then
  bad "chromium is not installed (scripts/setup.sh installs it)"
else
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
    --dump-dom "file://$tmp/mm.html" >"$tmp/dom.html" 2>/dev/null
  python3 - "$tmp/mm.json" "$tmp/dom.html" <<'PY' && ok || bad "the page's DOM after its scripts ran"
import json, re, sys
c = json.load(open(sys.argv[1]))["runs"][0]["caches"][0]
dom = open(sys.argv[2]).read()
assert 'data-ready="1"' in dom, "the script did not run"
rows = re.findall(r'<tr class="var-row"><td>([^<]*)</td>(.*?)</tr>', dom)
want = c["data"]["variables"]
assert len(rows) == len(want), (len(rows), len(want))
for (name, cells), v in zip(rows, want):
    nums = re.findall(r'<td class="n">(\d+)</td>', cells)
    assert name.replace("&gt;", ">") == v["name"], (name, v["name"])
    assert int(nums[0]) == v["accesses"] and int(nums[1]) == v["misses"]["L1D"], (nums, v)
heap = re.findall(r'<tr class="heap-row"><td>([^<]*)</td>(.*?)</tr>', dom)
want = c["data"]["alloc_sites"]
assert [h[0] for h in heap] == [v["name"] for v in want] and len(want) == 3, (heap, want)
for (name, cells), v in zip(heap, want):
    nums = re.findall(r'<td class="n">(\d+)</td>', cells)
    assert int(nums[0]) == v["accesses"] and int(nums[1]) == v["misses"]["L1D"], (nums, v)
svgs = re.findall(r'<svg[^>]*data-level="(\w+)"[^>]*>.*?<polyline points="([^"]+)"', dom, re.S)
assert [s[0] for s in svgs] == ["L1D", "LL"], svgs
pts = svgs[0][1].split()
mrc = [p for p in c["miss_ratio_curve"]["L1D"] if p["lines"] & (p["lines"] - 1) == 0]
assert len(pts) == len(mrc), (len(pts), len(mrc))
ys = [float(p.split(",")[1]) for p in pts]
assert all(a <= b for a, b in zip(ys, ys[1:])), ys  # misses fall: y grows
heat = re.search(r'id="f0L11" data-misses="(\d+)"', dom)
assert heat and int(heat.group(1)) == next(r for r in c["lines"] if r["line"] == 11)["misses"]["L1D"]
assert dom.count('<tr class="input-row">') == 2
PY
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
