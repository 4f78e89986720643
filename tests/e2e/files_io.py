#!/usr/bin/env python3
"""End-to-end: programs that read and write files, against their native
runs and live cachegrind.

For each PROG.c with a PROG.inputs (and the data files beside them), every
input runs natively (env -i, in a scratch copy of the directory) and is
analysed by `cbana analyze` in another scratch copy. They must agree on
standard output, standard error, exit status and the files written (names
and sizes); the analysis must leave its directory as it found it (cbana
never writes the program's files). Then `cbana validate` compares own
L1D misses with cachegrind (its exit status).

  files_io.py CBANA PROG.c... [--no-validate]

Prints one line per input and "N passed, N failed"; exits 1 on a failure.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import e2e_quick  # noqa: F401 (CBANA_E2E_QUICK out of the environment)


def snapshot(d):
    return {f: os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)}


def input_lines(path):
    for n, ln in enumerate(open(path), 1):
        ln = ln.split("#")[0].strip()
        if ln:
            yield n, ln


def check(cbana, src, validate):
    d = os.path.dirname(os.path.abspath(src))
    name = os.path.basename(src)[:-2]
    inputs = os.path.join(d, name + ".inputs")
    fails, count = [], 0
    tmp = tempfile.mkdtemp(prefix="cbana-files-")
    try:
        nat_dir, cb_dir = os.path.join(tmp, "native"), os.path.join(tmp, "cb")
        shutil.copytree(d, nat_dir)
        shutil.copytree(d, cb_dir)
        exe = os.path.join(tmp, name)
        subprocess.run(["clang", "-O2", "-o", exe, src, "-lm"], check=True)
        before = snapshot(cb_dir)
        r = subprocess.run([cbana, "analyze", os.path.join(cb_dir, name + ".c"),
                            "--inputs", os.path.join(cb_dir, name + ".inputs"),
                            "--format", "json", "--quiet", "--jobs", "1"],
                           cwd=cb_dir, capture_output=True, timeout=600)
        # the program's bytes as they are (json-c passes them through)
        r.stdout = r.stdout.decode("utf-8", "surrogateescape")
        r.stderr = r.stderr.decode("utf-8", "surrogateescape")
        if r.returncode not in (0, 3):
            return [f"{name}: cbana exited {r.returncode}: {r.stderr[-800:]}"], 1
        runs = json.loads(r.stdout)["runs"]
        after = snapshot(cb_dir)
        if after != before:
            fails.append(f"{name}: cbana analyze changed its directory: "
                         f"{sorted(set(after.items()) ^ set(before.items()))}")
        for run, (line, text) in zip(runs, input_lines(inputs)):
            count += 1
            words = shlex.split(text)
            stdin = None
            if "<" in words:
                k = words.index("<")
                stdin = os.path.join(nat_dir, words[k + 1])
                words = words[:k] + words[k + 2:]
            here = snapshot(nat_dir)
            with open(stdin or os.devnull) as fin:
                n = subprocess.run([exe, *words], cwd=nat_dir, stdin=fin,
                                   capture_output=True, env={}, timeout=120)
            made = {f: s for f, s in snapshot(nat_dir).items()
                    if here.get(f) != s}
            gone = sorted(set(here) - set(snapshot(nat_dir)))
            nout = n.stdout.decode("utf-8", "surrogateescape")
            nerr = n.stderr.decode("utf-8", "surrogateescape")
            tag = f"{name} #{run['input']['index']} ({text})"
            bad = []
            if run["status"] != "ok":
                bad.append(f"error {run.get('error')}")
            if run["output"] != nout:
                bad.append("stdout differs")
            if (run.get("stderr") or "") != nerr:
                bad.append(f"stderr {run.get('stderr')!r} vs "
                           f"{nerr!r}")
            if run["exit_code"] != n.returncode:
                bad.append(f"exit {run['exit_code']} vs {n.returncode}")
            wrote = {f["path"]: f["bytes"] for f in run["files_written"]
                     if not f["removed"]}
            removed = sorted(f["path"] for f in run["files_written"]
                             if f["removed"] and f["path"] in here)
            if wrote != made:
                bad.append(f"files {wrote} vs native {made}")
            if removed != gone:
                bad.append(f"removed {removed} vs native {gone}")
            # the next input starts from the directory as it was
            for f in made:
                if f not in here:
                    os.remove(os.path.join(nat_dir, f))
            print(("FAIL " if bad else "ok   ") + tag + ": " +
                  ("; ".join(bad) if bad else "output, stderr, exit, files"),
                  flush=True)
            fails += [f"{tag}: {b}" for b in bad]
        if validate:
            v_dir = os.path.join(tmp, "validate")
            shutil.copytree(d, v_dir)
            v = subprocess.run([cbana, "validate", name + ".c", "--inputs",
                                name + ".inputs", "--jobs", "1", "--quiet"],
                               cwd=v_dir, capture_output=True, text=True,
                               timeout=900)
            print(("ok   " if v.returncode == 0 else "FAIL ") +
                  f"{name}: cbana validate (own L1D misses against "
                  f"cachegrind), exit {v.returncode}", flush=True)
            if v.returncode != 0:
                fails.append(f"{name}: validate: {v.stdout[-1500:]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return fails, count


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    validate = "--no-validate" not in sys.argv
    cbana = os.path.abspath(args[0])
    passed = failed = 0
    for src in args[1:]:
        fails, n = check(cbana, src, validate)
        failed += 1 if fails else 0
        passed += 0 if fails else 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
