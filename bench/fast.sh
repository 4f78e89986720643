#!/bin/bash
# cbana (fast engine, compile included) vs cachegrind, wall times.
#
#   bench/fast.sh [-b BUILD] [-r RESULTS] [-k "KERNEL ..."] SECTION...
#
# SECTION: medium | medium-default | large | irregular | tablev | memory |
#          upstream-medium | upstream-large | small | configs | report
#   medium, large  every PolyBench kernel at MEDIUM / LARGE
#   medium-default MEDIUM with cbana in its default mode (classification
#                  and every view), against the medium cachegrind runs
#   irregular      bench/workloads whose addresses come from loaded data
#                  (CSR gathers, pointer chasing), near 10^8 data references
#   tablev         the paper's Table V: 1000 inputs (gen_brpath_inputs.sh)
#                  to br_path2 and br_path3; cachegrind runs a sample of
#                  TABLEV_SAMPLE (20) of the inputs, one process each, and
#                  the 1000-run figure is that mean times 1000
#   memory         cbana's peak RSS as one program's stream grows 100x
#   upstream-medium, upstream-large
#                  PolyBench/C 4.2.1 as released (PB_UPSTREAM: a checkout
#                  of github:MatthiasJReisinger/PolyBenchC-4.2.1), cbana
#                  cold (a fresh XDG_CACHE_HOME: nothing compiled before is
#                  reused) in its default mode (tool cbana) and with
#                  --no-classify (tool cbana-nc)
#   small          programs of about 100 lines (LTS: an LLVM test-suite
#                  checkout), cbana cold (tool cbana) and again on the
#                  unchanged program (tool cbana-rerun)
#   configs        one program with one cache configuration (tool cbana)
#                  and with three in the same run (tool cbana-3)
#   report         bench/results/fast.md from bench/results/fast.tsv
# Each measurement is one line of RESULTS/fast.tsv:
#   section name tool wall_s user_s sys_s maxrss_kib refs
# A cachegrind line already there is not measured again (they take
# minutes; irregular measures both tools each time, in turn); cbana lines
# are replaced. RUNS=N times each run N times and records the run of
# median wall time (irregular: 5 unless set). CG_ONLY=1 measures only cachegrind,
# CB_ONLY=1 only cbana. CBANA_FLAGS adds options to every cbana run
# (e.g. --no-classify: the counters cachegrind computes, without the 3C
# classes, whose shadow LRU stack costs more than the rest). The cbana binary is copied first,
# so rebuilding while the bench runs does not disturb it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$root/build
results=$here/results
only=
while getopts b:r:k: o; do
  case $o in
    b) build=$(cd "$OPTARG" && pwd) ;;
    r) results=$OPTARG ;;
    k) only=$OPTARG ;;
    *) sed -n '2,25p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
mkdir -p "$results"
tsv=$results/fast.tsv
touch "$tsv"
work=${BENCH_WORK:-/tmp/cbana-bench.$$}
mkdir -p "$work"
cbana=$work/cbana
cp "$build/cbana" "$cbana"
# glibc's thresholds under valgrind are measured by the probe beside cbana
cp "$build/cbana-glibc-probe" "$work/" 2>/dev/null
# the frontend's LLVM side, loaded from beside cbana (frontend/module.c)
cp "$build/cbana-frontend.so" "$work/"
valgrind=${VALGRIND:-valgrind}

# record SECTION NAME TOOL TIMEFILE REFS
record() {
  local sec=$1 name=$2 tool=$3 tf=$4 refs=${5:-0}
  read -r wall user sys rss < <(tail -n 1 "$tf")
  # replace an older line of the same measurement (flock: two at a time)
  (
    flock 9
    grep -v -P "^\Q$sec\E\t\Q$name\E\t\Q$tool\E\t" "$tsv" > "$tsv.tmp"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sec" "$name" "$tool" \
      "$wall" "$user" "$sys" "$rss" "$refs" >> "$tsv.tmp"
    mv "$tsv.tmp" "$tsv"
  ) 9> "$tsv.lock"
}

