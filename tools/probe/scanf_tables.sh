#!/bin/sh
# scanf_tables.sh: regenerates analysis/process/libc_scanf_tables.h from lackey
# traces of tools/probe/scanf_probe.c (docs/process-model.md section
# 9.12): the fixed sequences of sscanf's entry (its string FILE, up to and
# after __rawmemchr), vfscanf's prologue under sscanf and under fscanf
# (up to the stream's lock), fscanf's and scanf's entries, and
# __strtof_internal on "12.25". Stack rows below vfscanf's base B (C -
# 0x1f0 in sscanf, C - 0xe0 in fscanf), FILE rows (P) from the FILE,
# va_list rows (V) from the va_list; entry rows from the caller's rsp.
# Usage: tools/probe/scanf_tables.sh > analysis/process/libc_scanf_tables.h
# (then clang-format)
set -e
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
clang -O2 -o "$w/p" "$here/scanf_probe.c"
cd "$w"
printf 'alpha beta\ngamma\ndelta epsilon zeta\neta\n' > words.txt
printf '10 20\n3 4\n555 6\n' > nums.txt
python3 "$here/libtrace.py" --emit 3:0-2000 ./p 0 4 > e0.txt
python3 "$here/libtrace.py" --emit 3:0-2000 ./p 2 4 > e2.txt
python3 "$here/libtrace.py" --emit 4:0-2000 ./p 7 8 > ef.txt
# scanf reads stdin: lackey run here (libtrace.py's own runs would take
# the input first)
env -i valgrind --tool=lackey --trace-mem=yes ./p 8 8 < nums.txt \
  > /dev/null 2> sc.lk
python3 "$here/libtrace.py" --log sc.lk --emit 3:0-2000 ./p 8 8 \
  < /dev/null > esc.txt
slice() { # NAME FILE A-B FAMILY [entry]
  python3 - "$@" <<'PY'
import re, sys
name, f, rng, fam = sys.argv[1:5]
entry = len(sys.argv) > 5
B, P, PHI, V = (0x1f0, 0x1d0, 0xf0, 0x1e8) if fam == "ss" else \
    (0xe0, None, None, 0xe0)
a, b = (int(x) for x in rng.split("-"))
rows = open(f).read().splitlines()
out = []
for i in range(a, b + 1):
    m = re.match(r"\s*(\S)\((0x-?[0-9a-f]+), (\d+), (\d)\)", rows[i])
    k, off, n, w = m.group(1), int(m.group(2).replace("0x-", "-0x"), 16), \
        m.group(3), m.group(4)
    if k == "S":
        if P is not None and PHI <= off <= P:
            out.append("P(%#x, %s, %s)" % (P - off, n, w))
        elif V - 0x10 <= off <= V and not entry:
            out.append("V(%#x, %s, %s)" % (V - off, n, w))
        elif entry or off < B:
            out.append("S(%#x, %s, %s)" % (off, n, w))
        else:
            out.append("S(%#x, %s, %s)" % (off - B, n, w))
    elif k == "H" and fam == "fs":
        out.append("P(%#x, %s, %s)" % (off - 0x2a0, n, w))  # fopen's FILE
    elif k in "LT":
        out.append("%s(%#x, %s, %s)" % (k, off, n, w))
    else:
        sys.exit("%s row %d: %s" % (name, i, rows[i]))
print("static const lt_acc %s[] = {%s};" % (name, ", ".join(out)))
PY
}
echo "/* libc_scanf_tables.h: fixed row sequences of glibc 2.36's sscanf and fscanf"
echo " * (Debian 12 libc.so.6), sliced from lackey traces of tools/probe/scanf_probe.c"
echo " * by tools/probe/scanf_tables.sh; analysis/process/libc_scanf_traffic.c says which"
echo " * glibc code each one is. S: below the frame base the table names, P: the"
echo " * FILE, V: the va_list. Do not edit. */"
slice t_ss_entry e0.txt 1-44 ss entry
slice t_ss_entry2 e0.txt 47-79 ss entry
slice t_ss_pro e0.txt 80-128 ss
slice t_fs_entry ef.txt 1-11 fs entry
slice t_fs_pro ef.txt 12-59 fs
slice t_strtof e2.txt 326-536 ss
slice t_sc_entry esc.txt 1-14 fs entry
