/* The segment memo: repeated stretches of a stream counted without
 * being run. Internal to cachemodel (memo.c has the argument).
 *
 * A segment is the records that arrive after an affine block, up to and
 * with the next block. Loop nests emit the same segment, line for line,
 * many times in a row (a column walk repeats its lines for every element
 * of a line along the row: 8 doubles in 64 bytes); once enough of them
 * ran, the next ones change no cache state and add the same counts. */
#ifndef CBANA_CACHEMODEL_MEMO_H
#define CBANA_CACHEMODEL_MEMO_H

#include "cbana/stream.h"

#include <stdbool.h>
#include <stdint.h>

/* The most records held back for a segment, and accesses per block (the
 * affine loop's own limit). */
#define MEMO_MAX_RECORDS 32
#define MEMO_MAX_ACC 16
#define MEMO_MAX_SITES (MEMO_MAX_RECORDS + MEMO_MAX_ACC)

/* What a segment changed: every counter the hierarchy keeps without
 * classification. */
typedef struct memo_delta {
  uint64_t accesses[CB_MAX_LEVELS], writes[CB_MAX_LEVELS];
  uint64_t misses[CB_MAX_LEVELS], write_misses[CB_MAX_LEVELS];
  uint32_t n_sites;
  uint32_t site[MEMO_MAX_SITES];
  uint64_t site_accesses[MEMO_MAX_SITES][CB_MAX_LEVELS];
  uint64_t site_misses[MEMO_MAX_SITES][CB_MAX_LEVELS];
  uint64_t slow_accesses;
  cb_affine_stats affine;
} memo_delta;

typedef struct seg_memo {
  uint32_t shift; /* the smallest line's: equal lines there are equal
                     lines at every level */
  /* The current segment's records, not run yet. */
  uint32_t n_pend;
  cb_access pend[MEMO_MAX_RECORDS];
  /* The previous segment, as run, and what it changed. */
  bool prev_valid;
  uint32_t run; /* equal segments in a row, the previous one included */
  bool steady;  /* the previous one ran at the fixed point: skip */
  /* Misses per level in runs 2 .. L + 1 of the equal segments (memo.c,
   * steady_from; run 1 is never asked). */
  uint64_t run_misses[CB_MAX_LEVELS + 2][CB_MAX_LEVELS];
  uint32_t n_prev_rec, n_prev_acc;
  uint64_t prev_n_iter;
  cb_access prev_rec[MEMO_MAX_RECORDS];
  cb_affine_access prev_acc[MEMO_MAX_ACC];
  memo_delta delta;
  uint64_t skipped; /* segments counted without running them */
} seg_memo;

struct cb_hierarchy;
/* Whether the memo applies to the hierarchy: every level LRU and
 * write-allocate, no classification. Sets it up if so. */
bool memo_init(seg_memo *m, const struct cb_hierarchy *h);
/* Runs what is held back, and forgets the previous segment: before
 * anything that is not a record batch or a block reaches the hierarchy,
 * and before its counters are read. */
void memo_settle(struct cb_hierarchy *h);

#endif
