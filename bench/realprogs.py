#!/usr/bin/env python3
"""Real programs: LLVM test-suite's SingleSource/Benchmarks C programs,
each run natively, under cachegrind, and analysed by cbana.

  bench/realprogs.sh DIR [-j N] [--full] [--opt=-O2] [--timeout S]
                     [--only NAME ...] [--cbana build/cbana] [--out PREFIX]
                     [--resume]

DIR is a checkout of the test-suite (the folder holding SingleSource).
Every C program of DIR/SingleSource/Benchmarks is run, except Polybench
(the project has its own PolyBench benchmarks) and the programs the
test-suite builds only for other architectures: each folder's
CMakeLists.txt is read (its Source list, the `if(ARCH STREQUAL ...)`
blocks around the files it adds, its CFLAGS/CPPFLAGS, RUN_OPTIONS,
STDIN_FILENAME and per-target C_STANDARD).

Per program, with the flags `OPT -DSMALL_PROBLEM_SIZE` (--full: without
it), the folder's flags and -I of the program's folder:

- native: built as cbana builds it (clang FLAGS -g -gdwarf-4 -c, then
  clang FLAGS -o EXE OBJ -lm), run as `env -i EXE ARGS` in a fixed working
  directory with stdout to a file: its output, exit status and time;
- cachegrind: `env -i valgrind --tool=cachegrind --cache-sim=yes` with
  cbana's default cache (its `cachegrind` preset: --I1=32768,8,64
  --D1=32768,8,64 --LL=1048576,16,64), the same EXE path as argv[0] and
  the same working directory, stdin from /dev/null (or the program's
  STDIN_FILENAME) and stdout to /dev/null, as `cbana validate` runs it
  (cli/cachegrind.c; docs/process-model.md: argv[0], the working
  directory and the link line decide the addresses);
- cbana: `cbana analyze SRC --cflags FLAGS --format json --argv0 EXE` in
  that working directory with default settings (budget, engine, cache),
  timed alone.

Compared: own-code L1D misses (cachegrind's D1mr + D1mw of the report's
`files`, matched as cli/cachegrind.c's cb_cg_path_matches does, against
the sum of the report's `lines`, as `cbana validate` does), whole-process
L1D misses (cachegrind's summary D1mr + D1mw against the report's level
total: own lines, library calls and the rest it models), stdout and exit
status (cbana's modelled ones against the native run's).

Each program's row is appended to PREFIX.tsv as soon as it is measured
(--resume skips the programs already there), and PREFIX.md is written
from the TSV at the end (bench/realprogs_report.py). The default PREFIX is
bench/results/realprogs (realprogs-full with --full).
"""
import argparse
import base64
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import realprogs_report  # noqa: E402

# cbana's `cachegrind` preset (cachemodel/presets.c) and the I1 that
# cb_cg_run gives cachegrind when none is named.
I1, D1, LL = "32768,8,64", "32768,8,64", "1048576,16,64"
GEOMETRY = {"L1D": (32768, 8, 64), "LL": (1048576, 16, 64)}
ARCH_NAMES = {"x86_64", "x86", "X86"}

COLUMNS = realprogs_report.COLUMNS


# ---- the programs and their flags, from the CMakeLists.txt files ----

def cmake_commands(text):
    """(name, args string) of each command of a CMakeLists.txt, comments
    removed; arguments may span lines."""
    text = re.sub(r"#[^\n]*", "", text)
    out = []
    for m in re.finditer(r"(\w+)\s*\(", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1).lower(), text[m.end():i - 1].strip(), m.start()))
    # nested "(" of conditions are found again as commands: keep only those
    # that do not start inside an earlier command's arguments
    kept, end = [], -1
    for name, args, start in out:
        if start >= end:
            kept.append((name, args))
            end = start + len(name) + len(args)
    return kept


def for_other_arch(cond):
    """Whether an if() condition holds only on another architecture:
    `ARCH STREQUAL "X"` (with nothing else) and X is not this one."""
    m = re.fullmatch(r'ARCH\s+STREQUAL\s+"?(\w+)"?', cond.strip())
    return bool(m) and m.group(1) not in ARCH_NAMES


