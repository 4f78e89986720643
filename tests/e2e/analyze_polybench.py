#!/usr/bin/env python3
"""End-to-end: `cbana analyze` against live cachegrind on the PolyBench
kernels (polybench/, 30 kernels) at MINI and SMALL.

For every kernel, dataset and reference geometry, cachegrind runs the
kernel built with cgref's flags plus -D{SIZE}_DATASET, and cbana analyzes
the same source with the same flags, argv[0] and working directory. The
kernel's own L1D misses (lines of the files in the kernel's folder) must
agree within max(1%, 20), its own accesses within 2%.

  analyze_polybench.py CBANA POLYBENCH_DIR [--cache-dir DIR] [--jobs N]
                       [--sizes MINI,SMALL] [--only NAME]
                       [--geometries default|all] [--xfail NAME@SIZE@D1 ...]

Cachegrind's results are cached in --cache-dir (keyed by kernel, flags,
source and geometry). --xfail names known gaps (reported XFAIL; a passing
one is XPASS). Prints "N passed, N failed".
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cgref  # noqa: E402
from e2e_quick import first  # noqa: E402

ACCESS_TOL = 0.02


def kernels(pb):
    out = []
    for root, _, files in os.walk(pb):
        for f in files:
            if f.endswith(".c"):
                out.append(os.path.join(root, f))
    return sorted(out)


def reference(src, size, d1, ll, cache_dir):
    cflags = f"{cgref.DEFAULT_CFLAGS} -D{size}_DATASET"
    exe = cgref.build([src], cache_dir, cflags)
    key = f"{os.path.basename(exe)}-{d1}-{ll}".replace(",", "_")
    path = os.path.join(cache_dir, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    res = cgref.run_reference(src, input_line="", d1=d1, ll=ll,
                              cflags=cflags, workdir=cache_dir, timeout=1800)
    tmp = path + f".tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, path)
    return res


def own_totals(run, cwd, own_dir):
    """(misses, accesses) over the lines of the kernel's own files."""
    cache = run["caches"][0]
    names = list((cache.get("levels") or {}).keys())
    lv = next(n for n in cgref.L1D_NAMES if n in names)
    miss = acc = 0
    for ln in cache.get("lines") or []:
        p = os.path.normpath(os.path.join(cwd, ln.get("file") or ""))
        if os.path.dirname(p) != own_dir:
            continue
        miss += int((ln.get("misses") or {}).get(lv, 0))
        acc += int(ln.get("accesses") or 0)
    return miss, acc


def check(cbana, src, size, d1, ll, cache_dir, xfail):
    name = os.path.splitext(os.path.basename(src))[0]
    ref = reference(src, size, d1, ll, cache_dir)
    cmd = [cbana, "analyze", src, "--args", "", f"--D1={d1}", "--format",
           "json", "--argv0", ref["exe"], "--cflags",
           f"-O2 -D{size}_DATASET", "--jobs", "1", "--quiet"]
    if ll:
        cmd.append(f"--LL={ll}")
    r = subprocess.run(cmd, cwd=ref["cwd"], capture_output=True, text=True,
                       timeout=1800)
    if r.returncode not in (0, 3):
        return False, f"{name}@{size}@{d1}: cbana exited {r.returncode}: " \
            f"{r.stderr[-300:]}"
    run = json.loads(r.stdout)["runs"][0]
    if run["status"] != "ok":
        return False, f"{name}@{size}@{d1}: {run.get('error')}"
    own_dir = os.path.dirname(os.path.abspath(src))
    pred, acc = own_totals(run, ref["cwd"], own_dir)
    meas = ref["own"]["D1mr"] + ref["own"]["D1mw"]
    acc_ref = ref["own"]["Dr"] + ref["own"]["Dw"]
    ok = cgref.gap_ok(pred, meas) and abs(acc - acc_ref) <= ACCESS_TOL * acc_ref
    tag = f"{name}@{size}@{d1}"
    gap = (pred - meas) / meas * 100 if meas else 0.0
    line = (f"{tag}: L1D misses cbana {pred}, cachegrind {meas} "
            f"({gap:+.2f}%); accesses {acc} vs {acc_ref} "
            f"({(acc - acc_ref) / max(acc_ref, 1) * 100:+.2f}%)")
    if tag in xfail:
        return True, ("XPASS " if ok else "XFAIL ") + line
    return ok, ("ok   " if ok else "FAIL ") + line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cbana")
    ap.add_argument("polybench")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sizes", default="MINI,SMALL")
    ap.add_argument("--only", default=None)
    ap.add_argument("--geometries", default="all",
                    choices=("default", "all"))
    ap.add_argument("--xfail", nargs="*", default=[])
    a = ap.parse_args()
    cache_dir = os.path.abspath(a.cache_dir or "cgref-cache")
    os.makedirs(cache_dir, exist_ok=True)
    srcs = kernels(os.path.abspath(a.polybench))
    if a.only:
        srcs = [s for s in srcs if a.only in os.path.basename(s)]
    geos = cgref.GEOMETRIES if a.geometries == "all" else cgref.GEOMETRIES[:1]
    # quick: the first kernel at the first size and geometry
    tasks = first((s, z, d1, ll) for s in srcs for z in a.sizes.split(",")
                  for d1, ll in geos)
    for s, z, _, _ in tasks:  # build before the pool
        cgref.build([s], cache_dir, f"{cgref.DEFAULT_CFLAGS} -D{z}_DATASET")
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(check, a.cbana, s, z, d1, ll, cache_dir,
                          set(a.xfail)) for s, z, d1, ll in tasks]
        for fut in futs:
            try:
                ok, msg = fut.result()
            except Exception as e:  # a crash of cbana or cachegrind
                ok, msg = False, f"FAIL {type(e).__name__}: {e}"
            print(msg, flush=True)
            passed += ok
            failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
