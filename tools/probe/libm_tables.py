#!/usr/bin/env python3
"""libm_tables.py: generates analysis/process/libc_math_tables.h, the rows of each
path of glibc's libm functions (docs/process-model.md section 9.7).

  libm_tables.py BUILD_DIR [N] > analysis/process/libc_math_tables.h

For each function, N arguments (random over its ranges, and edge cases)
go through tools/probe/libm_probe.c under `valgrind --tool=lackey
--trace-mem=yes`; each call's accesses made by libm's instructions (the
`ret`'s read of the return address left out: the engine makes it) are
named relative to the caller's rsp (S), libm's base (M) or the thread
pointer (T). BUILD_DIR's engine_libm_traffic --paths gives each call's
path and table offsets (idx, analysis/process/libc_math_traffic.c); calls of one
path must have one shape, and a row that varies must be a fixed offset
from one idx (an X row), else the script stops naming the path."""
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

LIBM = "/lib/x86_64-linux-gnu/libm.so.6"


def logu(rng, lo, hi):
    v = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return -v if rng.random() < 0.5 else v


def g_sincos(rng):
    r = rng.choice([(1e-9, 1e-7), (1e-7, 0.126), (0.126, 0.86), (0.85, 2.43),
                    (2.4, 1e3), (1e3, 1e8)])
    return logu(rng, *r), 0.0


def g_exp(rng):
    c = rng.random()
    if c < 0.6:
        return rng.uniform(-760, 760), 0.0
    if c < 0.8:
        return logu(rng, 1e-20, 1.0), 0.0
    return rng.uniform(-1500, 1500), 0.0


def g_exp2(rng):
    c = rng.random()
    if c < 0.6:
        return rng.uniform(-1100, 1100), 0.0
    if c < 0.8:
        return logu(rng, 1e-20, 1.0), 0.0
    return rng.uniform(-2000, 2000), 0.0


def g_log(rng):
    c = rng.random()
    if c < 0.2:
        return rng.uniform(0.9, 1.1), 0.0
    if c < 0.25:
        return logu(rng, 1e-320, 1e-300), 0.0
    return abs(logu(rng, 1e-300, 1e300)), 0.0


def g_pow(rng):
    c = rng.random()
    if c < 0.4:
        return abs(logu(rng, 1e-3, 1e3)), logu(rng, 1e-3, 1e4)
    if c < 0.7:
        return 2.0 / 3.0, float(rng.randrange(0, 2500000))
    if c < 0.8:
        return -abs(logu(rng, 1e-3, 1e3)), float(rng.randrange(-400, 400))
    if c < 0.9:
        return abs(logu(rng, 1e-310, 1e300)), logu(rng, 1e-30, 1e30)
    return logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e3)


def g_atan(rng):
    r = rng.choice([(1e-10, 1e-7), (1e-7, 0.0625), (0.0625, 1.0), (1.0, 16.0),
                    (16.0, 1e17), (1e15, 1e300)])
    return logu(rng, *r), 0.0


def g_asin(rng):
    c = rng.random()
    if c < 0.15:
        return logu(rng, 1e-10, 0.125), 0.0
    if c < 0.3:
        return logu(rng, 0.96875, 1.0), 0.0
    return logu(rng, 0.125, 1.0), 0.0


def g_atan2(rng):
    c = rng.random()
    if c < 0.8:
        return logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e3)
    if c < 0.9:
        return logu(rng, 1e-300, 1e300), logu(rng, 1e-300, 1e300)
    return logu(rng, 1e-3, 1e3), logu(rng, 1e-30, 1e30)


def g_fmod(rng):
    c = rng.random()
    if c < 0.6:
        return logu(rng, 1e-3, 1e6), logu(rng, 1e-3, 1e3)
    if c < 0.8:
        y = logu(rng, 1e-3, 1e3)
        return y * rng.randrange(-50, 50), y
    return logu(rng, 1e-300, 1e300), logu(rng, 1e-300, 1e300)


def g_hypot(rng):
    c = rng.random()
    if c < 0.8:
        return logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e3)
    if c < 0.95:
        x = logu(rng, 1e-3, 1e3)
        return x, x * logu(rng, 1e-20, 1e-15)
    return logu(rng, 1e-300, 1e300), logu(rng, 1e-300, 1e300)