have() { grep -q -P "^\Q$1\E\t\Q$2\E\t\Q$3\E\t" "$tsv"; }

# run_once TIMEFILE LOG COMMAND...: runs COMMAND once (in $work, its
# stderr to LOG) and adds its /usr/bin/time line to TIMEFILE.runs.
run_once() {
  local tf=$1 log=$2
  shift 2
  (cd "$work" && /usr/bin/time -f '%e %U %S %M' -o "$tf.one" "$@" \
    > /dev/null 2> "$log")
  tail -n 1 "$tf.one" >> "$tf.runs"
  rm -f "$tf.one"
}

# median_run TIMEFILE: the line of TIMEFILE.runs with the median wall
# time, into TIMEFILE: on this project's shared 2-vCPU machines one run
# of the same binary moves by 10 % to 60 % (cachegrind on load_loop: 8.4,
# 13.3 and 10.1 s in a row; bench/results/fast_notes.md).
median_run() {
  local tf=$1 n
  n=$(wc -l < "$tf.runs")
  sort -n -k1,1 "$tf.runs" | sed -n "$(( (n + 1) / 2 ))p" > "$tf"
  rm -f "$tf.runs"
}

# The caches cachegrind simulates: cbana's default (the "cachegrind"
# preset, cachemodel/presets.c), and an I1 of the same shape. Without
# them cachegrind takes the host's, from CPUID: on this project's
# machines an LL of 256 MiB, direct-mapped (a 320 MiB "L3" rounded down),
# and the two tools timed different caches (cachegrind's pr 1.33 s on
# that LL, 1.78 s on cbana's; load_loop 13.0 s and 11.6 s:
# fast_notes.md).
# shellcheck disable=SC2054 # the commas are cachegrind's
cg_caches=(--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64)

# cg_run SECTION NAME EXE ARGS...: one cachegrind run; cg_record
# SECTION NAME: its line, the median of the runs made. cg: RUNS runs
# (default 1), unless the line is there.
cg_run() {
  local sec=$1 name=$2
  shift 2
  run_once "$work/cg.$sec.$name.time" "$work/cg.$sec.$name.log" \
    "$valgrind" --tool=cachegrind --cache-sim=yes "${cg_caches[@]}" \
    --cachegrind-out-file=/dev/null "$@"
}
cg_record() {
  local sec=$1 name=$2 refs
  local tf=$work/cg.$sec.$name.time log=$work/cg.$sec.$name.log
  median_run "$tf"
  refs=$(grep 'D   refs:' "$log" | sed 's/.*refs: *\([0-9,]*\).*/\1/' |
    tr -d ,)
  record "$sec" "$name" cachegrind "$tf" "${refs:-0}"
}
cg() {
  local sec=$1 name=$2 _
  [ -z "${CB_ONLY:-}" ] || return 0
  have "$sec" "$name" cachegrind && return 0
  rm -f "$work/cg.$sec.$name.time.runs"
  for _ in $(seq "${RUNS:-1}"); do cg_run "$@"; done
  cg_record "$sec" "$name"
}

