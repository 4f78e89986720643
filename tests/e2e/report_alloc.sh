#!/usr/bin/env bash
# Heap blocks by allocation site and exact branch
# outcomes in `cbana paths`, checked against counts derived by hand from
# the programs (tests/e2e/data/alloc_sites.c, branch_counts.c) and the
# corpus programs with heap data.
set -u
cbana=$1 corpus=$2
data=$(cd "$(dirname "$0")" && pwd)/data
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

# alloc_sites.c at -O1, default caches (32 KiB 8-way L1D, 1 MiB 16-way LL).
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags -O1 --args 1 \
  --format json -o "$tmp/a.json" && ok || bad "analyze alloc_sites"
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags -O1 --args 1 \
  >"$tmp/a.txt" && ok || bad "analyze alloc_sites (text)"
python3 - "$tmp/a.json" "$data/alloc_sites.c" "$tmp/a.txt" <<'PY' && ok || bad "alloc_sites: heap rows"
import json, re, sys
rep = json.load(open(sys.argv[1]))
src = open(sys.argv[2]).read().split("\n")
text = open(sys.argv[3]).read()
line = {}
for i, l in enumerate(src, 1):
    m = re.search(r"/\* SITE (\w)", l)
    if m:
        line[m.group(1)] = i
def at(text):  # the line of a statement
    return next(i for i, l in enumerate(src, 1) if text in l)
c = rep["runs"][0]["caches"][0]
heap = {v["name"]: v for v in c["variables"] if v["kind"] == "heap"}
name = {k: "%s@alloc_sites.c:%d" % ("realloc" if k == "D" else "malloc", n)
        for k, n in line.items()}
assert set(heap) == set(name.values()), (sorted(heap), name)
# Accesses counted from the program: every load and store of a block.
want = {"A": (512 + 448, 8, 8 * 512, 512, 512), "B": (64 + 64, 1, 512, 512, 512),
        "C": (16, 1, 128, 128, 128), "D": (1008 + 1024, 1, 8192, 8192, 8192),
        "M": (2 * 32768, 1, 262144, 262144, 262144)}
for k, (acc, blocks, nbytes, lo, hi) in want.items():
    h = heap[name[k]]
    got = (h["accesses"], h["blocks"], h["bytes"], h["min_size"], h["max_size"])
    assert got == (acc, blocks, nbytes, lo, hi), (k, got)
    assert h["alloc_site"]["line"] == line[k] and h["alloc_site"]["function"] == "main", h
    assert h["alloc_site"]["file"].endswith("alloc_sites.c"), h
    for lv, cl in h["classes"].items():
        assert sum(cl.values()) == h["misses"][lv], (k, lv, h)
# M: 256 KiB mmapped at a page + 16 (its header's line is the allocator's),
# written then read in order: the first pass misses each of its 4097
# lines but the header's (4096 compulsory), the second misses them all in
# L1D (4097 capacity: 4097 lines > 512) and none in LL (1 MiB holds them).
m = heap[name["M"]]
assert m["misses"]["L1D"] == 8193 and m["misses"]["LL"] == 4096, m["misses"]
assert m["classes"]["L1D"] == {"compulsory": 4096, "capacity": 4097, "conflict": 0}, m["classes"]
assert m["classes"]["LL"]["compulsory"] == 4096, m["classes"]
# The lines that touch only one block add up to its row (the line
# counters are the cache model's own, per site).
lines = {r["line"]: r for r in c["lines"]}
def same(k, stmts):
    rows = [lines[at(s)] for s in stmts]
    assert sum(r["accesses"] for r in rows) == heap[name[k]]["accesses"], (k, rows)
    for lv in m["misses"]:
        assert sum(r["misses"][lv] for r in rows) == heap[name[k]]["misses"][lv], (k, lv)
        for cl in ("compulsory", "capacity", "conflict"):
            assert sum(r["classes"][lv][cl] for r in rows) == heap[name[k]]["classes"][lv][cl], (k, lv, cl)
same("M", ["m[i] = i * (double)n;", "s += m[i];"])
same("D", ["g[i] = i * 0.25;", "s += g[i];"])
same("C", ["g[i] = i * 0.5;"])
same("B", ["r[i] = i + n;", "t += r[i];"])
# The data view: working sets; M spans 4097 lines.
da = {r["name"]: r for r in c["data"]["alloc_sites"]}
mrow = da["%s (1 block, 262144 bytes)" % name["M"]]
assert mrow["working_set_lines"] == 4097, mrow
assert mrow["hot_line"] in (at("m[i] = i * (double)n;"), at("s += m[i];")), mrow
assert "%s (8 blocks, 4096 bytes)" % name["A"] in da, sorted(da)
assert "%s (1 block, 262144 bytes)  heap" % name["M"] in text
assert "data view: heap blocks by allocation site" in text
PY

