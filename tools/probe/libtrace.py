#!/usr/bin/env python3
"""libtrace.py: the data traffic inside each C library call of a program,
attributed to glibc's functions (docs/process-model.md section 9).

Runs `env -i valgrind --tool=lackey --trace-mem=yes EXE ARGS` from the
current directory, keeps main's part of the trace (main's first instruction
to the return into __libc_start_call_main), and cuts it into calls: a call
starts at the program's `call` of a PLT slot and ends when control is back
in the executable's own code. Every access inside a call is attributed to
the function whose instruction made it (symbols of libc.so.6 and ld.so from
the libc6-dbg files in /usr/lib/debug/.build-id; the PLT is "plt") and its
address is classified:

  stack  rsp-OFF: below the caller's rsp (the rsp before its `call`)
  libc   SYMBOL+OFF in libc.so.6 (its data objects, e.g. _IO_2_1_stdout_,
         main_arena, _nl_global_locale), or libc:SECTION+OFF
  ld.so  likewise
  heap   heap+OFF from brk0
  exe    exe:SECTION+OFF (the program's data, its strings)

The L1D misses are those of the whole trace through cachegrind's L1D (LRU,
a straddling access looks up both lines; a modify counts once), so a call's
misses are what it costs in the program's real cache state.

usage: libtrace.py [--D1 S,A,L] [--detail] [--calls A-B] [--fn F] EXE ARGS...
  --detail     print every access of the selected calls, in order
  --calls A-B  only calls A..B (0-based, in order of execution)
  --fn F       only calls whose first libc function (after the PLT) is F
  --stdout F   the program's stdout (default /dev/null, as cachegrind runs)
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
LDSO = "/lib64/ld-linux-x86-64.so.2"


def debug_file(path):
    note = subprocess.run(["readelf", "-n", path], capture_output=True,
                          text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", note)
    if not m:
        return None
    f = "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1)[:2],
                                                  m.group(1)[2:])
    return f if os.path.exists(f) else None


class Syms:
    """Symbols and sections of one object, by offset from its load base."""

    def __init__(self, path, base):
        self.base = base
        src = debug_file(path) or path
        out = subprocess.run(["nm", "-S", src], capture_output=True,
                             text=True).stdout
        funcs, objs = [], []
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4:
                a, sz, t, name = int(f[0], 16), int(f[1], 16), f[2], f[3]
            elif len(f) == 3 and len(f[0]) == 16:
                a, sz, t, name = int(f[0], 16), 0, f[1], f[2]
            else:
                continue
            if t in "tTiW":
                funcs.append((a, name))
            elif t in "dDbBrRvV" and sz:
                objs.append((a, sz, name))
        funcs.sort()
        objs.sort()
        self.fa = [a for a, _ in funcs]
        self.fn = [n for _, n in funcs]
        self.oa = [a for a, _, _ in objs]
        self.ob = objs
        self.secs = []
        sh = subprocess.run(["readelf", "-SW", path], capture_output=True,
                            text=True).stdout
        for line in sh.splitlines():
            m = re.search(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]{16})\s+[0-9a-f]+\s+"
                          r"([0-9a-f]+)", line)
            if m and int(m.group(2), 16):
                self.secs.append((m.group(1), int(m.group(2), 16),
                                  int(m.group(3), 16)))
        self.end = max(a + s for _, a, s in self.secs)

    def has(self, addr):
        return self.base <= addr < self.base + self.end

    def func(self, addr):
        o = addr - self.base
        i = bisect.bisect_right(self.fa, o) - 1
        return self.fn[i] if i >= 0 else "?"

    def data(self, addr):
        o = addr - self.base
        i = bisect.bisect_right(self.oa, o) - 1
        if i >= 0:
            a, sz, name = self.ob[i]
            if a <= o < a + sz:
                return "%s+0x%x" % (name, o - a)
        for name, a, sz in self.secs:
            if a <= o < a + sz:
                return "%s+0x%x" % (name, o - a)
        return "+0x%x" % o


def bases(exe, args, cwd):
    v = subprocess.run(["env", "-i", "valgrind", "--tool=none", "-v", "-v",
                        exe] + args, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True).stderr
    out = {}
    for m in re.finditer(r"Reading syms from (\S+)\n.*svma 0x([0-9a-f]+), "
                         r"avma 0x([0-9a-f]+)", v):
        out[os.path.basename(m.group(1))] = int(m.group(3), 16) - int(
            m.group(2), 16)
    return out


def l1(D1):
    size, assoc, line = D1
    nsets = size // (assoc * line)
    lb = line.bit_length() - 1
    sets = [collections.OrderedDict() for _ in range(nsets)]

    def ref(a, n):
        miss = False
        for blk in {a >> lb, (a + n - 1) >> lb}:
            s = sets[blk & (nsets - 1)]
            if blk in s:
                s.move_to_end(blk)
            else:
                s[blk] = 1
                miss = True
                if len(s) > assoc:
                    s.popitem(last=False)
        return miss

    return ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--D1", default="32768,8,64")
    ap.add_argument("--detail", action="store_true")
    ap.add_argument("--calls")
    ap.add_argument("--fn")
    ap.add_argument("--stdout", default="/dev/null")
    ap.add_argument("--summary", action="store_true",
                    help="per called function and per glibc function only")
    ap.add_argument("--log", help="keep (or reuse) the lackey log here")
    ap.add_argument("--emit", help="CALL:A-B: accesses A..B of call CALL as "
                    "C table rows (base, offset, size, write)")
    ap.add_argument("exe")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    D1 = tuple(int(x) for x in a.D1.split(","))
    exe = a.exe
    cwd = os.getcwd()
    b = bases(exe, a.args, cwd)
    libc = Syms(LIBC, b["libc.so.6"])
    ldso = Syms(LDSO, b["ld-linux-x86-64.so.2"])
    exes = Syms(exe, 0x108000)
    plt = [(n, 0x108000 + ad, s) for n, ad, s in exes.secs
           if n.startswith(".plt")]
    main_at = 0x108000 + int(re.search(r"^([0-9a-f]+) T main$", subprocess.run(
        ["nm", exe], capture_output=True, text=True).stdout, re.M).group(1), 16)
    ret_at = libc.base + 0x2724a  # after `call *%rax` in __libc_start_call_main
    brk0 = max(0x4000000, (exes.base + exes.end + 0xfff) & ~0xfff) + 0x35000
    # the static TLS block and the thread pointer: the page after libc
    # (the last library mapped, docs/process-model.md 7.1)
    tcb = (libc.base + libc.end + 0xfff) & ~0xfff
    log = a.log or tempfile.mktemp(prefix="libtrace.")
    if not (a.log and os.path.exists(a.log)):
        with open(a.stdout, "w") as so:
            subprocess.run(["env", "-i", "valgrind", "--tool=lackey",
                            "--trace-mem=yes", "--log-file=" + log, exe] +
                           a.args, cwd=cwd, stdout=so, check=False)
    ref = l1(D1)

    def where(addr, rsp):
        if 0x1f00000000 <= addr < 0x2000000000:
            return "stack", "rsp-0x%x" % (rsp - addr) if addr < rsp else \
                "rsp+0x%x" % (addr - rsp)
        if libc.has(addr):
            return "libc", libc.data(addr)
        if ldso.has(addr):
            return "ld.so", ldso.data(addr)
        if exes.has(addr):
            return "exe", exes.data(addr)
        if tcb <= addr < tcb + 0x1000:
            return "tls", "tcb+0x%x" % (addr - tcb)
        if brk0 <= addr < brk0 + (8 << 20):
            return "heap", "heap+0x%x" % (addr - brk0)
        return "other", "0x%x" % addr

    def func(ip):
        if libc.has(ip):
            return libc.func(ip)
        if ldso.has(ip):
            return "ld.so:" + ldso.func(ip)
        for n, ad, s in plt:
            if ad <= ip < ad + s:
                return "plt"
        if exes.has(ip):
            return None  # the program's own code
        return "?"

    calls = []  # [name, caller_rsp, [(fn, kind, addr, size, miss)], ...]
    cur = None
    phase = 0
    ip_fn = None
    last_call_store = None
    own = [0, 0]
    rest = [0, 0]  # start-up and exit
    for line in open(log):
        if line[0] == "=" or line[0] == "-":
            continue
        if line[0] == "I":
            ip = int(line[3:].split(",")[0], 16)
            if phase == 0 and ip == main_at:
                phase = 1
            elif phase == 1 and ip == ret_at:
                phase = 2
                cur = None
            if phase != 1:
                continue
            ip_fn = func(ip)
            if ip_fn is None:
                cur = None
            elif cur is None:
                rsp = last_call_store + 8 if last_call_store else 0
                cur = [None, rsp, []]
                calls.append(cur)
            elif cur[0] is None and ip_fn != "plt" and \
                    not ip_fn.startswith("ld.so"):
                cur[0] = ip_fn
            continue
        k = line[1]
        if k not in "LSM":
            continue
        ad, n = line[3:].split(",")
        ad, n = int(ad, 16), int(n)
        miss = ref(ad, n)
        if phase != 1:
            rest[0] += 1
            rest[1] += miss
            continue
        if cur is None:
            own[0] += 1
            own[1] += miss
            if k == "S":
                last_call_store = ad
            continue
        cur[2].append((ip_fn, k, ad, n, miss))
    if not a.log:
        os.unlink(log)

    if a.summary:
        byc = collections.OrderedDict()
        byf = collections.OrderedDict()
        for name, rsp, accs in calls:
            v = byc.setdefault(name, [0, 0, 0])
            v[0] += 1
            v[1] += len(accs)
            v[2] += sum(x[4] for x in accs)
            for fn, k, ad, n, miss in accs:
                reg, _ = where(ad, rsp)
                w = byf.setdefault((fn, reg), [0, 0])
                w[0] += 1
                w[1] += miss
        print("own code: %d refs, %d misses; start-up + exit: %d, %d" %
              (own[0], own[1], rest[0], rest[1]))
        for name, (n, r, m) in byc.items():
            print("%-28s %5d calls %7d refs %5d misses" % (name, n, r, m))
        print()
        for (fn, reg), (r, m) in sorted(byf.items(), key=lambda x: -x[1][1]):
            if m or r > 100:
                print("  %-30s %-6s %7d refs %5d misses" % (fn, reg, r, m))
        return 0
    if a.emit:
        ci, rng = a.emit.split(":")
        name, rsp, accs = calls[int(ci)]
        x, y = (int(v) for v in rng.split("-"))
        for fn, k, ad, n, miss in accs[x:y + 1]:
            reg, off = where(ad, rsp)
            if reg == "stack":
                row = "S(0x%x, %d, %d)" % (rsp - ad, n, k == "S")
            elif reg == "libc":
                row = "L(0x%x, %d, %d)" % (ad - libc.base, n, k == "S")
            elif reg == "ld.so":
                row = "D(0x%x, %d, %d)" % (ad - ldso.base, n, k == "S")
            elif reg == "heap":
                row = "H(0x%x, %d, %d)" % (ad - brk0, n, k == "S")
            elif reg == "exe":
                row = "X(0x%x, %d, %d)" % (ad - exes.base, n, k == "S")
            elif reg == "tls":
                row = "T(0x%x, %d, %d)" % (ad - tcb, n, k == "S")
            else:
                row = "?(0x%x, %d, %d)" % (ad, n, k == "S")
            print("    %s, /* %s %s */" % (row, fn, off))
        return 0
    lo, hi = 0, len(calls) - 1
    if a.calls:
        x = a.calls.split("-")
        lo, hi = int(x[0]), int(x[-1])
    print("own code: %d refs, %d misses; start-up + exit: %d, %d" %
          (own[0], own[1], rest[0], rest[1]))
    tot = [0, 0]
    for c in calls:
        tot[0] += len(c[2])
        tot[1] += sum(x[4] for x in c[2])
    print("library calls: %d calls, %d refs, %d misses" %
          (len(calls), tot[0], tot[1]))
    for i, (name, rsp, accs) in enumerate(calls):
        if i < lo or i > hi or (a.fn and name != a.fn):
            continue
        print("\n#%d %s rsp=0x%x: %d refs, %d misses" %
              (i, name, rsp, len(accs), sum(x[4] for x in accs)))
        by = collections.OrderedDict()
        for fn, k, ad, n, miss in accs:
            reg, _ = where(ad, rsp)
            key = (fn, reg)
            v = by.setdefault(key, [0, 0, set()])
            v[0] += 1
            v[1] += miss
            v[2].add(ad >> 6)
        for (fn, reg), (cnt, miss, lines) in by.items():
            print("  %-28s %-6s %5d refs %4d misses %4d lines" %
                  (fn, reg, cnt, miss, len(lines)))
        if a.detail:
            for j, (fn, k, ad, n, miss) in enumerate(accs):
                reg, off = where(ad, rsp)
                print("    %4d %-26s %s %-6s %-34s %2d%s" %
                      (j, fn, k, reg, off, n, " miss" if miss else ""))


if __name__ == "__main__":
    sys.exit(main())
