#!/usr/bin/env bash
# Batches (docs/batches.md): three shards of one inputs file, run through
# GNU parallel and joined by `cbana merge`, give the report one run over
# all the inputs gives, field for field (path classes numbered again as
# that run numbers them); text and SARIF rendered from the joined file
# are the one run's own; reports of two cache configurations join into
# the report of one run with both; malformed and mismatched reports are
# refused naming the file (exit 2).
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../.." && pwd)/examples
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
command -v parallel >/dev/null || { echo "GNU parallel is missing (Debian package parallel)"; exit 1; }
expect_rc() { # expect_rc WANT GOT WHAT
  if [ "$2" -eq "$1" ]; then ok; else bad "$3: exit $2, want $1"; fi
}
prog=$src/transpose.c cfg=$src/l1-2way.cfg
# Sizes and loop orders interleaved, so that a shard meets the path
# classes in another order than the whole file does.
printf '%s\n' "64 0 0" "32 1 0" "64 1 0" "16 0 0" "32 0 8" "64 1 8" \
  "16 1 0" > "$tmp/in.txt"
cd "$tmp" || exit 1
run() { "$cbana" analyze --quiet "$prog" --inputs in.txt --cache "$cfg" "$@"; }

run --format json -o one.json
expect_rc 0 $? "one run"
parallel --will-cite -j 2 "$cbana" analyze --quiet "$prog" --inputs in.txt \
  --cache "$cfg" --format json --shard {}/3 -o s{}.json ::: 1 2 3
expect_rc 0 $? "three shards through parallel"
"$cbana" merge s2.json s3.json s1.json -o all.json 2>err
expect_rc 0 $? "merge"
python3 - one.json all.json s1.json s2.json s3.json >cmp 2>&1 <<'PY'
import json, sys
one, merged, *shards = (json.load(open(f)) for f in sys.argv[1:])
def walk(a, b, where):
    if type(a) != type(b):
        print("differs at", where); return
    if isinstance(a, dict):
        if a.keys() != b.keys(): print("keys differ at", where)
        for k in a.keys() & b.keys(): walk(a[k], b[k], where + "." + k)
    elif isinstance(a, list):
        if len(a) != len(b): print("lengths differ at", where); return
        for i, (x, y) in enumerate(zip(a, b)): walk(x, y, "%s[%d]" % (where, i))
    elif a != b:
        print("differs at", where, a, b)
walk(one, merged, "")
print("runs", len(merged["runs"]), "classes", len(merged["paths"]))
# the renumbering was needed: some shard numbered its classes otherwise
local = {r["input"]["index"]: r["path"] for s in shards for r in s["runs"]}
print("renumbered", sum(local[r["input"]["index"]] != r["path"] for r in one["runs"]))
PY
hasnt "differ" cmp "the joined report against one run"
has "^runs 7 classes [2-9]" cmp "all inputs, several path classes"
has "^renumbered [1-9]" cmp "shards number path classes otherwise"

run --format text -o one.txt
"$cbana" report all.json -o all.txt
if cmp -s one.txt all.txt; then ok; else bad "text from the joined report"; diff one.txt all.txt | head; fi
# inputs stopped by the budget: the same text from their JSON
run --budget 20000 --format json -o stop.json 2>/dev/null
run --budget 20000 --format text -o stop.txt 2>/dev/null
"$cbana" report stop.json -o stop2.txt
if cmp -s stop.txt stop2.txt; then ok; else bad "text of stopped runs"; diff stop.txt stop2.txt | head; fi
has "not modelled \(the run stopped\)" stop2.txt "stopped runs say why start-up is missing"
run --format sarif -o one.sarif
"$cbana" report all.json --format sarif -o all.sarif
if cmp -s one.sarif all.sarif; then ok; else bad "SARIF from the joined report"; fi
"$cbana" report all.json --format html -o all.html
expect_rc 0 $? "HTML from the joined report"
n=$(grep -c '^<h2>input ' all.html)
[ "$n" -eq 7 ] && ok || bad "HTML: $n inputs, want 7"

# Two cache configurations, joined: one run with both.
"$cbana" analyze --quiet "$prog" --inputs in.txt --cache "$cfg" --cache cachegrind --format json -o both.json
"$cbana" analyze --quiet "$prog" --inputs in.txt --cache cachegrind --format json -o cg.json
"$cbana" merge one.json cg.json -o joined.json
expect_rc 0 $? "merge of two caches"
python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a!=b)' both.json joined.json
expect_rc 0 $? "two caches joined against one run with both"

# Reports of other programs (here: another inputs file) side by side,
# path classes numbered per program, one after the other.
printf '%s\n' "16 1 0" "16 1 0" > in2.txt
"$cbana" analyze --quiet "$prog" --inputs in2.txt --cache "$cfg" --format json -o other2.json
"$cbana" merge all.json other2.json -o progs.json
expect_rc 0 $? "merge of two programs"
python3 - all.json progs.json >cmp2 <<'PY'
import json, sys
one, m = (json.load(open(f)) for f in sys.argv[1:])
n = len(one["paths"])
print("programs", len(m["programs"]), "runs", len(m["runs"]))
print("tags", [r["program"] for r in m["runs"]])
print("second", [r["path"] for r in m["runs"][7:]], "P%d" % (n + 1))
PY
has "^programs 2 runs 9" cmp2 "two programs joined"
has "^tags \[1, 1, 1, 1, 1, 1, 1, 2, 2\]" cmp2 "runs tagged by program"
has "^second \['(P[0-9]+)', '\1'\] \1\$" cmp2 "the second program's one class numbered after the first's"
"$cbana" report progs.json > progs.txt
has "^program .*transpose.c" progs.txt "text names the program of each input"

# Refused, naming the file.
refused() { # refused WHAT FILE-NAMED MESSAGE-PATTERN REPORTS...
  local what=$1 named=$2 pat=$3; shift 3
  "$cbana" merge "$@" -o x.json >out 2>&1
  expect_rc 2 $? "$what"
  has "^cbana merge: $named: .*$pat" out "$what"
}
head -c 400 s2.json > cut.json
refused "a truncated shard" cut.json "malformed JSON" s1.json cut.json s3.json
printf '{"tool": "cbana", "runs": [{"input": {}}]}\n' > shape.json
refused "a report without caches" shape.json "without" s1.json shape.json
cp s1.json s1b.json
refused "the same shard twice" s1b.json "the same shard as s1.json" s1.json s1b.json s2.json s3.json
"$cbana" analyze --quiet "$prog" --inputs in.txt --format json --shard 2/3 -o other.json
refused "a shard of another cache" other.json "mismatched" s1.json other.json s3.json
run --format json --shard 2/4 -o four.json
refused "a shard of another count" four.json "does not match" s1.json four.json s3.json
refused "a missing shard" s1.json "shard 2/3 .*missing" s1.json s3.json
python3 - s2.json > moved.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["runs"][0]["input"]["index"] = 1
print(json.dumps(d))
PY
refused "an input outside its shard" moved.json "not in shard 2/3" s1.json moved.json s3.json
echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
