#!/usr/bin/env python3
"""trace_diff.py: the engine's stream of main (tests/unit/engine's
engine_trace) against lackey's (`valgrind --tool=lackey --trace-mem=yes`
of the same executable, path and working directory), both run through
cachegrind's L1D from the same state (lackey's start-up), then lackey's
exit after each: the misses of main and of exit, and the lines each touches
that the other does not (docs/process-model.md section 9).

  trace_diff.py EXE LACKEY_LOG ENGINE_TRACE [--D1 S,A,L] [--lines]

ENGINE_TRACE may hold main's part only, or start-up, main and exit (its
start-up and exit as long as lackey's: the replay's)."""
import argparse
import collections
import copy
import re
import subprocess
import sys


class L1:
    def __init__(self, size, assoc, line):
        self.n = size // (assoc * line)
        self.a = assoc
        self.lb = line.bit_length() - 1
        self.sets = [collections.OrderedDict() for _ in range(self.n)]

    def ref(self, a, n):
        miss = False
        for blk in {a >> self.lb, (a + n - 1) >> self.lb}:
            s = self.sets[blk & (self.n - 1)]
            if blk in s:
                s.move_to_end(blk)
            else:
                s[blk] = 1
                miss = True
                if len(s) > self.a:
                    s.popitem(last=False)
        return miss


def lackey_phases(log, main, ret):
    ph = [[], [], []]
    p = 0
    for l in open(log):
        if l[0] in "=-":
            continue
        if l[0] == "I":
            a = int(l[3:].split(",")[0], 16)
            if p == 0 and a == main:
                p = 1
            elif p == 1 and a == ret:
                p = 2
            continue
        if l[1] not in "LSM":
            continue
        a, n = l[3:].split(",")
        ph[p].append((l[1], int(a, 16), int(n)))
    return ph


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("log")
    ap.add_argument("eng")
    ap.add_argument("--D1", default="32768,8,64")
    ap.add_argument("--lines", action="store_true")
    a = ap.parse_args()
    D1 = [int(x) for x in a.D1.split(",")]
    nm = subprocess.run(["nm", a.exe], capture_output=True, text=True).stdout
    main_at = 0x108000 + int(re.search(r"^([0-9a-f]+) T main$", nm,
                                       re.M).group(1), 16)
    v = subprocess.run(["env", "-i", "valgrind", "--tool=none", "-v", "-v",
                        a.exe], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True).stderr
    m = re.search(r"Reading syms from \S+/libc.so.6\n.*svma 0x([0-9a-f]+), "
                  r"avma 0x([0-9a-f]+)", v)
    ret = int(m.group(2), 16) - int(m.group(1), 16) + 0x2724a
    pre, lk_main, post = lackey_phases(a.log, main_at, ret)
    eng = []
    for l in open(a.eng):
        if len(l) > 3 and l[1] in "LS":
            x, n = l[3:].split(",")
            eng.append((l[1], int(x, 16), int(n)))
    if len(eng) > len(pre) + len(post):
        # a stream with the replayed start-up and exit (as many accesses
        # as lackey's): main's part
        eng = eng[len(pre):len(eng) - len(post)]
    base = L1(*D1)
    for k, x, n in pre:
        base.ref(x, n)
    out = {}
    for name, tr in (("lackey", lk_main), ("engine", eng)):
        c = copy.deepcopy(base)
        mm = sum(c.ref(x, n) for k, x, n in tr)
        me = sum(c.ref(x, n) for k, x, n in post)
        out[name] = (len(tr), mm, me, collections.Counter(x >> 6
                                                         for k, x, n in tr))
        print("%-7s main %6d refs %5d misses; exit %5d misses" %
              (name, len(tr), mm, me))
    la, en = out["lackey"][3], out["engine"][3]
    only_l = sorted(set(la) - set(en))
    only_e = sorted(set(en) - set(la))
    print("lines only lackey: %d, only engine: %d" % (len(only_l),
                                                      len(only_e)))
    if a.lines:
        for b in only_l:
            print("  lackey 0x%x (%d)" % (b << 6, la[b]))
        for b in only_e:
            print("  engine 0x%x (%d)" % (b << 6, en[b]))


if __name__ == "__main__":
    sys.exit(main())
