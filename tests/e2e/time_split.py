#!/usr/bin/env python3
"""The time split (analysis/pipeline/split.h): an input's stream simulated by two
threads, one guessing the next epoch from a stale state, must give the
report of one thread, byte for byte after parsing.

Each case runs once with --no-split and twice split into small epochs
(--split-epoch), all with --no-classify (the split's only mode), with
--jobs high enough for every input to get its two simulation threads.
The epochs are small so that a short stream makes many of them: the
guesses then both meet the truth at a checkpoint (hand-overs) and miss it
(abandoned, their counts thrown away), and the run must say so in
--stats; the test fails if either path was never taken over all cases
(in up to ROUNDS rounds of them: which path a guess takes depends on the
threads' timing). A hierarchy with a PLRU level takes no snapshot: its
run must not split.

  time_split.py CBANA corpus DIR [--require-both]
  time_split.py CBANA polybench POLYBENCH_DIR SIZE KERNEL...

--require-both: fail unless some guess met the truth and some was thrown
away (data/split's programs stream over several times the LL, so that a
stale guess meets the truth within a few checkpoints; most corpus
programs and small PolyBench sizes keep data in the LL that a stale guess
never refreshes, and only throw guesses away).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from fast_identity import corpus_cases, first_difference, run_cases

# checkpoints at 64 Ki and 256 Ki accesses into the first, to 1 Mi in the
# second (split.c)
EPOCHS = [400000, 1500000]
# --require-both's rounds at most (main)
ROUNDS = 4
CFG_DIR = tempfile.mkdtemp(prefix="cbana-split-")


def cache_file(name, text):
    path = os.path.join(CFG_DIR, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# cachegrind's shape (LRU), and a small FIFO first level over an MRU one,
# whose tags hold their state too; PLRU's tree bits are not in a snapshot.
CACHES = [["--D1=32768,8,64", "--LL=1048576,16,64"],
          ["--cache", cache_file("fifo_mru.cfg",
                                 "[L1D]\nsize = 4K\nassoc = 2\nline = 64\n"
                                 "policy = fifo\n[LL]\nsize = 64K\n"
                                 "assoc = 4\nline = 64\npolicy = mru\n")]]
PLRU = ["--cache", cache_file("plru.cfg",
                              "[L1D]\nsize = 32K\nassoc = 8\nline = 64\n"
                              "policy = plru\n")]
SPLIT_LINE = re.compile(r"time split: (\d+) epochs over two simulation "
                        r"threads, (\d+) hand-overs, (\d+) guesses thrown "
                        r"away, (\d+) accesses run twice")


def run(cbana, sources, extra, cwd):
    cmd = [cbana, "analyze", *sources, "--format", "json", "--quiet",
           "--no-classify", "--stats", "--jobs", "64", *extra]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       timeout=1800)
    if r.returncode not in (0, 3):
        return None, None, f"exit {r.returncode}: {r.stderr[-1500:]}"
    return json.loads(r.stdout), r.stderr, None


def check(cbana, name, sources, extra, cwd):
    fails, handovers, thrown = [], 0, 0
    for caches in CACHES:
        one, _, e = run(cbana, sources, extra + caches + ["--no-split"], cwd)
        if e:
            fails.append(f"{' '.join(caches)}: {e}")
            continue
        for epoch in EPOCHS:
            two, stats, e = run(cbana, sources, extra + caches +
                                ["--split-epoch", str(epoch)], cwd)
            if e:
                fails.append(f"epoch {epoch}: {e}")
                continue
            for m in SPLIT_LINE.finditer(stats):
                handovers += int(m.group(2))
                thrown += int(m.group(3))
            d = first_difference(two, one)
            if d:
                fails.append(f"{' '.join(caches)}, epoch {epoch}: {d}")
    plru, stats, e = run(cbana, sources, extra + PLRU +
                         ["--split-epoch", "150000"], cwd)
    if e:
        fails.append(f"plru: {e}")
    elif SPLIT_LINE.search(stats):
        fails.append("plru: the run was split")
    return name, fails, handovers, thrown


def polybench_cases(d, size, kernels):
    for cat, _, files in sorted(os.walk(d)):
        for f in sorted(files):
            if f.endswith(".c") and f[:-2] in kernels:
                yield (f"{f[:-2]}@{size}", [os.path.join(cat, f)],
                       ["--cflags", f"-O2 -D{size}_DATASET -I{d}"], None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cbana")
    ap.add_argument("kind", choices=["corpus", "polybench"])
    ap.add_argument("dir")
    ap.add_argument("rest", nargs="*")
    ap.add_argument("--require-both", action="store_true")
    a = ap.parse_args()
    cbana = os.path.abspath(a.cbana)
    d = os.path.abspath(a.dir)
    if a.kind == "corpus":
        cases = list(corpus_cases(d))
    else:
        cases = list(polybench_cases(d, a.rest[0], set(a.rest[1:])))
    passed = failed = handovers = thrown = 0
    # Whether a guess meets the truth depends on the threads' timing: a
    # truth that catches up with its guess (a producer slowed by fresh
    # pages, other tests on both cores) reaches each checkpoint before
    # the guess records it, and takes no hand-over. So --require-both
    # runs the cases again, up to ROUNDS times in all, until both paths
    # were taken; every run's report is compared, each round or not.
    for rnd in range(ROUNDS if a.require_both else 1):
        p, f, results = run_cases(
            cbana, cases, check, 2,
            lambda r: f"{r[2]} hand-overs, {r[3]} guesses thrown away",
            # both paths need all of data/split's (small) programs
            quick=not a.require_both)
        passed += p
        failed += f
        handovers += sum(r[2] for r in results)
        thrown += sum(r[3] for r in results)
        print(f"round {rnd + 1}: {passed} passed, {failed} failed; "
              f"{handovers} hand-overs, {thrown} guesses thrown away")
        if failed or (handovers and thrown):
            break
    if a.require_both and (handovers == 0 or thrown == 0):
        print("FAIL: a path of the split was never taken in "
              f"{rnd + 1} round(s)")
        return 1
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
