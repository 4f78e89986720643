#!/usr/bin/env python3
"""cbana against cachegrind on the PolyBench kernels and the paper workloads.

  bench/compare.py SIZE [--only NAME ...] [--jobs 2] [--cbana PATH]
                   [--out DIR] [--tmp DIR] [--check] [--xfail NAME ...]
  bench/compare.py tableV [--sample K] [--jobs 2] [--cbana PATH] ...

SIZE is MINI, SMALL or MEDIUM. Each row is one program and one input:
the 30 PolyBench/C kernels built at -D<SIZE>_DATASET, and the paper
workloads of bench/workloads/ with the inputs of one section of their
.inputs files (MINI: "small", SMALL and MEDIUM: "medium"). Both tools see
the same build (clang -O2 -g -gdwarf-4, -lm, the same flags), the same
cache (--D1=32768,8,64 --LL=1048576,16,64), the same argv[0] and working
directory: cachegrind runs through tests/e2e/cgref.py (the independent
reference of the e2e tests, imported, not copied), cbana runs as
tests/e2e/analyze_corpus.py runs it (`--argv0 EXE`, cwd = cgref's cwd).
Compared: own-code L1D misses (D1mr + D1mw of the program's own files
against the sum of cbana's `lines`), under the gap rule max(1%, 20 misses).

Timed: cachegrind's run (wall, and user+sys CPU of its process), cbana
analyze with its compile (wall, CPU of it and its clang children, from
os.wait4), and the compile alone: from `--stats` when the cbana binary
prints it, otherwise a separate `cbana dump --no-ops` of the same program
(compile and lowering), the analysis alone being the difference. Each tool
runs in a process pool of --jobs workers (default 2, one per core), so two
measurements share the machine at any time; the load average is recorded.

Writes OUT/SIZE.md and OUT/SIZE.json (default OUT: bench/results).
Cachegrind's results (with their times) are cached in TMP/cg (default
bench/tmp, gitignored), so a rerun only reruns cbana. --check exits 1 when
a row outside --xfail breaks the gap rule; xfail rows are printed with
their measured gap (XFAIL, or XPASS when they pass).

tableV is the paper's Table V: 1000 random inputs (gen_brpath_inputs.sh
1000 1 1000) to br_path2 and br_path3; cbana analyzes all of them in one
invocation (--jobs 2), cachegrind runs once per input (2 at a time).
--sample K runs cachegrind on the first K inputs only (the report says so).
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import cgref  # noqa: E402

D1 = "32768,8,64"
LL = "1048576,16,64"
POLY_CFLAGS = "-O2 -g -gdwarf-4 -D{size}_DATASET"
WL_CFLAGS = "-std=c11 -O2 -g -gdwarf-4"
WORKLOADS = ("load_loop", "br_path2", "br_path3", "tc", "pr")
SECTIONS = {"MINI": "small", "SMALL": "medium", "MEDIUM": "medium"}
POLYBENCH_H = os.path.normpath(os.path.join(ROOT, "polybench",
                                            "polybench.h"))

# cgref counts a program's sources and the .c/.h files of its folder; the
# PolyBench kernels also inline polybench.h (pb_alloc) from the folder
# above, which cbana counts as the program's own: count it here too.
_cgref_own_file = cgref.own_file


def _own_file(cg_name, own_dir, sources):
    if _cgref_own_file(cg_name, own_dir, sources):
        return True
    p = os.path.normpath(cg_name if os.path.isabs(cg_name) else
                         os.path.join(own_dir, cg_name))
    return p == POLYBENCH_H


cgref.own_file = _own_file


# ---- the rows ----

def polybench_kernels():
    out = subprocess.run([os.path.join(ROOT, "polybench", "build.sh"),
                          "--list"], capture_output=True, text=True,
                         check=True).stdout
    ks = []
    for line in out.splitlines():
        name, src = line.split()
        ks.append((name, os.path.join(ROOT, "polybench", src)))
    return ks


def inputs_section(path, section):
    """Argument lines of one section ("# small", "# medium", "# large")
    of a workload's .inputs file; lines before the first section header
    belong to "small" (load_loop's paper rows)."""
    cur, out = "small", []
    with open(path) as f:
        for line in f:
            s = line.strip()
            m = re.match(r"#\s*(small|medium|large)\b", s)
            if m:
                cur = m.group(1)
                continue
            if not s or s.startswith("#"):
                continue
            if cur == section:
                out.append(s.split("#", 1)[0].strip())
    return out


def rows_for(size):
    rows = []
    for name, src in polybench_kernels():
        rows.append({"name": name, "kind": "polybench", "src": src,
                     "cflags": POLY_CFLAGS.format(size=size), "args": ""})
    wdir = os.path.join(ROOT, "bench", "workloads")
    for prog in WORKLOADS:
        src = os.path.join(wdir, prog + ".c")
        for args in inputs_section(os.path.join(wdir, prog + ".inputs"),
                                   SECTIONS[size]):
            rows.append({"name": f"{prog} {args}", "kind": "workload",
                         "src": src, "cflags": WL_CFLAGS, "args": args})
    return rows


def select(rows, only):
    if not only:
        return rows
    return [r for r in rows
            if any(r["name"] == o or r["name"].split()[0] == o
                   for o in only)]


# ---- measuring ----

def loadavg():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, cwd=None, stdout=None):
    """Runs cmd; returns (exit status, wall s, user+sys s of it and its
    waited-for children, stderr text)."""
    t0 = time.monotonic()
    with open(os.devnull, "w") as dn:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=stdout or dn,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        # stderr is small (progress is off): read it all, then reap the
        # process with wait4 for the CPU time of its whole tree.
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    return (p.returncode, wall, ru.ru_utime + ru.ru_stime,
            err.decode(errors="replace"))


