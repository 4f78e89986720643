#!/usr/bin/env bash
# File names in a report must not depend on the directory cbana runs in.
# clang splits a header's debug-info path into directory and name by the
# working directory, so the same program named by absolute paths gave
# "polybench/medley/../polybench.h" from the project's root and
# "/work/main/polybench/medley/../polybench.h" from elsewhere. (The
# counts may differ: the process modelled, valgrind's, has the working
# directory in its environment, which moves the stack;
# docs/process-model.md.)
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
cbana=$1
root=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$root/polybench/medley/deriche.c
flags="-O2 -DMINI_DATASET -I$root/polybench"
(cd "$root" && "$cbana" analyze "$src" --cflags "$flags" --quiet \
  --format json -o "$tmp/root.json")
(cd "$tmp" && "$cbana" analyze "$src" --cflags "$flags" --quiet \
  --format json -o "$tmp/tmp.json")
python3 - "$tmp/root.json" "$tmp/tmp.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def names(r):
    lines = [l["file"] for run in r["runs"] for c in run["caches"]
             for l in c["lines"]]
    return r["files"], sorted(set(lines))
fa, la = names(a)
fb, lb = names(b)
ok = fa == fb and la == lb
if not ok:
    print("FAIL: file names differ by working directory:", fa, fb, la, lb)
elif not any(f.endswith("polybench.h") for f in fa):
    ok = False
    print("FAIL: no polybench.h in", fa)
print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
sys.exit(0 if ok else 1)
PY
