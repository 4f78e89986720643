#!/usr/bin/env python3
"""End-to-end: C library functions of the model on their test programs
(tests/e2e/data/libc): strcasecmp, /dev/null as a file, sleep and
getrusage, fgetpos and fsetpos, cabs and cexp, signal and isatty, getopt,
index and rindex, getpid and difftime, printf's `*` widths, fclose,
rewind and ftell on the standard streams, localtime, gmtime, asctime,
ctime and their _r forms (the native run without TZ, as the model's
process), uname, rename, getopt_long, setlocale, scanf's %*; sscanf and
fscanf's, acos's and qsort's own traffic (a 32 KiB walk after each call turns every
L1D set the library touches into eight misses of the program's), the
FILE streams' mallocs and frees with malloc's traffic.

For every program and input line of its .inputs file:
  - the output of `cbana analyze` equals the native executable's, and
    /dev/null is not reported as a file written (file_pos's temporary
    file is, removed at the end);
  - the JSON report of the default engine equals --exact-engine's;
  - with valgrind: `cbana validate` passes, own-code accesses equal
    cachegrind's, and, for the programs listed in PER_LINE, every line's
    accesses equal cachegrind's and its L1D misses within one; for those
    in WHOLE, the whole process's L1D misses within that many of
    cachegrind's.

  libc_models.py CBANA DATA_DIR [--only NAME ...]
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from e2e_quick import first

PROGRAMS = ["strcasecmp", "devnull", "sleep_rusage", "file_pos",
            "complex_abs_exp", "signal_isatty", "getopt_args",
            "index_rindex", "pid_difftime", "printf_star", "std_streams",
            "time_conv", "uname_rename", "getopt_long_args", "locale_c",
            "scanf_family", "acos_ranges", "qsort_variants", "scanf_suppress",
            "fopen_first", "stdin_first"]
# data files a program reads (its stdin: `< FILE` in its .inputs, or a
# file it opens), copied into the working directory
DATA = {"std_streams": ["std_streams.in"], "stdin_first": ["stdin_first.in"]}
# whole-process L1D misses allowed off cachegrind's by this many:
# fopen_first's streams are about 1900 misses, of which the first malloc's
# set-up (about 55) ran inside fopen unseen before; what is left, fopen's
# and fclose's own work (about 200 and 120 accesses a call, hits mostly),
# is not modelled (docs/process-model.md 9.4)
# stdin_first: the first malloc inside scanf was as unseen (-65 misses)
WHOLE = {"fopen_first": 20, "stdin_first": 20}
# complex_abs_exp: one spill a call is on line 0 for cachegrind and on
# the call's line for cbana (the machine code's line table), so only its
# totals are compared
PER_LINE = {"strcasecmp", "devnull", "sleep_rusage", "file_pos",
            "signal_isatty", "index_rindex", "pid_difftime", "std_streams",
            "time_conv", "uname_rename", "getopt_long_args", "locale_c",
            "acos_ranges", "scanf_suppress"}
# validate's --tolerance (percent) where the default's 1% is not met:
# scanf_family's run_f, run_s and run_c miss 2.6% to 3.6% more than
# cachegrind in most stack phases (6 of 8 working directories tried): the
# program's frames are the real ones (tests/e2e/stack_frames.sh), but the
# modelled vfscanf touches about one L1D set a call more than glibc's
# there, and the 32 KiB walk turns each set into eight misses (without
# glibc's scanf traffic the gap was -70% to -84%)
TOLERANCE = {"scanf_family": "4"}
# own accesses allowed off by this many: run_file's exit path has one
# spill on line 0 that the engine's pairing leaves out (3 against 2);
# qsort_variants' main counts two accesses a round more on line 0 than
# cachegrind (40 in 20 rounds, with or without qsort's model)
# fopen_first's main counts two or three accesses off cachegrind's on
# every input (with or without the streams' malloc traffic; not traced)
ACC_SLACK = {"scanf_family": 1, "qsort_variants": 40, "fopen_first": 3}
# A line's L1D misses may differ by one: the library traffic around the
# functions tested is not all exact (aligned_alloc's, the FILE streams'
# internals, docs/process-model.md 9.4), and moves a line's eviction.
MISS_SLACK = 1


# as the model's process (`env -i`): no TZ (glibc reads /etc/localtime;
# cbana refuses a TZ of its own that the process would not have), no
# locale variables
ENV = {k: v for k, v in os.environ.items()
       if k not in ("TZ", "LANG", "LANGUAGE") and not k.startswith("LC_")}


def inputs_of(path):
    out = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(shlex.split(line))
    return out


def validate_blocks(text):
    """[(own_acc_cbana, own_acc_cg, {line: (acc, cg_acc, l1, cg_l1)},
    (whole_l1_cbana, whole_l1_cg))]"""
    blocks = []
    for part in re.split(r"\ninput \d+:", text)[1:]:
        m = re.search(r"own code.*?\n\s+accesses\s+(\d+)\s+(\d+)", part, re.S)
        w = re.search(r"whole process.*?\n\s+L1D misses\s+(\d+)\s+(\d+)",
                      part, re.S)
        lines = {}
        for lm in re.finditer(r"^\s+(\S+\.[ch]):(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                              r"\s+(\d+)\s*$", part, re.M):
            lines[(lm.group(1), lm.group(2))] = tuple(
                int(lm.group(k)) for k in range(3, 7))
        blocks.append((int(m.group(1)), int(m.group(2)), lines,
                       (int(w.group(1)), int(w.group(2))) if w else None)
                      if m else None)
    return blocks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cbana")
    ap.add_argument("data")
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    cbana = os.path.abspath(o.cbana)
    passed = failed = 0

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    tmp = tempfile.mkdtemp(prefix="libc-models-")
    try:
        for name in first(PROGRAMS):  # quick: the first program
            if o.only and name not in o.only:
                continue
            src = os.path.abspath(os.path.join(o.data, name + ".c"))
            inp = os.path.abspath(os.path.join(o.data, name + ".inputs"))
            exe = os.path.join(tmp, name)
            for d in DATA.get(name, []):
                shutil.copy(os.path.join(o.data, d), tmp)
            subprocess.run(["clang", "-O2", "-o", exe, src, "-lm"],
                           check=True, capture_output=True)
            reports = {}
            for eng in ("default", "exact"):
                cmd = [cbana, "analyze", src, "--inputs", inp, "--format",
                       "json", "--quiet"]
                if eng == "exact":
                    cmd.append("--exact-engine")
                r = subprocess.run(cmd, cwd=tmp, capture_output=True, env=ENV,
                                   text=True, timeout=900)
                check(r.returncode == 0,
                      f"{name}: analyze ({eng}) exit {r.returncode}: "
                      f"{r.stderr[-500:]}")
                reports[eng] = r.stdout
            check(reports["default"] == reports["exact"],
                  f"{name}: default and exact engines' reports differ")
            runs = json.loads(reports["default"])["runs"]
            # a blank .inputs line is no input set (docs/inputs-format.md):
            # a program without arguments says `< /dev/null`
            check(len(runs) == len(inputs_of(inp)) > 0,
                  f"{name}: {len(runs)} runs for {len(inputs_of(inp))} "
                  f"input lines")
            for i, args in enumerate(inputs_of(inp)):
                # stdout a regular file, as `cbana validate` runs it
                fin = None
                if "<" in args:
                    fin = open(os.path.join(tmp, args[args.index("<") + 1]))
                    args = args[:args.index("<")]
                with tempfile.TemporaryFile("w+", dir=tmp) as fout:
                    env = ENV
                    nat = subprocess.run([exe, *args], cwd=tmp, stdin=fin,
                                         stdout=fout, stderr=subprocess.PIPE,
                                         text=True, timeout=120, env=env)
                    fout.seek(0)
                    nat.stdout = fout.read()
                if fin:
                    fin.close()
                run = runs[i]
                check(run["output"] == nat.stdout,
                      f"{name} {args}: output differs from the native run's")
                check(run.get("exit_code", 0) == nat.returncode,
                      f"{name} {args}: exit {run.get('exit_code')} against "
                      f"{nat.returncode}")
                written = [w["path"] for w in run.get("files_written") or []]
                check("/dev/null" not in written and
                      all(not w.get("bytes")
                          for w in run.get("files_written") or []),
                      f"{name} {args}: files reported written: {written}")
            if not shutil.which("valgrind"):
                continue
            tol = ["--tolerance", TOLERANCE[name]] if name in TOLERANCE \
                else []
            r = subprocess.run([cbana, "validate", src, "--inputs", inp, *tol],
                               env=ENV,
                               cwd=tmp, capture_output=True, text=True,
                               timeout=1800)
            check(r.returncode == 0, f"{name}: validate exit {r.returncode}")
            for i, b in enumerate(validate_blocks(r.stdout)):
                if b is None:
                    check(False, f"{name} input {i + 1}: no own-code rows")
                    continue
                acc, cg_acc, lines, whole = b
                check(abs(acc - cg_acc) <= ACC_SLACK.get(name, 0),
                      f"{name} input {i + 1}: own accesses {acc}, "
                      f"cachegrind {cg_acc}")
                if name in WHOLE:
                    check(whole is not None and
                          abs(whole[0] - whole[1]) <= WHOLE[name],
                          f"{name} input {i + 1}: whole-process L1D misses "
                          f"{whole}, allowed {WHOLE[name]} apart")
                if name not in PER_LINE:
                    continue
                check(len(lines) >= 5, f"{name}: only {len(lines)} lines")
                for (f, ln), (a, ca, m, cm) in lines.items():
                    check(a == ca and abs(m - cm) <= MISS_SLACK,
                          f"{name} input {i + 1} {f}:{ln}: accesses {a} "
                          f"({ca}), L1D misses {m} ({cm})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
