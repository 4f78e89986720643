#!/usr/bin/env python3
"""libtrace_tables.py: turns libtrace.py --emit rows into the C tables of
analysis/libc_malloc_tables.c (docs/process-model.md section 9).

  libtrace_tables.py NAME SHIFT [DROP...] < ROWS

SHIFT: the frame base's distance below the caller's rsp (stack rows become
offsets below the function's own frame base). A heap row becomes relative
to the chunk the table names (V: the victim, P: the top before); DROP are
row numbers (0-based) to leave out: the heap words the malloc model writes
itself (heap.c: set_head of the victim and of the new top)."""
import re
import sys

name, shift = sys.argv[1], int(sys.argv[2], 0)
drop = {int(x) for x in sys.argv[3:] if not x.startswith("H=")}
hbase = [x[2:] for x in sys.argv[3:] if x.startswith("H=")]
hkind, horig = (hbase[0].split(":") if hbase else ("V", "0"))
horig = int(horig, 0)
rows = []
for i, line in enumerate(sys.stdin):
    m = re.match(r"\s*(\S)\((0x[0-9a-f]+), (\d+), (\d)\),", line)
    if not m or i in drop:
        continue
    k, off, n, w = m.group(1), int(m.group(2), 16), int(m.group(3)), int(
        m.group(4))
    if k == "S":
        off -= shift
        assert off > 0, line
    elif k in "H?":
        off -= horig
        k = hkind
    rows.append("%s(0x%x, %d, %d)" % (k, off, n, w))
print("static const lt_acc %s[] = {" % name)
print("    " + ", ".join(rows) + "};")
