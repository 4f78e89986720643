#!/bin/sh
# cbana, cachegrind and the native run on the C programs of LLVM's
# test-suite SingleSource/Benchmarks; the table and summary go to
# bench/results/realprogs.md and .tsv. See bench/realprogs.py for what is
# run and compared, and `bench/realprogs.sh --help` for the options:
#
#   bench/realprogs.sh DIR [-j N] [--full] [--opt=-O2] [--timeout 600]
#                      [--only NAME...] [--resume] [--list]
exec python3 "$(dirname "$0")/realprogs.py" "$@"
