#!/usr/bin/env python3
"""The initial stack that `env -i valgrind` (Debian's wrapper, valgrind
3.19, amd64) builds for a client, as a function of the executable path as
passed to valgrind, the arguments and the working directory; and a check of
that model against the probe `stack` (tools/probe/stack.c).

  stack_model.py predict EXE_PATH CWD [ARG...]
  stack_model.py check STACK_PROBE_BINARY      (runs the probe many times)

Model (from coregrind/m_initimg/initimg-linux.c, confirmed by the probe):
  top   = 0x1fff001000              (client stack end + 1; fixed)
  env   = LD_LIBRARY_PATH=/usr/lib/debug, GLIBCPP_FORCE_NEW=1, PWD=<cwd>,
          GLIBCXX_FORCE_NEW=1, LD_PRELOAD=<valgrind core preload>
          (the wrapper /usr/bin/valgrind is a dash script that exports the
          first four - dash exports PWD = physical cwd - and valgrind adds
          LD_PRELOAD; memcheck etc. would add their own preload too)
  S     = sum(len(s)+1 for s in [exe] + args + env)
          + 16 (AT_RANDOM bytes) + len(exe)+1 (AT_EXECFN) + len("x86_64")+1
  strings start at  top - 1 - roundup(S, 4), in this order: exe (= argv[0]),
          args, env strings, AT_RANDOM bytes, AT_EXECFN, AT_PLATFORM
  size  = 8 (argc) + 8*(1+nargs) + 8 + 8*nenv + 8 + 16*(NAUX+1)
          + roundup(S, 8)          NAUX = auxv entries the kernel gave
                                   valgrind (22 here: LD_SHOW_AUXV=1 /bin/true)
  argc slot (initial rsp) = rounddown16(top - 1 - size)
  rsp at main's first instruction = argc slot - 0x108   (glibc 2.36 _start
          + __libc_start_main + __libc_start_call_main, constant)
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = 0x1FFF001000
PLATFORM = "x86_64"
PRELOAD = "LD_PRELOAD=/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"
MAIN_ENTRY_BELOW_ARGC = 0x108


def naux():
    out = subprocess.run(["env", "-i", "LD_SHOW_AUXV=1", "/bin/true"],
                         capture_output=True, text=True).stdout
    return len([l for l in out.splitlines() if l.strip()])


def client_env(cwd):
    return ["LD_LIBRARY_PATH=/usr/lib/debug", "GLIBCPP_FORCE_NEW=1",
            "PWD=" + os.path.realpath(cwd), "GLIBCXX_FORCE_NEW=1", PRELOAD]


def predict(exe, cwd, args, n_aux=None):
    n_aux = naux() if n_aux is None else n_aux
    env = client_env(cwd)
    strs = [exe] + list(args) + env
    s = sum(len(x.encode()) + 1 for x in strs) + 16 + len(exe.encode()) + 1 \
        + len(PLATFORM) + 1
    strtab = TOP - 1 - ((s + 3) & ~3)
    size = 8 + 8 * (1 + len(args)) + 8 + 8 * len(env) + 8 + 16 * (n_aux + 1) \
        + ((s + 7) & ~7)
    argc_slot = (TOP - 1 - size) & ~15
    addrs, p = [], strtab
    for x in [exe] + list(args):
        addrs.append(p)
        p += len(x.encode()) + 1
    return {"argc_slot": argc_slot,
            "main_entry_sp": argc_slot - MAIN_ENTRY_BELOW_ARGC,
            "argv": addrs}


def measure(probe, exe_path, cwd, args, tool="none"):
    extra = ["--cache-sim=yes", "--cachegrind-out-file=/dev/null"] \
        if tool == "cachegrind" else []
    out = subprocess.run(["env", "-i", "valgrind", "-q", f"--tool={tool}"]
                         + extra + [exe_path] + args, cwd=cwd,
                         capture_output=True, text=True).stdout
    m = {"argv": []}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "main_entry_sp":
            m["main_entry_sp"] = int(f[1], 16)
        elif f[0] == "argc_slot":
            m["argc_slot"] = int(f[1], 16)
        elif f[0].startswith("argv["):
            m["argv"].append(int(f[1], 16))
    return m


CASES = [[], ["1"], ["1", "2"], ["8", "2"], ["100000", "5"], ["a" * 7],
         ["a" * 8], ["a" * 9], ["x", "y", "z", "w"], ["1e-3"],
         ["< not a redirect"], ["", ""], ["a" * 100, "b" * 33],
         [str(i) for i in range(20)]]


def check(probe):
    probe = os.path.abspath(probe)
    n_aux = naux()
    bad = total = 0
    with tempfile.TemporaryDirectory() as d:
        long_dir = os.path.join(d, "a-much-longer-directory-name-for-paths")
        os.mkdir(long_dir)
        exes = []
        for where in (d, long_dir):
            p = os.path.join(where, "st")
            subprocess.run(["cp", probe, p], check=True)
            exes.append(p)
        runs = []
        for exe in exes:
            for args in CASES:
                runs.append((exe, d, args, "none"))
        # relative path, another cwd, and cachegrind
        runs.append(("./st", long_dir, ["1", "2"], "none"))
        runs.append(("a-much-longer-directory-name-for-paths/st", d, ["3"],
                     "none"))
        for args in (["1"], ["8", "2"]):
            runs.append((exes[0], d, args, "cachegrind"))
            runs.append((exes[1], long_dir, args, "cachegrind"))
        for exe, cwd, args, tool in runs:
            total += 1
            got = measure(probe, exe, cwd, args, tool)
            want = predict(exe, cwd, args, n_aux)
            ok = all(got.get(k) == want[k]
                     for k in ("argc_slot", "main_entry_sp", "argv"))
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {tool:10s} exe={exe[-24:]:24s} "
                  f"cwd=...{cwd[-12:]} nargs={len(args)} "
                  f"main_sp={got.get('main_entry_sp', 0):#x} "
                  f"predicted={want['main_entry_sp']:#x}")
    print(f"stack model: {total - bad}/{total} runs match (NAUX={n_aux})")
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    if len(sys.argv) >= 4 and sys.argv[1] == "predict":
        r = predict(sys.argv[2], sys.argv[3], sys.argv[4:])
        print(f"argc_slot {r['argc_slot']:#x}\n"
              f"main_entry_sp {r['main_entry_sp']:#x}")
        for i, a in enumerate(r["argv"]):
            print(f"argv[{i}] {a:#x}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
