#!/usr/bin/env bash
# Measures the process model that docs/process-model.md describes: builds
# the probes (clang -O2 -g -gdwarf-4, PIE) and runs them under
# `env -i valgrind` (--tool=none, and --tool=cachegrind to check that the
# layout is the same). Prints what they see.
#   tools/probe/measure.sh [stack|heap|memfn|gap|all]   (default all)
# Needs clang, valgrind, python3, objdump; the corpus for `gap`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=${CBANA_CORPUS_DIR:-$here/../../../shared/corpus}
what=${1:-all}
out=$(mktemp -d /tmp/cbana-probe-XXXXXX)
trap 'rm -rf "$out"' EXIT
cc() { clang -O2 -g -gdwarf-4 -o "$out/$1" "$here/$1.c" "${@:2}"; }
vg() { env -i valgrind -q --tool=none "$@"; }
cg() { env -i valgrind -q --tool=cachegrind --cache-sim=yes \
         --cachegrind-out-file=/dev/null "$@"; }

if [[ $what == all || $what == stack ]]; then
  echo "== stack: probe output for $out/stack a bb ccc (tool=none)"
  cc stack
  (cd "$out" && vg "$out/stack" a bb ccc)
  echo "== stack: same under cachegrind"
  (cd "$out" && cg "$out/stack" a bb ccc | head -3)
  echo "== stack: model (tools/probe/stack_model.py) against the probe"
  python3 "$here/stack_model.py" check "$out/stack"
  echo "== stack: natively (ASLR: random top, same layout rules)"
  env -i "$out/stack" a | head -2
fi

if [[ $what == all || $what == heap ]]; then
  cc heap
  for s in basic first128k firstbig memalign memalign1 calloc realloc reuse; do
    echo "== heap: $s (tool=none; cachegrind must print the same)"
    vg "$out/heap" $s 2>&1 >/dev/null | tee "$out/n.txt"
    cg "$out/heap" $s 2>&1 >/dev/null | grep -v -e '^--' -e '^==' >"$out/c.txt"
    cmp -s "$out/n.txt" "$out/c.txt" && echo "   (cachegrind: identical)" ||
      { echo "   cachegrind differs:"; diff "$out/n.txt" "$out/c.txt" || true; }
  done
  echo "== heap: stdout buffer, stdout to a pipe / a file / a terminal"
  vg "$out/heap" stdout 2>&1 >/dev/null | grep printf
  vg "$out/heap" stdout 2>&1 >"$out/f.txt" | grep printf
  script -qec "env -i valgrind -q --tool=none $out/heap stdout" /dev/null |
    grep printf | tr -d '\r'
  echo "== heap: stdin buffer (scanf), stdin from a file"
  echo 5 >"$out/five"
  vg "$out/heap" stdin <"$out/five" 2>&1 >/dev/null | grep -E 'scanf|printf'
  echo "== heap: natively (page offsets; brk start is random)"
  env -i "$out/heap" basic 2>&1 >/dev/null | head -4
  echo "== mmap base: ld.so, libraries and first mmap chunk, with and without libm"
  cat >"$out/maps.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
volatile double d = 2;
int main(int argc, char **argv) {
#ifdef USE_M
  if (argc > 1) d = exp(d);
#endif
  char *p = malloc(1 << 20);
  printf("brk0+... first small malloc %p, first 1 MiB malloc %p\n",
         malloc(1), (void *)p);
  FILE *f = fopen("/proc/self/maps", "r");
  char l[512];
  while (fgets(l, sizeof l, f))
    if (l[0] == '0' && l[1] == '4') fputs(l, stdout);
  return 0;
}
C
  clang -O2 -o "$out/maps" "$out/maps.c"
  clang -O2 -DUSE_M -o "$out/mapsm" "$out/maps.c" -lm
  echo "-- without libm"; vg "$out/maps" | grep -v -- '---p'
  echo "-- with libm"; vg "$out/mapsm" x | grep -v -- '---p'
  printf 'ld.so.cache size: %d\n' "$(stat -c %s /etc/ld.so.cache)"
fi

if [[ $what == all || $what == memfn ]]; then
  cc memfn
  sizes="0 1 2 3 4 7 8 15 16 31 32 33 63 64 65 100 128 129 200 256 257 1000 2048 2049 4096 4097 100000"
  for f in memset memcpy memmove strlen; do
    echo "== $f (lackey; counts per call; offsets from the buffer start)"
    python3 "$here/memfn_trace.py" "$out/memfn" $f 5 0 $sizes | cut -c1-70
  done
  echo "== memmove, overlapping (dst = src + 64), as in corpus/mem_funcs.c"
  python3 "$here/memfn_trace.py" "$out/memfn" memmove_in 64 0 1000 4096 100000 |
    cut -c1-70
fi

if [[ $what == all || $what == gap ]]; then
  for p in converge:1e-2 stack_stencil:10 stdin_hist:; do
    n=${p%%:*} a=${p#*:}
    clang -O2 -g -gdwarf-4 -o "$out/$n" "$corpus/$n.c" -lm
    echo "== gap: $n $a"
    if [[ $n == stdin_hist ]]; then
      python3 "$here/gap.py" "$out/$n" <"$corpus/stdin_hist.data"
    else
      python3 "$here/gap.py" "$out/$n" $a
    fi
  done
fi
