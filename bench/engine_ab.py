#!/usr/bin/env python3
"""Two cbana builds side by side on the same programs: stream generation
time (--stats' engine CPU), the share of operations the native kernels
ran, wall time, and whether the JSON reports are equal.

Programs: a realprogs.tsv (bench/realprogs.py) names them with their
flags, and its cachegrind wall time selects them (--min-cg seconds);
or PolyBench/C kernels (--polybench DIR --size MEDIUM).

  bench/engine_ab.py --a OLD/cbana --b NEW/cbana --tsv bench/results/realprogs.tsv \\
      --lts /work/lts/SingleSource/Benchmarks --min-cg 1 --out bench/results/engine_ab
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time


def run(binary, srcs, cflags, args, extra, timeout, cache_home=None,
        keep=None):
    """keep: (directory, report path) to run from, with the environment
    `env -i PATH=/usr/bin:/bin HOME=/root` (the modelled process's is the
    analyzer's), keeping the report there to compare byte for byte."""
    with tempfile.TemporaryDirectory() as d:
        out = keep[1] if keep else os.path.join(d, "r.json")
        cmd = [binary, "analyze"] + srcs + ["--cflags", cflags, "--stats",
               "--quiet", "--format", "json", "-o", out] + extra
        if args:
            cmd += ["--args", args]
        t0 = time.time()
        env = dict(os.environ)
        if keep:
            env = {"PATH": "/usr/bin:/bin", "HOME": "/root"}
        if cache_home:
            env["XDG_CACHE_HOME"] = cache_home
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout, env=env,
                               cwd=keep[0] if keep else None)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "wall": timeout}
        wall = time.time() - t0
        r = {"status": p.returncode, "wall": wall}
        m = re.search(r"stream gen\.\s+([\d.]+) s", p.stderr)
        r["gen"] = float(m.group(1)) if m else None
        m = re.search(r"operations (\d+), accesses (\d+)", p.stderr)
        r["ops"] = int(m.group(1)) if m else None
        m = re.search(r"native kernels: .*?(\d+) operations run by them",
                      p.stderr)
        r["kops"] = int(m.group(1)) if m else 0
        m = re.search(r"native kernels: (\d+) functions compiled in ([\d.]+) s",
                      p.stderr)
        r["kfn"], r["kcpu"] = (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)
        m = re.search(r"kernels left before: (.*)", p.stderr)
        r["left"] = m.group(1).strip() if m else ""
        m = re.search(r"interpreted outside kernels \(ops, by function\): (.*)", p.stderr)
        r["interp"] = m.group(1).strip() if m else ""
        if keep:
            try:
                with open(out, "rb") as f:
                    r["bytes"] = f.read()
            except OSError:
                r["bytes"] = None
        try:
            with open(out) as f:
                j = json.load(f)
            j.pop("stats", None)
            for run_ in j.get("runs", []):
                run_.pop("stats", None)
            r["report"] = json.dumps(strip_curves(j), sort_keys=True)
        except (OSError, ValueError):
            r["report"] = None
        return r


def strip_curves(j):
    """The report without its miss-ratio curves, which a build may sample
    (--mrc): every count and class stays."""
    if isinstance(j, dict):
        return {k: strip_curves(v) for k, v in j.items()
                if not k.startswith("miss_ratio_curve")}
    if isinstance(j, list):
        return [strip_curves(v) for v in j]
    return j


def programs_from_tsv(path, lts, min_cg):
    rows = []
    with open(path) as f:
        header = None
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if header is None:
                header = cols
                continue
            row = dict(zip(header, cols))
            try:
                cg = float(row["cg_wall"])
            except ValueError:
                continue
            if cg < min_cg or row.get("finished") != "1":
                continue
            src = os.path.join(lts, row["name"] + ".c")
            rows.append((row["name"], [src], row["cflags"], "", cg))
    return rows


