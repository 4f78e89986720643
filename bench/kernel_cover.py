#!/usr/bin/env python3
"""How much of a program's run the native kernels make: for each program,
`cbana analyze --stats --no-classify` with an empty cache directory of its
own (the kernels compiled cold, as on a first run), one line each:

  program  exit  operations  compiled %  stream gen. s  wall s  load  left
  engine calls

`left` is --stats' "kernels left before" (the ops kernels left to the
interpreter before, most first), `engine calls` its "calls of the
program's functions kernels left to the engine". MultiSource programs are run as
bench/realprogs.py runs them (testsuite_cmake.py reads their flags,
arguments and input); SingleSource ones with -O2 -DSMALL_PROBLEM_SIZE and
no arguments. Each runs in a work folder of its own holding links to its
source folder's files (some read data files there).

  bench/kernel_cover.py --cbana BUILD/cbana --lts /work/lts --work /tmp/kc \\
      [--ms Fhourstones-3.1 Olden/bh ...] [--ss Misc/evalloop ...]
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testsuite_cmake  # noqa: E402

MS = ["Fhourstones", "Fhourstones-3.1", "Olden/bisort", "Olden/bh",
      "Ptrdist/anagram", "nbench", "llubenchmark", "Trimaran/netbench-url",
      "McCat/12-IOtest", "ASC_Sequoia/IRSmk"]
SS = ["Misc/ReedSolomon", "Misc/richards_benchmark", "Misc/whetstone",
      "Misc/fbench", "Misc/perlin", "Misc/salsa20", "Misc/evalloop",
      "Shootout/ackermann", "Shootout/methcall", "Shootout/heapsort",
      "Shootout/lists", "Shootout/hash", "Shootout/matrix"]


def ms_command(cbana, d):
    p = testsuite_cmake.read_multisource(d, False)
    flags = ["-O2", "-DSMALL_PROBLEM_SIZE", *p["cflags"], f"-I{d}"]
    cmd = [cbana, "analyze", *p["srcs"], "--cflags", shlex.join(flags),
           "--argv0", "./prog"]
    stdin = None
    if p["stdin"]:
        stdin = (shlex.join(p["args"]) + " < " +
                 shlex.quote(p["stdin"])).encode()
        cmd += ["--inputs", "/dev/stdin"]
    else:
        cmd += ["--args", shlex.join(p["args"])]
    return cmd, stdin


def stat(err, key):
    for line in err.splitlines():
        s = line.strip()
        if s.startswith(key):
            return s
    return ""


def run(name, srcdir, cmd, stdin, work, cache):
    w = os.path.join(work, name.replace("/", "_"))
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    for f in os.listdir(srcdir):
        os.symlink(os.path.join(srcdir, f), os.path.join(w, f))
    c = os.path.join(cache, name.replace("/", "_"))
    shutil.rmtree(c, ignore_errors=True)
    os.makedirs(c)
    env = dict(os.environ, XDG_CACHE_HOME=c)
    load = os.getloadavg()[0]
    t0 = time.time()
    r = subprocess.run(cmd + ["--stats", "--no-classify"], cwd=w, env=env,
                       input=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = time.time() - t0
    err = r.stderr.decode(errors="replace")
    ops = [w.rstrip(",") for w in stat(err, "operations").split(" ")[1:2]]
    sg = stat(err, "stream gen.").split()[2:3]
    k = stat(err, "native kernels:")
    pct = k[k.rfind("(") + 1:k.rfind("%)")] if "%)" in k else ""
    left = stat(err, "kernels left before:")[len("kernels left before: "):]
    ec = stat(err, "calls of the program's functions").split(":")[-1].strip()
    print("\t".join([name, str(r.returncode), ops[0] if ops else "",
                     pct, sg[0] if sg else "", f"{wall:.1f}", f"{load:.2f}",
                     left, ec]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cbana", required=True)
    ap.add_argument("--lts", required=True, help="the test-suite's root")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ms", nargs="*", default=MS)
    ap.add_argument("--ss", nargs="*", default=SS)
    a = ap.parse_args()
    cbana = os.path.abspath(a.cbana)
    cache = os.path.join(a.work, "cache")
    print("program\texit\toperations\tcompiled %\tstream gen. s\twall s\t"
          "load\tleft before\tengine calls")
    for n in a.ms:
        d = os.path.join(a.lts, "MultiSource/Benchmarks", n)
        cmd, stdin = ms_command(cbana, d)
        run(n, d, cmd, stdin, a.work, cache)
    for n in a.ss:
        f = os.path.join(a.lts, "SingleSource/Benchmarks", n + ".c")
        d = os.path.dirname(f)
        cmd = [cbana, "analyze", f, "--cflags",
               f"-O2 -DSMALL_PROBLEM_SIZE -I{d}", "--args", ""]
        run(n, d, cmd, None, a.work, cache)


if __name__ == "__main__":
    main()
