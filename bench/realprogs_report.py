#!/usr/bin/env python3
"""The report of bench/realprogs.sh: PREFIX.md from PREFIX.tsv.

  bench/realprogs_report.py PREFIX     (e.g. bench/results/realprogs)

The TSV has one row per program (columns below; empty: not measured).
Its leading `#` lines are the run's settings (flags, time limit, jobs,
excluded programs), which the report repeats.
"""
import math
import os
import subprocess
import sys

COLUMNS = ["name", "cflags", "native_status", "native_wall",
           "native_timeout", "cg_status", "cg_wall", "cg_timeout",
           "cg_error", "cg_own", "cg_whole", "cb_status", "cb_wall",
           "cb_cpu", "cb_timeout", "loaded", "finished", "output_equal",
           "exit_equal", "operations", "cb_own", "cb_lib", "cb_whole",
           "cb_error", "error", "output_diff", "cb_rss_kib", "cb_nc_status",
           "cb_nc_wall", "cb_nc_cpu", "cb_nc_rss_kib"]

# Gaps within max(1%, 20) count as agreement (the rule of `cbana
# validate`'s default tolerance and of the e2e tests).
SLOW_CG = 2.0  # the time ratio's geomean is over cachegrind runs this long


def tsv_line(row):
    def cell(v):
        if v is None:
            return ""
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, float):
            return f"{v:.3f}"
        return str(v).replace("\t", " ").replace("\n", " / ")
    return "\t".join(cell(row.get(c)) for c in COLUMNS)


def meta_lines(meta):
    out = [f"# part: {meta.get('part', 'SingleSource')}"]
    if meta.get("commit"):
        out.append(f"# commit: {meta['commit']}")
    out += [f"# flags: {meta['flags']}", f"# timeout: {meta['timeout']}",
            f"# jobs: {meta['jobs']}"]
    for f, why in meta.get("excluded", []):
        out.append(f"# excluded: {f}: {why}")
    return out


def read_tsv(path):
    rows, meta = [], {"excluded": []}
    with open(path) as f:
        header = None
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                k, _, v = line[2:].partition(": ")
                if k == "excluded":
                    meta["excluded"].append(tuple(v.split(": ", 1)))
                else:
                    meta[k] = v
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            rows.append(dict(zip(header, cells)))
    read_tsv.meta = meta
    return rows


def drop_rows(path, names):
    """Rewrites the TSV without the rows of these programs (to measure
    them again), under the current COLUMNS."""
    with open(path) as f:
        meta = [ln for ln in f if ln.startswith("#")]
    rows = [r for r in read_tsv(path) if r["name"] not in names]
    with open(path, "w") as f:
        f.writelines(meta)
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r.get(c, "") for c in COLUMNS) + "\n")


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def gap_ok(got, want):
    return abs(got - want) <= max(0.01 * want, 20)


def gap_text(got, want):
    if got is None or want is None:
        return "-"
    pct = 100.0 * (got - want) / want if want else 0.0
    mark = "" if gap_ok(got, want) else " **x**"
    return f"{int(got)} / {int(want)} ({pct:+.1f}%){mark}"


def progress_line(row):
    def yn(k):
        return {True: "yes", False: "no"}.get(row.get(k), "-")
    parts = [row["name"], f"loaded {yn('loaded')}",
             f"finished {yn('finished')}", f"output {yn('output_equal')}",
             f"exit {yn('exit_equal')}",
             f"own {gap_text(row.get('cb_own'), row.get('cg_own'))}",
             f"whole {gap_text(row.get('cb_whole'), row.get('cg_whole'))}",
             f"cbana {row.get('cb_wall', 0):.1f}s",
             f"cachegrind {row.get('cg_wall', 0):.1f}s"]
    msg = row.get("error") or row.get("cb_error")
    if msg:
        parts.append(msg[:160])
    return "; ".join(parts)