# cb_run SECTION NAME cbana-analyze-ARGS...: one cbana run; cb_record
# SECTION NAME: its line, the median of the runs made (and the stats of
# the last). cb: RUNS runs (default 1).
# CB_TOOL names the line (default cbana); CB_XDG, when set, is the
# XDG_CACHE_HOME of the run (cbana's cache of compiled units).
cb_run() {
  local sec=$1 name=$2 tool=${CB_TOOL:-cbana}
  shift 2
  # shellcheck disable=SC2086 # CBANA_FLAGS: several options
  run_once "$work/cb.$sec.$name.$tool.time" "$work/cb.$sec.$name.$tool.log" \
    env ${CB_XDG:+XDG_CACHE_HOME=$CB_XDG} \
    "$cbana" analyze "$@" ${CBANA_FLAGS:-} --quiet --stats --format json \
    -o "$work/cb.$sec.$name.$tool.json"
}
cb_record() {
  local sec=$1 name=$2 acc tool=${CB_TOOL:-cbana}
  local tf=$work/cb.$sec.$name.$tool.time log=$work/cb.$sec.$name.$tool.log
  median_run "$tf"
  acc=$(grep -o 'accesses [0-9]*' "$log" | head -n 1 | cut -d' ' -f2)
  record "$sec" "$name" "$tool" "$tf" "${acc:-0}"
  local suffix=
  [ "$tool" = cbana ] || suffix=.$tool
  cp "$log" "$results/stats.$sec.$name$suffix.txt"
}
# cold_xdg: a new XDG_CACHE_HOME without any program's compiled units
# (translation units, link lines, kernels) but with what cbana keeps per
# machine (the process probes, glibc's thresholds), made once by a first
# run on a small workload: "cold" is a program never analysed before on
# a machine that has run cbana.
cold_xdg() {
  local seed=$work/xdg-seed d
  if [ ! -d "$seed/cbana" ]; then
    mkdir -p "$seed"
    "$root/bench/workloads/build.sh" -o "$work/wl" br_path2 > /dev/null
    (cd "$work" && XDG_CACHE_HOME=$seed "$cbana" analyze \
      "$root/bench/workloads/br_path2.c" --args "1 100" --quiet \
      > /dev/null 2>&1)
  fi
  d=$(mktemp -d "$work/xdg.XXXXXX")
  cp -r "$seed/cbana" "$d/" 2> /dev/null
  rm -rf "$d/cbana/tu" "$d"/cbana/kernel-* "$d"/cbana/link-*
  echo "$d"
}

# cb_cold SECTION NAME ARGS...: cb with no compiled unit cached for each
# run (cold_xdg).
cb_cold() {
  local sec=$1 name=$2 _ tool=${CB_TOOL:-cbana}
  shift 2
  [ -z "${CG_ONLY:-}" ] || return 0
  rm -f "$work/cb.$sec.$name.$tool.time.runs"
  for _ in $(seq "${RUNS:-1}"); do
    CB_XDG=$(cold_xdg) cb_run "$sec" "$name" "$@"
  done
  cb_record "$sec" "$name"
}
cb() {
  local sec=$1 name=$2 _
  [ -z "${CG_ONLY:-}" ] || return 0
  rm -f "$work/cb.$sec.$name.${CB_TOOL:-cbana}.time.runs"
  for _ in $(seq "${RUNS:-1}"); do cb_run "$@"; done
  cb_record "$sec" "$name"
}

# polybench SIZE [SECTION]: SECTION medium-default runs cbana in its
# default mode (classification and every view, CBANA_FLAGS ignored) and
# reuses the medium section's cachegrind lines.
polybench() {
  local size=$1 sec=${2:-}
  [ -n "$sec" ] || sec=$(echo "$size" | tr '[:upper:]' '[:lower:]')
  "$root/polybench/build.sh" -s "$size" -o "$work/pb-$size" > /dev/null
  "$root/polybench/build.sh" --list | while read -r name src; do
    if [ -n "$only" ] && ! echo " $only " | grep -q " $name "; then
      continue
    fi
    # LARGE kernels run past 10^9 operations, the default budget of
    # builds before the default became no limit (kept for comparisons)
    if [ "$sec" = medium-default ]; then
      CBANA_FLAGS='' cb "$sec" "$name" "$root/polybench/$src" \
        --budget 1000000000000 \
        --cflags "-O2 -D${size}_DATASET -I$root/polybench"
      continue
    fi
    cg "$sec" "$name" "$work/pb-$size/$name"
    cb "$sec" "$name" "$root/polybench/$src" --budget 1000000000000 \
      --cflags "-O2 -D${size}_DATASET -I$root/polybench"
  done
}

