#!/usr/bin/env bash
# `cbana validate` judges more than misses: each input's output and exit
# status against the real run's, and its own-code accesses. A program
# that prints time(NULL) when its argument is `time`: cbana's clock is fixed
# (docs/process-model.md), the real run's is not, so that input's output
# differs and validate exits 1, while the other input is
# reported identical.
set -u
cbana=$1
. "$(dirname "$0")/checks.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v valgrind >/dev/null || { echo "valgrind missing: skipped"; exit 77; }
cat >"$tmp/clock.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv) {
  static long a[4096];
  long s = 0;
  for (int i = 0; i < 4096; i++)
    a[i] = i;
  for (int i = 0; i < 4096; i += 3)
    s += a[i];
  if (argc > 1 && argv[1][0] == 't')
    printf("%ld %ld\n", s, (long)time(NULL));
  else
    printf("%ld\n", s);
  return 0;
}
C
printf 'plain\ntime\n' >"$tmp/in.txt"
(cd "$tmp" && "$cbana" validate --quiet clock.c --inputs in.txt >val.out 2>&1)
st=$?
[ $st -eq 1 ] && ok || { bad "validate exit $st, not 1"; cat "$tmp/val.out"; }
# input 1 (plain): same output; input 2 (time): differs
awk '/^input 1/ { i = 1 } /^input 2/ { i = 2 } /^  output:/ { print i ": " $0 }' "$tmp/val.out" >"$tmp/outs"
has "^1: +output: 8 bytes, identical to the real run's" "$tmp/outs" "input 1's output"
has "^2: +output: 19 bytes, the real run's 19; they differ from byte [0-9]+ +DIFFERS" "$tmp/outs" "input 2's output"
has "accesses +[0-9]+ +[0-9]+ +\+0\.00% +ok" "$tmp/val.out" "own-code accesses judged"
has "validate: some input is out of tolerance, or its output or exit status differs" "$tmp/val.out" "verdict"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
