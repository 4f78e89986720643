#!/bin/sh
# Random inputs for br_path2 and br_path3, in the NAME.inputs format: one
# argument line "X N" per input set, X uniform in [0, 1000).
#
#   bench/workloads/gen_brpath_inputs.sh [COUNT [SEED [N]]] > FILE.inputs
#
# COUNT defaults to 1000 (the paper's 1000 sets of inputs), SEED to 1, N to
# 1000 (the paper's load1K). The generator is a 31-bit LCG in shell
# arithmetic, so the same SEED gives the same file everywhere.
set -eu
count=${1:-1000}
seed=${2:-1}
n=${3:-1000}
echo "# br_path inputs: $count random X in [0,1000), seed $seed, N $n"
echo "# X N   (br_path2: X<500 path 1, else path 2;"
echo "#        br_path3: X<333 path 1, X<666 path 2, else path 3)"
s=$seed
i=0
while [ "$i" -lt "$count" ]; do
  s=$(( (s * 1103515245 + 12345) % 2147483648 ))
  echo "$(( (s / 65536) % 1000 )) $n"
  i=$((i + 1))
done
