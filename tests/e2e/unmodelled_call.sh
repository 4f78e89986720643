#!/usr/bin/env bash
# A program that links against a C library function the model does not
# know (sendto, tests/e2e/data/unmodelled): it loads, with one warning on
# stderr naming the function; the input that never calls it is analysed
# exactly (output equal to the native run's, the three engines' reports
# equal, own accesses per line equal to cachegrind's); the inputs that
# reach it, directly or through a pointer, stop there with the call's
# file:line, and the run's exit status is 3. A function defined nowhere
# (the link fails) stays a load-time error, exit status 2.
#   unmodelled_call.sh CBANA
set -u
cbana=$1
src=$(cd "$(dirname "$0")/data/unmodelled" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
cd "$tmp" || exit 1
prog=$src/sendto_path.c

for eng in default exact kernels; do
  case $eng in
  default) extra=() ;;
  exact) extra=(--exact-engine) ;;
  kernels) extra=(--wait-kernels) ;; # every function's kernel at once
  esac
  "$cbana" analyze "$prog" --inputs "$src/sendto_path.inputs" --format json \
    -o "$eng.json" "${extra[@]}" >"$eng.out" 2>"$eng.err"
  echo "exit $?" >>"$eng.err"
  has '^exit 3$' "$eng.err" "$eng: exit status"
  has 'warning: .*does not model.*: sendto$' "$eng.err" "$eng: load warning"
  [ "$(grep -c 'warning:' "$eng.err")" -eq 1 ] && ok || bad "$eng: one warning"
  has 'input 2 stopped: .*sendto_path\.c:19: call of the C library function `sendto`, which is not modelled' \
    "$eng.err" "$eng: direct call's stop"
  has 'input 3 stopped: .*sendto_path\.c:32: call through a pointer to the C library function `sendto`, which is not modelled' \
    "$eng.err" "$eng: call through a pointer's stop"
  hasnt 'input 1 stopped' "$eng.err" "$eng: input 1 runs"
done
same default.json exact.json "default engine against --exact-engine"
same default.json kernels.json "native kernels against --exact-engine"

clang -O2 -o native "$prog" -lm && ./native 0 >native.out || bad "native build"
python3 - default.json native.out <<'PY' && ok || bad "report"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert runs[0]["status"] == "ok" and runs[0]["exit_code"] == 0, runs[0]
assert runs[0]["output"] == open(sys.argv[2]).read(), runs[0]["output"]
for r, line in ((runs[1], 19), (runs[2], 32)):
    assert r["status"] == "error", r["status"]
    assert r["error"]["line"] == line, r["error"]
    assert "sendto" in r["error"]["message"], r["error"]
# input 2 stopped in the loop, before printing; input 3 after
assert runs[1]["output"] == "", runs[1]["output"]
assert runs[2]["output"] == open(sys.argv[2]).read(), runs[2]["output"]
PY

if command -v valgrind >/dev/null; then
  "$cbana" validate --quiet "$prog" --args 0 >val.out 2>&1
  st=$?
  [ $st -eq 0 ] && ok || { bad "validate exit $st"; cat val.out; }
  awk '$1 ~ /\.c:[0-9]+$/ && NF == 5 { n++; if ($2 != $3) { print "line " $1 ": cbana " $2 ", cachegrind " $3; d++ } }
       END { if (n < 5) { print "only " n " lines"; d++ } exit d > 0 }' val.out && ok || bad "validate's per-line accesses"
  has 'own code' val.out "validate's own-code table"
fi

# defined nowhere: the link fails, and the load-time error names it
cat >undef.c <<'C'
int nowhere_at_all(int);
int main(void) { return nowhere_at_all(1); }
C
"$cbana" analyze undef.c >undef.out 2>&1
echo "exit $?" >>undef.out
has '^exit 2$' undef.out "defined nowhere: exit status"
has "function 'nowhere_at_all' is called but defined nowhere" undef.out \
  "defined nowhere: message"
has 'undef\.c:2' undef.out "defined nowhere: call site"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
