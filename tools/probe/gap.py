#!/usr/bin/env python3
"""What cachegrind counts in a program's own code beyond the IR's loads and
stores. Runs the program under lackey (--trace-mem=yes), attributes every
data access to the instruction that made it, keeps the instructions of the
executable's own functions, and classifies them from the disassembly:

  push/pop      register saves/restores (prologue/epilogue)
  call          the return address a call pushes (a write)
  ret           the return address ret pops (a read)
  rodata        rip-relative loads from .rodata (FP constants, tables)
  global        rip-relative accesses to .data/.bss (IR globals)
  stack-fixed   rsp/rbp-relative without an index register: spills,
                reloads, scalar locals
  stack-indexed rsp/rbp-relative with an index register (stack arrays)
  other         through another base register (pointers, heap)

The IR's loads/stores are roughly global + stack-indexed + other (+ the
scalar locals kept in memory); push/pop/call/ret/rodata and spills are the
gap. Lackey counts an access like cachegrind: a read-modify-write is one
'M' event, which cachegrind counts as one read (Dr) [checked below].

usage: gap.py EXE [ARGS...]      (run from the directory you want as cwd)
"""
import collections
import os
import re
import subprocess
import sys


def disasm(exe):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-w", exe],
                         capture_output=True, text=True, check=True).stdout
    ins, fn = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            fn = m.group(2)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m and fn:
            ins[int(m.group(1), 16)] = (fn, m.group(2).strip())
    return ins


def sections(exe):
    out = subprocess.run(["readelf", "-SW", exe], capture_output=True,
                         text=True, check=True).stdout
    secs = []
    for line in out.splitlines():
        m = re.search(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]{16})\s+[0-9a-f]+\s+"
                      r"([0-9a-f]+)", line)
        if m:
            secs.append((m.group(1), int(m.group(2), 16),
                         int(m.group(3), 16)))
    return secs


def classify(text, target, secs):
    op = text.split()[0]
    if op.startswith("push"):
        return "push/pop"
    if op.startswith("pop"):
        return "push/pop"
    if op.startswith("call"):
        return "call"
    if op.startswith("ret"):
        return "ret"
    if "(%rip)" in text:
        for name, addr, size in secs:
            if addr <= target < addr + size:
                return "rodata" if name.startswith(".rodata") else "global"
        return "global"
    m = re.search(r"\((%r[sb]p)(,[^)]*)?\)", text)
    if m:
        return "stack-indexed" if m.group(2) else "stack-fixed"
    return "other"


def main():
    exe = os.path.abspath(sys.argv[1])
    ins = disasm(exe)
    secs = sections(exe)
    own_fns = {f for f, _ in ins.values()
               if not f.startswith(("_", "deregister", "register", "frame_dummy"))
               and "@plt" not in f}
    base = 0x108000
    r, w = os.pipe()
    p = subprocess.Popen(["env", "-i", "valgrind", "--tool=lackey",
                          "--trace-mem=yes", f"--log-fd={w}", exe]
                         + sys.argv[2:], pass_fds=(w,),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    counts = collections.Counter()  # (class, kind) -> n
    cur = None
    with os.fdopen(r) as f:
        for line in f:
            if line.startswith("I"):
                a = int(line[3:line.index(",")], 16) - base
                cur = ins.get(a)
                if cur and cur[0] not in own_fns:
                    cur = None
                elif cur:
                    text = cur[1]
                    m = re.search(r"# ([0-9a-f]+) <", text)
                    tgt = int(m.group(1), 16) if m else -1
                    cur = (cur[0], classify(text, tgt, secs))
            elif line.startswith(" ") and cur:
                counts[(cur[1], line[1])] += 1
    p.wait()
    classes = ["push/pop", "call", "ret", "rodata", "global", "stack-fixed",
               "stack-indexed", "other"]
    tot_r = sum(n for (c, k), n in counts.items() if k in "LM")
    tot_w = sum(n for (c, k), n in counts.items() if k == "S")
    print(f"own functions: {sorted(own_fns)}")
    print(f"{'class':14s} {'reads':>10s} {'writes':>10s} {'RMW':>8s}  share")
    for c in classes:
        lr, s, m = counts[(c, "L")], counts[(c, "S")], counts[(c, "M")]
        share = (lr + s + m) / max(1, tot_r + tot_w)
        print(f"{c:14s} {lr:10d} {s:10d} {m:8d}  {share:6.1%}")
    print(f"{'total':14s} {tot_r:10d} {tot_w:10d}   (reads include RMW)")


if __name__ == "__main__":
    main()