# name, arity, CB_LIBC id, argument generator
FUNCS = [
    ("sin", 1, "SIN", g_sincos),
    ("cos", 1, "COS", g_sincos),
    ("exp", 1, "EXP", g_exp),
    ("log", 1, "LOG", g_log),
    ("exp2", 1, "EXP2", g_exp2),
    ("pow", 2, "POW", g_pow),
    ("atan", 1, "ATAN", g_atan),
    ("asin", 1, "ASIN", g_asin),
    ("acos", 1, "ACOS", g_asin),
    ("atan2", 2, "ATAN2", g_atan2),
    ("fmod", 2, "FMOD", g_fmod),
    ("hypot", 2, "HYPOT", g_hypot),
]
SPECIAL = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 5e-324,
           2.2250738585072014e-308, 1e-310, 1.0, -1.0, 0.5, 2.0, 1e300,
           -1e300, 1e-300, 0.126, -0.126, 0.85546875, 2.4262657,
           105414350.0]


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def gen_args(gen, n, rng, two):
    out = []
    sp = [(x, y) for x in SPECIAL for y in (SPECIAL if two else [0.0])]
    for i in range(n):
        x, y = sp[i] if i < len(sp) and i < n // 4 else gen(rng)
        out.append((bits(x), bits(y)))
    return out


def arg(a):
    return "(%r, %r)" % tuple(struct.unpack("<d", struct.pack("<Q", v))[0]
                              for v in a)


def trace(probe, fn, arity, args):
    """per call: [(kind, off, len, write)]"""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "lackey")
        inp = "".join("%x %x\n" % a for a in args)
        r = subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes",
                            "--log-file=" + log, probe, fn, str(arity)],
                           input=inp, capture_output=True, text=True)
        m = re.search(r"base 0x([0-9a-f]+) tp 0x([0-9a-f]+) mark "
                      r"0x([0-9a-f]+)", r.stderr)
        if not m:
            sys.exit("probe failed: " + r.stderr)
        base, tp, mark = (int(x, 16) for x in m.groups())
        calls, cur, rsp, inlibm = [], None, None, False
        with open(log) as f:
            for line in f:
                if line[0] == "I":
                    ip = int(line[3:line.index(",")], 16)
                    inlibm = base <= ip < base + 0x100000
                    continue
                if line[0] != " ":
                    continue
                k = line[1]
                a, n = line[3:].split(",")
                a, n = int(a, 16), int(n)
                if a == mark and k == "S":
                    if cur is None:
                        cur, rsp = [], None
                    else:
                        calls.append(cur)
                        cur = None
                    continue
                if cur is None:
                    continue
                if rsp is None and k == "S" and not inlibm:
                    rsp = a + 8  # the call's push
                    continue
                if not inlibm:
                    continue
                w = 1 if k == "S" else 0  # M (modify) counts as one read
                if rsp - 0x10000 < a < rsp + 0x100:
                    row = ("S", rsp - a, n, w)
                elif base <= a < base + 0x100000:
                    row = ("M", a - base, n, w)
                elif tp - 0x1000 <= a < tp + 0x1000:
                    row = ("T", a - tp, n, w)
                else:
                    row = ("?", a, n, w)
                cur.append(row)
        for c in calls:
            if c and c[-1] == ("S", 8, 8, 0):
                c.pop()  # the ret
        return calls


def paths(tool, fn, arity, args):
    inp = "".join("%x %x\n" % a for a in args)
    r = subprocess.run([tool, "--paths", fn], input=inp,
                       capture_output=True, text=True, check=True)
    return [tuple(int(v) for v in l.split()) for l in r.stdout.splitlines()]


