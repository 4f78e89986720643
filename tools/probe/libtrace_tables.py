#!/usr/bin/env python3
"""libtrace_tables.py: turns libtrace.py --emit rows into the C tables of
analysis/process/libc_malloc_tables.h (docs/process-model.md section 9).

  libtrace_tables.py NAME SHIFT [DROP...] < ROWS

SHIFT: the frame base's distance below the caller's rsp (stack rows become
offsets below the function's own frame base). A heap row becomes relative
to the chunk the table names (V: the victim, P: the top before); DROP are
row numbers or ranges A-B (0-based, in the rows given) to leave out: the
heap words the malloc model writes itself (heap.c: set_head of the victim
and of the new top). H=K:ORIGIN, X=K:ORIGIN: heap and executable rows
become base K relative to ORIGIN; SKIP=KINDS leaves those rows out."""
import re
import sys

name, shift = sys.argv[1], int(sys.argv[2], 0)
drop = set()
for x in sys.argv[3:]:
    if "=" in x:
        continue
    lo, _, hi = x.partition("-")
    drop.update(range(int(lo), int(hi or lo) + 1))
opt = dict(x.split("=", 1) for x in sys.argv[3:] if "=" in x)
hkind, horig = opt.get("H", "V:0").split(":")
horig = int(horig, 0)
xkind, xorig = opt.get("X", "X:0").split(":")
xorig = int(xorig, 0)
skip = set(opt.get("SKIP", ""))  # row kinds left out (e.g. H, X)
rows = []
for i, line in enumerate(sys.stdin):
    m = re.match(r"\s*(\S)\((0x[0-9a-f]+), (\d+), (\d)\),", line)
    if not m or i in drop or m.group(1) in skip:
        continue
    k, off, n, w = m.group(1), int(m.group(2), 16), int(m.group(3)), int(
        m.group(4))
    if k == "S":
        off -= shift
        assert off > 0, line
    elif k in "H?":
        off -= horig
        k = hkind
    elif k == "X" and xkind != "X":
        off -= xorig
        k = xkind
    rows.append("%s(0x%x, %d, %d)" % (k, off, n, w))
print("static const lt_acc %s[] = {" % name)
print("    " + ", ".join(rows) + "};")
