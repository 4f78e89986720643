#!/usr/bin/env python3
"""cgref: an independent cachegrind reference for cbana's end-to-end tests.

Stdlib only. It builds a corpus program, runs it under
`env -i valgrind --tool=cachegrind` for one input line of its inputs file,
and totals what cachegrind attributes to the program's own source files
(.c/.h beside the program, line 0 included). It also compares a cbana JSON
report with those totals (the gap rule: own-code L1D misses within
max(1%, 20) of cachegrind's).

  cgref.py run PROGRAM [--index N | --input LINE] [--D1=S,A,L] [--LL=S,A,L]
               [--cflags FLAGS] [--ldflags FLAGS] [--workdir DIR] [--lines]
  cgref.py compare REPORT.json PROGRAM [--D1=..] [--LL=..] [--cache NAME]
  cgref.py selftest --corpus DIR [--jobs 2]

PROGRAM is a .c file with NAME.inputs beside it, or a folder holding the
.c files of one program and a file `inputs`. An input line holds the
program's arguments (shell words), optionally `< FILE` (standard input,
relative to the inputs file), and `#` comments.

What the analyzer must reproduce to match these runs (docs/process-model.md):
the executable path as given to valgrind (`exe` in the JSON), the working
directory (`cwd`: the Debian valgrind wrapper exports PWD into the client's
environment, which moves the stack), and the link flags (`-lm` loads
libm, which moves the mmap region).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading

DEFAULT_CFLAGS = "-O2 -g -gdwarf-4"
DEFAULT_LDFLAGS = "-lm"
DEFAULT_I1 = "32768,8,64"
NEUTRAL_LL_SIZE = 128 << 20  # LL used when only D1 is given
EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")
OWN_KEYS = ("Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Ir")


class CgrefError(Exception):
    pass


# ---- programs and inputs ----

def program_files(program):
    """(sources, inputs_file, own_dir) for a .c file or a program folder."""
    program = os.path.abspath(program)
    if os.path.isdir(program):
        srcs = sorted(os.path.join(program, f) for f in os.listdir(program)
                      if f.endswith(".c"))
        inputs = os.path.join(program, "inputs")
        if not srcs:
            raise CgrefError(f"{program}: no .c files")
        return srcs, inputs, program
    if not program.endswith(".c") or not os.path.isfile(program):
        raise CgrefError(f"{program}: not a .c file or a program folder")
    return [program], program[:-2] + ".inputs", os.path.dirname(program)


def parse_input_line(line, base_dir):
    """Shell words of one input line -> (args, stdin path or None).
    Returns None for blank and comment lines."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as e:
        raise CgrefError(f"bad input line {line!r}: {e}")
    if not words:
        return None
    args, stdin = [], None
    i = 0
    while i < len(words):
        w = words[i]
        if w == "<" or (w.startswith("<") and len(w) > 1):
            f = w[1:] if w != "<" else (words[i + 1]
                                        if i + 1 < len(words) else None)
            if not f:
                raise CgrefError(f"input line {line!r}: '<' without a file")
            if stdin is not None:
                raise CgrefError(f"input line {line!r}: two '<' redirections")
            stdin = f if os.path.isabs(f) else os.path.join(base_dir, f)
            i += 1 if w != "<" else 2
            continue
        args.append(w)
        i += 1
    return args, stdin


def read_inputs(inputs_file):
    """List of (index (1-based, in input order), args, stdin)."""
    if not os.path.exists(inputs_file):
        return [(1, [], None)]
    out = []
    base = os.path.dirname(os.path.abspath(inputs_file))
    with open(inputs_file) as f:
        for line in f:
            p = parse_input_line(line, base)
            if p is not None:
                out.append((len(out) + 1, p[0], p[1]))
    return out


# ---- caches ----

def parse_geometry(s, what):
    try:
        size, assoc, line = (int(x) for x in s.split(","))
    except ValueError:
        raise CgrefError(f"--{what}={s}: want SIZE,ASSOC,LINE")
    if min(size, assoc, line) <= 0:
        raise CgrefError(f"--{what}={s}: fields must be positive")
    return size, assoc, line


