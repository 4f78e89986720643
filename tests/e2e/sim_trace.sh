#!/usr/bin/env bash
# `cbana sim` end to end: counts on a tiny hand-computed trace, the exit
# statuses, and errors that name the file and line.
# usage: sim_trace.sh CBANA SOURCE_DIR
set -u
cbana=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

expect() { # expect STATUS PATTERN -- ARGS...: exit status and output
  local want=$1 pat=$2; shift 3
  local out; out=$("$cbana" "$@" 2>&1); local got=$?
  if [ "$got" -eq "$want" ] && grep -qE -- "$pat" <<<"$out"; then ok
  else bad "cbana $* -> $got: $out"; fi
}

# L1D: 64 bytes, direct-mapped, 16-byte lines (4 sets, set = line % 4).
cat >"$tmp/t.din" <<'EOF'
# tiny.din
0 0 4       # line 0: cold, miss (compulsory)
0 4 4       # line 0: hit
1 40 8      # line 4, set 0: cold, miss (compulsory), evicts line 0
0 0 4       # line 0: miss; only line 4 since: conflict
2 1000      # an instruction fetch: skipped

1 1c 8      # bytes 0x1c-0x23, lines 1 and 2: one access, one miss (compulsory)
0 0x10      # line 1: hit (size 1 by default)
EOF
# Reads 4 (misses 2), writes 2 (misses 2); compulsory 3, conflict 1.
want_l1='{"accesses": 6, "reads": 4, "writes": 2, "misses": 4, "read_misses": 2, "write_misses": 2, "compulsory": 3, "capacity": 0, "conflict": 1}'

# json_counts FILE LEVEL: the level's counters, in the order above.
json_counts() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[sys.argv[2]]
keys = ["accesses", "reads", "writes", "misses", "read_misses",
        "write_misses", "compulsory", "capacity", "conflict"]
print(json.dumps({k: d[k] for k in keys}))' "$@"
}

"$cbana" sim --D1=64,1,16 --format json "$tmp/t.din" >"$tmp/out.json"
st=$?
[ "$st" -eq 0 ] && ok || bad "sim --D1 json exit $st"
got=$(json_counts "$tmp/out.json" L1D)
[ "$got" = "$want_l1" ] && ok || bad "L1D counts: $got"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(list(d) != ["L1D"])' \
  "$tmp/out.json" && ok || bad "--D1 alone should give only L1D"
# The miss-ratio curve: line references 0 0 4 0 1 2 1; one line misses
# all but the repeated 0 (6); enough lines miss only the 4 cold ones.
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["L1D"]["mrc"]
sys.exit(not (m[0] == {"lines": 1, "bytes": 16, "misses": 6} and m[-1]["misses"] == 4))' \
  "$tmp/out.json" && ok || bad "mrc: $(cat "$tmp/out.json")"

# Two levels from a file; L2 (fully associative, 32-byte lines, FIFO)
# sees the four L1 misses: line 0 cold, line 2 cold, line 0 hit, lines
# 0 and 1 (hit, cold): 3 misses, all compulsory.
cat >"$tmp/two.cfg" <<'EOF'
[L1D]
size = 64
assoc = 1
line = 16
[L2]
size = 256
assoc = full
line = 32
policy = fifo
EOF
"$cbana" sim --cache "$tmp/two.cfg" --format=json - <"$tmp/t.din" >"$tmp/two.json"
st=$?
[ "$st" -eq 0 ] && ok || bad "sim two.cfg stdin exit $st"
[ "$(json_counts "$tmp/two.json" L1D)" = "$want_l1" ] && ok || bad "two L1D"
want_l2='{"accesses": 4, "reads": 2, "writes": 2, "misses": 3, "read_misses": 1, "write_misses": 2, "compulsory": 3, "capacity": 0, "conflict": 0}'
got=$(json_counts "$tmp/two.json" L2)
[ "$got" = "$want_l2" ] && ok || bad "L2 counts: $got"

# --no-classify: the classes are null.
"$cbana" sim --D1=64,1,16 --format json --no-classify "$tmp/t.din" >"$tmp/nc.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["L1D"]
sys.exit(not (d["misses"] == 4 and d["compulsory"] is None and d["mrc"] is None))' \
  "$tmp/nc.json" && ok || bad "--no-classify: $(cat "$tmp/nc.json")"

# Text: the table and, with --mrc, the curve.
expect 0 'L1D +6 +4 +2 +4 +2 +2 +66\.67%' -- sim --D1=64,1,16 "$tmp/t.din"
expect 0 'miss-ratio curve at L1D' -- sim --D1=64,1,16 --mrc "$tmp/t.din"
# The demo.
expect 0 'LL +[0-9]+' -- sim --cache cachegrind "$src/examples/stride.din"
expect 0 'L3 ' -- sim --cache zen3 "$src/examples/stride.din"

# Malformed traces: file, line number, exit 2.
printf '0 10 4\n\n0 zz\n' >"$tmp/bad1.din"
expect 2 "^$tmp/bad1.din:3: address is not up to 16 hex digits: 'zz'\$" -- \
  sim "$tmp/bad1.din"
printf '# ok\n5 10\n' >"$tmp/bad2.din"
expect 2 "bad2.din:2: label is not 0 \\(read\\), 1 \\(write\\) or 2" -- \
  sim "$tmp/bad2.din"
printf '0 10 0\n' >"$tmp/bad3.din"
expect 2 "bad3.din:1: size is not a decimal 1 to 65535: '0'" -- \
  sim "$tmp/bad3.din"
printf '0 10 4 9\n' >"$tmp/bad4.din"
expect 2 "bad4.din:1: more than 3 fields at '9'" -- sim "$tmp/bad4.din"
expect 2 '<stdin>:1: expected' -- sim - <<<"0"

# Bad configurations and usage: exit 2 with the rule.
printf '[L1D]\nsize = 24K\nassoc = 4\nline = 64\n' >"$tmp/bad.cfg"
expect 2 "bad.cfg:1: \\[L1D\\]: 96 sets .* is not a power of two" -- \
  sim --cache "$tmp/bad.cfg" "$tmp/t.din"
expect 2 'no such file or preset' -- sim --cache nonesuch "$tmp/t.din"
expect 2 'expected --D1=SIZE,ASSOC,LINE' -- sim --D1=64,1 "$tmp/t.din"
expect 2 'cannot read' -- sim "$tmp/missing.din"
expect 2 "unknown option '--frob'" -- sim --frob "$tmp/t.din"
expect 2 'no TRACE given' -- sim
expect 2 "unknown format 'xml'" -- sim --format xml "$tmp/t.din"
expect 0 'usage: cbana sim' -- sim --help

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