def cg_key(exe, args, d1, ll):
    h = hashlib.sha1(f"{os.path.basename(exe)}\0{args}\0{d1}\0{ll}".encode())
    return f"{os.path.basename(exe)}-{h.hexdigest()[:12]}"


def cachegrind_task(row, workdir, d1=D1, ll=LL):
    """cgref's run of one row (cached with its times)."""
    sources = [row["src"]]
    exe = cgref.build(sources, workdir, row["cflags"])
    path = os.path.join(workdir, cg_key(exe, row["args"], d1, ll) + ".json")
    if os.path.exists(path):
        with open(path) as f:
            res = json.load(f)
        res["cached"] = True
        return res
    la = loadavg()
    c0, t0 = children_cpu(), time.monotonic()
    res = cgref.run_reference(row["src"], None, row["args"], d1, ll,
                              cflags=row["cflags"], workdir=workdir,
                              timeout=4 * 3600)
    res["wall_s"] = time.monotonic() - t0
    res["cpu_s"] = children_cpu() - c0
    res["loadavg"] = la
    tmp = path + f".tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, path)
    res["cached"] = False
    return res


# `cbana analyze --stats` (when the binary has it) prints, on stderr:
#   compile  X s cpu (clang) / lowering X s cpu (frontend wall, with
#   compile: X s) / analysis X s wall (X s cpu on N jobs)
STATS_COMPILE = re.compile(r"compile\s+([0-9.]+) s cpu")
STATS_LOWERING = re.compile(
    r"lowering\s+([0-9.]+) s cpu \(frontend wall, with compile: ([0-9.]+) s")
STATS_ANALYSIS = re.compile(r"analysis\s+([0-9.]+) s wall \(([0-9.]+) s cpu")


# cbana's default operation budget (10^9) stops floyd-warshall at MEDIUM
# (about 2*10^9 operations): the bench lets every program finish.
BUDGET = 10 ** 12


def cbana_cmd(cbana, row, exe, d1=D1, ll=LL, inputs=None, jobs=1):
    cmd = [cbana, "analyze", row["src"], "--cflags", row["cflags"],
           f"--D1={d1}", f"--LL={ll}", "--format", "json", "--argv0", exe,
           "--jobs", str(jobs), "--quiet", "--stats",
           "--budget", str(BUDGET)]
    if inputs:
        cmd += ["--inputs", inputs]
    else:
        cmd += ["--args", row["args"]]
    return cmd


