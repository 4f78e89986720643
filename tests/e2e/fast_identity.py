#!/usr/bin/env python3
"""Identity: the fast engine (the default) against the reference
interpreter (--exact-engine), on the same program, inputs and caches.

The fast run waits for the native kernels (--wait-kernels), so that the
loops they cover run in them however short the run.

The two JSON reports must be equal, byte for byte after parsing: every
counter of every level, site, line, function and variable, every output,
exit code, operation count and path class. Memoization is on in the fast
run (the default), so inputs sharing a stream are covered too.

  fast_identity.py CBANA corpus CORPUS_DIR [--jobs N]
  fast_identity.py CBANA polybench POLYBENCH_DIR SIZE [--jobs N]
  fast_identity.py CBANA workloads WORKLOADS_DIR [--jobs N]

Prints one line per case and "N passed, N failed"; exits 1 on a failure.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

from e2e_quick import first

# Two geometries, so set conflicts and an LL level are both exercised; the
# second also runs the classification (3C) shadows.
CACHES = [["--D1=32768,8,64", "--LL=1048576,16,64"],
          ["--D1=4096,2,64"]]


def run(cbana, sources, extra, exact, cwd, command="analyze", timeout=1800):
    cmd = [cbana, command, *sources, "--format", "json", "--quiet",
           *extra]
    if exact:
        cmd.append("--exact-engine")
    else:
        # the native kernels compiled before the run, so that these short
        # runs use them (kernel_cases.sh runs one beside the compile)
        cmd.append("--wait-kernels")
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"did not finish within {timeout} s"
    if r.returncode not in (0, 3):
        return None, f"exit {r.returncode}: {r.stderr[-1500:]}"
    return json.loads(r.stdout), None


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in one report"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} (fast) vs {b!r} (exact)"


def check(cbana, name, sources, extra, cwd):
    fails = []
    for caches in CACHES:
        args = extra + caches
        exact, e2 = run(cbana, sources, args, True, cwd)
        fast, e1 = run(cbana, sources, args, False, cwd)
        what = " ".join(caches)
        if e1 or e2:
            fails.append(f"{what}: {e1 or e2}")
            continue
        d = first_difference(fast, exact)
        if d:
            fails.append(f"{what}: {d}")
    # The paths view reads the engine's own branch counts, which the
    # analyze report does not show: they must agree too.
    fast, e1 = run(cbana, sources, extra + CACHES[0], False, cwd, "paths")
    exact, e2 = run(cbana, sources, extra + CACHES[0], True, cwd, "paths")
    if e1 or e2:
        fails.append(f"paths: {e1 or e2}")
    else:
        d = first_difference(fast, exact)
        if d:
            fails.append(f"paths: {d}")
    return name, fails


def corpus_cases(d):
    for entry in sorted(os.listdir(d)):
        p = os.path.join(d, entry)
        if entry == "bad":
            continue
        if os.path.isdir(p):
            srcs = sorted(os.path.join(p, f) for f in os.listdir(p)
                          if f.endswith(".c"))
            inputs = os.path.join(p, "inputs")
            if srcs and os.path.exists(inputs):
                yield entry, srcs, ["--inputs", inputs], p
        elif entry.endswith(".c"):
            inputs = p[:-2] + ".inputs"
            extra = ["--inputs", inputs] if os.path.exists(inputs) else []
            # PROG.cflags: the flags the program needs (one line)
            cflags = p[:-2] + ".cflags"
            if os.path.exists(cflags):
                extra += ["--cflags", open(cflags).read().strip()]
            yield entry, [p], extra, d


def polybench_cases(d, size):
    for cat, _, files in sorted(os.walk(d)):
        for f in sorted(files):
            if f.endswith(".c"):
                yield (f"{f[:-2]}@{size}", [os.path.join(cat, f)],
                       ["--cflags", f"-O2 -D{size}_DATASET -I{d}"], None)


def workloads_cases(d):
    # small inputs: the first lines of each inputs file, and a memoization
    # case (many inputs, two and three paths)
    tmp = tempfile.mkdtemp(prefix="cbana-ident-")
    for prog in ("load_loop", "br_path2", "br_path3", "tc", "pr"):
        src = os.path.join(d, prog + ".c")
        lines = [ln for ln in open(os.path.join(d, prog + ".inputs"))
                 if ln.strip() and not ln.startswith("#")][:3]
        if prog.startswith("br_path"):
            lines = [f"{x} 100\n" for x in (1, 499, 500, 998, 7, 333, 665,
                                            666, 250, 900)]
        inp = os.path.join(tmp, prog + ".inputs")
        with open(inp, "w") as f:
            f.writelines(lines)
        yield prog, [src], ["--inputs", inp], tmp


def run_cases(cbana, cases, check, jobs, note=None, quick=True):
    """Runs check(cbana, name, sources, extra, cwd) on every case, jobs at
    a time, and prints a line for each, in order: its failures, or "ok"
    and note(result) when given. check returns (name, fails, ...); fails
    None is a case that was not checked ("skip" and note(result); counted
    in neither total). Returns (passed, failed, results). Under
    CBANA_E2E_QUICK, the first case only (e2e_quick.py) unless quick is
    False."""
    passed = failed = 0
    results = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = [ex.submit(check, cbana, n, s, e, c or os.getcwd())
                for n, s, e, c in (first(cases) if quick else cases)]
        for fut in futs:
            res = fut.result()
            results.append(res)
            name, fails = res[0], res[1]
            if fails is None:
                print(f"skip {name}" + (f" ({note(res)})" if note else ""))
            elif fails:
                failed += 1
                for f in fails:
                    print(f"FAIL {name}: {f}")
            else:
                passed += 1
                print(f"ok   {name}" + (f" ({note(res)})" if note else ""))
            sys.stdout.flush()
    return passed, failed, results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cbana")
    ap.add_argument("kind", choices=["corpus", "polybench", "workloads"])
    ap.add_argument("dir")
    ap.add_argument("size", nargs="?", default="MINI")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    cbana = os.path.abspath(a.cbana)
    d = os.path.abspath(a.dir)
    if a.kind == "corpus":
        cases = list(corpus_cases(d))
    elif a.kind == "polybench":
        cases = list(polybench_cases(d, a.size))
    else:
        cases = list(workloads_cases(d))
    passed, failed, _ = run_cases(cbana, cases, check, a.jobs)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
