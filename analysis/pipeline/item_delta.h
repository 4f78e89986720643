/* item_delta.h: the time split's compact items (split.c). A loop nest's
 * inner loop sends one affine block per instance, often with a few
 * records between them (a vectorized loop's remainder, the statements
 * around the loop), and consecutive instances differ only in their
 * addresses, which most often move by the same amounts each time
 * (gemm's B[k][j] by a row, its C[i][j] by nothing). So an item is
 * written whole only when its shape (a block's strides, sites, sizes
 * and kinds; records' sites, sizes and kinds) differs from the last
 * item of its sort in the same chunk; else as its addresses alone, or,
 * when every address moved by what it moved last time, as its header
 * alone. Each chunk starts afresh (item_delta_reset), so its readers
 * need nothing of the chunks before it: the writer and every reader
 * apply the same rules to the same items from the chunk's start, and
 * hold the same last items at each one.
 *
 * Why: the chunks are the split's memory, and fresh memory is dear on
 * hosts that hand freed pages back to their hypervisor (3 ms a MiB on
 * this project's). gemm LARGE's chunks took 80 MiB of 160-byte blocks;
 * syr2k's took 160 MiB even with its blocks coded, for its records
 * (peak RSS 308 -> 194 MiB with both coded: bench/results/fast_notes.md).
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_ITEM_DELTA_H
#define CBANA_ANALYSIS_ITEM_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/stream.h"
#include "pipe.h"

/* A block of more accesses than this travels expanded, as records. */
#define ITEM_DELTA_BLOCK_MAX 256
/* A batch of more records than this is never coded against another. */
#define ITEM_DELTA_RECORDS_MAX 64

/* The kinds of stream_item (its is_block field) in the split's chunks. */
enum {
  ITEM_RECORDS = 0,    /* cb_access records, whole */
  ITEM_BLOCK = 1,      /* a block's accesses, whole */
  ITEM_BLOCK_AT = 2,   /* the last block's shape at these bases (uint64_t) */
  ITEM_BLOCK_STEP = 3, /* the last block, each base moved as it moved last */
  ITEM_RECORDS_AT = 4, /* the last records' shape at these addresses */
  ITEM_RECORDS_STEP = 5
};

/* The last items of a chunk, as its writer and each reader hold them. */
typedef struct item_delta {
  uint32_t n_acc;          /* the last block's accesses; 0: none */
  uint32_t n_rec;          /* the last records (at most RECORDS_MAX); 0: none */
  bool acc_step, rec_step; /* their moves are known */
  cb_affine_access acc[ITEM_DELTA_BLOCK_MAX];
  uint64_t acc_moved[ITEM_DELTA_BLOCK_MAX]; /* each base's last move */
  cb_access rec[ITEM_DELTA_RECORDS_MAX];
  uint64_t rec_moved[ITEM_DELTA_RECORDS_MAX];
} item_delta;

/* A chunk's start: no last items. */
static inline void item_delta_reset(item_delta *d) {
  d->n_acc = d->n_rec = 0;
}

static inline bool item_is_records(const stream_item *it) {
  return it->is_block == ITEM_RECORDS || it->is_block >= ITEM_RECORDS_AT;
}

/* An item's bytes, its header included, and its accesses. */
size_t item_delta_bytes(const stream_item *it);
static inline uint64_t item_delta_accesses(const stream_item *it) {
  return item_is_records(it) ? it->n : it->n_iter * it->n;
}

/* The writer. The kind block b can be written as (ITEM_BLOCK...), and
 * its payload's bytes; then item_delta_write_block writes that payload
 * at out and makes b the last block. */
unsigned item_delta_block_kind(const item_delta *d, const cb_affine_block *b,
                               size_t *payload_bytes);
void item_delta_write_block(item_delta *d, unsigned kind,
                            const cb_affine_block *b, void *out);

/* The writer: n records already in the chunk at rec, rewritten there in
 * their compact form; returns their kind (ITEM_RECORDS...) and sets the
 * bytes they now take. */
unsigned item_delta_pack_records(item_delta *d, cb_access *rec, uint32_t n,
                                 size_t *payload_bytes);

/* The reader: the accesses of block item `it` (its payload after the
 * header) or the records of a records item, which become the last of
 * their sort. Valid until the next call. */
const cb_affine_access *item_delta_read_block(item_delta *d,
                                              const stream_item *it,
                                              const void *payload);
const cb_access *item_delta_read_records(item_delta *d, const stream_item *it,
                                         const void *payload);

#endif