def read_folder(folder):
    """The folder's C programs and flags: (programs, excluded, info) where
    programs is [(file, extra cflags)], excluded [(file, reason)]."""
    path = os.path.join(folder, "CMakeLists.txt")
    with open(path) as f:
        cmds = cmake_commands(f.read())
    cflags, run_options, stdin_name = [], [], None
    listed, everywhere = [], set()  # everywhere: listed outside arch ifs
    per_target_std = {}
    stack = []  # per if(): whether it holds only on another architecture
    for name, args in cmds:
        words = shlex.split(args) if name not in ("if", "elseif") else []
        if name == "if":
            stack.append(for_other_arch(args))
            continue
        if name in ("elseif", "else"):
            if stack:
                stack[-1] = False
            continue
        if name == "endif":
            if stack:
                stack.pop()
            continue
        other = any(stack)
        if name == "list" and len(words) >= 2 and words[0] == "APPEND":
            var, vals = words[1], words[2:]
            if var in ("CFLAGS", "CPPFLAGS") and not other:
                cflags += vals
            elif var == "Source":
                listed += vals
                if not other:
                    everywhere.update(vals)
        elif name == "set" and words:
            if words[0] == "Source":
                listed += words[1:]
                if not other:
                    everywhere.update(words[1:])
            elif words[0] == "RUN_OPTIONS" and not other:
                run_options = words[1:]
            elif words[0] == "STDIN_FILENAME" and not other:
                stdin_name = words[1] if len(words) > 1 else None
        elif name == "set_property" and "C_STANDARD" in words:
            i = words.index("C_STANDARD")
            targets = words[words.index("TARGET") + 1:words.index("PROPERTY")]
            for t in targets:
                per_target_std[t] = words[i + 1]
    prefix = ""
    for name, args in cmds:
        if name == "llvm_singlesource":
            m = re.search(r"PREFIX\s+(\S+)", args)
            prefix = m.group(1) if m else ""
    c_files = sorted(f for f in os.listdir(folder) if f.endswith(".c"))
    programs, excluded = [], []
    for f in c_files:
        if listed and f not in listed:
            excluded.append((f, "not in the folder's Source list"))
            continue
        if listed and f not in everywhere:
            excluded.append((f, "built only for another architecture "
                                "(CMakeLists.txt: if(ARCH STREQUAL ...))"))
            continue
        flags = list(cflags)
        std = per_target_std.get(prefix + f[:-2])
        if std:
            # CMake's C_STANDARD with its default CMAKE_C_EXTENSIONS ON
            flags.append(f"-std=gnu{std}")
        programs.append((f, flags))
    info = {"run_options": run_options, "stdin": stdin_name}
    return programs, excluded, info


def discover(suite):
    """Every program to run: dicts with name, src, dir, cflags, args,
    stdin; and the excluded files with their reasons."""
    bench = os.path.join(suite, "SingleSource", "Benchmarks")
    progs, excluded = [], []
    for d, subdirs, files in os.walk(bench):
        subdirs.sort()
        rel = os.path.relpath(d, bench)
        if rel.split(os.sep)[0] == "Polybench":
            if rel == "Polybench":
                excluded.append(("Polybench/", "the project's own PolyBench "
                                 "benchmarks cover it"))
            subdirs[:] = []
            continue
        if "CMakeLists.txt" not in files or not any(
                f.endswith(".c") for f in files):
            continue
        ps, ex, info = read_folder(d)
        for f, flags in ps:
            stdin = (os.path.join(d, info["stdin"]) if info["stdin"]
                     else None)
            progs.append({"name": os.path.normpath(os.path.join(rel, f[:-2])),
                          "src": os.path.join(d, f), "dir": d,
                          "cflags": flags, "args": info["run_options"],
                          "stdin": stdin})
        excluded += [(os.path.normpath(os.path.join(rel, f)), why)
                     for f, why in ex]
    return progs, excluded