def programs_from_polybench(root, size, names):
    rows = []
    for dirpath, _, files in os.walk(root):
        for fn in sorted(files):
            if not fn.endswith(".c") or fn == "polybench.c":
                continue
            name = fn[:-2]
            if names and name not in names:
                continue
            if name.endswith(".orig"):
                continue
            srcs = [os.path.join(dirpath, fn),
                    os.path.join(root, "utilities", "polybench.c")]
            cflags = (f"-O2 -I{os.path.join(root, 'utilities')} -I{dirpath} "
                      f"-D{size}_DATASET")
            rows.append((name, srcs, cflags, "", None))
    return sorted(rows)


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="the old build's cbana")
    ap.add_argument("--b", help="the new build's cbana (none: A alone)")
    ap.add_argument("--tsv")
    ap.add_argument("--lts")
    ap.add_argument("--min-cg", type=float, default=1.0)
    ap.add_argument("--polybench")
    ap.add_argument("--size", default="MEDIUM")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--extra", default="", help="options for both runs")
    ap.add_argument("--out", required=True, help="prefix of .md and .tsv")
    ap.add_argument("--cache-a", help="XDG_CACHE_HOME of A's runs")
    ap.add_argument("--cache-b", help="XDG_CACHE_HOME of B's runs")
    ap.add_argument("--keep", help="run from this directory with env -i "
                    "PATH=/usr/bin:/bin HOME=/root, keep the reports in "
                    "its a/ and b/, and compare them byte for byte")
    o = ap.parse_args()
    if o.polybench:
        progs = programs_from_polybench(o.polybench, o.size, o.only)
    else:
        progs = programs_from_tsv(o.tsv, o.lts, o.min_cg)
        if o.only:
            progs = [p for p in progs if p[0] in o.only]
    extra = o.extra.split()
    lines = []
    tsv = open(o.out + ".tsv", "w")
    tsv.write("name\tcg_wall\ta_wall\ta_gen\tb_wall\tb_gen\tops\tb_kops\t"
              "b_kfn\tb_kcpu\tequal\tb_left\ta_kops\ta_left\ta_interp\t"
              "b_interp\n")
    gen_ratio, wall_ratio, shares, worse = [], [], [], []
    keep = {}
    if o.keep:
        for t in ("a", "b"):
            os.makedirs(os.path.join(o.keep, t), exist_ok=True)
            keep[t] = lambda n, t=t: (o.keep, os.path.join(
                o.keep, t, n.replace("/", "-") + ".json"))
    for name, src, cflags, args, cg in progs:
        ra = run(o.a, src, cflags, args, extra, o.timeout, o.cache_a,
                 keep["a"](name) if keep else None)
        rb = run(o.b, src, cflags, args, extra, o.timeout, o.cache_b,
                 keep["b"](name) if keep else None) if o.b else ra
        if keep:
            eq = ra.get("bytes") is not None and ra["bytes"] == rb.get("bytes")
        else:
            eq = (ra.get("report") is not None and
                  ra.get("report") == rb.get("report"))
        if o.b is None:
            eq = ra.get("status") == 0
        share = (rb["kops"] / rb["ops"]) if rb.get("ops") else None
        if ra.get("gen") and rb.get("gen"):
            gen_ratio.append(ra["gen"] / rb["gen"] if rb["gen"] > 0 else None)
        if ra.get("wall") and rb.get("wall"):
            wall_ratio.append(rb["wall"] / ra["wall"])
            if rb["wall"] > 1.05 * ra["wall"] + 0.2:
                worse.append(name)
        if share is not None:
            shares.append(share)
        tsv.write("\t".join(str(x) for x in [
            name, cg, f"{ra['wall']:.2f}", ra.get("gen"), f"{rb['wall']:.2f}",
            rb.get("gen"), rb.get("ops"), rb.get("kops"), rb.get("kfn"),
            rb.get("kcpu"), int(eq), rb.get("left", ""), ra.get("kops"),
            ra.get("left", ""), ra.get("interp", ""),
            rb.get("interp", "")]) + "\n")
        tsv.flush()
        lines.append(f"| {name} | {cg if cg is not None else ''} | "
                     f"{ra['wall']:.2f} | {ra.get('gen')} | {rb['wall']:.2f} | "
                     f"{rb.get('gen')} | "
                     f"{'' if share is None else f'{100 * share:.1f}%'} | "
                     f"{'yes' if eq else 'NO'} |")
        print(lines[-1], flush=True)
    tsv.close()
    with open(o.out + ".md", "w") as f:
        f.write("| program | cachegrind s | A wall s | A gen s | B wall s | "
                "B gen s | B compiled | reports equal |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---|\n")
        f.write("\n".join(lines) + "\n\n")
        f.write(f"- stream generation, A/B (geomean): {geomean(gen_ratio):.2f}x "
                f"over {len(gen_ratio)}\n")
        f.write(f"- wall, B/A (geomean): {geomean(wall_ratio):.2f}; B slower "
                f"(>5% + 0.2 s) on {len(worse)}: {', '.join(worse)}\n")
        f.write(f"- share of operations compiled in B: min "
                f"{100 * min(shares) if shares else float('nan'):.1f}%, "
                f"geomean {100 * geomean(shares):.1f}%\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
