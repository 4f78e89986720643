/* A level's fully associative LRU shadow, for miss classification and
 * the miss-ratio curve. Internal to cachemodel; the hierarchy owns one
 * per level with CB_CLASSIFY.
 *
 * Classes by membership: a miss of the level is a capacity miss exactly
 * when a fully associative LRU cache of the level's capacity C also
 * misses (falru.c, O(1) a reference), compulsory on the line's first
 * reference, conflict otherwise. A reference to the line referenced just
 * before at this level is a hit of that cache that changes nothing: it is
 * counted and nothing else. A reference to one of the SHADOW_NEAR most
 * recent lines (the near list below) is a hit too, at a known distance:
 * it is counted, and the cache's update waits (shadow.c, near_flush).
 *
 * The miss-ratio curve (misses of such caches of every capacity) comes
 * from LRU stack distances (stackdist.c), computed for a spatial sample
 * of the lines (SHARDS, Waldspurger et al., FAST 2015): a line is in the
 * sample when a fixed hash of it is below a threshold, rate R = 2^-shift;
 * a sampled reference at distance d in the sampled stream stands for
 * 1/R references at distance d/R. The rate starts at 1 (exact) and is
 * halved whenever the sample holds more than max_sampled lines (the
 * fixed-size variant of SHARDS), dropping the lines the new threshold
 * leaves out. What is known exactly is used as is: the references at
 * distance 0 (the repeats above), those at distances below SHADOW_NEAR
 * (a move-to-front list of the most recent lines), the first
 * references, and how many of the
 * others miss at capacity C; the sample only spreads the others between
 * the distances from SHADOW_NEAR to C - 1, and those from C on
 * (shadow.c). The hash is fixed, so the curve is a function of the
 * stream alone. With max_sampled 0 the rate stays 1: the exact curve. */
#ifndef CBANA_CACHEMODEL_SHADOW_H
#define CBANA_CACHEMODEL_SHADOW_H

#include "cbana/cache.h"
#include "falru.h"
#include "stackdist.h"

/* Lines in the sample before the rate halves (the default curve). */
#define SHADOW_SAMPLED_LINES 16384
#define SHADOW_SHIFTS 48 /* rates down to 2^-47 */
/* The longest line sequence cb_shadow_warp takes. */
#define SHADOW_WARP_REFS 64
/* Distances below this many lines are counted exactly in the sampled
 * mode: a few hot lines carry most references of many streams, and a
 * spatial sample that catches one of them or not moved a Zipf-like
 * stream's curve by 0.15 at 64 lines (tests/unit/cachemodel). */
#define SHADOW_NEAR 32

typedef struct cb_shadow {
  uint64_t last_line;
  /* References: to the line referenced just before (distance 0); to
   * others; first references among those; those of the others, not
   * first, that the cache of C lines missed. */
  uint64_t repeats, others, cold, fa_misses;
  cb_falru fa;
  cb_lineset seen;
  /* The exact part: the `near` most recent lines (min(SHADOW_NEAR,
   * C)), a ring, position p at (top_head + p) % SHADOW_NEAR; the
   * references found there, by distance. */
  uint32_t near, top_head;
  uint32_t n_dirty; /* flagged entries, whose work waits (shadow.c) */
  bool defer;       /* the cache's work deferred too (C >= 2 near) */
  uint64_t top[SHADOW_NEAR];
  uint32_t top_node[SHADOW_NEAR]; /* the line's node in fa */
  uint8_t top_count[256];         /* entries by near_tag: a filter */
  uint64_t near_refs[SHADOW_NEAR];
  /* The sample: its stack distances, the rate 2^-shift, the limit
   * (0: none); per rate, the sampled references at distance near or
   * more by distance in the sampled stream: those the cache of C lines
   * hit (mid) and missed (far), first references left out. */
  cb_stackdist sd;
  uint32_t shift;
  uint32_t max_sampled;
  uint64_t limit; /* a line is sampled when its hash is <= limit */
  uint64_t *whist[2][SHADOW_SHIFTS];
  size_t whist_len[2][SHADOW_SHIFTS], whist_cap[2][SHADOW_SHIFTS];
  /* The estimated histogram, built when asked for, and the reference
   * count it was built at. */
  uint64_t *est;
  size_t est_len;
  uint64_t est_refs;
} cb_shadow;

/* A shadow for a level of `lines` lines; max_sampled: 0 for the exact
 * curve, else the sample's size limit. False if memory runs out. */
bool cb_shadow_init(cb_shadow *s, uint64_t lines, uint32_t max_sampled);
void cb_shadow_free(cb_shadow *s);
void cb_shadow_reset(cb_shadow *s);

/* The slow path of cb_shadow_ref. */
unsigned cb_shadow_ref_new(cb_shadow *s, uint64_t line);

/* Records a line reference; returns the class a miss of the level on it
 * has: CB_MISS_COMPULSORY, CB_MISS_CAPACITY (the cache of C lines missed
 * too) or CB_MISS_CONFLICT (it hit). */
static inline unsigned cb_shadow_ref(cb_shadow *s, uint64_t line) {
  if (line == s->last_line) {
    s->repeats++;
    return CB_MISS_CONFLICT;
  }
  return cb_shadow_ref_new(s, line);
}

/* Counts m > 0 more iterations of the line sequence seq[0..n), 0 < n <=
 * SHADOW_WARP_REFS, right after
 * one that referenced it (affine.c: their stack distances repeat, and
 * they leave the LRU order as they found it), without touching the
 * order. */
void cb_shadow_warp(cb_shadow *s, const uint64_t *seq, uint32_t n, uint64_t m);

/* The stack-distance histogram (exact, or estimated from the sample with
 * the exact parts above), as cb_hierarchy_distance_histogram returns it.
 * The shadow owns the array; it is valid until the next reference. False
 * if memory runs out. */
bool cb_shadow_histogram(cb_shadow *s, const uint64_t **hist, size_t *len,
                         uint64_t *cold);
/* All line references recorded. */
static inline uint64_t cb_shadow_refs(const cb_shadow *s) {
  return s->repeats + s->others;
}
/* 1/R: 1 while the curve is exact. */
static inline uint64_t cb_shadow_rate_inverse(const cb_shadow *s) {
  return 1ull << s->shift;
}

#endif
