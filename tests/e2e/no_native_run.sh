#!/usr/bin/env bash
# cbana analyze never executes the analysed program: every value comes
# from the model. Where strace is, it lists what cbana executes (the
# compiler, the linker, glibc's probe under valgrind, nothing else); the
# numbers the program prints and its exit status, all computed by the
# model, must be what the program's own executable (built and run here,
# by the test) gives, for the cases of
# tests/unit/engine/progs/value_cases.c: numbers that only printf, memcpy,
# a punned read or the exit status take from the loops that compute them.
set -u
cbana=$1
src=$(cd "$(dirname "$0")/../unit/engine/progs" && pwd)/value_cases.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/checks.sh"
field() { # field FILE KEY: the first run's KEY
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0][sys.argv[2]], end="")' "$1" "$2"
}

clang-14 -O2 -o "$tmp/native" "$src" -lm 2>"$tmp/cc.err" ||
  clang -O2 -o "$tmp/native" "$src" -lm 2>>"$tmp/cc.err" || cat "$tmp/cc.err"

for args in print "print 100" fields "fields 7" copy pun reuse fill iota \
  branch sqrt sqrtneg status; do
  name=${args// /_}
  "$cbana" analyze "$src" --args "$args" --quiet --format json \
    -o "$tmp/$name.json" >"$tmp/$name.err" 2>&1
  echo "exit $?" >>"$tmp/$name.err"
  has 'exit 0' "$tmp/$name.err" "$args: exit"
  # shellcheck disable=SC2086
  "$tmp/native" $args >"$tmp/$name.native"
  want=$?
  if [ "$(field "$tmp/$name.json" output)" = "$(cat "$tmp/$name.native")" ]; then ok; else
    bad "$args: output '$(field "$tmp/$name.json" output)' vs native '$(cat "$tmp/$name.native")'"
  fi
  if [ "$(field "$tmp/$name.json" exit_code)" = "$want" ]; then ok; else
    bad "$args: exit code $(field "$tmp/$name.json" exit_code) vs native $want"
  fi
  if quick; then break; fi
done

# the options of the native run are gone, not silently ignored
for opt in --slice --no-slice; do
  "$cbana" analyze "$src" --args print --quiet -o /dev/null "$opt" \
    >"$tmp/opt.err" 2>&1
  echo "exit $?" >>"$tmp/opt.err"
  has 'exit 2' "$tmp/opt.err" "$opt: refused"
  has "unknown option '$opt'" "$tmp/opt.err" "$opt: named"
done

if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
  # a fresh cache directory: what runs once per machine runs here too;
  # LeakSanitizer cannot run under ptrace (the sanitizer build's other
  # checks still do)
  ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    XDG_CACHE_HOME=$tmp/cache strace -f -qq -e trace=execve -o "$tmp/trace" \
      "$cbana" analyze "$src" --args print --quiet -o /dev/null \
      >"$tmp/strace.err" 2>&1
  echo "exit $?" >>"$tmp/strace.err"
  has 'exit 0' "$tmp/strace.err" "under strace: exit"
  grep -o 'execve("[^"]*"' "$tmp/trace" | sed 's/^execve("//; s/"$//' |
    grep -v "^$cbana\$" >"$tmp/execs"
  has '/usr/bin/(clang|ld)' "$tmp/execs" "strace sees the compile"
  # valgrind runs glibc's probe once per machine (its tool from libexec)
  grep -vE '/(clang[^/]*|ld[^/]*|valgrind[^/]*|cbana-glibc-probe)$|^/usr/lib(exec)?/valgrind/' \
    "$tmp/execs" >"$tmp/others"
  hasnt '^' "$tmp/others" "executes only the compiler, linker, probe"
else
  echo "no usable strace: the no-execution check is skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
