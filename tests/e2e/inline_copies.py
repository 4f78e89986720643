#!/usr/bin/env python3
"""End-to-end: memcpy, memmove and memset of constant lengths, per line,
against live cachegrind.

Generates one program with a line per (kind, length): memcpy from a
variable source, memcpy of a string literal, memset of zero and of a
nonzero byte, memmove within one array, for every length of --sizes
(default 1-256), each in a loop that moves its addresses so that pieces
straddle cache lines; compiles it at each --opt level (and with -mavx2
when --avx), runs it under cachegrind (cgref.py) and `cbana analyze`, and
requires the same own accesses and the same L1D misses (reads plus
writes) on every copy's line. Prints "N lines checked, N differ"
per build and exits 1 when any line differs.

  inline_copies.py CBANA [--sizes A-B] [--opt 0 1 2 3] [--avx] [--keep DIR]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cgref  # noqa: E402
from e2e_quick import first  # noqa: E402

KINDS = ("copy", "str", "zero", "set", "move")


def literal(n):
    """A string literal of n bytes with its NUL."""
    s = "".join(chr(ord("a") + (i * 7) % 26) for i in range(n - 1))
    return '"' + s + '"'


def program(sizes):
    """The C source and, per line, its (kind, length)."""
    out = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
           "static char src[1 << 14], dst[1 << 14];",
           "int main(int argc, char **argv) {",
           "  int reps = argc > 1 ? atoi(argv[1]) : 4;",
           "  int it = argc > 2 ? atoi(argv[2]) : 24;",
           "  for (int i = 0; i < (1 << 14); i++) src[i] = (char)(i * 13);",
           "  for (int r = 0; r < reps; r++) {"]
    where = {}
    for n in sizes:
        for k in KINDS:
            # a loop of its own per line (the code generator would drop
            # stores that a later line of the block overwrites, and share
            # loads between lines); each kind on 4 KiB of its own, all
            # within the first-level cache, so that a line's misses are its
            # own first touches, not the whole program's capacity misses
            ka = f"((i * 389 + r * 7 + {97 * n}) & 3071)"
            kb = f"((i * 613 + r * 5 + {131 * n}) & 3071)"
            if k == "copy":
                s = f"memcpy(dst + {ka}, src + {kb}, {n});"
            elif k == "str":
                s = f"memcpy(dst + {kb} + 4096, {literal(n)}, {n});"
            elif k == "zero":
                s = f"memset(src + {ka} + 8192, 0, {n});"
            elif k == "set":
                s = f"memset(src + {kb} + 12288, 0x5a, {n});"
            else:
                s = f"memmove(dst + {ka} + 8195, dst + {ka} + 8192, {n});"
            out.append("    for (int i = 0; i < it; i++)")
            out.append("      " + s)
            where[len(out)] = (k, n)
    out += ["  }", "  unsigned long sum = 0;",
            "  for (int i = 0; i < (1 << 14); i++)",
            "    sum += (unsigned char)dst[i] * (unsigned)i + "
            "(unsigned char)src[i];",
            '  printf("%lu\\n", sum);', "  return 0;", "}"]
    return "\n".join(out) + "\n", where


def check(cbana, workdir, opt, avx):
    cflags = f"-O{opt} -g -gdwarf-4" + (" -mavx2" if avx else "")
    prog = os.path.join(workdir, "copies.c")
    ref = cgref.run_reference(prog, 1, None, "32768,8,64", "1048576,16,64",
                              cflags=cflags, workdir=workdir, lines=True)
    cmd = [cbana, "analyze", prog, "--inputs", prog[:-2] + ".inputs",
           "--D1=32768,8,64", "--LL=1048576,16,64", "--format", "json",
           "--argv0", ref["exe"], "--cflags",
           f"-O{opt}" + (" -mavx2" if avx else ""), "--jobs", "1", "--quiet"]
    r = subprocess.run(cmd, cwd=ref["cwd"], capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0:
        return None, f"cbana exited {r.returncode}: {r.stderr[-1500:]}"
    run = json.loads(r.stdout)["runs"][0]
    mine = {}
    for ln in run["caches"][0]["lines"]:
        if os.path.basename(ln["file"]) == "copies.c":
            mine[ln["line"]] = (ln["accesses"], ln["misses"].get("L1D", 0))
    theirs = {}
    for ln in ref["lines"]:
        if os.path.basename(ln["file"]) == "copies.c":
            a, m = theirs.get(ln["line"], (0, 0))
            theirs[ln["line"]] = (a + ln.get("Dr", 0) + ln.get("Dw", 0),
                                  m + ln.get("D1mr", 0) + ln.get("D1mw", 0))
    return (mine, theirs), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cbana")
    ap.add_argument("--sizes", default="1-256")
    ap.add_argument("--opt", nargs="+", default=["0", "1", "2", "3"])
    ap.add_argument("--avx", action="store_true")
    ap.add_argument("--keep")
    a = ap.parse_args()
    a.cbana = os.path.abspath(a.cbana)
    lo, _, hi = a.sizes.partition("-")
    sizes = range(int(lo), int(hi or lo) + 1)
    workdir = a.keep or tempfile.mkdtemp(prefix="cbana-copies-")
    os.makedirs(workdir, exist_ok=True)
    src, where = program(sizes)
    with open(os.path.join(workdir, "copies.c"), "w") as f:
        f.write(src)
    with open(os.path.join(workdir, "copies.inputs"), "w") as f:
        f.write("4 24\n")
    bad = 0
    # the builds two at a time (the test's PROCESSORS); quick: the first
    builds = first((opt, avx) for opt in a.opt
                   for avx in ([False, True] if a.avx else [False]))
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        futs = [ex.submit(check, a.cbana, workdir, opt, avx)
                for opt, avx in builds]
        for (opt, avx), fut in zip(builds, futs):
            tag = f"-O{opt}{' -mavx2' if avx else ''}"
            res, err = fut.result()
            if err:
                print(f"FAIL {tag}: {err}")
                bad += 1
                continue
            mine, theirs = res
            diff = 0
            # the copies' lines (the others: the loops' own spills and the
            # final sum, which the checks of other programs cover)
            for line in sorted(where):
                x, y = mine.get(line, (0, 0)), theirs.get(line, (0, 0))
                if x != y:
                    diff += 1
                    k, n = where.get(line, ("other", 0))
                    print(f"  {tag} line {line} ({k} {n}): cbana accesses "
                          f"{x[0]} misses {x[1]}, cachegrind {y[0]} {y[1]}")
            print(f"{'ok  ' if not diff else 'FAIL'} {tag}: "
                  f"{len(where)} lines checked, {diff} differ",
                  flush=True)
            bad += diff != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
