#!/usr/bin/env bash
# Compares, byte for byte, the object clang makes from a source with the one
# it makes from that source's bitcode with the IR passes off (what
# frontend/compile.c does with more sources than cores), with the flags
# cbana uses. Usage: bench/obj_from_bc_check.sh "CFLAGS" SOURCE...
# Prints one line per differing object and a total; exits 1 on a difference.
set -uo pipefail
flags=$1
shift
clang=/usr/bin/clang-14
t=$(mktemp -d)
same=0 diff=0
for s in "$@"; do
  b=$t/$(basename "$s" .c)
  # shellcheck disable=SC2086
  $clang $flags -gdwarf-4 -c -o "$b.src.o" -fno-color-diagnostics "$s" 2>/dev/null &&
    $clang $flags -gdwarf-4 -c -emit-llvm -o "$b.bc" -fno-color-diagnostics "$s" 2>/dev/null &&
    $clang $flags -gdwarf-4 -c -Xclang -disable-llvm-passes \
      -Wno-unused-command-line-argument -o "$b.bc.o" -fno-color-diagnostics "$b.bc" 2>/dev/null ||
    { echo "does not compile: $s"; continue; }
  if cmp -s "$b.src.o" "$b.bc.o"; then
    same=$((same + 1))
  else
    diff=$((diff + 1))
    echo "differs: $s"
  fi
done
rm -rf "$t"
echo "objects identical: $same, different: $diff"
[ "$diff" -eq 0 ]
