# checks.sh: the counters and assertions the e2e scripts share, sourced
# (`. "$(dirname "$0")/checks.sh"`). Each script ends with
#   echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
# shellcheck shell=bash
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
has() { # has PATTERN FILE WHAT: FILE has a line matching PATTERN
  if grep -qE -- "$1" "$2"; then ok; else bad "$3: no /$1/ in:"; cat "$2"; fi
}
hasnt() { # hasnt PATTERN FILE WHAT: no line of FILE matches PATTERN
  if grep -qE -- "$1" "$2"; then bad "$3: /$1/ in:"; cat "$2"; else ok; fi
}