def cbana_task(cbana, row, workdir, d1=D1, ll=LL):
    """cbana analyze of one row, run as cgref ran the program."""
    exe = cgref.build([row["src"]], workdir, row["cflags"])
    out = os.path.join(workdir, f"cb-{os.getpid()}.json")
    la = loadavg()
    with open(out, "w") as f:
        rc, wall, cpu, err = timed(cbana_cmd(cbana, row, exe, d1, ll),
                                   cwd=workdir, stdout=f)
    res = {"rc": rc, "wall_s": wall, "cpu_s": cpu, "loadavg": la}
    if rc not in (0, 3):
        res["error"] = f"cbana exited {rc}: {err.strip()[-1500:]}"
        return res
    with open(out) as f:
        rep = json.load(f)
    os.unlink(out)
    run = rep["runs"][0]
    res["status"] = run["status"]
    if run["status"] != "ok":
        res["error"] = json.dumps(run.get("error"))
    res["exit_code"] = run["exit_code"]
    res["misses"] = cgref.report_l1d_misses(run)
    c = run["caches"][0]
    res["accesses"] = sum(int(ln.get("accesses", 0)) for ln in c["lines"])
    c, lo, an = (STATS_COMPILE.search(err), STATS_LOWERING.search(err),
                  STATS_ANALYSIS.search(err))
    if c and lo and an:
        res["compile_wall_s"] = float(lo.group(2))
        res["compile_cpu_s"] = float(c.group(1)) + float(lo.group(1))
        res["analysis_wall_s"] = float(an.group(1))
        res["analysis_cpu_s"] = float(an.group(2))
        res["split"] = "stats"
    else:
        # No --stats output: time the compile (and lowering) alone, with
        # `cbana dump`; the analysis is the rest. On a loaded machine the
        # CPU times split better than the wall times.
        _, w2, c2, _ = timed([cbana, "dump", row["src"], "--cflags",
                              row["cflags"], "--no-ops"], cwd=workdir)
        res["compile_wall_s"] = w2
        res["compile_cpu_s"] = c2
        res["analysis_wall_s"] = max(wall - w2, 0.0)
        res["analysis_cpu_s"] = max(cpu - c2, 0.0)
        res["split"] = "dump"
    return res


# ---- reporting ----

def gap_pct(pred, meas):
    return 100.0 * (pred - meas) / meas if meas else (0.0 if pred == 0
                                                        else math.inf)


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0.0


def fmt_s(x):
    return "-" if x is None else (f"{x:.2f}" if x < 100 else f"{x:.0f}")


def fmt_ratio(x):
    return "-" if not x else (f"{x:.1f}" if x < 100 else f"{x:.0f}")


def summarize(results, xfail, kinds=True):
    ok = [r for r in results if "cg_misses" in r and "cb_misses" in r]
    s = {"rows": len(results), "compared": len(ok)}
    s["within"] = sum(1 for r in ok if r["within"])
    if ok:
        # worst: the largest gap measured against the bound, max(1%, 20)
        worst = max(ok, key=lambda r: abs(r["cb_misses"] - r["cg_misses"])
                    / max(0.01 * r["cg_misses"], 20))
        s["worst_gap_pct"] = worst["gap_pct"]
        s["worst_gap_row"] = worst["name"]
        s["worst_gap_misses"] = worst["cb_misses"] - worst["cg_misses"]
        big = max(ok, key=lambda r: abs(r["gap_pct"]))
        s["largest_pct_gap_pct"] = big["gap_pct"]
        s["largest_pct_gap_row"] = big["name"]
        s["largest_pct_gap_misses"] = big["cb_misses"] - big["cg_misses"]
        s["median_abs_gap_pct"] = statistics.median(abs(r["gap_pct"])
                                                    for r in ok)
        s["geomean_speed_wall"] = geomean(r["speed_wall"] for r in ok)
        s["geomean_speed_cpu"] = geomean(r["speed_cpu"] for r in ok)
        s["geomean_speed_analysis"] = geomean(r["speed_analysis"]
                                              for r in ok)
    s["outside"] = [r["name"] for r in ok if not r["within"]]
    s["errors"] = [r["name"] for r in results if "error" in r]
    s["xfail"] = [r["name"] for r in ok if r["name"] in xfail]
    if kinds:
        s["kinds"] = {}
        for kind in ("polybench", "workload"):
            sub = [r for r in results if r["kind"] == kind]
            if any("cg_misses" in r and "cb_misses" in r for r in sub):
                s["kinds"][kind] = summarize(sub, xfail, kinds=False)
    return s


# Rows outside the bound whose cause is known (name regex -> cause), for
# the report's "Outside the bound" section.
KNOWN_CAUSES = [
    (r"^load_loop aos \w+ rand ",
     "library traffic: own accesses match cachegrind (line 0: 20004 "
     "against 20005 at 1000 10, the spill and reload of `sum` around "
     "rand()), the misses missing are on load_loop.c:211 (`sum += a[k].x "
     "+ a[k].y`: cachegrind 295, cbana 0): the array of 32-byte structs "
     "(32000 bytes) fills L1 and rand()'s own traffic evicts its lines "
     "(random_r's state in libc's data, the loader's lazy binding), which "
     "cbana does not model: a lackey trace of stack rand 1000 10 simulated "
     "without libc's data accesses gives run_aos 186 misses instead of 319"),
    (r"^load_loop array \w+ rand 10000 100",
     "library traffic around every rand() call (see load_loop aos rand); "
     "own accesses match cachegrind since the machine code's accesses of "
     "loop-exit and preheader blocks are modelled; a gap of "
     "about 1% (-0.94% at SMALL)"),
    (r"^durbin$",
     "start-up traffic not modelled, at MEDIUM: the stack array z[400] "
     "(50 lines) is first written on durbin.c:53; cbana counts 50 "
     "compulsory misses, cachegrind 18: 32 of its lines are still in L1 "
     "(and LL: 104 vs 151 LL misses) from code that ran at the same "
     "stack depth before the kernel (the loader and libc start-up)"),
    (r"^floyd-warshall$",
     "cbana stopped at its default operation budget (10^9); rerun with "
     "--budget"),
]


