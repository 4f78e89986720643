/* driver_memo.h: the stream hash by which the driver memoizes (see
 * driver.c): two independent 64-bit hashes of the access stream and its
 * length, updated batch by batch on the stream's way. Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_DRIVER_MEMO_H
#define CBANA_ANALYSIS_DRIVER_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/stream.h"

typedef struct stream_hash {
  uint64_t h1, h2, n;
} stream_hash;

static inline uint64_t rotl64(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

static inline void hash_batch(stream_hash *sh, const cb_access *b, size_t n) {
  uint64_t h1 = sh->h1, h2 = sh->h2;
  for (size_t i = 0; i < n; i++) {
    uint64_t w0 = b[i].addr;
    uint64_t w1 = (uint64_t)b[i].site | (uint64_t)b[i].size << 32 |
                  (uint64_t)b[i].is_write << 48;
    h1 = (rotl64(h1, 5) ^ w0) * 0x9E3779B97F4A7C15ull;
    h1 = (rotl64(h1, 5) ^ w1) * 0x9E3779B97F4A7C15ull;
    h2 = (rotl64(h2, 23) + w0) * 0xD6E8FEB86659FD93ull;
    h2 = (rotl64(h2, 23) + w1) * 0xD6E8FEB86659FD93ull;
  }
  sh->h1 = h1;
  sh->h2 = h2;
  sh->n += n;
}

static inline bool same_stream(const stream_hash *a, const stream_hash *b) {
  return a->h1 == b->h1 && a->h2 == b->h2 && a->n == b->n;
}

/* One stream already simulated: whose results to copy. */
typedef struct memo_entry {
  stream_hash key;
  unsigned run; /* index into out->runs, results complete */
} memo_entry;

#endif
