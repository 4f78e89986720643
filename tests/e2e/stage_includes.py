#!/usr/bin/env python3
"""The modules and analysis/'s stages include one way and only each
other's public headers (docs/architecture.md, "Where each responsibility
lives"). Three rules:

1. a quoted include, in a module or stage, of a header in another one's
   folder must name one of that stage's public headers, of a stage this
   one may use (the top-level modules meet only in include/cbana/);
2. nothing outside the modules (tools/, the examples) includes a
   module's header; unit tests (tests/unit/) and benchmarks (bench/)
   test internals and may;
3. no include loop spans two folders (include/cbana/ counts as one).

Usage: stage_includes.py SOURCE_DIR; exits 1 and names each offence."""
import os
import re
import sys

# the headers other stages may include, per stage
PUBLIC = {
    "analysis/plan": set(),
    "analysis/process": {"proc.h", "mem.h", "heap.h", "rand.h", "sse_fp.h",
                         "process.h", "libc_build.h", "glibc_tunables.h"},
    "analysis/engine": set(),
    "analysis/pipeline": set(),
    "cli": set(),
    "frontend": set(),
    "cachemodel": set(),
    "report": set(),
}
# the stages each stage may include from
USES = {
    "analysis/plan": set(),
    "analysis/process": set(),
    "analysis/engine": {"analysis/process"},
    "analysis/pipeline": {"analysis/engine", "analysis/process"},
    "cli": set(),
    "frontend": set(),
    "cachemodel": set(),
    "report": set(),
}
CONTRACTS = "include/cbana"
# folders of sources that are no module and must use only the contracts
OUTSIDE = ("tools", "examples")
SOURCES = (".c", ".h", ".cc", ".cpp")
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1)


def walk(root, folder, recurse):
    d = os.path.join(root, folder)
    if not os.path.isdir(d):
        return
    for dirpath, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCES):
                yield os.path.relpath(os.path.join(dirpath, f), root)
        if not recurse:
            return


def resolve(root, src, inc, where):
    """The file a quoted include names: beside the source, then in
    include/, then (for a bare name) the one folder holding it."""
    here = os.path.normpath(os.path.join(os.path.dirname(src), inc))
    if os.path.isfile(os.path.join(root, here)):
        return here
    if os.path.isfile(os.path.join(root, "include", inc)):
        return os.path.join("include", inc)
    return where.get(os.path.basename(inc))


def loops(graph, folder_of):
    """Strongly connected components spanning two folders (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len({folder_of(f) for f in comp}) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1]
    where = {}  # a module's header by its bare name
    for stage in PUBLIC:
        for f in walk(root, stage, False):
            if f.endswith(".h"):
                where[os.path.basename(f)] = f
    folder_of = lambda f: os.path.dirname(f)
    stage_of = {}
    for stage in PUBLIC:
        stage_of[stage] = stage
    graph = {}
    bad = 0
    for folder in list(PUBLIC) + [CONTRACTS] + list(OUTSIDE):
        for src in walk(root, folder, folder in OUTSIDE):
            for n, inc in includes(os.path.join(root, src)):
                target = resolve(root, src, inc, where)
                if target is None:
                    continue
                graph.setdefault(src, set()).add(target)
                other = folder_of(target)
                if other not in PUBLIC or other == folder_of(src):
                    continue
                mine = folder if folder in PUBLIC else None
                name = os.path.basename(target)
                if mine is None:
                    why = "outside the modules"
                elif other not in USES[mine]:
                    why = "a stage %s may not use" % mine
                elif name not in PUBLIC[other]:
                    why = "internal to %s" % other
                else:
                    continue
                print("%s:%d: includes %s (%s)" % (src, n, target, why))
                bad += 1
    for comp in loops(graph, folder_of):
        print("include loop across folders: %s" % " ".join(comp))
        bad += 1
    print("%d include(s) out of place" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