# Irregular: NAME ARGS, sized near 10^8 data references. A few seconds
# a run: RUNS (default 5) of each tool, cachegrind and cbana in turn, so
# that the host's drift (minutes apart, cachegrind on load_loop took 7.8
# and 10.7 s: fast_notes.md) reaches both alike; each line is
# its tool's median. Both are measured each time (CB_ONLY=1, CG_ONLY=1:
# one alone).
irregular() {
  local runs=${RUNS:-5} _
  "$root/bench/workloads/build.sh" -o "$work/wl" > /dev/null
  while read -r prog args; do
    local name
    name=$(echo "$prog $args" | tr ' ' '_')
    rm -f "$work/cg.irregular.$name.time.runs" \
      "$work/cb.irregular.$name.cbana.time.runs"
    for _ in $(seq "$runs"); do
      # shellcheck disable=SC2086
      [ -n "${CB_ONLY:-}" ] || cg_run irregular "$name" "$work/wl/$prog" $args
      # load_loop's 10^8 accesses take over 10^9 operations, the default
      # budget: without a larger one it stopped early, its figure too small
      [ -n "${CG_ONLY:-}" ] ||
        cb_run irregular "$name" "$root/bench/workloads/$prog.c" \
          --args "$args" --budget 1000000000000
    done
    [ -n "${CB_ONLY:-}" ] || cg_record irregular "$name"
    [ -n "${CG_ONLY:-}" ] || cb_record irregular "$name"
  done << 'EOF'
pr 100000 1000000 1 10
tc 100000 1000000 1 1
load_loop array heap ir 1000000 100
EOF
}

tablev() {
  "$root/bench/workloads/build.sh" -o "$work/wl" br_path2 br_path3 > /dev/null
  local n=${TABLEV_SAMPLE:-20}
  "$root/bench/workloads/gen_brpath_inputs.sh" 1000 > "$work/tablev.inputs"
  for prog in br_path2 br_path3; do
    if [ -z "${CB_ONLY:-}" ] && ! have tablev "$prog" cachegrind; then
      local tf=$work/cg.tablev.$prog.time
      grep -v '^#' "$work/tablev.inputs" | head -n "$n" > "$work/sample"
      # shellcheck disable=SC2016 # the script's own arguments
      (cd "$work" && /usr/bin/time -f '%e %U %S %M' -o "$tf.sample" \
        sh -c 'v=$1 exe=$2; shift 2
               while read -r x nn; do
                 "$v" --tool=cachegrind --cache-sim=yes "$@" \
                   --cachegrind-out-file=/dev/null "$exe" "$x" "$nn" \
                   > /dev/null 2>&1
               done < sample' sh "$valgrind" "$work/wl/$prog" \
          "${cg_caches[@]}")
      # the sample's mean run, times 1000 (wall, user, sys; rss as is)
      awk -v n="$n" '{ printf "%.2f %.2f %.2f %s\n", $1 / n * 1000,
        $2 / n * 1000, $3 / n * 1000, $4 }' "$tf.sample" > "$tf"
      record tablev "$prog" cachegrind "$tf" 0
    fi
    cb tablev "$prog" "$root/bench/workloads/$prog.c" \
      --inputs "$work/tablev.inputs"
  done
}

# Peak memory against stream length: the same data (N elements), M passes.
memory() {
  "$root/bench/workloads/build.sh" -o "$work/wl" load_loop > /dev/null
  # x100000: 10^9 accesses, several of the time split's epochs
  # (analysis/pipeline/split.h), past 10^9 operations (once the default budget)
  for m in 10 100 1000 100000; do
    CG_ONLY='' cb memory "load_loop_r_10000_x$m" \
      "$root/bench/workloads/load_loop.c" --args "array heap r 10000 $m" \
      --budget 1000000000000
  done
}