def known_cause(name):
    for pat, why in KNOWN_CAUSES:
        if re.search(pat, name):
            return why
    return None


def summary_lines(s):
    lines = []
    if s["compared"]:
        for kind, label in (("polybench", "PolyBench kernels"),
                            ("workload", "workload rows")):
            k = s["kinds"].get(kind)
            if k:
                lines.append(
                    f"- {label}: {k['within']}/{k['compared']} within "
                    f"max(1%, 20 misses); worst {k['worst_gap_pct']:+.2f}% "
                    f"({k['worst_gap_misses']:+d} misses, "
                    f"{k['worst_gap_row']}); median |gap| "
                    f"{k['median_abs_gap_pct']:.3f}%; geomean speed "
                    f"{k['geomean_speed_wall']:.2f}x wall, "
                    f"{k['geomean_speed_cpu']:.2f}x CPU")
        lines.append(
            f"- all rows within max(1%, 20 misses): {s['within']}/{s['compared']}"
            + (f" (outside: {', '.join(s['outside'])})" if s["outside"]
               else ""))
        lines.append(f"- worst gap (against the bound): "
                     f"{s['worst_gap_pct']:+.2f}% "
                     f"({s['worst_gap_misses']:+d} misses, "
                     f"{s['worst_gap_row']}); largest in %: "
                     f"{s['largest_pct_gap_pct']:+.2f}% "
                     f"({s['largest_pct_gap_misses']:+d} misses, "
                     f"{s['largest_pct_gap_row']}); median |gap|: "
                     f"{s['median_abs_gap_pct']:.3f}%")
        lines.append(
            f"- geomean speed ratio cachegrind/cbana: "
            f"{s['geomean_speed_wall']:.2f}x wall (cbana's compile "
            f"included), {s['geomean_speed_cpu']:.2f}x user+sys CPU, "
            f"{s['geomean_speed_analysis']:.2f}x CPU against the analysis "
            f"alone (compile excluded)")
    if s["errors"]:
        lines.append(f"- errors: {', '.join(s['errors'])}")
    return lines


def combine(row, cg, cb):
    r = {"name": row["name"], "kind": row["kind"], "cflags": row["cflags"],
         "args": row["args"]}
    if "error" in cg:
        r["error"] = "cachegrind: " + cg["error"]
    else:
        r["cg_misses"] = cg["own"]["D1mr"] + cg["own"]["D1mw"]
        r["cg_accesses"] = cg["own"]["Dr"] + cg["own"]["Dw"]
        r["cg_wall_s"] = cg["wall_s"]
        r["cg_cpu_s"] = cg["cpu_s"]
        r["cg_loadavg"] = cg.get("loadavg")
        r["cg_exit_code"] = cg["exit_code"]
    if "error" in cb:
        r["error"] = (r.get("error", "") + " cbana: " + cb["error"]).strip()
    if "misses" in cb:
        r["cb_misses"] = cb["misses"]
        r["cb_accesses"] = cb["accesses"]
        r["cb_wall_s"] = cb["wall_s"]
        r["cb_cpu_s"] = cb["cpu_s"]
        for k in ("compile_wall_s", "compile_cpu_s", "analysis_wall_s",
                  "analysis_cpu_s"):
            r["cb_" + k] = cb[k]
        r["cb_split"] = cb["split"]
        r["cb_loadavg"] = cb["loadavg"]
        r["cb_exit_code"] = cb["exit_code"]
    if "cg_misses" in r and "cb_misses" in r:
        r["gap_pct"] = gap_pct(r["cb_misses"], r["cg_misses"])
        r["within"] = cgref.gap_ok(r["cb_misses"], r["cg_misses"])
        r["speed_wall"] = r["cg_wall_s"] / r["cb_wall_s"]
        r["speed_cpu"] = r["cg_cpu_s"] / max(r["cb_cpu_s"], 1e-3)
        # CPU seconds against CPU seconds (rusage resolution: 10 ms).
        r["speed_analysis"] = r["cg_cpu_s"] / max(r["cb_analysis_cpu_s"],
                                                  0.01)
        if r["cg_exit_code"] != r["cb_exit_code"]:
            r["error"] = (f"exit code: cbana {r['cb_exit_code']}, "
                          f"cachegrind {r['cg_exit_code']}")
    return r


