#!/usr/bin/env python3
"""Random programs: csmith's programs, run natively and modelled by cbana.

For each seed, `csmith --seed S` (with CSMITH_ARGS: few functions, so the
programs stay small; every construct csmith generates by default stays on)
writes a program that prints a checksum of its globals. It is built with
clang-14 at the given -O level and run with a time limit: a seed whose run
does not finish within --native-limit seconds is skipped (it is for other
benchmarks, not this check), and so is one whose native run dies of a
signal. Otherwise cbana analyzes it twice, with the default engine and with
--exact-engine, and both must finish with the native run's standard output
and exit status; the fast engine's JSON report must also equal the
reference interpreter's (fast_identity.py's comparison). With --validate,
`cbana validate` runs it under cachegrind too and must pass: own-code
accesses and L1D misses within max(1%, 20), the output and exit status
the real run's. A seed cbana
refuses (an unsupported construct, a library function it does not model)
or stops (its operation budget) is a failure, with cbana's message.

  csmith_check.py CBANA [--seeds 1-100 | --seeds 3,7,12-15] [--opt=-O2]
                  [--jobs N] [--native-limit S] [--cbana-timeout S]
                  [--validate] [--summary FILE.md]

Prints a line per seed and "N passed, N failed, N skipped"; exits 1 when a
seed failed or none passed. --summary writes the counts and the failures
grouped by cbana's message (numbers and names taken out), in Markdown.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fast_identity import first_difference, run, run_cases  # noqa: E402

CSMITH_ARGS = ["--max-funcs", "4"]
CSMITH_INCLUDE = "/usr/include/csmith"


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        seeds += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return seeds


def generate(seed, path):
    # csmith writes platform.info into its working directory
    r = subprocess.run(["csmith", "--seed", str(seed), *CSMITH_ARGS,
                        "--output", path], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.abspath(path)))
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError(f"csmith --seed {seed} failed: {r.stderr[-300:]}")


def native(src, flags, work, limit):
    """(stdout bytes, exit status, seconds) of the native run; None for
    the status when it was killed at the limit, a negative status for a
    signal."""
    exe = os.path.join(work, "prog")
    r = subprocess.run(["clang-14", *flags, "-o", exe, src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("native build failed: " + r.stderr[-300:])
    t0 = time.monotonic()
    try:
        p = subprocess.run([exe], cwd=work, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return b"", None, time.monotonic() - t0
    return p.stdout, p.returncode, time.monotonic() - t0


def engine_problems(report, err, out, status, engine):
    if report is None:
        return [f"{engine}: cbana {err.strip()}"]
    runs = report.get("runs") or []
    if len(runs) != 1:
        return [f"{engine}: {len(runs)} runs in the report"]
    r = runs[0]
    if r.get("status") != "ok":
        e = r.get("error") or {}
        return [f"{engine}: stopped: {e.get('message')} "
                f"(line {e.get('line')})"]
    probs = []
    if r.get("output", "").encode("utf-8", "surrogateescape") != out:
        probs.append(f"{engine}: output {r.get('output')!r}, native "
                     f"{out.decode(errors='replace')!r}")
    if r.get("exit_code") != status:
        probs.append(f"{engine}: exit status {r.get('exit_code')}, native "
                     f"{status}")
    return probs


def validate_problems(cbana, src, args, work, timeout):
    """`cbana validate`'s verdict: [] when it passed, else the lines of
    its report that say what is out (accesses, misses, output)."""
    try:
        r = subprocess.run([cbana, "validate", src, *args, "--quiet"],
                           cwd=work, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return [f"validate: timed out after {timeout} s"]
    if r.returncode == 0:
        return []
    bad = [" ".join(ln.split()) for ln in r.stdout.splitlines()
           if "OUT OF TOLERANCE" in ln or "DIFFERS" in ln or
           "not compared" in ln or "failed" in ln]
    return ["validate: " + ("; ".join(bad) if bad else
                            f"exit {r.returncode}: {r.stderr.strip()[-200:]}")]


def make_check(opt, native_limit, cbana_timeout, keep, validate=False):
    flags = [opt, "-w", f"-I{CSMITH_INCLUDE}"]

    def check(cbana, name, sources, extra, cwd):
        seed = int(name.split()[-1])
        work = tempfile.mkdtemp(prefix=f"csmith-{seed}-", dir=keep)
        src = os.path.join(work, f"seed{seed}.c")
        try:
            generate(seed, src)
            out, status, secs = native(src, flags, work, native_limit)
            if status is None:
                return name, None, f"native run over {native_limit:g} s"
            if status < 0:
                return name, None, f"native run died of signal {-status}"
            args = ["--cflags", " ".join(flags), "--args", ""]
            fast, e1 = run(cbana, [src], args, False, work,
                           timeout=cbana_timeout)
            fails = engine_problems(fast, e1, out, status, "default")
            exact, e2 = run(cbana, [src], args, True, work,
                            timeout=cbana_timeout)
            fails += engine_problems(exact, e2, out, status, "exact")
            if fast is not None and exact is not None:
                d = first_difference(fast, exact)
                if d:
                    fails.append(f"fast report differs from the exact "
                                 f"one: {d}")
            if validate and not fails:
                fails += validate_problems(cbana, src, args, work,
                                           cbana_timeout)
            ops = ((fast or exact or {}).get("runs") or [{}])[0].get(
                "operations")
            return name, fails, f"native {secs:.2f} s, {ops} operations"
        except RuntimeError as e:
            return name, [str(e)], ""
        finally:
            if not keep:
                shutil.rmtree(work, ignore_errors=True)
    return check


def reason(fail):
    """A failure's cause, to group seeds: cbana's own message when it has
    one, with its particulars (numbers, quoted values, the width of an
    odd-width integer type) taken out."""
    m = fail.strip().splitlines()[0] if fail.strip() else ""
    e = re.search(r"error: (.*)", fail)
    if e:
        m = e.group(1)
    m = re.sub(r"^(default|exact): ", "", m)
    m = re.sub(r"\S*/", "", m)
    m = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", m)
    m = re.sub(r"\bi\d+\b", "iN", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:160]


def write_summary(path, a, passed, failed, skipped, results):
    groups = {}
    for name, fails, _ in results:
        if fails:
            key = reason(fails[0])
            groups.setdefault(key, []).append(name.split()[-1])
    lines = ["# csmith check", "",
             f"`tests/e2e/csmith_check.py CBANA --seeds {a.seeds} --opt="
             f"{a.opt}{' --validate' if a.validate else ''}`: csmith "
             f"{' '.join(CSMITH_ARGS)}, built with clang-14 "
             f"{a.opt}; seeds whose native run takes over "
             f"{a.native_limit:g} s are skipped; cbana's default engine and "
             f"--exact-engine must give the native output and exit status, "
             f"and equal reports" + (", and `cbana validate` pass (own-code "
             f"accesses and L1D misses within max(1%, 20) of cachegrind's)"
             if a.validate else "") + ".", "",
             f"{passed} passed, {failed} failed, {skipped} skipped", "",
             "## Failures by cause (first failure of each seed)", "",
             "| seeds | cause |", "| --- | --- |"]
    for key, seeds in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        shown = ", ".join(seeds[:12]) + (" ..." if len(seeds) > 12 else "")
        lines.append(f"| {len(seeds)}: {shown} | {key.replace('|', '/')} |")
    widths = {}
    for name, fails, _ in results:
        for f in fails or []:
            m = re.search(r"memory access of type (i\d+)", f)
            if m:
                widths.setdefault(m.group(1), set()).add(name.split()[-1])
    if widths:
        lines += ["", "Integer widths refused (seeds): " + ", ".join(
            f"{w} ({len(v)})" for w, v in
            sorted(widths.items(), key=lambda kv: (-len(kv[1]),
                                                   int(kv[0][1:]))))]
    skips = {}
    for name, fails, note in results:
        if fails is None:
            skips.setdefault(re.sub(r"\d+(\.\d+)?", "N", note), []).append(
                name.split()[-1])
    if skips:
        lines += ["", "## Skipped", "", "| seeds | why |", "| --- | --- |"]
        for key, seeds in sorted(skips.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"| {len(seeds)}: {', '.join(seeds)} | {key} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cbana")
    ap.add_argument("--seeds", default="1-100")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--native-limit", type=float, default=1.0)
    ap.add_argument("--cbana-timeout", type=int, default=600)
    ap.add_argument("--summary", default=None)
    ap.add_argument("--keep", default=None,
                    help="keep each seed's program and build here")
    ap.add_argument("--validate", action="store_true",
                    help="also `cbana validate` each seed against cachegrind")
    a = ap.parse_args()
    if shutil.which("csmith") is None:
        print("csmith is not installed (scripts/setup.sh installs it)")
        return 1
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    cbana = os.path.abspath(a.cbana)
    cases = [(f"seed {s}", [], [], None) for s in parse_seeds(a.seeds)]
    check = make_check(a.opt, a.native_limit, a.cbana_timeout, a.keep,
                       a.validate)
    passed, failed, results = run_cases(cbana, cases, check, a.jobs,
                                        note=lambda r: r[2])
    skipped = sum(1 for r in results if r[1] is None)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if a.summary:
        write_summary(a.summary, a, passed, failed, skipped, results)
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