def discover_multi(suite, full):
    """MultiSource/Benchmarks: one program a folder that builds a C one
    with llvm_multisource() (bench/testsuite_cmake.py reads its
    CMakeLists.txt); its data files are copied beside the run."""
    import testsuite_cmake
    bench = os.path.join(suite, "MultiSource", "Benchmarks")
    progs, excluded = [], []
    for d, subdirs, files in os.walk(bench):
        subdirs.sort()
        if "CMakeLists.txt" not in files:
            continue
        rel = os.path.relpath(d, bench)
        try:
            p = testsuite_cmake.read_multisource(d, full)
        except testsuite_cmake.Unsupported as e:
            excluded.append((rel + "/", f"CMakeLists.txt uses {e}"))
            continue
        if p is None:
            continue
        p.update(name=rel, src=p["srcs"][0], dir=d)
        progs.append(p)
    return progs, excluded


# ---- running, timed, with a time limit ----

def timed(cmd, cwd, stdin=None, stdout=None, stderr=None, timeout=600,
          env=None, usage=None):
    """Runs cmd in its own process group; returns (exit status or None
    when killed by a signal, signal, wall s, user+sys s, timed out). The
    dict `usage`, when given, gets the process's peak RSS (rss_kib)."""
    fin = open(stdin) if stdin else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdin=fin, env=env,
                         stdout=stdout or subprocess.DEVNULL,
                         stderr=stderr or subprocess.DEVNULL,
                         start_new_session=True)
    killed = threading.Event()

    def kill():
        killed.set()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    timer.cancel()
    p.returncode = status  # already reaped
    if stdin:
        fin.close()
    cpu = ru.ru_utime + ru.ru_stime
    if usage is not None:
        usage["rss_kib"] = ru.ru_maxrss
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status), 0, wall, cpu, killed.is_set()
    return None, os.WTERMSIG(status), wall, cpu, killed.is_set()