def write_markdown(path, size, results, s, meta, xfail):
    L = [f"# cbana vs cachegrind: {size}", "",
         f"Generated by `bench/compare.py {size}` ({meta['date']}, cbana "
         f"{meta['commit']}, {meta['valgrind']}, {meta['cpus']} cores).",
         f"Cache `--D1={D1} --LL={LL}`; own-code L1D misses (the program's "
         f"own source lines); both tools on the same build "
         f"(clang -O2 -g -gdwarf-4, -lm), same argv[0] and cwd. PolyBench "
         f"at -D{size}_DATASET, workloads: the \"{SECTIONS[size]}\" inputs "
         f"of bench/workloads/*.inputs.",
         f"Process pool of {meta['jobs']}; load average at start "
         f"{meta['load_start']}, at end {meta['load_end']} (a shared "
         f"2-core machine: wall times are noisy, CPU times less so). "
         f"Cachegrind times are from its first run (cached in bench/tmp/).",
         ]
    if meta.get("updated"):
        L.append(f"Rows updated {meta['updated']}.")
    L += ["", "## Summary", ""]
    L += summary_lines(s)
    L += ["", "## Rows", "",
          "gap = (cbana - cachegrind) / cachegrind; ok: within max(1%, 20 "
          "misses). Times in seconds: cg = the cachegrind run; cbana = "
          "analyze, compile included; compile = clang + lowering "
          f"({'from --stats' if meta['split'] == 'stats' else 'a separate cbana dump'}), "
          "analysis = the rest (both CPU). speed = cachegrind / cbana "
          "(wall, user+sys CPU, and CPU against the analysis alone, "
          "which is floored at 0.01 s).", "",
          "| workload | cg D1 misses | cbana D1 misses | gap % | ok | cg wall "
          "| cbana wall | speed wall | cg CPU | cbana CPU | speed CPU | "
          "compile CPU | analysis CPU | speed analysis |",
          "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | "
          "---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        if "cg_misses" not in r or "cb_misses" not in r:
            L.append(f"| {r['name']} | {r.get('cg_misses', '-')} | "
                     f"{r.get('cb_misses', '-')} | - | ERROR | | | | | | | "
                     f"| | |")
            continue
        ok = "yes" if r["within"] else "NO"
        if r["name"] in xfail:
            ok = "xpass" if r["within"] else "xfail"
        if "error" in r:
            ok += " (" + r["error"] + ")"
        L.append(
            f"| {r['name']} | {r['cg_misses']} | {r['cb_misses']} | "
            f"{r['gap_pct']:+.2f} | {ok} | {fmt_s(r['cg_wall_s'])} | "
            f"{fmt_s(r['cb_wall_s'])} | {fmt_ratio(r['speed_wall'])} | "
            f"{fmt_s(r['cg_cpu_s'])} | {fmt_s(r['cb_cpu_s'])} | "
            f"{fmt_ratio(r['speed_cpu'])} | "
            f"{fmt_s(r['cb_compile_cpu_s'])} | "
            f"{fmt_s(r['cb_analysis_cpu_s'])} | "
            f"{fmt_ratio(r['speed_analysis'])} |")
    out = [r for r in results if "within" in r and not r["within"]]
    if out:
        L += ["", "## Outside the bound", ""]
        for r in out:
            why = known_cause(r["name"]) or "cause not analysed yet"
            L.append(f"- {r['name']}: cachegrind {r['cg_misses']}, cbana "
                     f"{r['cb_misses']} ({r['gap_pct']:+.2f}%, "
                     f"{r['cb_misses'] - r['cg_misses']:+d} misses): {why}")
    errs = [r for r in results if "error" in r]
    if errs:
        L += ["", "## Errors", ""]
        L += [f"- {r['name']}: {r['error']}" for r in errs]
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def meta_info(cbana, jobs):
    def out(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  cwd=ROOT).stdout.strip()
        except OSError:
            return "?"
    return {"date": time.strftime("%Y-%m-%d %H:%M"),
            "commit": out(["git", "rev-parse", "--short", "HEAD"]),
            "valgrind": out(["valgrind", "--version"]),
            "cpus": os.cpu_count(), "jobs": jobs, "cbana": cbana,
            "load_start": loadavg()}


def private_cbana(cbana, tmp):
    """A copy of the cbana binary, so a rebuild during the run does not
    change it."""
    dst = os.path.join(tmp, f"cbana.{os.getpid()}")
    shutil.copy2(cbana, dst)
    return dst


def run_size(a):
    size = a.size.upper()
    name = size if not a.only else f"{size}-subset"
    xfail = set(a.xfail or [])
    if a.rewrite:
        with open(os.path.join(a.out, name + ".json")) as f:
            d = json.load(f)
        s = summarize(d["rows"], xfail)
        write_markdown(os.path.join(a.out, name + ".md"), size, d["rows"], s,
                       d["meta"], xfail)
        for line in summary_lines(s):
            print(line)
        return 0
    rows = select(rows_for(size), a.only)
    if not rows:
        print("compare.py: no rows selected", file=sys.stderr)
        return 2
    tmp = os.path.abspath(a.tmp)
    workdir = os.path.join(tmp, "cg")
    os.makedirs(workdir, exist_ok=True)
    cbana = private_cbana(os.path.abspath(a.cbana), tmp)
    meta = meta_info(a.cbana, a.jobs)
    try:
        for row in rows:  # builds, before the pool (cached by cgref)
            cgref.build([row["src"]], workdir, row["cflags"])
        cg, cb = {}, {}
        with concurrent.futures.ProcessPoolExecutor(a.jobs) as ex:
            futs = {}
            for i, row in enumerate(rows):
                futs[ex.submit(cachegrind_task, row, workdir)] = ("cg", i)
                futs[ex.submit(cbana_task, cbana, row, workdir)] = ("cb", i)
            for fut in concurrent.futures.as_completed(futs):
                what, i = futs[fut]
                try:
                    res = fut.result()
                except Exception as e:  # a crash of either tool
                    res = {"error": f"{type(e).__name__}: {e}"}
                (cg if what == "cg" else cb)[i] = res
                if i in cg and i in cb:
                    r = combine(rows[i], cg[i], cb[i])
                    if "gap_pct" in r:
                        tag = "ok  " if r["within"] else "FAIL"
                        if r["name"] in xfail:
                            tag = "XPASS" if r["within"] else "XFAIL"
                        print(f"{tag} {size} {r['name']}: cachegrind "
                              f"{r['cg_misses']}, cbana {r['cb_misses']} "
                              f"({r['gap_pct']:+.2f}%), wall "
                              f"{r['cg_wall_s']:.1f}s vs "
                              f"{r['cb_wall_s']:.1f}s", flush=True)
                    if "error" in r:
                        print(f"ERROR {size} {r['name']}: {r['error']}",
                              flush=True)
    finally:
        os.unlink(cbana)
    results = [combine(rows[i], cg[i], cb[i]) for i in range(len(rows))]
    splits = {cb[i].get("split") for i in cb} - {None}
    meta["split"] = "stats" if splits == {"stats"} else "dump"
    meta["load_end"] = loadavg()
    s = summarize(results, xfail)
    os.makedirs(a.out, exist_ok=True)
    if a.update:
        # The selected rows replace theirs in SIZE.json (same row order).
        name = size
        with open(os.path.join(a.out, name + ".json")) as f:
            old = json.load(f)
        new = {r["name"]: r for r in results}
        results = [new.pop(r["name"], r) for r in old["rows"]] + list(
            new.values())
        meta = dict(old["meta"], updated=f"{meta['date']}: "
                    + ", ".join(r["name"] for r in select(rows, None))
                    + f" rerun (load {meta['load_start']} -> "
                    f"{meta['load_end']})")
        s = summarize(results, xfail)
    with open(os.path.join(a.out, name + ".json"), "w") as f:
        json.dump({"meta": meta, "summary": s, "rows": results}, f,
                  indent=1)
    write_markdown(os.path.join(a.out, name + ".md"), size, results, s,
                   meta, xfail)
    print(f"== {size}: {len(results)} rows, load average {meta['load_start']}"
          f" -> {meta['load_end']}")
    for line in summary_lines(s):
        print(line)
    bad = [r for r in results if "error" in r or
           (not r.get("within", False) and r["name"] not in xfail)]
    if a.check:
        print("xfail list: " + (" ".join(sorted(xfail)) if xfail else
                                "(empty: every row must pass)"))
    for r in results:
        if r["name"] in xfail and "gap_pct" in r:
            print(f"xfail list: {r['name']}: gap {r['gap_pct']:+.2f}% "
                  f"({r['cb_misses'] - r['cg_misses']:+d} misses)"
                  + (" (passes now: remove it from the list)"
                     if r["within"] else ""))
    if a.check and bad:
        print(f"compare.py: {len(bad)} rows fail: "
              + ", ".join(r["name"] for r in bad))
        return 1
    return 0


# ---- Table V ----

def tablev_task(row, workdir, line):
    r = dict(row, args=line)
    return cachegrind_task(r, workdir)


def run_tablev(a):
    tmp = os.path.abspath(a.tmp)
    workdir = os.path.join(tmp, "cg")
    os.makedirs(workdir, exist_ok=True)
    tv = os.path.join(tmp, "tablev")
    os.makedirs(tv, exist_ok=True)
    inputs = os.path.join(tv, "brpath.inputs")
    with open(inputs, "w") as f:
        subprocess.run([os.path.join(ROOT, "bench", "workloads",
                                     "gen_brpath_inputs.sh"), "1000", "1",
                        "1000"], stdout=f, check=True)
    lines = [ln.strip() for ln in open(inputs)
             if ln.strip() and not ln.startswith("#")]
    sample = lines[:a.sample] if a.sample else lines
    cbana = private_cbana(os.path.abspath(a.cbana), tmp)
    meta = meta_info(a.cbana, a.jobs)
    progs = [p for p in ("br_path2", "br_path3")
             if not a.only or p in a.only]
    out = {}
    try:
        for prog in progs:
            row = {"name": prog, "kind": "workload",
                   "src": os.path.join(ROOT, "bench", "workloads",
                                       prog + ".c"),
                   "cflags": WL_CFLAGS, "args": ""}
            exe = cgref.build([row["src"]], workdir, row["cflags"])
            # cbana: one invocation, every input, both cores.
            rep_path = os.path.join(tv, prog + ".json")
            la = loadavg()
            with open(rep_path, "w") as f:
                rc, wall, cpu, err = timed(
                    cbana_cmd(cbana, row, exe, inputs=inputs, jobs=a.jobs),
                    cwd=workdir, stdout=f)
            if rc not in (0, 3):
                raise SystemExit(f"cbana failed on {prog}: {err[-2000:]}")
            rep = json.load(open(rep_path))
            m = STATS_ANALYSIS.search(err)
            cb_runs = rep["runs"]
            # cachegrind: one run per input, a pool of --jobs.
            t0 = time.monotonic()
            with concurrent.futures.ProcessPoolExecutor(a.jobs) as ex:
                cgs = list(ex.map(tablev_task, [row] * len(sample),
                                  [workdir] * len(sample), sample,
                                  chunksize=4))
            elapsed = time.monotonic() - t0
            per = []
            for i, (line, cg) in enumerate(zip(sample, cgs)):
                run = cb_runs[i]
                assert run["input"]["args"] == line.split(), (run, line)
                pm = cgref.report_l1d_misses(run)
                mm = cg["own"]["D1mr"] + cg["own"]["D1mw"]
                per.append({"args": line, "cb": pm, "cg": mm,
                            "path": run.get("path"),
                            "gap_pct": gap_pct(pm, mm),
                            "within": cgref.gap_ok(pm, mm),
                            "cg_wall_s": cg["wall_s"],
                            "cg_cpu_s": cg["cpu_s"],
                            "cached": cg["cached"]})
            out[prog] = {
                "inputs": len(lines), "cg_runs": len(sample),
                "paths": len(rep.get("paths") or []),
                "cb_wall_s": wall, "cb_cpu_s": cpu, "cb_loadavg": la,
                "cb_analysis_wall_s": float(m.group(1)) if m else None,
                "cg_wall_sum_s": sum(p["cg_wall_s"] for p in per),
                "cg_cpu_sum_s": sum(p["cg_cpu_s"] for p in per),
                "cg_elapsed_s": elapsed,
                "cg_newly_run": sum(1 for p in per if not p["cached"]),
                "cg_misses_sum": sum(p["cg"] for p in per),
                "cb_misses_sum": sum(p["cb"] for p in per),
                "within": sum(1 for p in per if p["within"]),
                "worst_gap_pct": max((p["gap_pct"] for p in per), key=abs),
                "median_abs_gap_pct": statistics.median(
                    abs(p["gap_pct"]) for p in per),
                "per_input": per}
            o = out[prog]
            print(f"{prog}: {o['within']}/{len(per)} inputs within bound, "
                  f"cbana {wall:.1f}s wall {cpu:.1f}s CPU, cachegrind "
                  f"{o['cg_wall_sum_s']:.0f}s wall summed, "
                  f"{o['cg_cpu_sum_s']:.0f}s CPU", flush=True)
    finally:
        os.unlink(cbana)
    meta["load_end"] = loadavg()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "tableV.json"), "w") as f:
        json.dump({"meta": meta, "programs": out}, f, indent=1)
    write_tablev(os.path.join(a.out, "tableV.md"), out, meta, len(lines))
    return 0 if all(o["within"] == o["cg_runs"] for o in out.values()) else 1


