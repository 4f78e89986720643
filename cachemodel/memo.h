/* The segment memo: repeated stretches of a stream counted without
 * being run. Internal to cachemodel (memo.c has the argument).
 *
 * A segment is the records that arrive after an affine block, up to and
 * with the next block. Loop nests emit the same segment, line for line,
 * many times in a row (a column walk repeats its lines for every element
 * of a line along the row: 8 doubles in 64 bytes), or the same two in
 * turn (a loop body with two inner loops, as gramschmidt's); once enough
 * of them ran, the next ones change no cache state and add the same
 * counts. */
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

/* A segment as it ran (or was skipped): its records, its block, and
 * what running it changed. */
typedef struct memo_seg {
  bool valid;
  uint32_t n_rec, n_acc;
  uint64_t n_iter;
  cb_access rec[MEMO_MAX_RECORDS];
  cb_affine_access acc[MEMO_MAX_ACC];
  uint8_t delta_of; /* seg_memo.delta[delta_of]: what it changed, as
                       measured when it ran, else its equal's */
} memo_seg;

/* The repeats of one period P (1 or 2): segment i equal to segment
 * i - P. `len` counts the segments of the current periodic stretch, the
 * P that first made up the repeated unit included; the unit's
 * repetition k is measured (run_misses[k], for k = 2 .. L + 1) and the
 * memo is steady once a whole repetition ran at the fixed point. */
typedef struct memo_track {
  uint32_t len;
  bool steady;
  uint64_t rep_misses[CB_MAX_LEVELS]; /* the repetition running */
  uint64_t run_misses[CB_MAX_LEVELS + 2][CB_MAX_LEVELS];
} memo_track;

typedef struct seg_memo {
  uint32_t shift; /* the smallest line's: equal lines there are equal
                     lines at every level */
  /* The current segment's records, not run yet. */
  uint32_t n_pend;
  cb_access pend[MEMO_MAX_RECORDS];
  /* The last two segments: segment i - 1 in hist[(seq - 1) & 1], i - 2
   * in hist[seq & 1], for the current segment i = seq. */
  uint64_t seq;
  memo_seg hist[2];
  /* Deltas, referred to by the segments (a period-1 skip shares its
   * equal's, not copied: 3 KiB a skip): a run measures into the one
   * segment i - 1 does not use. */
  memo_delta delta[2];
  memo_track period[2]; /* periods 1 and 2 */
  /* A period-2 skip has skipped the first segment of a repetition and
   * not counted it yet (memo.c: skips go by whole repetitions). */
  bool owed;
  uint64_t skipped;      /* segments counted without running them */
  uint64_t skipped_pair; /* of which by period 2 */
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
