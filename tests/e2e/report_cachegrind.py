#!/usr/bin/env python3
"""cbana's results in cachegrind's out-file format, read by valgrind's own
tools (cg_annotate, cg_diff, cg_merge of Debian's valgrind 3.19):

- cg_annotate on cbana's file shows, for every source line, the numbers
  cbana's JSON report gives for it (Dr+Dw its accesses, D1mr+D1mw and
  DLmr+DLmw its misses, L2mr+L2mw with a three-level cache), for every
  function the library calls' and start-up's counts (Drw...), and totals
  equal to the JSON's levels;
- cg_diff of two runs' files (a matrix product and a slowed copy) gives,
  function by function (valgrind 3.19's cg_diff sums each function), the
  changes of misses `cbana diff` reports for the same two JSON reports,
  at every level; and the two files differ line for line as `cbana diff`
  says the lines do;
- cg_merge of two inputs' files sums them line by line.
Usage: report_cachegrind.py CBANA CORPUS_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

import e2e_quick  # noqa: F401 (CBANA_E2E_QUICK out of the environment)

cbana, corpus = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
orig = os.path.join(corpus, "matmul_heap.c")
slow = os.path.join(here, "data", "slow", "matmul_heap.c")
inputs = os.path.join(here, "data", "matmul.inputs")
fails = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def run(*args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def analyze(src, out, cache, fmt):
    r = run(cbana, "analyze", "--quiet", src, "--inputs", inputs, "--cache",
            cache, "--format", fmt, "-o", out)
    if r.returncode != 0:
        sys.exit("cbana analyze failed: " + r.stderr)


def parse_cg(path):
    """A cachegrind file: events, {(file, fn, line): counts}, summary."""
    events, rows, summary, fl, fn = [], {}, None, None, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            fl = line[3:]
        elif line.startswith("fn="):
            fn = line[3:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
        elif line and line[0].isdigit():
            v = [int(x) for x in line.split()]
            v += [0] * (len(events) + 1 - len(v))
            key = (fl, fn, v[0])
            old = rows.get(key, [0] * len(events))
            rows[key] = [a + b for a, b in zip(old, v[1:])]
    return events, rows, summary


NUM = r"(?:[\d,]+(?: \(\s*[\d.]+%\))?|\.)"


def annotate(path, n_events):
    """cg_annotate's per-line numbers of every annotated source line
    {(file, line): counts} and its per-function ones {file:fn: counts}."""
    r = run("cg_annotate", "--auto=yes", "--threshold=0", "--context=100000",
            path)
    if r.returncode != 0:
        sys.exit("cg_annotate failed: " + r.stderr)
    col = re.compile(r"^\s*((?:%s\s+){%d})(.*)$" % (NUM, n_events))
    lines, funcs, cur, lineno, section = {}, {}, None, 0, None
    for text in r.stdout.splitlines():
        m = re.match(r"^-- Auto-annotated source: (.*)$", text)
        if m:
            cur, lineno, section = m.group(1), 0, "src"
            continue
        if text.startswith("-- line "):
            lineno = int(text.split()[2]) - 1
            continue
        if "file:function" in text:
            section = "fn"
            continue
        if text.startswith("-----") or text.startswith("-- "):
            if section == "fn" and text.startswith("-- "):
                section = None
            continue
        m = col.match(text)
        if not m:
            continue
        if m.group(2).strip() == "events annotated":
            section = None
            continue
        vals = re.findall(NUM, m.group(1))
        nums = [0 if v == "." else int(v.split()[0].replace(",", ""))
                for v in vals]
        if section == "src" and cur:
            # line 0: code of no source line, which cg_annotate shows apart
            if m.group(2).startswith("<counts for unidentified lines"):
                lines[(cur, 0)] = nums
                continue
            lineno += 1
            if any(v != "." for v in vals):
                lines[(cur, lineno)] = nums
        elif section == "fn":
            funcs[m.group(2).strip()] = nums
    return lines, funcs, r.stdout


with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    for cache in ("cachegrind", "skylake"):
        for name, src in (("orig", orig), ("slow", slow)):
            analyze(src, "%s.%s.json" % (name, cache), cache, "json")
            analyze(src, "%s.%s.out" % (name, cache), cache, "cachegrind")
    # one file per input: FILE.INDEX
    check(sorted(f for f in os.listdir(".") if f.startswith("orig.cachegrind.out"))
          == ["orig.cachegrind.out.1", "orig.cachegrind.out.2"],
          "one file per input, named FILE.INDEX")

    for cache, mid in (("cachegrind", []), ("skylake", ["L2"])):
        report = json.load(open("orig.%s.json" % cache))
        for run_ in report["runs"]:
            idx = run_["input"]["index"]
            c = run_["caches"][0]
            lv = list(c["levels"])
            path = "orig.%s.out.%d" % (cache, idx)
            events, rows, summary = parse_cg(path)
            names = ["D1"] + mid + ["DL"]
            want = (["Dr"] + [n + "mr" for n in names] + ["Dw"] +
                    [n + "mw" for n in names] + ["Drw"] +
                    [n + "mrw" for n in names])
            check(events == want, "%s: events %s" % (path, events))
            ne = len(events)
            k = len(names) + 1  # events per kind
            lines, funcs, text = annotate(path, ne)
            # every source line: its accesses and misses per level
            js = {}
            for row in c["lines"]:
                key = (row["file"], row["line"])
                acc, mis = js.get(key, (0, [0] * len(lv)))
                js[key] = (acc + row["accesses"],
                           [m + row["misses"][l] for m, l in zip(mis, lv)])
            got = {key: (v[0] + v[k], [v[1 + l] + v[k + 1 + l]
                                       for l in range(len(lv))])
                   for key, v in lines.items() if any(v[:2 * k])}
            check(got == js, "%s: cg_annotate's lines against the JSON's "
                  "(%d against %d lines; first difference %s)" %
                  (path, len(got), len(js),
                   next(((x, got.get(x), js.get(x)) for x in
                         sorted(set(got) | set(js), key=str)
                         if got.get(x) != js.get(x)), None)))
            check(len(js) > 5, "%s: lines annotated" % path)
            # library calls per callee, start-up and exit
            calls = {}
            for row in c["calls"]:
                calls[row["callee"]] = calls.get(row["callee"], 0) + row["accesses"]
            for callee, acc in calls.items():
                f = funcs.get("???:" + callee)
                check(f is not None and f[2 * k] == acc,
                      "%s: %s's accesses %s, JSON %d" % (path, callee, f, acc))
            check(len(calls) > 0, "%s: library calls" % path)
            proc = c["process"]
            f = funcs.get("???:_dl_start")
            check(f is not None and f[2 * k] == proc["startup"]["accesses"],
                  "%s: start-up under _dl_start" % path)
            f = funcs.get("???:exit")
            check(f is not None and f[2 * k] == proc["exit"]["accesses"],
                  "%s: exit under exit" % path)
            # totals: the summary line against the JSON's levels
            for l, name in enumerate(lv):
                L = c["levels"][name]
                if l == 0:
                    check(summary[0] + summary[k] + summary[2 * k] ==
                          L["accesses"], "%s: accesses" % path)
                check(summary[1 + l] + summary[k + 1 + l] +
                      summary[2 * k + 1 + l] == L["misses"],
                      "%s: %s misses" % (path, name))
            L = c["levels"][lv[0]]
            check(summary[0] <= L["reads"] and summary[k] <= L["writes"],
                  "%s: own reads and writes within the totals" % path)

        # cg_diff against cbana diff, input by input, level by level
        d = run(cbana, "diff", "--top", "100000", "orig.%s.json" % cache,
                "slow.%s.json" % cache)
        check(d.returncode == 1, "cbana diff finds changes")
        report = json.load(open("orig.%s.json" % cache))
        lv = list(report["runs"][0]["caches"][0]["levels"])
        blocks = re.split(r"^input '", d.stdout, flags=re.M)[1:]
        check(len(blocks) == 2, "cbana diff: two inputs")
        for n, block in enumerate(blocks, 1):
            diffed = "diff.%s.%d" % (cache, n)
            r = run("cg_diff", r"--mod-filename=s/.*\///",
                    "orig.%s.out.%d" % (cache, n),
                    "slow.%s.out.%d" % (cache, n))
            check(r.returncode == 0, "cg_diff runs: " + r.stderr)
            open(diffed, "w").write(r.stdout)
            _, rows, _ = parse_cg(diffed)
            _, ra, _ = parse_cg("orig.%s.out.%d" % (cache, n))
            _, rb, _ = parse_cg("slow.%s.out.%d" % (cache, n))
            k = len(lv) + 1
            for l, name in enumerate(lv):
                def table(title):
                    m = re.search(r"^    %s \(%s misses\):\n((?:      .*\n)*)"
                                  % (title, re.escape(name)), block, flags=re.M)
                    return {row.split()[0]: int(row.split()[-1])
                            for row in (m.group(1).splitlines() if m else [])}
                # functions: cg_diff's output
                cg = {}
                for (fl, fn, line), v in rows.items():
                    if fl != "???":
                        cg[fn] = cg.get(fn, 0) + v[1 + l] + v[k + 1 + l]
                cg = {x: v for x, v in cg.items() if v}
                cb = table("functions")
                check(cg == cb and (cb or l > 0),
                      "input %d, %s, %s functions: cg_diff %s, cbana diff %s"
                      % (n, cache, name, sorted(cg.items()), sorted(cb.items())))
                # lines: the two files' own
                per = {}
                for sign, rs in ((-1, ra), (1, rb)):
                    for (fl, fn, line), v in rs.items():
                        if fl != "???":
                            key = "%s:%d" % (os.path.basename(fl), line)
                            per[key] = per.get(key, 0) + sign * (
                                v[1 + l] + v[k + 1 + l])
                per = {x: v for x, v in per.items() if v}
                cb = table("lines")
                check(per == cb and (cb or l > 0),
                      "input %d, %s, %s lines: files %s, cbana diff %s" %
                      (n, cache, name, sorted(per.items()), sorted(cb.items())))

    # cg_merge: two inputs' files summed
    r = run("cg_merge", "-o", "merged.out", "orig.cachegrind.out.1",
            "orig.cachegrind.out.2")
    check(r.returncode == 0, "cg_merge runs: " + r.stderr)
    _, a, sa = parse_cg("orig.cachegrind.out.1")
    _, b, sb = parse_cg("orig.cachegrind.out.2")
    _, m, sm = parse_cg("merged.out")
    want = {key: [x + y for x, y in zip(a.get(key, [0] * len(sa)),
                                        b.get(key, [0] * len(sa)))]
            for key in set(a) | set(b)}
    check(m == want, "cg_merge: line by line sums")
    check(sm == [x + y for x, y in zip(sa, sb)], "cg_merge: summary")

print("%d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