def geometry_args(d1, ll=None, i1=None):
    d1g = parse_geometry(d1, "D1")
    if ll is None:
        ll = f"{NEUTRAL_LL_SIZE},16,{d1g[2]}"
    parse_geometry(ll, "LL")
    i1 = i1 or DEFAULT_I1
    parse_geometry(i1, "I1")
    return [f"--I1={i1}", f"--D1={d1}", f"--LL={ll}"]


# ---- build and run ----

def build(sources, workdir, cflags=DEFAULT_CFLAGS, ldflags=DEFAULT_LDFLAGS,
          cc="clang"):
    """Compiles with absolute source paths (so cachegrind prints absolute
    file names); the executable's name depends on sources and flags."""
    h = hashlib.sha1()
    for s in sources:
        h.update(s.encode())
        with open(s, "rb") as f:
            h.update(f.read())
    h.update(cflags.encode() + b"\0" + ldflags.encode())
    base = os.path.splitext(os.path.basename(sources[0]))[0]
    if len(sources) > 1:
        base = os.path.basename(os.path.dirname(sources[0]))
    exe = os.path.join(workdir, f"{base}-{h.hexdigest()[:10]}")
    if os.path.exists(exe):
        return exe
    tmp = exe + f".tmp{os.getpid()}"
    cmd = [cc] + shlex.split(cflags) + ["-o", tmp] + sources + shlex.split(
        ldflags)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise CgrefError("compile failed: " + " ".join(cmd) + "\n" +
                         r.stderr.strip())
    os.replace(tmp, exe)
    return exe


def parse_cg_out(path):
    """cachegrind.out -> (events, rows [(file, fn, line, {ev: n})], summary)"""
    events, rows, summary = None, [], None
    fl = fn = None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line[0].isdigit():
                if events is None or fl is None or fn is None:
                    raise CgrefError(f"{path}:{n}: count line out of place")
                parts = line.split()
                try:
                    vals = [int(x) for x in parts[1:]]
                except ValueError:
                    raise CgrefError(f"{path}:{n}: bad count line")
                if len(vals) > len(events):
                    raise CgrefError(f"{path}:{n}: more counts than events")
                c = dict(zip(events, vals + [0] * (len(events) - len(vals))))
                rows.append((fl, fn, int(parts[0]), c))
            elif line.startswith("fl="):
                fl, fn = line[3:], None
            elif line.startswith("fn="):
                fn = line[3:]
            elif line.startswith("events:"):
                events = line[7:].split()
            elif line.startswith("summary:"):
                if events is None:
                    raise CgrefError(f"{path}:{n}: summary before events")
                vals = [int(x) for x in line[8:].split()]
                summary = dict(zip(events, vals))
    if events is None or summary is None:
        raise CgrefError(f"{path}: not a complete cachegrind output")
    return events, rows, summary


def own_file(cg_name, own_dir, sources):
    """cachegrind's file name -> whether it is one of the program's own
    files: one of its sources, or a .c/.h file in the program's folder."""
    p = os.path.normpath(cg_name if os.path.isabs(cg_name) else
                         os.path.join(own_dir, cg_name))
    if p in sources:
        return True
    return os.path.dirname(p) == own_dir and p.endswith((".c", ".h"))


