#!/bin/sh
# stdin_tables.sh: regenerates the getc(stdin) tables of
# analysis/process/libc_stdin_tables.h from lackey traces (docs/process-model.md
# section 9.7): a program reading 5000 bytes from a file with getchar (the
# first call's set-up, hits, a refill, the refill at the end, the sticky
# end) and one reading /dev/null (the set-up of a character device).
# Usage: tools/probe/stdin_tables.sh (prints the tables, each after its
# first and last row with their functions; t_gc_setup_end twice, from the
# file and from /dev/null: the same rows)
set -e
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cat > "$w/g.c" <<'C'
#include <stdio.h>
int main(void) {
  int c;
  long n = 0, s = 0;
  while ((c = getchar()) != EOF) {
    n++;
    s += c;
  }
  c = getchar();
  printf("%ld %ld %d\n", n, s, c);
  return 0;
}
C
clang -O2 -o "$w/g" "$w/g.c"
python3 -c "import sys; sys.stdout.write(('abcdefgh\n' * 600)[:5000])" > "$w/in"
cd "$w"
# lackey run here: libtrace.py's own runs would take the input first
env -i valgrind --tool=lackey --trace-mem=yes ./g < in > /dev/null 2> f.lk
env -i valgrind --tool=lackey --trace-mem=yes ./g < /dev/null > /dev/null \
  2> n.lk
emit() { # NAME LOG CALL:A-B [libtrace_tables options]
  name=$1 log=$2 rng=$3
  shift 3
  # the rows with their functions, for a reader to check the cuts
  python3 "$here/libtrace.py" --log "$log" --emit "$rng" ./g < /dev/null |
    sed -n '1p;$p' | sed 's/^/\/\/ /'
  python3 "$here/libtrace.py" --log "$log" --emit "$rng" ./g < /dev/null |
    python3 "$here/libtrace_tables.py" "$name" 0 "$@"
}
# call 0's rows start with the PLT slot's binding: count from getc's first
f0=$(python3 "$here/libtrace.py" --log f.lk --detail --calls 0-0 ./g \
  < /dev/null | awk '$1 ~ /^[0-9]+$/ && $2 == "getc" && !n { print $1; n = 1 }')
n0=$(python3 "$here/libtrace.py" --log n.lk --detail --calls 0-0 ./g \
  < /dev/null | awk '$1 ~ /^[0-9]+$/ && $2 == "getc" && !n { print $1; n = 1 }')
emit t_gc_head f.lk 1:1-5
emit t_gc_hit f.lk 1:6-6
emit t_gc_hit_exit f.lk 1:8-9
emit t_gc_uflow_first f.lk 0:$((f0 + 5))-$((f0 + 25))
emit t_gc_uflow f.lk 4096:6-25
emit t_gc_sticky f.lk 5001:26-29
emit t_gc_under f.lk 4096:26-51
emit t_gc_under_first_file f.lk 0:$((f0 + 26))-$((f0 + 60))
emit t_gc_under_first_chr n.lk 0:$((n0 + 26))-$((n0 + 79))
emit t_gc_setup_end f.lk 0:$((f0 + 564))-$((f0 + 605))
emit t_gc_setup_end n.lk 0:$((n0 + 583))-$((n0 + 624))
emit t_gc_read f.lk 4096:52-63
emit t_gc_data f.lk 4096:64-66
emit t_gc_data_end f.lk 4096:68-76
emit t_gc_data_ret f.lk 4096:78-79
emit t_gc_eof f.lk 5000:64-75