# The same analysis with the reference engine and with --jobs 1 (no
# pipeline) gives the same rows.
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags -O1 --args 1 \
  --exact-engine --jobs 1 --format json -o "$tmp/b.json" && ok || bad "analyze --exact-engine"
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' && ok || bad "alloc rows differ between engines"
import json, sys
a, b = (json.load(open(f))["runs"][0]["caches"][0] for f in sys.argv[1:])
h = lambda c: sorted(json.dumps(v, sort_keys=True) for v in c["variables"] if v["kind"] == "heap")
assert h(a) == h(b) and len(h(a)) == 5
PY

# Many inputs on one job: later inputs are hashed first and copy a twin's
# results (memoization); every run has the same heap rows as the single
# run. --no-classify has none (and still runs).
printf '1\n2\n1\n1\n' >"$tmp/four.inputs"
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags -O1 --inputs "$tmp/four.inputs" \
  --jobs 1 --format json -o "$tmp/four.json" && ok || bad "analyze 4 inputs"
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags -O1 --args 1 --no-classify \
  --format json -o "$tmp/nc.json" && ok || bad "analyze --no-classify"
python3 - "$tmp/a.json" "$tmp/four.json" "$tmp/nc.json" <<'PY' && ok || bad "heap rows with memoization / --no-classify"
import json, sys
a, four, nc = (json.load(open(f)) for f in sys.argv[1:])
h = lambda c: sorted(json.dumps(v, sort_keys=True) for v in c["variables"] if v["kind"] == "heap")
want = h(a["runs"][0]["caches"][0])
assert len(four["runs"]) == 4
for r in four["runs"]:
    assert h(r["caches"][0]) == want, r["input"]
c = nc["runs"][0]["caches"][0]
assert not h(c) and "data" not in c
PY

# cbana diff keys heap rows by allocation site: a smaller M changes only
# M's misses (and those of the lines that touch it).
"$cbana" analyze --quiet "$data/alloc_sites.c" --cflags "-O1 -DBIG=16384" --args 1 \
  --format json -o "$tmp/c.json" && ok || bad "analyze -DBIG"
"$cbana" diff "$tmp/a.json" "$tmp/c.json" >"$tmp/diff.txt"
[ $? -eq 1 ] && ok || bad "diff exit"
mline=$(grep -n 'SITE M' "$data/alloc_sites.c" | cut -d: -f1)
grep -qE "^      malloc@alloc_sites.c:$mline in main +8193 -> +4097 +-4096$" "$tmp/diff.txt" && ok || bad "diff: M's row: $(grep alloc_sites.c:$mline "$tmp/diff.txt")"
grep -q "malloc@alloc_sites.c:[0-9]* in main .*->" "$tmp/diff.txt" && ! grep -qE "alloc_sites.c:$(grep -n 'SITE A' "$data/alloc_sites.c" | cut -d: -f1) in main" "$tmp/diff.txt" && ok || bad "diff: only M changed"

# Corpus programs with heap data name their allocation lines.
python3 - "$cbana" "$corpus" "$tmp" <<'PY' && ok || bad "corpus alloc sites"
import json, subprocess, sys
cbana, corpus, tmp = sys.argv[1:]
def heap(prog, args):
    out = "%s/%s.json" % (tmp, prog)
    subprocess.run([cbana, "analyze", "--quiet", "%s/%s.c" % (corpus, prog),
                    "--args", args, "--format", "json", "-o", out], check=True)
    c = json.load(open(out))["runs"][0]["caches"][0]
    return {v["name"]: v for v in c["variables"] if v["kind"] == "heap"}
h = heap("linked_list", "1000 4")
assert set(h) == {"malloc@linked_list.c:17"}, sorted(h)
assert h["malloc@linked_list.c:17"]["blocks"] == 1000, h
h = heap("matmul_heap", "64 0")
assert set(h) == {"malloc@matmul_heap.c:28", "malloc@matmul_heap.c:29",
                  "calloc@matmul_heap.c:30"}, sorted(h)
assert all(v["bytes"] == 64 * 64 * 8 and v["accesses"] > 0 for v in h.values()), h
h = heap("merge_sort", "10000 3")
assert set(h) == {"malloc@merge_sort.c:26", "malloc@merge_sort.c:27"}, sorted(h)
assert h["malloc@merge_sort.c:26"]["bytes"] == 40000, h
PY

# paths: exact outcome counts. branch_counts.c at -O0 with n = 10 and 7:
# `i < n` is true n times and false once; `i % 3 == 0` true for
# i = 0, 3, 6, (9): ceil(n / 3) times; `n > 100` false once; the loop
# under it is never reached.
printf '10\n7\n' >"$tmp/bc.inputs"
"$cbana" paths --quiet "$data/branch_counts.c" --cflags -O0 --inputs "$tmp/bc.inputs" \
  --format json -o "$tmp/p.json" && ok || bad "paths branch_counts"