def summarize(rows):
    def flag(r, k):
        return r.get(k) == "1"
    s = {"n": len(rows)}
    s["loaded"] = sum(flag(r, "loaded") for r in rows)
    s["finished"] = sum(flag(r, "finished") for r in rows)
    s["output"] = sum(flag(r, "output_equal") for r in rows)
    s["exit"] = sum(flag(r, "exit_equal") for r in rows)
    own = [(num(r["cb_own"]), num(r["cg_own"])) for r in rows
           if flag(r, "finished") and num(r["cb_own"]) is not None and
           num(r["cg_own"]) is not None]
    whole = [(num(r["cb_whole"]), num(r["cg_whole"])) for r in rows
             if flag(r, "finished") and num(r["cb_whole"]) is not None and
             num(r["cg_whole"]) is not None]
    s["own_ok"] = sum(gap_ok(a, b) for a, b in own)
    s["own_n"] = len(own)
    s["whole_ok"] = sum(gap_ok(a, b) for a, b in whole)
    s["whole_n"] = len(whole)
    ratios = [num(r["cg_wall"]) / num(r["cb_wall"]) for r in rows
              if flag(r, "finished") and num(r["cg_wall"]) and
              num(r["cb_wall"]) and r.get("cg_error", "") == "" and
              num(r["cg_wall"]) >= SLOW_CG]
    s["ratio_n"] = len(ratios)
    s["ratio"] = (math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                  if ratios else None)
    # cbana / cachegrind (below 1: cbana faster), default mode and
    # --no-classify, over the same slow programs
    slow = [r for r in rows if flag(r, "finished") and num(r["cg_wall"]) and
            num(r["cb_wall"]) and r.get("cg_error", "") == "" and
            num(r["cg_wall"]) >= SLOW_CG]
    for key, col in (("def", "cb_wall"), ("nc", "cb_nc_wall")):
        rs = [(r["name"], num(r.get(col)) / num(r["cg_wall"])) for r in slow
              if num(r.get(col))]
        s[key + "_n"] = len(rs)
        s[key + "_geo"] = (math.exp(sum(math.log(x) for _, x in rs) /
                                    len(rs)) if rs else None)
        s[key + "_slower"] = [n for n, x in rs if x > 1]
    rss = [num(r.get("cb_rss_kib")) for r in rows if num(r.get("cb_rss_kib"))]
    s["rss_max"] = max(rss) if rss else None
    return s


def summary_lines(s):
    g = (f"{s['ratio']:.2f}x" if s["ratio"] is not None else "n/a")
    return [
        f"- {s['loaded']} loaded (of {s['n']} programs)",
        f"- {s['finished']} finished",
        f"- {s['output']} output equal",
        f"- {s['exit']} exit equal",
        f"- {s['own_ok']} own-code within max(1%, 20) "
        f"(of {s['own_n']} finished and measured by both)",
        f"- {s['whole_ok']} whole-process within max(1%, 20) "
        f"(of {s['whole_n']})",
        f"- geomean time ratio (cachegrind wall / cbana wall) {g} over "
        f"{s['ratio_n']} finished programs whose cachegrind run took "
        f">= {SLOW_CG:g} s",
    ] + [
        f"- {label}: cbana / cachegrind wall {s[k + '_geo']:.2f} (geomean "
        f"over {s[k + '_n']}); slower than cachegrind on "
        f"{len(s[k + '_slower'])}" + (f" ({', '.join(s[k + '_slower'])})"
                                      if s[k + "_slower"] else "")
        for k, label in (("def", "default mode"), ("nc", "--no-classify"))
        if s.get(k + "_geo") is not None
    ] + ([f"- peak RSS of cbana, largest: {s['rss_max'] / 1024:.0f} MiB"]
         if s.get("rss_max") else [])


