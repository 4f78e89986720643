#!/usr/bin/env bash
# Writes examples/stride.din (to stdout): a 20 x 256 matrix of doubles
# (2 KiB rows, 40 KiB in all) at 0x10000000, first written row by row,
# then read column by column, then 64 reads that straddle two lines.
#
# In cachegrind's 32 KiB 8-way L1 (64 sets of 64-byte lines) a column's
# 20 lines fall into only 2 sets (a row is 32 lines), 10 lines for 8
# ways: the column walk misses on lines that a fully associative cache of
# the same size would keep (conflict misses), besides the first touches
# (compulsory) and what the 40 KiB matrix pushes out (capacity).
set -eu
rows=20 cols=256 base=$((0x10000000))
echo "# stride.din: made by examples/make_stride_trace.sh"
echo "# din format: LABEL HEXADDR SIZE (0 read, 1 write, 2 fetch)"
echo "2 400000 4"
for ((r = 0; r < rows; r++)); do
  for ((c = 0; c < cols; c++)); do
    printf '1 %x 8\n' $((base + (r * cols + c) * 8))
  done
done
echo "2 400004 4"
for ((c = 0; c < cols; c++)); do
  for ((r = 0; r < rows; r++)); do
    printf '0 %x 8\n' $((base + (r * cols + c) * 8))
  done
done
# Unaligned reads 4 bytes before each line boundary of a fresh region.
for ((k = 0; k < 64; k++)); do
  printf '0 %x 8\n' $((base + 0x100000 + k * 64 + 60))
done
