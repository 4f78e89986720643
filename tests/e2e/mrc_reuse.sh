#!/usr/bin/env bash
# A hierarchy simulates one input after another (--jobs 1): each input's
# report, the sampled miss-ratio curve included, must be the one it gets
# alone. The curve's sampled histograms once kept the previous input's
# counts, so the third input's curve depended on which input its worker
# had simulated before.
set -u
cbana=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
corpus=$(cd "$(dirname "$0")/../../../shared/corpus" 2>/dev/null && pwd) ||
  corpus=$(cd "$(dirname "$0")/../../corpus" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$corpus" || exit 1
printf '1 2\n8 2\n16 3\n' > "$tmp/all.inputs"
printf '16 3\n' > "$tmp/last.inputs"
for cache in "--D1=4096,2,64" "--D1=32768,8,64 --LL=1048576,16,64"; do
  # shellcheck disable=SC2086 # cache: one or two options
  run all analyze stride_global.c --inputs "$tmp/all.inputs" --jobs 1 $cache
  # shellcheck disable=SC2086
  run last analyze stride_global.c --inputs "$tmp/last.inputs" --jobs 1 $cache
  python3 - "$tmp/all.json" "$tmp/last.json" > "$tmp/cmp" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["runs"][2]["caches"][0]
b = json.load(open(sys.argv[2]))["runs"][0]["caches"][0]
sampled = any(v < 1 for v in a.get("mrc_sampling", {}).values())
print("sampled" if sampled else "exact")
print("same" if a["miss_ratio_curve"] == b["miss_ratio_curve"] and
      a["levels"] == b["levels"] else "differ")
PY
  has '^sampled$' "$tmp/cmp" "$cache: the third input's curve is sampled"
  has '^same$' "$tmp/cmp" "$cache: the third input alone and after two others"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