# upstream SIZE: PolyBench/C 4.2.1 as released, each kernel with
# utilities/polybench.c; cbana cold, default mode and --no-classify.
upstream() {
  local size=$1 sec _
  sec=upstream-$(echo "$size" | tr '[:upper:]' '[:lower:]')
  local pb=${PB_UPSTREAM:?PB_UPSTREAM: a PolyBenchC-4.2.1 checkout}
  mkdir -p "$work/pbu-$size"
  find "$pb" -name '*.c' ! -path '*/utilities/*' | LC_ALL=C sort |
    while read -r src; do
      local name dir flags
      name=$(basename "$src" .c)
      dir=$(dirname "$src")
      if [ -n "$only" ] && ! echo " $only " | grep -q " $name "; then
        continue
      fi
      flags="-O2 -D${size}_DATASET -I$pb/utilities -I$dir"
      # shellcheck disable=SC2086 # flags: several
      clang $flags -g -gdwarf-4 -o "$work/pbu-$size/$name" "$src" \
        "$pb/utilities/polybench.c" -lm 2> /dev/null || continue
      cg "$sec" "$name" "$work/pbu-$size/$name"
      CBANA_FLAGS='' CB_TOOL=cbana cb_cold "$sec" "$name" "$src" \
        "$pb/utilities/polybench.c" --cflags "$flags"
      CBANA_FLAGS=--no-classify CB_TOOL=cbana-nc cb_cold "$sec" "$name" \
        "$src" "$pb/utilities/polybench.c" --cflags "$flags"
    done
}

# small: programs of about 100 lines from LLVM's test-suite, cold and on
# an unchanged rerun (the CI gate's case): the fixed costs.
small() {
  local lts=${LTS:?LTS: an LLVM test-suite checkout} rel
  for rel in Shootout/heapsort BenchmarkGame/puzzle Dhrystone/dry; do
    local src=$lts/SingleSource/Benchmarks/$rel.c name=${rel//\//-}
    local flags="-O2 -DSMALL_PROBLEM_SIZE -I$(dirname "$src")"
    # shellcheck disable=SC2086 # flags: several
    clang $flags -g -gdwarf-4 -o "$work/small-$name" "$src" -lm || continue
    cg small "$name" "$work/small-$name"
    [ -z "${CG_ONLY:-}" ] || continue
    local tf=$work/cb.small.$name
    rm -f "$tf".*.time.runs
    for _ in $(seq "${RUNS:-1}"); do
      local xdg
      xdg=$(cold_xdg)
      CBANA_FLAGS='' CB_TOOL=cbana CB_XDG=$xdg cb_run small "$name" "$src" \
        --cflags "$flags"
      CBANA_FLAGS='' CB_TOOL=cbana-rerun CB_XDG=$xdg cb_run small "$name" \
        "$src" --cflags "$flags"
    done
    CB_TOOL=cbana cb_record small "$name"
    CB_TOOL=cbana-rerun cb_record small "$name"
  done
}

# configs: one stream, one or three cache configurations (the presets
# cachegrind, skylake and zen3), default mode.
configs() {
  local pb=${PB_UPSTREAM:?PB_UPSTREAM: a PolyBenchC-4.2.1 checkout} k
  for k in linear-algebra/blas/gemm stencils/jacobi-2d; do
    local src=$pb/$k/$(basename "$k").c name
    name=$(basename "$k")
    local flags="-O2 -DMEDIUM_DATASET -I$pb/utilities -I$pb/$k"
    CBANA_FLAGS='' CB_TOOL=cbana cb configs "$name" "$src" \
      "$pb/utilities/polybench.c" --cflags "$flags" --cache cachegrind
    CBANA_FLAGS='' CB_TOOL=cbana-3 cb configs "$name" "$src" \
      "$pb/utilities/polybench.c" --cflags "$flags" --cache cachegrind \
      --cache skylake --cache zen3
  done
}

for s in "$@"; do
  case $s in
    medium) polybench MEDIUM ;;
    medium-default) polybench MEDIUM medium-default ;;
    large) polybench LARGE ;;
    irregular) irregular ;;
    tablev) tablev ;;
    memory) memory ;;
    upstream-medium) upstream MEDIUM ;;
    upstream-large) upstream LARGE ;;
    small) small ;;
    configs) configs ;;
    report) python3 "$here/fast_report.py" "$tsv" > "$results/fast.md" ;;
    *) echo "fast.sh: unknown section $s" >&2; exit 2 ;;
  esac
done
[ -n "${BENCH_WORK:-}" ] || rm -rf "$work"
