#!/usr/bin/env python3
"""Per-call data traffic of glibc's mem*/strlen under valgrind (lackey).

Runs memfn (tools/probe/memfn.c) under `env -i valgrind --tool=lackey
--trace-mem=yes`, cuts the trace at the stores to `marker`, and prints, for
each size, the accesses the call made: to the buffers (as offsets from the
destination/source start) and elsewhere (stack: return address, PLT's GOT
load). Lackey reports what cachegrind counts: one event per load (L),
store (S) or read-modify-write (M) of a guest instruction; `rep stos/movs`
iterations one by one.

usage: memfn_trace.py MEMFN_BINARY FUNC DSTOFF SRCOFF SIZE... [--detail]
"""
import os
import re
import subprocess
import sys
import tempfile


def marker_addr(binary):
    out = subprocess.run(["nm", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == "marker":
            return 0x108000 + int(f[0], 16)
    raise SystemExit("no marker symbol")


def run(binary, fn, doff, soff, sizes):
    with tempfile.TemporaryDirectory() as td:
        log = os.path.join(td, "lk")
        r = subprocess.run(["env", "-i", "valgrind", "--tool=lackey",
                            "--trace-mem=yes", "--log-file=" + log, binary, fn,
                            str(doff), str(soff)] + [str(s) for s in sizes],
                           capture_output=True, text=True, check=True)
        m = re.search(r"dst 0x([0-9a-f]+) src 0x([0-9a-f]+) span (\d+)",
                      r.stdout)
        dst, src, span = int(m.group(1), 16), int(m.group(2), 16), int(
            m.group(3))
        mk = marker_addr(binary)
        segs, cur = [], None
        with open(log) as f:
            for line in f:
                if line.startswith("I") or not line.startswith(" "):
                    continue
                kind = line[1]
                a, sz = line[3:].split(",")
                a, sz = int(a, 16), int(sz)
                if kind == "S" and a == mk:
                    if cur is None:
                        cur = []
                    else:
                        segs.append(cur)
                        cur = None
                    continue
                if cur is not None:
                    cur.append((kind, a, sz))
        return dst + doff, src + soff, span, segs


def describe(dst, src, span, seg, size):
    buf, other = [], []
    for kind, a, sz in seg:
        if dst - 8192 <= a < dst + span:
            buf.append((kind, "d", a - dst, sz))
        elif src - 8192 <= a < src + span:
            buf.append((kind, "s", a - src, sz))
        else:
            other.append((kind, a, sz))
    return buf, other


def compress(buf):
    """Runs of equal kind/buffer/size with a constant step."""
    out, i = [], 0
    while i < len(buf):
        k, b, off, sz = buf[i]
        j, step = i + 1, None
        while j < len(buf) and buf[j][0] == k and buf[j][1] == b and \
                buf[j][3] == sz:
            st = buf[j][2] - buf[j - 1][2]
            if step is None:
                step = st
            elif st != step:
                break
            j += 1
        n = j - i
        if n > 2:
            out.append(f"{k}{b}[{off}+{step}*i,{sz}B]x{n}")
        else:
            out.extend(f"{k}{b}[{o},{z}]" for (k, b, o, z) in buf[i:j])
        i = j
    return " ".join(out)


def main():
    args = [a for a in sys.argv[1:] if a != "--detail"]
    detail = "--detail" in sys.argv
    binary, fn, doff, soff = args[0], args[1], int(args[2]), int(args[3])
    sizes = [int(s) for s in args[4:]]
    # The first call of each function goes through the lazy PLT resolver
    # (hundreds of accesses in ld.so): make a warm-up call and drop it.
    dst, src, span, segs = run(binary, fn, doff, soff, [1] + sizes)
    segs = segs[1:]
    print(f"# {fn} dst%64={doff % 64} src%64={soff % 64}")
    print("size  L  S  M  bufL bufS bufM dlines slines other")
    for size, seg in zip(sizes, segs):
        buf, other = describe(dst, src, span, seg, size)
        cnt = {k: sum(1 for x in seg if x[0] == k) for k in "LSM"}
        bc = {k: sum(1 for x in buf if x[0] == k) for k in "LSM"}
        dl = {(dst + o) // 64 for (k, b, o, z) in buf if b == "d"
              for o in (o, o + z - 1)}
        sl = {(src + o) // 64 for (k, b, o, z) in buf if b == "s"
              for o in (o, o + z - 1)}
        oth = " ".join(f"{k}{z}" for k, a, z in other)
        print(f"{size:<5} {cnt['L']} {cnt['S']} {cnt['M']}  {bc['L']} "
              f"{bc['S']} {bc['M']} {len(dl)} {len(sl)}  {oth}")
        if detail:
            print("      " + compress(buf))


if __name__ == "__main__":
    main()