def build(prog, flags, work):
    """The executable, as cbana's frontend builds it (frontend/compile.c:
    clang FLAGS -gdwarf-4 -c, then clang FLAGS -o EXE OBJ -lm)."""
    exe = os.path.join(work, "prog")
    objs = []
    r = None
    for i, src in enumerate(prog.get("srcs") or [prog["src"]]):
        objs.append(os.path.join(work, f"prog{i}.o"))
        cc = ["clang", *flags, "-g", "-gdwarf-4", "-c", "-o", objs[-1], src]
        r = subprocess.run(cc, cwd=prog["dir"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            break
    if r.returncode == 0:
        r = subprocess.run(["clang", *flags, "-o", exe, *objs, "-lm"],
                           cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("native build failed: " +
                           r.stderr.strip().splitlines()[-1][:300])
    return exe


def parse_cachegrind(path):
    """(rows [(file, {event: n})], summary {event: n})."""
    events, rows, summary, fl = None, [], {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line[0].isdigit():
                vals = [int(x) for x in line.split()[1:]]
                rows.append((fl, dict(zip(events, vals))))
            elif line.startswith("fl="):
                fl = line[3:]
            elif line.startswith("events:"):
                events = line[7:].split()
            elif line.startswith("summary:"):
                summary = dict(zip(events, (int(x)
                                            for x in line[8:].split())))
    return rows, summary


def path_matches(cg_name, src, cwd):
    """cli/cachegrind.c's cb_cg_path_matches: equal after normalisation,
    or one relative name a whole-component suffix of the other."""
    a = os.path.normpath(cg_name)
    b = os.path.normpath(src if os.path.isabs(src) else os.path.join(cwd, src))
    if a == b:
        return True

    def suffix(p, rel):
        return p.endswith(rel) and (len(p) == len(rel) or
                                    p[-len(rel) - 1] == "/")
    if not os.path.isabs(a) and not a.startswith(".."):
        return suffix(b, a)
    return False


def own_misses(rows, files, cwd):
    own, memo = 0, {}
    for fl, c in rows:
        if fl not in memo:
            memo[fl] = any(path_matches(fl, s, cwd) for s in files)
        if memo[fl]:
            own += c.get("D1mr", 0) + c.get("D1mw", 0)
    return own


def run_native(prog, exe, work, timeout):
    out = os.path.join(work, "native.out")
    with open(out, "wb") as f:
        rc, sig, wall, _, to = timed(["env", "-i", exe, *prog["args"]], work,
                                     prog["stdin"], f, timeout=timeout)
    with open(out, "rb") as f:
        return rc, sig, wall, to, f.read()


def run_cachegrind(prog, exe, work, timeout):
    out = os.path.join(work, "cachegrind.out")
    log = os.path.join(work, "valgrind.log")
    cmd = ["env", "-i", "valgrind", "--tool=cachegrind", "--cache-sim=yes",
           f"--I1={I1}", f"--D1={D1}", f"--LL={LL}",
           f"--cachegrind-out-file={out}", f"--log-file={log}", exe,
           *prog["args"]]
    rc, sig, wall, _, to = timed(cmd, work, prog["stdin"], timeout=timeout)
    res = {"cg_status": rc if rc is not None else f"signal {sig}",
           "cg_wall": wall, "cg_timeout": to}
    if to or not os.path.exists(out):
        tail = ""
        if os.path.exists(log):
            with open(log) as f:
                tail = " | ".join(f.read().splitlines()[-3:])
        res["cg_error"] = ("timed out" if to else "no output: " + tail)
        return res, None
    return res, parse_cachegrind(out)


COLD_SEED = {"lock": threading.Lock(), "dir": None}


def cold_cache(cbana, work):
    """A new XDG_CACHE_HOME without any program's compiled units
    (translation units, link lines, kernels) but with what cbana keeps per
    machine (the process probes, glibc's thresholds), seeded once by a
    first run on a small workload: "cold" is a program never analysed
    before on a machine that has run cbana."""
    with COLD_SEED["lock"]:
        if COLD_SEED["dir"] is None:
            seed = tempfile.mkdtemp(prefix="xdg-seed-")
            subprocess.run([cbana, "analyze", os.path.join(
                HERE, "workloads", "br_path2.c"), "--args", "1 100",
                "--quiet"], cwd=seed, capture_output=True,
                env=dict(os.environ, XDG_CACHE_HOME=seed))
            COLD_SEED["dir"] = seed
    d = tempfile.mkdtemp(prefix="xdg-", dir=work)
    src = os.path.join(COLD_SEED["dir"], "cbana")
    if os.path.isdir(src):
        shutil.copytree(src, os.path.join(d, "cbana"), ignore=lambda _, names: [
            n for n in names if n == "tu" or n.startswith(("kernel-", "link-"))])
    return d


def run_cbana(cbana, prog, exe, work, flags, timeout, extra=(), tag="cb",
              cold=False):
    """cbana on the program: the result's fields prefixed by `tag`
    (status, wall, cpu, timeout, rss_kib), and the report. extra: more
    options; cold: a fresh XDG_CACHE_HOME, so that nothing compiled
    before is reused."""
    out = os.path.join(work, tag + ".json")
    err = os.path.join(work, tag + ".err")
    cmd = [cbana, "analyze", *(prog.get("srcs") or [prog["src"]]),
           "--cflags", shlex.join(flags),
           "--format", "json", "--argv0", exe, "--quiet", *extra]
    env = None
    if cold:
        env = dict(os.environ, XDG_CACHE_HOME=cold_cache(cbana, work))
    if prog["stdin"]:
        # one input set: the arguments and `< FILE` (docs/inputs-format.md)
        inputs = os.path.join(work, "inputs")
        with open(inputs, "w") as f:
            f.write(shlex.join(prog["args"]) + " < " +
                    shlex.quote(prog["stdin"]) + "\n")
        cmd += ["--inputs", inputs]
    else:
        cmd += ["--args", shlex.join(prog["args"])]
    usage = {}
    with open(out, "wb") as fo, open(err, "wb") as fe:
        rc, sig, wall, cpu, to = timed(cmd, work, None, fo, fe, timeout, env,
                                       usage)
    if env:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
    with open(err, errors="replace") as f:
        errtext = f.read().strip()
    res = {f"{tag}_status": rc if rc is not None else f"signal {sig}",
           f"{tag}_wall": wall, f"{tag}_cpu": cpu, f"{tag}_timeout": to,
           f"{tag}_rss_kib": usage.get("rss_kib")}
    report = None
    if not to and rc in (0, 3):
        try:
            with open(out) as f:
                report = json.load(f)
        except ValueError as e:
            res[f"{tag}_error"] = f"unreadable JSON ({e})"
    if report is None and f"{tag}_error" not in res:
        if to:
            res[f"{tag}_error"] = f"timed out after {timeout} s"
        else:
            lines = [ln for ln in errtext.splitlines() if ln.strip()]
            res[f"{tag}_error"] = (" / ".join(lines[:3])[:400] if lines else
                                   f"exit {res[tag + '_status']}, no message")
    return res, report


def first_line_difference(modelled, real):
    """Where cbana's output first differs from the native run's."""
    a, b = modelled.splitlines(), real.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(no line)"
        y = b[i] if i < len(b) else "(no line)"
        if x != y:
            return f"line {i + 1}: cbana {x.strip()[:60]!r}, native " \
                   f"{y.strip()[:60]!r}"
    return "the same lines, other line ends"


def measure(cbana, prog, flags, timeout, keep, nc_min=None, cold=False):
    """One program: native, cachegrind, cbana (cold: without reusing
    compiled units); when cachegrind took nc_min s or more, cbana once more
    with --no-classify (the cb_nc_ columns)."""
    row = {"name": prog["name"]}
    work = tempfile.mkdtemp(prefix="rp-", dir=keep)
    try:
        for d in prog.get("data", []):
            src = os.path.join(prog["dir"], d)
            dst = os.path.join(work, os.path.basename(d))
            if not os.path.exists(src):
                raise RuntimeError(f"data file {d} is not in the checkout")
            if os.path.isdir(src):
                shutil.copytree(src, dst)
            else:
                shutil.copy2(src, dst)
        exe = build(prog, flags, work)
        rc, sig, wall, to, out = run_native(prog, exe, work, timeout)
        row.update(native_status=rc if rc is not None else f"signal {sig}",
                   native_wall=wall, native_timeout=to)
        cg, parsed = run_cachegrind(prog, exe, work, timeout)
        row.update(cg)
        cb, report = run_cbana(cbana, prog, exe, work, flags, timeout,
                               cold=cold)
        row.update(cb)
        if (nc_min is not None and row.get("cg_wall") is not None and
                not row.get("cg_timeout") and row["cg_wall"] >= nc_min):
            nc, _ = run_cbana(cbana, prog, exe, work, flags, timeout,
                              ["--no-classify"], "cb_nc", cold)
            nc.pop("cb_nc_timeout", None)
            nc.pop("cb_nc_error", None)
            row.update(nc)
        row["loaded"] = report is not None and bool(report.get("runs"))
        run = report["runs"][0] if row["loaded"] else None
        row["finished"] = bool(run) and run.get("status") == "ok"
        if run and run.get("status") != "ok":
            row["cb_error"] = (run.get("error") or {}).get("message", "?")
            loc = run.get("error") or {}
            if loc.get("line"):
                row["cb_error"] += (f" ({os.path.basename(loc.get('file') or '')}"
                                    f":{loc['line']})")
        if run:
            row["operations"] = run.get("operations")
            got = (base64.b64decode(run["output_base64"])
                   if "output_base64" in run else
                   (run.get("output") or "").encode("utf-8"))
            row["output_equal"] = row["finished"] and got == out
            if row["finished"] and not row["output_equal"]:
                row["output_diff"] = first_line_difference(
                    run.get("output", ""), out.decode(errors="replace"))
            row["exit_equal"] = (row["finished"] and
                                 run.get("exit_code") == rc)
            cache = run["caches"][0]
            geo = {k: (v["size"], v["assoc"], v["line"])
                   for k, v in cache["geometry"].items()}
            if geo != GEOMETRY:
                raise RuntimeError(f"cbana's default cache {geo} is not the "
                                   f"one cachegrind ran with {GEOMETRY}")
            row["cb_own"] = sum(int(ln["misses"].get("L1D", 0))
                                for ln in cache["lines"])
            row["cb_lib"] = sum(int(c["misses"].get("L1D", 0))
                                for c in cache["calls"])
            row["cb_whole"] = int(cache["levels"]["L1D"]["misses"])
        if parsed:
            rows, summary = parsed
            files = ((report or {}).get("files") or prog.get("srcs") or
                     [prog["src"]])
            row["cg_own"] = own_misses(rows, files, work)
            row["cg_whole"] = summary.get("D1mr", 0) + summary.get("D1mw", 0)
    except Exception as e:  # a build failure, a crash of this script's part
        row["error"] = f"{type(e).__name__}: {e}"
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return row


def private_cbana(cbana, tmp):
    """A copy of cbana and what it loads from beside it, so that a rebuild
    while this runs does not change the binary measured."""
    d = os.path.dirname(os.path.abspath(cbana))
    for f in ("cbana", "cbana-frontend.so", "cbana-glibc-probe"):
        if os.path.exists(os.path.join(d, f)):
            shutil.copy2(os.path.join(d, f), tmp)
    return os.path.join(tmp, "cbana")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", help="test-suite checkout (holds SingleSource)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--multisource", action="store_true",
                    help="MultiSource/Benchmarks' C programs instead")
    ap.add_argument("--full", action="store_true",
                    help="without -DSMALL_PROBLEM_SIZE")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds each tool may take per program")
    ap.add_argument("--only", nargs="*", default=None,
                    help="program names (Folder/name) or substrings")
    ap.add_argument("--cbana", default=os.path.join(ROOT, "build", "cbana"))
    ap.add_argument("--out", default=None, help="results prefix")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows already in PREFIX.tsv (but those "
                    "of the programs named by --only, which are measured "
                    "again)")
    ap.add_argument("--keep", default=None,
                    help="keep each program's work folder under this one")
    ap.add_argument("--no-classify-min", type=float, default=None,
                    metavar="S", help="also run cbana --no-classify on the "
                    "programs whose cachegrind run took S seconds or more")
    ap.add_argument("--cold", action="store_true",
                    help="every cbana run with a fresh XDG_CACHE_HOME "
                    "(nothing compiled before is reused)")
    ap.add_argument("--list", action="store_true",
                    help="print the programs and exclusions, run nothing")
    a = ap.parse_args()
    if a.multisource:
        progs, excluded = discover_multi(os.path.abspath(a.suite), a.full)
    else:
        progs, excluded = discover(os.path.abspath(a.suite))
    if a.only:
        progs = [p for p in progs if any(o == p["name"] or o in p["name"]
                                         for o in a.only)]
    size = [] if a.full else ["-DSMALL_PROBLEM_SIZE"]
    if a.list:
        for p in progs:
            print(p["name"], " ".join(p["cflags"]), " ".join(p["args"]),
                  p["stdin"] or "")
        for f, why in excluded:
            print(f"excluded {f}: {why}")
        return 0
    prefix = a.out or os.path.join(
        HERE, "results", ("multisource" if a.multisource else "realprogs") +
        ("-full" if a.full else ""))
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    tsv = prefix + ".tsv"
    done = set()
    if a.resume and os.path.exists(tsv):
        redo = {p["name"] for p in progs} if a.only else set()
        realprogs_report.drop_rows(tsv, redo)
        done = {r["name"] for r in realprogs_report.read_tsv(tsv)}
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    meta = {"part": ("MultiSource" if a.multisource else "SingleSource"),
            "commit": head or None,
            "flags": " ".join([a.opt, *size]), "timeout": a.timeout,
            "jobs": a.jobs, "excluded": excluded,
            "load_start": os.getloadavg()[0]}
    if not done:
        with open(tsv, "w") as f:
            f.write("\n".join(realprogs_report.meta_lines(meta)) + "\n")
            f.write("\t".join(COLUMNS) + "\n")
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="realprogs-cbana-")
    cbana = private_cbana(a.cbana, tmp)
    lock = threading.Lock()

    def one(p):
        flags = [a.opt, *size, *p["cflags"], f"-I{p['dir']}"]
        row = measure(cbana, p, flags, a.timeout, a.keep,
                      a.no_classify_min, a.cold)
        row["cflags"] = " ".join(flags)
        with lock:
            with open(tsv, "a") as f:
                f.write(realprogs_report.tsv_line(row) + "\n")
            print(realprogs_report.progress_line(row), flush=True)

    todo = [p for p in progs if p["name"] not in done]
    try:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            list(ex.map(one, todo))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta["load_end"] = os.getloadavg()[0]
    realprogs_report.write_markdown(prefix + ".md", tsv, meta, ROOT)
    print(f"wrote {prefix}.md and {tsv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
