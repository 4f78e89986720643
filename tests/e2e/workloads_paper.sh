#!/bin/sh
# The paper workloads (bench/workloads: load_loop, br_path2, br_path3, tc,
# pr): they build without warnings, and for every input set of NAME.inputs
# up to its "# large" section, run natively twice, exit 0, print one line,
# and print the same line both times. Also checks gen_brpath_inputs.sh.
#
#   workloads_paper.sh SOURCE_ROOT BUILD_DIR
set -u
# whole in both passes; CBANA_E2E_QUICK kept out of the programs' environment
# (checks.sh says why)
unset CBANA_E2E_QUICK
src=$1
out=$2
wl=$src/bench/workloads
mkdir -p "$out"

CFLAGS=-Werror "$wl/build.sh" -o "$out" || { echo "FAIL: build"; exit 1; }

fail=0
sets=0
for name in load_loop br_path2 br_path3 tc pr; do
  # input lines before the "# large" comment, comments dropped
  sed -n '/^# large/q;/^[[:space:]]*#/d;/^[[:space:]]*$/d;p' \
    "$wl/$name.inputs" >"$out/$name.sets"
  [ -s "$out/$name.sets" ] || { echo "FAIL $name: no input sets"; fail=1; }
  while read -r args; do
    sets=$((sets + 1))
    # shellcheck disable=SC2086
    if ! a=$("$out/$name" $args); then
      echo "FAIL $name $args: non-zero exit"
      fail=1
      continue
    fi
    # shellcheck disable=SC2086
    b=$("$out/$name" $args)
    [ "$(printf '%s\n' "$a" | wc -l)" -eq 1 ] ||
      { echo "FAIL $name $args: not one line"; fail=1; }
    [ "$a" = "$b" ] ||
      { echo "FAIL $name $args: two runs differ: $a / $b"; fail=1; }
  done <"$out/$name.sets"
done

# the random input generator: 1000 sets, deterministic, X in [0, 1000)
g1=$("$wl/gen_brpath_inputs.sh" 1000 5)
g2=$("$wl/gen_brpath_inputs.sh" 1000 5)
[ "$g1" = "$g2" ] || { echo "FAIL gen_brpath_inputs.sh: not deterministic"; fail=1; }
n=$(printf '%s\n' "$g1" | grep -v '^#' | awk '$1 >= 0 && $1 < 1000 && $2 == 1000' | wc -l)
[ "$n" -eq 1000 ] || { echo "FAIL gen_brpath_inputs.sh: $n good lines"; fail=1; }

[ $fail -eq 0 ] && echo "ok: $sets input sets"
exit $fail
