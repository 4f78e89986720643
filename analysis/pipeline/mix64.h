/* mix64.h: the 64-bit finalizer of MurmurHash3 (fmix64, Austin
 * Appleby's public-domain reference), which spreads every input bit over
 * every output bit: the hash of analysis/'s open-addressing tables.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_MIX64_H
#define CBANA_ANALYSIS_MIX64_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

#endif
