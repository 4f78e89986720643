#!/usr/bin/env bash
# cbana analyze --format sarif, validated against the SARIF 2.1.0 schema.
# The schema comes from the npm package @microsoft/jest-sarif (its
# lib/schemas/sarif-2.1.0-rtm.5.json, the final 2.1.0 schema), the
# validator is ajv with its draft-04 support; both are installed with npm
# into NPM_DIR once. Skips (exit 77) only when the npm registry cannot be
# reached.
set -u
cbana=$1 corpus=$2 npm_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"

schema=$npm_dir/package/lib/schemas/sarif-2.1.0-rtm.5.json
if [ ! -f "$schema" ] || [ ! -d "$npm_dir/node_modules/ajv-draft-04" ]; then
  if ! command -v npm >/dev/null; then
    echo "FAIL: npm is not installed (node and npm come with the machine)"; exit 1
  fi
  if ! timeout 60 npm ping >/dev/null 2>&1; then
    echo "SKIP: the npm registry cannot be reached: the SARIF schema and validator come from it"
    exit 77
  fi
  mkdir -p "$npm_dir"
  (cd "$npm_dir" &&
    timeout 300 npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null 2>&1 &&
    tar xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json &&
    timeout 300 npm install --silent --no-audit --no-fund ajv@8 ajv-draft-04@1 ajv-formats@3 >/dev/null 2>&1) ||
    { echo "FAIL: installing the schema and ajv with npm failed"; exit 1; }
fi
validate() { NODE_PATH=$npm_dir/node_modules node "$here/report_sarif_validate.js" "$schema" "$1"; }

"$cbana" analyze --quiet "$corpus/conflict_pad.c" --inputs "$corpus/conflict_pad.inputs" \
  --D1=32768,2,64 --format sarif -o "$tmp/cp.sarif"
[ $? -eq 0 ] && ok || bad "analyze --format sarif"
out=$(validate "$tmp/cp.sarif" 2>&1) && ok || bad "conflict_pad SARIF is not valid: $out"
# One result per finding: as many as the JSON report's findings with a line.
"$cbana" analyze --quiet "$corpus/conflict_pad.c" --inputs "$corpus/conflict_pad.inputs" \
  --D1=32768,2,64 --format json -o "$tmp/cp.json"
counts=$(python3 - "$tmp/cp.json" "$tmp/cp.sarif" <<'PY'
import json, sys
j, s = (json.load(open(f)) for f in sys.argv[1:3])
nj = sum(1 for r in j["runs"] for c in r["caches"] for f in c["findings"] if f["line"])
res = s["runs"][0]["results"]
conf = sum(1 for r in res if r["ruleId"] == "conflict-misses")
rules = {r["id"] for r in s["runs"][0]["tool"]["driver"]["rules"]}
print(nj, len(res), conf, int(all(r["ruleId"] in rules for r in res)),
      int(all(r["locations"][0]["physicalLocation"]["region"]["startLine"] > 0 for r in res)))
PY
)
read -r nj ns nconf rules_ok lines_ok <<<"$counts"
[ "$nj" -gt 0 ] && [ "$nj" = "$ns" ] && ok || bad "SARIF results $ns, JSON findings $nj"
[ "$nconf" -ge 3 ] && ok || bad "conflict_pad (2-way L1) has $nconf conflict-misses results, want >= 3 (a, b, c)"
[ "$rules_ok" = 1 ] && [ "$lines_ok" = 1 ] && ok || bad "results without their rule or a line"
# A program with structs and one with two paths validate too.
"$cbana" analyze --quiet "$corpus/aos_soa.c" --inputs "$corpus/aos_soa.inputs" --format sarif -o "$tmp/aos.sarif"
out=$(validate "$tmp/aos.sarif" 2>&1) && ok || bad "aos_soa SARIF is not valid: $out"
grep -q '"sparse-struct"' "$tmp/aos.sarif" && ok || bad "aos_soa: no sparse-struct result"
# The validator does reject a broken file.
python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); d['runs'][0]['results'][0]['level']='fatal'
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/cp.sarif" "$tmp/broken.sarif"
validate "$tmp/broken.sarif" >/dev/null 2>&1 && bad "the validator accepted level 'fatal'" || ok
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
