/* Bit tests and sets by a variable bit number: clang emits bt (and bts
 * for x |= 1 << n) on registers, which valgrind runs on a copy of the
 * register at rsp - 288 (a store, the tested byte's load; for bts also
 * the byte's modify and the copy's load back), accesses cachegrind
 * counts on the instruction's line. A sieve over a bit array and a
 * bitmask built per word. */
#include <stdio.h>
#include <stdlib.h>

#define BITS 32

static unsigned sieve[1 << 14];

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
  unsigned step = argc > 2 ? (unsigned)atoi(argv[2]) : 7;
  if (n > sizeof sieve * 8 - 1)
    n = sizeof sieve * 8 - 1;
  for (unsigned i = 0; i <= n / BITS; i++)
    sieve[i] = ~0u;
  unsigned count = 0;
  for (unsigned i = 2; i <= n; i++)
    if (sieve[i / BITS] & (1u << (i % BITS))) {
      count++;
      for (unsigned j = i + i; j <= n; j += i)
        if (sieve[j / BITS] & (1u << (j % BITS)))
          sieve[j / BITS] ^= 1u << (j % BITS);
    }
  unsigned long mask = 0, acc = 0;
  for (unsigned i = 0; i < n; i += step) {
    mask |= 1ul << (i % 64);
    acc += mask >> (i % 61);
  }
  printf("%u %lu %lu\n", count, mask, acc);
  return 0;
}