def template(fn, path, group):
    """group: [(rows, idx)] -> rows with X bases, or exit"""
    rows0 = group[0][0]
    for rows, _, a in group:
        if len(rows) != len(rows0) or any(
                (a[0], a[2], a[3]) != (b[0], b[2], b[3])
                for a, b in zip(rows, rows0)):
            sys.exit("%s path %d: calls of two shapes:\n%s %s\n%s %s" %
                     (fn, path, arg(group[0][2]), rows0, arg(a), rows))
    out = []
    for i, r in enumerate(rows0):
        offs = [rows[i][1] for rows, _, _ in group]
        z = [rows[i][1] + idx[3] for rows, idx, _ in group]
        if r[0] == "S" and r[1] >= 0x100 and all(x == z[0] for x in z):
            out.append(("Z", z[0], r[2], r[3]))  # valgrind's `bt` spill
            continue
        if all(o == offs[0] for o in offs):
            out.append(r)
            continue
        if r[0] == "M":
            for j in range(4):
                d = [rows[i][1] - idx[j] for rows, idx, _ in group]
                if all(x == d[0] for x in d):
                    out.append(("X%d" % j, d[0], r[2], r[3]))
                    break
            else:
                sys.exit("%s path %d row %d: no idx fits: %s" %
                         (fn, path, i, offs[:8]))
        elif r[0] == "S":
            d = [rows[i][1] + idx[3] for rows, idx, _ in group]
            if any(x != d[0] for x in d):
                sys.exit("%s path %d row %d varies: %s" %
                         (fn, path, i, offs[:8]))
            out.append(("Z", d[0], r[2], r[3]))
        else:
            sys.exit("%s path %d row %d varies: %s" % (fn, path, i, offs[:8]))
    return out


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    tool = os.path.join(build, "tests/unit/engine/engine_libm_traffic")
    with tempfile.TemporaryDirectory() as d:
        probe = os.path.join(d, "libm_probe")
        subprocess.run(["cc", "-O1", "-o", probe,
                        os.path.join(HERE, "libm_probe.c"), "-ldl"],
                       check=True)
        print("/* libc_math_tables.h: generated by tools/probe/libm_tables.py"
              " from lackey\n * traces of glibc 2.36's libm (libm.so.6 build"
              " id d6e6f9e3...); the rows\n * of each path of"
              " libc_math_traffic.c (then clang-format). Do not edit. */")
        print("#define R(b, o, n, w) {CB_LM_##b, n, w, o}")
        entries = []
        data = open(LIBM, "rb").read()

        def words(at, k):
            return ["%#xull" % v for v in struct.unpack("<%dQ" % k,
                                                        data[at:at + 8 * k])]
        # __pow_log_data: ln2hi, ln2lo, poly[0] and the pairs log_inline
        # takes (poly[1], poly[2]) ...; tab[i]: invc, (pad), logc, logctail
        c = words(0xacce0, 9)
        print("static const uint64_t lm_pow_c[9] = {%s};" % ", ".join(
            [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]]))
        tab = []
        for i in range(128):
            w = words(0xacce0 + 0x48 + 32 * i, 4)
            tab.append("{%s, %s, %s}" % (w[0], w[2], w[3]))
        print("static const uint64_t lm_pow_tab[128][3] = {%s};" %
              ", ".join(tab))
        for fn, arity, cid, gen in FUNCS:
            rng = random.Random(fn)
            args = gen_args(gen, n, rng, arity == 2)
            calls = trace(probe, fn, arity, args)
            ps = paths(tool, fn, arity, args)
            assert len(calls) == len(args) == len(ps), (len(calls), len(ps))
            groups = {}
            for rows, p, a in zip(calls, ps, args):
                if p[0] >= 0:
                    groups.setdefault(p[0], []).append((rows, p[1:], a))
            unm = sum(1 for p in ps if p[0] < 0)
            sys.stderr.write("%s: paths %s, %d unmodelled\n" % (
                fn, {k: len(v) for k, v in sorted(groups.items())}, unm))
            for path, group in sorted(groups.items()):
                rows = template(fn, path, group)
                name = "lm_%s_%d" % (fn, path)
                body = ", ".join("R(%s, %s, %d, %d)" % (
                    k, ("%#x" % o) if o >= 0 else ("-%#x" % -o), ln, w)
                    for k, o, ln, w in rows)
                print("static const cb_lm_row %s[] = {%s};" % (
                    name, body or "{0, 0, 0, 0}"))
                entries.append((cid, path, name, len(rows)))
        print("#undef R")
        print("typedef struct lm_path {\n  const cb_lm_row *rows;\n"
              "  size_t n;\n} lm_path;")
        fns = []
        for cid in dict.fromkeys(c for c, _, _, _ in entries):
            ps = {p: (nm, k) for c, p, nm, k in entries if c == cid}
            arr = "lm_%s_paths" % cid.lower()
            print("static const lm_path %s[%d] = {%s};" % (
                arr, max(ps) + 1, ", ".join(
                    "[%d] = {%s, %d}" % ((p,) + ps[p]) for p in sorted(ps))))
            fns.append((cid, arr))
        print("static const lm_path *lm_fn_paths(uint32_t fn, size_t *n) {")
        print("  switch (fn) {")
        for cid, arr in fns:
            print("  case CB_LIBC_%s:\n    *n = sizeof %s / sizeof %s[0];\n"
                  "    return %s;" % (cid, arr, arr, arr))
        print("  default:\n    *n = 0;\n    return NULL;\n  }\n}")

if __name__ == "__main__":
    main()