def run_reference(program, index=None, input_line=None, d1="32768,8,64",
                  ll=None, i1=None, cflags=DEFAULT_CFLAGS,
                  ldflags=DEFAULT_LDFLAGS, workdir=None, lines=False,
                  timeout=600):
    """Runs one input of a program under cachegrind; returns a dict."""
    sources, inputs_file, own_dir = program_files(program)
    if input_line is not None:
        p = parse_input_line(input_line, os.path.dirname(inputs_file))
        args, stdin = p if p else ([], None)
        idx = index or 1
    else:
        inputs = read_inputs(inputs_file)
        idx = index or 1
        if not 1 <= idx <= len(inputs):
            raise CgrefError(f"{inputs_file}: no input {idx} "
                             f"({len(inputs)} inputs)")
        _, args, stdin = inputs[idx - 1]
    geo = geometry_args(d1, ll, i1)
    own_tmp = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="cgref-")
    try:
        exe = build(sources, workdir, cflags, ldflags)
        with tempfile.TemporaryDirectory(dir=workdir) as td:
            out = os.path.join(td, "cachegrind.out")
            log = os.path.join(td, "valgrind.log")
            cmd = (["env", "-i", "valgrind", "--tool=cachegrind",
                    "--cache-sim=yes"] + geo +
                   [f"--cachegrind-out-file={out}", f"--log-file={log}", exe]
                   + args)
            stdin_f = open(stdin) if stdin else subprocess.DEVNULL
            try:
                r = subprocess.run(cmd, stdin=stdin_f,
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, cwd=workdir,
                                   timeout=timeout)
            finally:
                if stdin:
                    stdin_f.close()
            if not os.path.exists(out):
                tail = ""
                if os.path.exists(log):
                    with open(log) as f:
                        tail = " | ".join(f.read().splitlines()[-4:])
                raise CgrefError(f"cachegrind wrote no output for {exe}: "
                                 f"{tail or r.stderr.strip()}")
            events, rows, summary = parse_cg_out(out)
    except subprocess.TimeoutExpired:
        raise CgrefError(f"{program} input {idx}: timed out after {timeout}s")
    finally:
        if own_tmp:
            shutil.rmtree(workdir, ignore_errors=True)
    own = {k: 0 for k in OWN_KEYS}
    per_line = {}
    cache = {}
    for fl, fn, ln, c in rows:
        if fl not in cache:
            cache[fl] = own_file(fl, own_dir, sources)
        if not cache[fl]:
            continue
        for k in OWN_KEYS:
            own[k] += c.get(k, 0)
        if lines:
            key = (fl, ln, fn)
            e = per_line.setdefault(key, {k: 0 for k in OWN_KEYS})
            for k in OWN_KEYS:
                e[k] += c.get(k, 0)
    res = {
        "program": os.path.abspath(program),
        "sources": sources,
        "exe": exe,
        "cwd": workdir,
        "cflags": cflags,
        "ldflags": ldflags,
        "input": {"index": idx, "args": args, "stdin": stdin},
        "cache": dict(g[2:].split("=", 1) for g in geo),
        "exit_code": r.returncode,
        "own": own,
        "summary": {k: summary.get(k, 0) for k in EVENTS},
    }
    if lines:
        res["lines"] = [dict(file=k[0], line=k[1], function=k[2], **v)
                        for k, v in sorted(per_line.items(),
                                           key=lambda kv: (kv[0][0],
                                                           kv[0][1]))]
    return res


# ---- comparison with a cbana report ----

L1D_NAMES = ("L1D", "L1d", "l1d", "D1", "L1")


def report_l1d_misses(run, cache_name=None, level=None):
    """Own-code L1D misses of one run of a cbana report: the sum over
    `lines` of misses[LEVEL] of the chosen cache."""
    caches = run.get("caches") or []
    if not caches:
        raise CgrefError("report run has no caches")
    if cache_name is not None:
        cs = [c for c in caches if c.get("name") == cache_name]
        if not cs:
            raise CgrefError(f"report has no cache named {cache_name!r}")
        cache = cs[0]
    elif len(caches) == 1:
        cache = caches[0]
    else:
        raise CgrefError("report has several caches: name one (--cache)")
    lv = level
    if lv is None:
        names = list((cache.get("levels") or {}).keys())
        cand = [n for n in L1D_NAMES if n in names]
        if not cand:
            raise CgrefError(f"no L1D level among {names}")
        lv = cand[0]
    total = 0
    for ln in cache.get("lines") or []:
        total += int((ln.get("misses") or {}).get(lv, 0))
    return total


def gap_ok(predicted, measured):
    """The gap rule: |predicted - measured| <= max(1% of measured, 20)."""
    return abs(predicted - measured) <= max(0.01 * measured, 20)


def compare(report, refs, cache_name=None, level=None):
    """Checks a cbana report (dict) against cgref results (one per input,
    matched by input index). Returns a list of failure messages (empty when
    every run is within the gap rule)."""
    by_index = {r["input"]["index"]: r for r in refs}
    fails = []
    runs = report.get("runs")
    if not isinstance(runs, list) or not runs:
        return ["report has no runs"]
    for run in runs:
        idx = (run.get("input") or {}).get("index")
        ref = by_index.get(idx)
        if ref is None:
            fails.append(f"input {idx}: no cachegrind reference")
            continue
        try:
            pred = report_l1d_misses(run, cache_name, level)
        except CgrefError as e:
            fails.append(f"input {idx}: {e}")
            continue
        meas = ref["own"]["D1mr"] + ref["own"]["D1mw"]
        if not gap_ok(pred, meas):
            fails.append(f"input {idx} ({' '.join(ref['input']['args'])}): "
                         f"cbana L1D misses {pred}, cachegrind {meas}, "
                         f"gap {pred - meas} > max(1%, 20)")
    return fails


