#!/usr/bin/env python3
"""cbana dump on every corpus program, checked against what clang, nm and
the sources say about the same build; bad inputs fail cleanly; no
temporary file is left behind; with a PolyBench folder, every kernel too.
Usage: dump_corpus.py CBANA CORPUS [POLYBENCH]"""
import json
import os
import re
import subprocess
import sys
import tempfile

from e2e_quick import first

cbana, corpus = sys.argv[1], sys.argv[2]
CLANG = "/usr/bin/clang-14" if os.access("/usr/bin/clang-14", os.X_OK) else "clang"
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


tmp = tempfile.mkdtemp(prefix="cbana-e2e-")
private_tmp = os.path.join(tmp, "tmp")
os.mkdir(private_tmp)
env = dict(os.environ, TMPDIR=private_tmp)


def dump(srcs, flags="-O2", extra=()):
    r = subprocess.run([cbana, "dump", *srcs, "--cflags", flags,
                        "--format", "json", *extra],
                       capture_output=True, text=True, env=env)
    check(os.listdir(private_tmp) == [],
          f"temporary files left after dump {srcs}: {os.listdir(private_tmp)}")
    return r


def count_mem_insts(srcs, flags):
    n = 0
    for s in srcs:
        ll = subprocess.run([CLANG, *flags.split(), "-g", "-S", "-emit-llvm",
                             "-o", "-", s], capture_output=True, text=True,
                            check=True).stdout
        n += len(re.findall(r"^\s+(?:%\S+ = )?(?:load|store) ", ll, re.M))
    return n


programs = sorted(f for f in os.listdir(corpus) if f.endswith(".c"))
cases = [([os.path.join(corpus, p)], p) for p in programs]
cases.append(([os.path.join(corpus, "two_files", "main.c"),
               os.path.join(corpus, "two_files", "kernel.c")], "two_files"))
cases = first(cases)  # quick: the first program

for srcs, name in cases:
    exe = os.path.join(tmp, name + ".exe")
    r = dump(srcs, extra=("--keep-exe", exe))
    check(r.returncode == 0, f"dump {name}: exit {r.returncode}: {r.stderr}")
    if r.returncode != 0:
        continue
    prog = json.loads(r.stdout)
    base = prog["load_base"]
    check(base == 0x108000, f"{name}: load base {base:#x}")
    # every global object in nm, at its address + load base, with its size
    nm = subprocess.run(["nm", "-S", "--defined-only", exe],
                        capture_output=True, text=True, check=True).stdout
    globs = {g["name"]: g for g in prog["globals"]}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in "bBdDrR":
            continue
        addr, size, _, sym = parts
        if sym not in globs:
            continue  # crt objects, not in the IR
        g = globs[sym]
        check(g["addr"] == int(addr, 16) + base,
              f"{name}: {sym} at {g['addr']:#x}, nm says {int(addr, 16) + base:#x}")
        check(g["size"] == int(size, 16),
              f"{name}: {sym} size {g['size']}, nm says {int(size, 16)}")
    # every global of the IR that nm knows is there
    nm_syms = {l.split()[-1] for l in nm.splitlines()}
    for g in prog["globals"]:
        if not g["name"].startswith(".") and g["section"] not in ("extern",):
            check(g["name"] in nm_syms, f"{name}: global {g['name']} not in nm")
    # functions at their symbol's address
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            for fn in prog["functions"]:
                if fn["name"] == parts[3]:
                    check(fn["addr"] == int(parts[0], 16) + base,
                          f"{name}: function {fn['name']} address")
    # one site per load and store of the IR at the same flags
    sites = [s for s in prog["sites"] if s["kind"] in ("load", "store")]
    want = count_mem_insts(srcs, "-O2")
    check(len(sites) == want,
          f"{name}: {len(sites)} load/store sites, the .ll has {want}")
    check(all(s["line"] > 0 or s["func"] for s in sites),
          f"{name}: sites without location")
    check(os.path.exists(exe), f"{name}: --keep-exe did not keep {exe}")

# names, types and fields
r = dump([os.path.join(corpus, "aos_soa.c")])
prog = json.loads(r.stdout)
acc = {(s["var"], s["field"]) for s in prog["sites"] if s["kind"] != "call"}
for v in ("aos", "soa"):
    for fld in ("x", "vx"):
        check((v, fld) in acc, f"aos_soa: no site on {v}.{fld}: {sorted(map(str, acc))}")