def write_markdown(path, tsv, meta, root):
    rows = read_tsv(tsv)
    m = dict(read_tsv.meta)
    m.update({k: v for k, v in (meta or {}).items() if v is not None})
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short",
                                 "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "?"
    commit = m.get("commit") or commit  # the build measured, when recorded
    s = summarize(rows)
    part = m.get("part", "SingleSource")
    out = [f"# cbana on LLVM test-suite {part}/Benchmarks (C programs)",
           "",
           f"Made by `bench/realprogs.sh` at commit {commit}; flags "
           f"`{m.get('flags')}` (plus each folder's CMakeLists.txt flags and "
           f"-I of its folder); time limit {m.get('timeout')} s per tool; "
           f"{m.get('jobs')} program(s) at a time."
           + (f" Load average {m['load_start']:.1f} at start, "
              f"{m['load_end']:.1f} at end."
              if isinstance(m.get("load_start"), float) and
              isinstance(m.get("load_end"), float) else ""),
           "",
           "cbana: `cbana analyze --format json --argv0 EXE` with default "
           "settings (cache preset `cachegrind`, engine); "
           "cachegrind: `env -i valgrind --tool=cachegrind` with the same "
           "cache (--I1/--D1=32768,8,64 --LL=1048576,16,64), the same "
           "executable path and working directory (as `cbana validate`). "
           "Own-code L1D: the report's per-line misses against "
           "cachegrind's D1mr+D1mw of the program's files. Whole-process "
           "L1D: the report's L1D level total against cachegrind's summary "
           "D1mr+D1mw. A gap is marked **x** when beyond max(1%, 20). "
           "A run cbana stopped (its operation budget, an error) shows "
           "its counts up to where it stopped, unmarked. "
           "Times are wall seconds; ratio = cachegrind / cbana (cbana's "
           "includes its compile), for the runs cbana finished. Output: cbana's modelled stdout "
           "against the native run's; programs that print times they "
           "measure differ by nature.",
           ""]
    if m.get("note"):
        out += [f"Note: {m['note']}", ""]
    out += ["## Summary", ""]
    out += summary_lines(s)
    out += ["", "## Programs", "",
            "| program | loaded | finished | output eq | exit eq | own-code "
            "L1D cbana / cg | whole-process L1D cbana / cg | cbana s | "
            "cachegrind s | ratio | cbana --no-classify s | cbana MiB | "
            "native s | cbana's message |",
            "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: "
            "| ---: | ---: | ---: | --- |"]

    def yn(v):
        return {"1": "yes", "0": "no"}.get(v, "-")

    def secs(r, k, to):
        v = num(r.get(k))
        if v is None:
            return "-"
        return f"{v:.1f}" + (" (limit)" if r.get(to) == "1" else "")
    def gap(r, cb, cg):
        # a stopped run's counts are those up to where it stopped
        t = gap_text(num(r.get(cb)), num(r.get(cg)))
        if r.get("finished") == "1" or t == "-":
            return t
        return "stopped at " + t.replace(" **x**", "")
    for r in sorted(rows, key=lambda r: r["name"]):
        cb, cg = num(r.get("cb_wall")), num(r.get("cg_wall"))
        ratio = (f"{cg / cb:.2f}" if cb and cg and not r.get("cg_error")
                 and r.get("finished") == "1" else "-")
        msg = r.get("error") or r.get("cb_error") or ""
        if r.get("output_diff"):
            msg = (msg + "; " if msg else "") + "output " + r["output_diff"]
        if r.get("cg_error"):
            msg = (msg + "; " if msg else "") + "cachegrind: " + r["cg_error"]
        out.append(
            f"| {r['name']} | {yn(r.get('loaded'))} | "
            f"{yn(r.get('finished'))} | {yn(r.get('output_equal'))} | "
            f"{yn(r.get('exit_equal'))} | "
            f"{gap(r, 'cb_own', 'cg_own')} | "
            f"{gap(r, 'cb_whole', 'cg_whole')} | "
            f"{secs(r, 'cb_wall', 'cb_timeout')} | "
            f"{secs(r, 'cg_wall', 'cg_timeout')} | {ratio} | "
            f"{secs(r, 'cb_nc_wall', '')} | "
            f"{'%.0f' % (num(r['cb_rss_kib']) / 1024) if num(r.get('cb_rss_kib')) else '-'} | "
            f"{secs(r, 'native_wall', 'native_timeout')} | "
            f"{msg.replace('|', '/')[:200]} |")
    if m.get("excluded"):
        out += ["", "## Not run", ""]
        out += [f"- {f}: {why}" for f, why in m["excluded"]]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return s


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip())
        return 2
    prefix = sys.argv[1]
    s = write_markdown(prefix + ".md", prefix + ".tsv", None,
                       os.path.dirname(os.path.dirname(
                           os.path.abspath(__file__))))
    print("\n".join(summary_lines(s)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
