#!/usr/bin/env bash
# A program whose output is not text: the JSON report stays valid JSON
# (strict UTF-8), `output` holds U+FFFD for the bytes that are not UTF-8,
# and `output_base64` the exact bytes, equal to the native run's, NULs
# included; the same for stderr.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data" && pwd)/binary_output.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1
"$cbana" analyze --quiet "$src" --args "" --format json -o r.json
[ $? -eq 0 ] && ok || bad "analyze exit"
clang -O2 -o native "$src" && ./native >native.out 2>native.err || bad "native run"
python3 - r.json native.out native.err <<'PY' && ok || bad "report"
import base64, json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: the report is UTF-8
run = json.loads(raw)["runs"][0]
out, err = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
assert base64.b64decode(run["output_base64"]) == out, "output bytes"
assert b"\0" in out
assert run["output"].endswith("h\u00e9llo\n"), run["output"][-10:]
assert "\ufffd" in run["output"]
assert base64.b64decode(run["stderr_base64"]) == err, "stderr bytes"
PY
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