check(("aos", "id") in acc, "aos_soa: no site on aos[i].id")
texts = {s["text"] for s in prog["sites"]}
for t in ("aos[i].x", "aos[i].vx", "soa.x[i]", "soa.vx[i]", "argv[1]"):
    check(t in texts, f"aos_soa: no site written '{t}'")
types = {g["name"]: g["type"] for g in prog["globals"]}
check(types.get("aos") == "struct particle[50000]", f"aos type {types.get('aos')}")
check(types.get("soa") == "struct particles", f"soa type {types.get('soa')}")

r = dump([os.path.join(corpus, "matmul_heap.c")])
prog = json.loads(r.stdout)
funcs = {(s["func"], s["var"]) for s in prog["sites"] if s["kind"] != "call"}
for v in ("A", "B", "C"):
    check(("mm_ijk", v) in funcs, f"matmul_heap: inlined mm_ijk access to {v}")
    check(("mm_ikj", v) in funcs, f"matmul_heap: inlined mm_ikj access to {v}")

r = dump([os.path.join(corpus, "linked_list.c")])
prog = json.loads(r.stdout)
acc = {(s["var"], s["field"], s["kind"]) for s in prog["sites"]}
check(("p", "key", "store") in acc, "linked_list: p->key store")
check(("p", "next", "store") in acc, "linked_list: p->next store")
texts = {s["text"] for s in prog["sites"]}
check({"p->key", "p->next", "head->next"} <= texts, f"linked_list texts {texts}")

r = dump([os.path.join(corpus, "stack_stencil.c")])
prog = json.loads(r.stdout)
vars_ = {s["var"] for s in prog["sites"] if s["kind"] != "call"}
check({"a", "b"} <= vars_, f"stack_stencil: stack arrays a, b: {vars_}")
fo = {f["var"]: f for f in prog["frame_objects"]}
check("a" in fo and "b" in fo and fo["a"]["size"] == 48000,
      f"stack_stencil: frame objects {fo}")
if "a" in fo and "b" in fo:
    oa, ob = fo["a"]["cfa_offset"], fo["b"]["cfa_offset"]
    check(oa is not None and ob is not None and abs(oa - ob) == 48000 and
          min(oa, ob) >= -96100 and max(oa, ob) < 0,
          f"stack_stencil: CFA offsets of a, b: {oa}, {ob}")

# branch conditions as written
r = dump([os.path.join(corpus, "branch_paths.c")])
prog = json.loads(r.stdout)
texts = {b["text"] for b in prog["branches"]}
for t in ("n % 20 == 0", "n % 3 == 0", "i < N", "argc > 1"):
    check(t in texts, f"branch_paths: no branch '{t}' in {texts}")
r = dump([os.path.join(corpus, "converge.c")])
texts = {b["text"] for b in json.loads(r.stdout)["branches"]}
check("err > tol && iters < 100000" in texts or "err > tol" in texts,
      f"converge: do-while condition: {texts}")

# loops per function at -O0, against the loop statements of the source
loop_re = re.compile(r"\b(for|while)\s*\(|\bdo\b")
for srcs, name in cases:
    r = dump(srcs, flags="-O0")
    check(r.returncode == 0, f"-O0 dump {name}")
    if r.returncode:
        continue
    prog = json.loads(r.stdout)
    files = prog["files"]
    for i, fn in enumerate(prog["functions"]):
        src = files[fn["file"]]
        lines = open(src).read().split("\n")
        starts = sorted(f["line"] for f in prog["functions"]
                        if files[f["file"]] == src)
        end = next((s for s in starts if s > fn["line"]), len(lines) + 1)
        body = "\n".join(lines[fn["line"] - 1:end - 1])
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        n = 0
        for m in loop_re.finditer(body):
            # the while of a do-while is part of the do
            if m.group(1) == "while" and re.search(r"}\s*$", body[:m.start()]):
                continue
            n += 1
        check(len(fn["loops"]) == n,
              f"{name}: {fn['name']} has {len(fn['loops'])} loops at -O0, "
              f"the source {n}")

