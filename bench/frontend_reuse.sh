#!/usr/bin/env bash
# The frontend's cost on a cold cache and on an unchanged rerun, for one
# cbana binary: TimberWolfMC and SMG2000 (LLVM test-suite MultiSource, the
# harness's own commands from /work/runs/mscmd.py) and a corpus program.
# Usage: bench/frontend_reuse.sh CBANA_BINARY LABEL [PROGRAM...]
# Prints, per program and run: wall, user+sys CPU of cbana and its
# children, and --stats' compile and lowering lines.
set -uo pipefail
bin=$1 label=$2
shift 2
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=(Prolangs-C/TimberWolfMC ASCI_Purple/SMG2000 merge_sort)
work=$(mktemp -d)
mkdir -p "$work/bin"
ln -s "$(realpath "$bin")" "$work/bin/cbana"
for p in "${progs[@]}"; do
  export XDG_CACHE_HOME=$work/cache-$(basename "$p")
  rm -rf "$XDG_CACHE_HOME"
  if [ "$p" = merge_sort ]; then
    cmd="cbana analyze /work/shared/corpus/merge_sort.c --inputs /work/shared/corpus/merge_sort.inputs --stats --quiet -o /dev/null"
  else
    cmd=$(python3 /work/runs/mscmd.py "$p" --stats --quiet -o /dev/null)
  fi
  for run in cold rerun; do
    (cd "$work" && PATH=$work/bin:$PATH /usr/bin/time -f "TIME %e %U %S" \
      bash -c "$cmd" >/dev/null 2>"$work/err")
    t=$(grep '^TIME' "$work/err" | tail -1)
    read -r _ wall usr sys <<<"$t"
    comp=$(grep -m1 '^  compile ' "$work/err" | sed 's/  */ /g')
    low=$(grep -m1 '^  lowering ' "$work/err" | sed 's/  */ /g')
    printf '%s %s %s: wall %s s, cpu %.2f s |%s |%s\n' "$label" "$(basename "$p")" \
      "$run" "$wall" "$(echo "$usr + $sys" | bc)" "$comp" "$low"
  done
done
rm -rf "$work"
