/* mix64.h: the 64-bit finalizer of MurmurHash3 (fmix64, Austin
 * Appleby's public-domain reference), which spreads every input bit over
 * every output bit: the hash of the open-addressing tables of analysis/
 * and the spatial sample of cachemodel/'s classification shadow (SHARDS
 * samples by a hash of the location). */
#ifndef CBANA_MIX64_H
#define CBANA_MIX64_H

#include <stdint.h>

static inline uint64_t cb_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

#endif