def write_tablev(path, out, meta, n):
    L = ["# Table V: many inputs, one cbana invocation", "",
         f"Generated by `bench/compare.py tableV` ({meta['date']}, cbana "
         f"{meta['commit']}, {meta['valgrind']}, {meta['cpus']} cores).",
         f"{n} random inputs `X 1000` (`bench/workloads/gen_brpath_inputs.sh"
         f" {n} 1 1000`) to br_path2 and br_path3 (the paper's "
         f"load1K_2br / load1K_3br). cbana analyzes all of them in one "
         f"invocation (`--inputs`, `--jobs {meta['jobs']}`, compile "
         f"included); cachegrind runs once per input, {meta['jobs']} at a "
         f"time. Cache `--D1={D1} --LL={LL}`, own-code L1D misses per input "
         f"against the gap rule max(1%, 20 misses).",
         f"Load average at start {meta['load_start']}, at end "
         f"{meta['load_end']} (shared 2-core machine). Cachegrind's wall "
         f"time is the sum of its runs' wall times (each run measured when "
         f"it first ran; results are cached in bench/tmp/), and /{meta['jobs']}"
         f" for the {meta['jobs']}-process pool; CPU = user+sys.", "",
         "| program | inputs | cachegrind runs | cbana paths | inputs within "
         "bound | worst gap % | median abs gap % | cg misses (sum) | cbana "
         "misses (sum) | cg wall (sum) | cg wall / jobs | cbana wall | "
         "speed wall | cg CPU | cbana CPU | speed CPU |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
         "---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for prog, o in out.items():
        par = o["cg_wall_sum_s"] / meta["jobs"]
        # When cachegrind ran on a sample only, its time is scaled to all
        # inputs for the speed ratio (said in the table).
        scale = o["inputs"] / o["cg_runs"]
        L.append(
            f"| {prog} | {o['inputs']} | {o['cg_runs']} | {o['paths']} | "
            f"{o['within']}/{o['cg_runs']} | {o['worst_gap_pct']:+.2f} | "
            f"{o['median_abs_gap_pct']:.3f} | {o['cg_misses_sum']} | "
            f"{o['cb_misses_sum']} | {o['cg_wall_sum_s']:.0f} | {par:.0f} | "
            f"{o['cb_wall_s']:.1f} | {par * scale / o['cb_wall_s']:.0f} | "
            f"{o['cg_cpu_sum_s']:.0f} | {o['cb_cpu_s']:.1f} | "
            f"{o['cg_cpu_sum_s'] * scale / o['cb_cpu_s']:.0f} |")
    if any(o["cg_runs"] < o["inputs"] for o in out.values()):
        L += ["", "Cachegrind ran on a sample of the inputs (--sample): "
              "the speed ratios scale its time to all inputs."]
    L += ["", "## Summary", ""]
    for prog, o in out.items():
        par = o["cg_wall_sum_s"] / meta["jobs"]
        scale = o["inputs"] / o["cg_runs"]
        L.append(f"- {prog}: {o['within']}/{o['cg_runs']} inputs within "
                 f"max(1%, 20 misses), worst gap {o['worst_gap_pct']:+.2f}%, "
                 f"median |gap| {o['median_abs_gap_pct']:.3f}%; cbana "
                 f"{o['cb_wall_s']:.1f} s for all {o['inputs']} inputs vs "
                 f"cachegrind {par * scale:.0f} s ({meta['jobs']} at a time): "
                 f"{par * scale / o['cb_wall_s']:.0f}x wall, "
                 f"{o['cg_cpu_sum_s'] * scale / o['cb_cpu_s']:.0f}x CPU")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("size", help="MINI, SMALL, MEDIUM or tableV")
    ap.add_argument("--only", nargs="*", default=None,
                    help="kernel or workload names (a workload's program "
                    "name selects all its inputs)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cbana", default=os.path.join(ROOT, "build", "cbana"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tmp", default=os.path.join(HERE, "tmp"))
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a row outside --xfail breaks the rule")
    ap.add_argument("--xfail", nargs="*", default=[])
    ap.add_argument("--update", action="store_true",
                    help="with --only: replace those rows in SIZE.json/.md")
    ap.add_argument("--rewrite", action="store_true",
                    help="only write SIZE.md again from SIZE.json")
    ap.add_argument("--sample", type=int, default=0,
                    help="tableV: cachegrind on the first K inputs only")
    a = ap.parse_args()
    if a.size.lower() == "tablev":
        return run_tablev(a)
    if a.size.upper() not in SECTIONS:
        ap.error("SIZE must be MINI, SMALL, MEDIUM or tableV")
    return run_size(a)


if __name__ == "__main__":
    sys.exit(main())
