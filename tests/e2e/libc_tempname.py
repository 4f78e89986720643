#!/usr/bin/env python3
"""End-to-end: mktemp (analysis/process/libc_tempname.c) on
tests/e2e/data/libc/mktemp_names.c, for every input line:
  - the output of `cbana analyze` equals the native executable's;
  - the JSON report of the default engine equals --exact-engine's, and
    the native kernels' (--wait-kernels);
  - nothing is reported as a file written;
  - with valgrind: the library's accesses of every mktemp call site
    (cbana's `calls` rows) equal lackey's count between the `call` and
    its return (the return address's store excluded: it is the caller's),
    the first call excluded (its PLT slot's lazy binding is ld.so's, not
    mktemp's); a real run's mktemp draws a second random value on about
    4.5 % of calls (tempname.c's unfair range), which the model does not:
    those calls' extra accesses (RANDOM_BITS_EXTRA each, found in the
    trace by their extra load of __libc_single_threaded, one more 1-byte
    load from libc than a call's eight: six letters, "X", the flag) are
    taken out of lackey's count, which must then equal cbana's.

  libc_tempname.py CBANA DATA_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libc_models import inputs_of  # noqa: E402

NAME = "mktemp_names"
# accesses of a second random_bits call (lackey): getrandom's call and
# return, its test of __libc_single_threaded, the value's store and load
RANDOM_BITS_EXTRA = 5
# 1-byte loads from libc in a call: six letters, the accept string "X",
# __libc_single_threaded
ONE_BYTE_LIBC_LOADS = 8


def call_sites(exe):
    """{address of a `call mktemp@plt`: source line}"""
    dis = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", exe],
                         capture_output=True, text=True, check=True).stdout
    sites, line = {}, None
    for ln in dis.splitlines():
        m = re.match(r"^/.*:(\d+)", ln)
        if m:
            line = int(m.group(1))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+call\s+[0-9a-f]+ <mktemp@plt>", ln)
        if m:
            sites[int(m.group(1), 16)] = line
    return sites


def lackey_counts(exe, args, cwd, text_lo, text_hi):
    """[(site address, accesses from the call's return-address store
    excluded up to the return)] in call order"""
    log = os.path.join(cwd, "lackey.log")
    subprocess.run(["env", "-i", "valgrind", "--tool=lackey",
                    "--trace-mem=yes", "--log-file=" + log,
                    "./" + os.path.basename(exe), *args],
                   cwd=cwd, capture_output=True, check=True, timeout=600)
    return log


def main():
    cbana, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    src = os.path.abspath(os.path.join(data, NAME + ".c"))
    inp = os.path.abspath(os.path.join(data, NAME + ".inputs"))
    passed = failed = 0

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    tmp = tempfile.mkdtemp(prefix="libc-tempname-")
    try:
        exe = os.path.join(tmp, NAME)
        # as cbana builds and runs it (program.argv0 "./NAME" in the
        # working directory, -lm): the stack's strings, so the stack
        # templates' alignment, are the same
        subprocess.run(["clang", "-O2", "-g", "-o", exe, src, "-lm"],
                       check=True, capture_output=True)
        reports = {}
        for eng, extra in (("default", []), ("exact", ["--exact-engine"]),
                           ("kernels", ["--wait-kernels"])):
            r = subprocess.run([cbana, "analyze", src, "--inputs", inp,
                                "--format", "json", "--quiet", *extra],
                               cwd=tmp, capture_output=True, text=True,
                               timeout=900)
            check(r.returncode == 0, f"analyze ({eng}) exit {r.returncode}: "
                  f"{r.stderr[-500:]}")
            reports[eng] = r.stdout
        check(reports["default"] == reports["exact"],
              "default and exact engines' reports differ")
        check(reports["kernels"] == reports["exact"],
              "native kernels' and exact engine's reports differ")
        runs = json.loads(reports["default"])["runs"]
        sites = call_sites(exe)
        check(len(sites) == 4, f"call sites of mktemp: {sites}")
        for i, args in enumerate(inputs_of(inp)):
            nat = subprocess.run([exe, *args], cwd=tmp, capture_output=True,
                                 text=True, timeout=120)
            run = runs[i]
            check(run["output"] == nat.stdout and nat.returncode == 0,
                  f"{args}: output {run['output']!r} against {nat.stdout!r}")
            check(not run.get("files_written"),
                  f"{args}: files written {run.get('files_written')}")
            if not shutil.which("valgrind"):
                continue
            log = lackey_counts(exe, args, tmp, 0, 0)
            # valgrind places a PIE at 0x108000
            base = 0x108000
            at = {base + a: ln for a, ln in sites.items()}
            per_line, extra_calls = {}, {}
            cur, n, first = None, 0, True
            for ln in open(log):
                m = re.match(r"^I\s+([0-9a-f]+)", ln)
                if m:
                    a = int(m.group(1), 16)
                    if cur is None and a in at:
                        cur, n, skip, ones = at[a], 0, True, 0
                        continue
                    if cur is not None and base + 0x1100 <= a < base + 0x100000 \
                            and not (base + 0x1000 <= a < base + 0x1100):
                        if not first:
                            n -= RANDOM_BITS_EXTRA * (ones - ONE_BYTE_LIBC_LOADS)
                            per_line[cur] = per_line.get(cur, 0) + n
                        first = False
                        cur = None
                    continue
                if cur is not None and ln[:2] in (" S", " L", " M"):
                    if skip:  # the call's own store of its return address
                        skip = False
                        continue
                    n += 1
                    m = re.match(r"^ L ([0-9a-f]+),1$", ln.rstrip())
                    if m and 0x4800000 <= int(m.group(1), 16) < 0x5000000:
                        ones += 1
            model = {}
            for row in run["caches"][0]["calls"]:
                if row["callee"] == "mktemp":
                    model[row["line"]] = row["accesses"]
            # the first call's row holds the binding: compare the others
            first_line = min(sites.values())
            check(len(per_line) == 3, f"{args}: lines {per_line}")
            for line, acc in sorted(per_line.items()):
                got = model.get(line, 0)
                if line == first_line:
                    continue
                check(acc == got and got >= 99 * int(args[0]),
                      f"{args} line {line}: lackey {acc}, cbana {got}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