"$cbana" paths --quiet "$data/branch_counts.c" --cflags -O0 --inputs "$tmp/bc.inputs" \
  >"$tmp/p.txt" && ok || bad "paths branch_counts (text)"
python3 - "$tmp/p.json" "$tmp/p.txt" <<'PY' && ok || bad "paths: exact counts"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
br = {b["condition"]: b["id"] for b in d["branches"]}
cls = {c["inputs"][0]["args"][0]: c for c in d["classes"]}
assert set(cls) == {"10", "7"}, cls
want = {"10": {"i < n": (10, 1), "i % 3 == 0": (4, 6), "n > 100": (0, 1),
               "j < n": (0, 0), "j % 7 == 0": (0, 0)},
        "7": {"i < n": (7, 1), "i % 3 == 0": (3, 4), "n > 100": (0, 1),
              "j < n": (0, 0), "j % 7 == 0": (0, 0)}}
for n, w in want.items():
    c = cls[n]
    for cond, (t, f) in w.items():
        got = c["counts"][str(br[cond])]
        assert (got["true"], got["false"]) == (t, f), (n, cond, got)
        oc = c["outcomes"][str(br[cond])]
        assert oc == ("both" if t and f else "true" if t else "false" if f else "not reached"), (n, cond, oc)
assert "both (true 10, false 1)" in text and "both (true 4, false 6)" in text, text
assert "?" not in text.split("branch points whose")[1].split("(outcomes")[0], text
PY

# paths at -O2: the rotated loop's in-loop branch counts `x != 1` in the
# source's sense. x = 6: 6 3 10 5 16 8 4 2 1, eight passes; the guard
# before the loop decides the first, the in-loop branch the other seven
# and the exit: true 7, false 1 (the compiled branch tests x == 1:
# true 1, false 7).
"$cbana" paths --quiet "$data/loop_sense.c" --cflags -O2 --args 6 \
  --format json -o "$tmp/ls.json" && ok || bad "paths loop_sense"
python3 - "$tmp/ls.json" <<'PY' && ok || bad "paths: loop condition in the source's sense"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [str(b["id"]) for b in d["branches"] if b["condition"] == "x != 1"]
counts = d["classes"][0]["counts"]
got = sorted((counts[i]["true"], counts[i]["false"]) for i in ids if i in counts)
assert (7, 1) in got, got
PY

# The frontend tells each branch point's compiled sense from where its
# two sides lead in the source. loop_sense.c at -O2, x = 6: `x % 2` (the
# compiled branch tests x % 2 == 0) is true for 3 and 5 only: true 2,
# false 6; the rotated loop's guard `x != 1` is entered once: true 1; the
# in-loop test true 7, false 1. All in the source's sense.
python3 - "$tmp/ls.json" <<'PY' && ok || bad "paths: sense of each branch at -O2"
import json, sys
d = json.load(open(sys.argv[1]))
counts = d["classes"][0]["counts"]
got = {}
for b in d["branches"]:
    c = counts.get(str(b["id"]))
    assert b["sense"] in ("source", "compiled"), b
    if c and b["sense"] == "source":
        got.setdefault(b["condition"], []).append((c["true"], c["false"]))
assert got.get("x % 2") == [(2, 6)], got
assert sorted(got.get("x != 1", [])) == [(1, 0), (7, 1)], got
PY

# branch_counts.c at -O2, n = 10: the branch points of a condition whose
# sense is the source's (vectorizer checks and guards may stay in the
# compiled sense) count no side more often, summed, than the -O0 build's
# single branch point of that condition does.
"$cbana" paths --quiet "$data/branch_counts.c" --cflags -O2 --args 10 \
  --format json -o "$tmp/bc2.json" && ok || bad "paths branch_counts -O2"
"$cbana" paths --quiet "$data/branch_counts.c" --cflags -O2 --args 10 \
  -o "$tmp/bc2.txt" && ok || bad "paths branch_counts -O2 text"
python3 - "$tmp/bc2.json" "$tmp/bc2.txt" <<'PY' && ok || bad "paths: -O2 source-sense counts within -O0's"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
o0 = {"i < n": (10, 1), "i % 3 == 0": (4, 6), "n > 100": (0, 1),
      "j < n": (0, 0), "j % 7 == 0": (0, 0)}
counts = d["classes"][0]["counts"]
tot = {}
for b in d["branches"]:
    c = counts.get(str(b["id"]), {"true": 0, "false": 0})
    if b["sense"] != "source" or b["condition"] not in o0:
        continue
    t = tot.setdefault(b["condition"], [0, 0])
    t[0] += c["true"]
    t[1] += c["false"]
assert tot, d["branches"]
for cond, (t, f) in tot.items():
    assert t <= o0[cond][0] and f <= o0[cond][1], (cond, t, f)
assert tot.get("n > 100") == [0, 1], tot
n_comp = sum(1 for b in d["branches"] if b["sense"] == "compiled")
assert text.count("(compiled sense)") == n_comp, (n_comp, text)
PY

echo "report_alloc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
