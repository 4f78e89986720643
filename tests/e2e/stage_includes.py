#!/usr/bin/env python3
"""analysis/'s stages include one way and only each other's public
headers (docs/architecture.md, "Where each responsibility lives"): a
quoted include of a file in another stage's folder must name one of that
stage's public headers, of a stage this one may use. Usage:
stage_includes.py SOURCE_DIR; exits 1 and names each offending include."""
import os
import re
import sys

# the headers other stages may include, per stage
PUBLIC = {
    "plan": set(),
    "process": {"proc.h", "mem.h", "heap.h", "rand.h", "sse_fp.h",
                "process.h", "libc_build.h", "glibc_tunables.h"},
    "engine": set(),
    "pipeline": set(),
}
# the stages each stage may include from
USES = {
    "plan": set(),
    "process": set(),
    "engine": {"process"},
    "pipeline": {"engine", "process"},
}


def main():
    root = os.path.join(sys.argv[1], "analysis")
    where = {}
    for stage in PUBLIC:
        for f in os.listdir(os.path.join(root, stage)):
            if f.endswith(".h"):
                where[f] = stage
    bad = 0
    for stage in PUBLIC:
        d = os.path.join(root, stage)
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = os.path.basename(m.group(1))
                    other = where.get(inc)
                    if other is None or other == stage:
                        continue
                    if other not in USES[stage]:
                        why = "a stage %s may not use" % stage
                    elif inc not in PUBLIC[other]:
                        why = "internal to %s" % other
                    else:
                        continue
                    print("%s/%s:%d: includes %s/%s (%s)" %
                          (stage, f, n, other, inc, why))
                    bad += 1
    print("%d stage include(s) out of place" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
