/* alloc_track.h: heap blocks by allocation site, beside one hierarchy.
 *
 * The engine reports every allocation and release of the program
 * (engine.h, cb_alloc_event) in stream order. The driver turns each event
 * into a few marker records of the access stream (cb_alloc_encode), so
 * that it reaches the consumer in order with the accesses even across the
 * pipe (pipe.h) and enters the stream hash that memoization compares; the
 * consumer decodes them (cb_alloc_decode) and hands them to a tracker,
 * which keeps the live blocks ordered by address and attributes every
 * program access that falls in one (accesses, misses and classes per
 * level, working set, hottest line) to the block's allocation site.
 * Internal to analysis/.
 */
#ifndef CBANA_ANALYSIS_ALLOC_TRACK_H
#define CBANA_ANALYSIS_ALLOC_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/engine.h"
#include "cbana/results.h"

/* The site id of marker records: above any Program's sites, so the cache
 * model would not count them per site; they never reach it. */
#define CB_ALLOC_MARK_SITE 0xfffffff0u
#define CB_ALLOC_MARK_RECORDS 3

/* An event as CB_ALLOC_MARK_RECORDS access records. */
void cb_alloc_encode(const cb_alloc_event *ev,
                     cb_access rec[CB_ALLOC_MARK_RECORDS]);
/* True when the batch is one encoded event (then *ev is filled). */
static inline bool cb_alloc_is_mark(const cb_access *b, size_t n) {
  return n == CB_ALLOC_MARK_RECORDS && b[0].site == CB_ALLOC_MARK_SITE;
}
void cb_alloc_decode(const cb_access *b, cb_alloc_event *ev);

/* An allocation sink (engine.h) that encodes events into the access
 * stream of `sink` (ctx: a cb_access_sink). */
void cb_alloc_to_stream(void *sink, const cb_alloc_event *ev);

typedef struct cb_alloc_track cb_alloc_track;

/* The tracker's state that the per-access path reads inline (the first
 * member of struct cb_alloc_track): a collector makes a lookup and a
 * count on nearly every access, and calls there were a fifth of the
 * cache simulation's time on fannkuch. */
typedef struct cb_alloc_row_state {
  uint64_t last_line; /* + 1: the line of the row's latest access */
  uint64_t hot;       /* first-level misses of its hottest site */
} cb_alloc_row_state;

typedef struct cb_alloc_head {
  uint64_t lo, hi; /* every block so far lies in [lo, hi) */
  uint64_t epoch;  /* moves when a block dies: hints go stale */
  cb_alloc_site *rows;
  cb_alloc_row_state *extra;
  unsigned nl, shift;
} cb_alloc_head;

static inline cb_alloc_head *cb_alloc_head_of(cb_alloc_track *t) {
  return (cb_alloc_head *)(void *)t;
}

/* The live block an accessing site found last (its own, one per site):
 * valid while the epoch has not moved, as no block died since. */
typedef struct cb_alloc_hint {
  uint64_t start, end, epoch;
  uint32_t row;
} cb_alloc_hint;

/* n_levels: the hierarchy's levels (at most CB_RESULT_LEVELS); line_shift:
 * log2 of the first level's line size (working sets). */
cb_alloc_track *cb_alloc_track_new(const cb_program *p, unsigned n_levels,
                                   unsigned line_shift);
void cb_alloc_track_reset(cb_alloc_track *t);
void cb_alloc_track_free(cb_alloc_track *t);

void cb_alloc_track_event(cb_alloc_track *t, const cb_alloc_event *ev);

/* The allocation-site row of the live block holding addr, or CB_NONE;
 * site: the accessing site, whose last block is tried first. */
uint32_t cb_alloc_track_find(cb_alloc_track *t, uint64_t addr, uint32_t site);

/* The same with the caller's hint for the accessing site: tried first,
 * and set to the block found (cb_alloc_track_find keeps one per site). */
uint32_t cb_alloc_track_find_slow(cb_alloc_track *t, uint64_t addr,
                                  cb_alloc_hint *hint);
static inline uint32_t cb_alloc_track_find_at(cb_alloc_track *t, uint64_t addr,
                                              cb_alloc_hint *hint) {
  const cb_alloc_head *h = cb_alloc_head_of(t);
  if (addr < h->lo || addr >= h->hi)
    return CB_NONE;
  if (hint->epoch == h->epoch && addr >= hint->start && addr < hint->end)
    return hint->row;
  return cb_alloc_track_find_slow(t, addr, hint);
}

/* For accesses whose start addresses all lie in [lo, hi]: the row of the
 * live block holding all of them, or CB_NONE when none lies in a live
 * block; *uniform false (the accesses need a look each) otherwise, or
 * when telling would take a long scan. */
uint32_t cb_alloc_track_find_range(const cb_alloc_track *t, uint64_t lo,
                                   uint64_t hi, bool *uniform);
/* n accesses to a block of row `row` that hit at the first level and
 * touch lines the row counted with the row's last line unchanged
 * (collector.c's warps): n first-level accesses, nothing else. */
void cb_alloc_track_count_hits(cb_alloc_track *t, uint32_t row, uint64_t n);
/* One access of the program to a block of row `row` that missed the
 * first `missed` levels, cls[l] the class of the miss at level l (enum
 * cb_miss_class): one access at the first level, and at each level
 * missed one miss of its class and one access of the next. */
void cb_alloc_track_count(cb_alloc_track *t, uint32_t row, const cb_access *a,
                          unsigned missed, const uint8_t *cls);

/* The same split for the per-access path: the misses (missed > 0), and
 * the working set's lines first .. last when the row's last line was
 * not `last` (cb_alloc_track_count_at checks). */
void cb_alloc_track_count_misses(cb_alloc_track *t, uint32_t row, uint32_t site,
                                 unsigned missed, const uint8_t *cls);
void cb_alloc_track_count_lines(cb_alloc_track *t, uint32_t row, uint64_t first,
                                uint64_t last);
/* cb_alloc_track_count with the access's first and last first-level
 * lines already known (first = addr >> shift, last the same of its last
 * byte). */
/* cb_alloc_track_count_at without its first-level access (the caller
 * counts it: cb_alloc_track_count_hits). */
static inline void cb_alloc_track_count_rest(cb_alloc_track *t, uint32_t row,
                                             uint32_t site, uint64_t first,
                                             uint64_t last, unsigned missed,
                                             const uint8_t *cls) {
  cb_alloc_head *h = cb_alloc_head_of(t);
  if (missed)
    cb_alloc_track_count_misses(t, row, site, missed, cls);
  if (h->extra[row].last_line != last + 1)
    cb_alloc_track_count_lines(t, row, first, last);
}
static inline void cb_alloc_track_count_at(cb_alloc_track *t, uint32_t row,
                                           uint32_t site, uint64_t first,
                                           uint64_t last, unsigned missed,
                                           const uint8_t *cls) {
  cb_alloc_head_of(t)->rows[row].level[0].accesses++;
  cb_alloc_track_count_rest(t, row, site, first, last, missed, cls);
}

/* The rows (malloc'ed, NULL when there are none). */
bool cb_alloc_track_export(const cb_alloc_track *t, cb_alloc_site **rows,
                           uint32_t *n);

#endif