# ---- self test over the corpus ----

GEOMETRIES = (("32768,8,64", "1048576,16,64"), ("32768,2,64", None))


def corpus_programs(corpus):
    out = []
    for f in sorted(os.listdir(corpus)):
        p = os.path.join(corpus, f)
        if f.endswith(".c") and os.path.exists(p[:-2] + ".inputs"):
            out.append(p)
        elif os.path.isdir(p) and os.path.exists(os.path.join(p, "inputs")):
            out.append(p)
    return out


def sanity(res):
    """Checks that can fail on any run; returns messages."""
    o, bad = res["own"], []
    if any(not isinstance(v, int) or v < 0 for v in o.values()):
        bad.append(f"bad counts {o}")
    if o["D1mr"] > o["Dr"] or o["D1mw"] > o["Dw"]:
        bad.append(f"D1 misses exceed accesses: {o}")
    if o["DLmr"] > o["D1mr"] or o["DLmw"] > o["D1mw"]:
        bad.append(f"LL misses exceed D1 misses: {o}")
    if o["Dr"] + o["Dw"] == 0:
        bad.append("no own-code data accesses at all")
    s = res["summary"]
    if o["Dr"] > s["Dr"] or o["Dw"] > s["Dw"]:
        bad.append("own counts exceed the summary")
    return bad


