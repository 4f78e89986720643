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

/* An affine block (stream.h) hashed as itself, not as its expansion: a
 * header pair (n_iter, a tag with n_acc), then per access (base, the
 * record word as above) and (stride, a second tag). A record's second
 * word is below 2^49 and the tags are not, so the hashed sequence of
 * words tells records and blocks apart and determines the stream: equal
 * hashes still mean equal streams (as far as the two 64-bit hashes are
 * collision-free). The same stream cut into other blocks, or expanded,
 * hashes differently: a memo miss, never a wrong hit. A block of no
 * access is no part of the stream and hashes as nothing. */
#define HASH_BLOCK_TAG 0xAF1E000000000000ull
#define HASH_STRIDE_TAG 0x57D1000000000000ull

static inline void hash_words(stream_hash *sh, uint64_t w0, uint64_t w1) {
  sh->h1 = (rotl64(sh->h1, 5) ^ w0) * 0x9E3779B97F4A7C15ull;
  sh->h1 = (rotl64(sh->h1, 5) ^ w1) * 0x9E3779B97F4A7C15ull;
  sh->h2 = (rotl64(sh->h2, 23) + w0) * 0xD6E8FEB86659FD93ull;
  sh->h2 = (rotl64(sh->h2, 23) + w1) * 0xD6E8FEB86659FD93ull;
}

static inline void hash_block(stream_hash *sh, const cb_affine_block *b) {
  if (b->n_iter == 0 || b->n_acc == 0)
    return;
  hash_words(sh, b->n_iter, HASH_BLOCK_TAG | b->n_acc);
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    hash_words(sh, a->base,
               (uint64_t)a->site | (uint64_t)a->size << 32 |
                   (uint64_t)a->is_write << 48);
    hash_words(sh, (uint64_t)a->stride, HASH_STRIDE_TAG);
  }
  sh->n += b->n_iter * b->n_acc;
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