# per-file flags from compile_commands.json (-p DIR)
two = os.path.join(corpus, "two_files")
cdb = os.path.join(tmp, "cdb")
os.mkdir(cdb)
with open(os.path.join(cdb, "compile_commands.json"), "w") as f:
    json.dump([{"directory": two, "file": "main.c",
                "command": "cc -O1 -c main.c -o main.o"},
               {"directory": two, "file": "kernel.c",
                "arguments": ["cc", "-O3", "-c", "-o", "kernel.o",
                              "kernel.c"]}], f)
srcs = [os.path.join(two, "main.c"), os.path.join(two, "kernel.c")]
r = subprocess.run([cbana, "dump", *srcs, "-p", cdb, "--format", "json"],
                   capture_output=True, text=True, env=env)
check(r.returncode == 0, f"dump -p: {r.stderr}")
if r.returncode == 0:
    sites = [s for s in json.loads(r.stdout)["sites"] if s["kind"] in ("load", "store")]
    want = count_mem_insts(srcs[:1], "-O1") + count_mem_insts(srcs[1:], "-O3")
    check(len(sites) == want, f"dump -p: {len(sites)} sites, want {want}")
check(os.listdir(private_tmp) == [], "temporary files left after dump -p")
r = subprocess.run([cbana, "dump", *srcs, "-p", tmp], capture_output=True,
                   text=True, env=env)
check(r.returncode == 2 and "compile_commands.json" in r.stderr,
      f"dump -p without the file: {r.stderr}")

# bad inputs: exit 2, a message with file and line, nothing left behind
bad = os.path.join(corpus, "bad")
r = dump([os.path.join(bad, "syntax_error.c")])
check(r.returncode == 2, f"syntax_error: exit {r.returncode}")
check("syntax_error.c:4:" in r.stderr, f"syntax_error: {r.stderr}")
r = dump([os.path.join(bad, "unknown_extern.c")])
check(r.returncode == 2, f"unknown_extern: exit {r.returncode}")
check("mystery" in r.stderr and "unknown_extern.c:5" in r.stderr,
      f"unknown_extern: {r.stderr}")
r = dump([os.path.join(tmp, "missing.c")])
check(r.returncode == 2 and "missing.c" in r.stderr, f"missing file: {r.stderr}")
r = subprocess.run([cbana, "dump"], capture_output=True, text=True, env=env)
check(r.returncode == 2, "dump without files")
for p in ("endless.c", "huge_alloc.c", "out_of_bounds.c"):
    r = dump([os.path.join(bad, p)])
    check(r.returncode == 0, f"bad/{p} lowers: {r.stderr}")

# text format
r = subprocess.run([cbana, "dump", os.path.join(corpus, "stride_global.c")],
                   capture_output=True, text=True, env=env)
check(r.returncode == 0 and "function main" in r.stdout and
      "var a type double" in r.stdout, "text dump of stride_global")

# every PolyBench kernel at MINI and SMALL: it lowers, every load and
# store of its IR has a site, its loops are there, and its arrays are
# named at their accesses.
if len(sys.argv) > 3:
    pb = sys.argv[3]
    kernels = sorted(os.path.join(d, f) for d, _, fs in os.walk(pb)
                     for f in fs if f.endswith(".c"))
    check(len(kernels) == 30, f"polybench: {len(kernels)} kernels, want 30")
    for k in first(kernels):
        name = os.path.basename(k)
        for size in first(("MINI", "SMALL")):
            flags = f"-O2 -D{size}_DATASET"
            r = dump([k], flags)
            check(r.returncode == 0,
                  f"{name} {size}: exit {r.returncode}: {r.stderr[-300:]}")
            if r.returncode != 0:
                continue
            prog = json.loads(r.stdout)
            sites = [s for s in prog["sites"] if s["kind"] in ("load", "store")]
            want = count_mem_insts([k], flags)
            check(len(sites) == want,
                  f"{name} {size}: {len(sites)} sites, the .ll has {want}")
            loops = sum(len(f.get("loops", [])) for f in prog["functions"])
            check(loops >= 1, f"{name} {size}: no loop found")
            named = [s for s in sites if s.get("var")]
            check(len(named) >= len(sites) // 2,
                  f"{name} {size}: {len(named)} of {len(sites)} sites named")

subprocess.run(["rm", "-rf", tmp])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