def stride_expected_read_misses(n=1 << 20, elem=8, line=64, stride=8,
                                reps=2, l1=32768):
    """stride_global.c from first principles: a[] (n doubles) is written
    once in order (those misses are write misses), then read `reps` times
    with the given stride. The array (8 MiB) is far larger than L1, so no
    line survives from one pass to the next: each pass's reads miss once
    per distinct line they touch."""
    assert n * elem > 4 * l1
    per_line = line // elem
    lines_touched = len({(i * elem) // line for i in range(0, n, stride)}) \
        if stride < per_line else (n + stride - 1) // stride
    return reps * lines_touched, n * elem // line


def cached_reference(program, idx, d1, ll, cache_dir, cflags=DEFAULT_CFLAGS):
    """run_reference of one input in cache_dir (the programs' working
    directory), kept there as JSON keyed by executable, input and geometry:
    analyze_corpus.py and the selftest share one run of each."""
    sources, _, _ = program_files(program)
    os.makedirs(cache_dir, exist_ok=True)
    exe = build(sources, cache_dir, cflags)
    key = f"{os.path.basename(exe)}-{idx}-{d1}-{ll}".replace(",", "_")
    path = os.path.join(cache_dir, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    res = run_reference(program, idx, None, d1, ll, cflags=cflags,
                        workdir=cache_dir)
    tmp = path + f".tmp{os.getpid()}.{threading.get_ident()}"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, path)
    return res


def selftest(corpus, jobs=2, verbose=False, cache_dir=None):
    progs = corpus_programs(corpus)
    if not progs:
        print(f"selftest: no programs in {corpus}")
        return 1
    # with cache_dir: analyze_corpus.py's runs (the same builds, inputs and
    # geometries), made once for both
    workdir = cache_dir or tempfile.mkdtemp(prefix="cgref-selftest-")
    if cache_dir:
        os.makedirs(cache_dir, exist_ok=True)
    fails = []
    try:
        tasks = []
        for p in progs:
            srcs, inputs_file, _ = program_files(p)
            build(srcs, workdir)  # once per program, before the pool
            for idx, _, _ in read_inputs(inputs_file):
                for d1, ll in GEOMETRIES:
                    tasks.append((p, idx, d1, ll))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            if cache_dir:
                futs = {ex.submit(cached_reference, p, idx, d1, ll,
                                  cache_dir): (p, idx, d1, ll)
                        for (p, idx, d1, ll) in tasks}
            else:
                futs = {ex.submit(run_reference, p, idx, None, d1, ll, None,
                                  DEFAULT_CFLAGS, DEFAULT_LDFLAGS, workdir,
                                  False, 300): (p, idx, d1, ll)
                        for (p, idx, d1, ll) in tasks}
            results = {}
            for fut in concurrent.futures.as_completed(futs):
                key = futs[fut]
                name = f"{os.path.basename(key[0])} #{key[1]} D1={key[2]}"
                try:
                    res = fut.result()
                except CgrefError as e:
                    fails.append(f"{name}: {e}")
                    continue
                results[key] = res
                for b in sanity(res):
                    fails.append(f"{name}: {b}")
                if verbose:
                    print(f"{name}: {json.dumps(res['own'])}")
        # stride_global.c, stride 8, 2 reps: first-principles read misses.
        sg = [p for p in progs if os.path.basename(p) == "stride_global.c"]
        if sg:
            _, inputs_file, _ = program_files(sg[0])
            idx = [i for i, a, s in read_inputs(inputs_file)
                   if a == ["8", "2"]]
            if not idx:
                fails.append("stride_global: no input '8 2'")
            else:
                key = (sg[0], idx[0], GEOMETRIES[0][0], GEOMETRIES[0][1])
                res = results.get(key)
                want, wlines = stride_expected_read_misses()
                if res is None:
                    fails.append("stride_global '8 2': no result")
                else:
                    got = res["own"]["D1mr"]
                    if abs(got - want) > 0.01 * want:
                        fails.append(f"stride_global '8 2': D1 read misses "
                                     f"{got}, first principles {want}")
                    gw = res["own"]["D1mw"]
                    if abs(gw - wlines) > 0.01 * wlines:
                        fails.append(f"stride_global '8 2': D1 write misses "
                                     f"{gw}, first principles {wlines}")
    finally:
        if not cache_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"selftest: {len(tasks)} runs, {len(fails)} failures")
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


# ---- command line ----

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def geo(p):
        p.add_argument("--D1", default="32768,8,64")
        p.add_argument("--LL", default=None)
        p.add_argument("--I1", default=None)
        p.add_argument("--cflags", default=DEFAULT_CFLAGS)
        p.add_argument("--ldflags", default=DEFAULT_LDFLAGS)
        p.add_argument("--workdir", default=None)

    r = sub.add_parser("run", help="cachegrind reference for inputs")
    r.add_argument("program")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--index", type=int, help="1-based input (default: all)")
    g.add_argument("--input", help="an input line instead of the file's")
    r.add_argument("--lines", action="store_true", help="per-line counts")
    geo(r)
    c = sub.add_parser("compare", help="check a cbana JSON report")
    c.add_argument("report")
    c.add_argument("program")
    c.add_argument("--cache", default=None, help="cache name in the report")
    c.add_argument("--level", default=None, help="L1D level name")
    geo(c)
    s = sub.add_parser("selftest", help="sanity over a corpus")
    s.add_argument("--corpus", required=True)
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--verbose", action="store_true")
    s.add_argument("--cache-dir", default=None,
                   help="keep and reuse the runs here (analyze_corpus.py's)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "selftest":
            return selftest(a.corpus, a.jobs, a.verbose, a.cache_dir)
        if a.cmd == "run":
            if a.input is not None:
                res = [run_reference(a.program, None, a.input, a.D1, a.LL,
                                     a.I1, a.cflags, a.ldflags, a.workdir,
                                     a.lines)]
            else:
                _, inputs_file, _ = program_files(a.program)
                idxs = [a.index] if a.index else [
                    i for i, _, _ in read_inputs(inputs_file)]
                res = [run_reference(a.program, i, None, a.D1, a.LL, a.I1,
                                     a.cflags, a.ldflags, a.workdir, a.lines)
                       for i in idxs]
            json.dump(res[0] if len(res) == 1 else res, sys.stdout, indent=1)
            print()
            return 0
        with open(a.report) as f:
            report = json.load(f)
        refs = [run_reference(a.program, (run.get("input") or {}).get(
            "index"), None, a.D1, a.LL, a.I1, a.cflags, a.ldflags, a.workdir)
            for run in report.get("runs") or []]
        fails = compare(report, refs, a.cache, a.level)
        for f in fails:
            print("FAIL " + f)
        print("compare: " + ("ok" if not fails else f"{len(fails)} failures"))
        return 1 if fails else 0
    except (CgrefError, OSError, json.JSONDecodeError) as e:
        print(f"cgref: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
