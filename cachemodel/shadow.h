/* A level's shadow with classification: the class of each miss
 * (compulsory, capacity, conflict against a fully associative LRU cache
 * of the level's C lines) and the LRU stack-distance histogram behind
 * the miss-ratio curve.
 *
 * While the level's stream has referenced at most exact_max distinct
 * lines, every reference's exact stack distance (stackdist.h) gives both:
 * a small program's curve is exact and its references cost what the
 * stack-distance front costs. Past that bound (and unless the curve was
 * asked exact), the classes come from fashadow.h's LRU cache of C lines
 * and set of lines ever seen, exactly as the distances gave them, and
 * the distances are only sampled: SHARDS (Waldspurger et al., "Efficient
 * MRC construction with SHARDS", FAST 2015) keeps the lines whose hash is
 * in the lowest 1/2^k of its range, and a distance d among them stands
 * for d * 2^k with weight 2^k. k grows by one (and the sampled lines
 * whose hash is out of range leave) whenever more than sample_max lines
 * are sampled: the fixed-size variant of the paper, with a power of two
 * for a rate so that the weights stay integers. A sample at 2^-k cannot
 * tell distances below 2^k apart, so the SHADOW_NEAR lines referenced
 * last are kept in order, and a reference to one of them (distance 1 to
 * SHADOW_NEAR - 1) is counted exactly, as are immediate repeats
 * (distance 0) and first references; the sample estimates the others
 * (at distance SHADOW_NEAR at least), adjusted to their exact number
 * (SHARDS_adj, the difference at the smallest such distance). Everything
 * follows from the stream of line references alone: deterministic, the
 * same for every engine. Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_SHADOW_H
#define CBANA_CACHEMODEL_SHADOW_H

#include "cbana/cache.h"
#include "cbana/mix64.h"
#include "fashadow.h"
#include "stackdist.h"

/* Distinct lines a level's distances stay exact for (4 MiB of 64-byte
 * lines), and the most lines sampled past it. */
#define SHADOW_EXACT_MAX (1u << 16)
#define SHADOW_SAMPLE_MAX (1u << 14)
#define SHADOW_NEAR 8

typedef struct cb_shadow {
  bool sampled;       /* past exact_max: classes by fa/seen */
  uint64_t n_lines;   /* C, the level's capacity */
  uint64_t repeats;   /* references at distance 0 not given to sd */
  cb_stackdist sd;    /* all lines, or the sampled ones */
  uint64_t last_line; /* sampled: the latest reference */
  fa_lru fa;
  seen_set seen;
  uint32_t k;     /* sampled: rate 2^-k */
  uint64_t limit; /* sampled iff shadow_mix(line) <= limit */
  uint64_t cold;  /* sampled: distinct lines */
  /* Sampled: the SHADOW_NEAR lines referenced last, most recent first
   * (win[0] is last_line), and the references found there by distance. */
  uint64_t win[SHADOW_NEAR];
  uint64_t near[SHADOW_NEAR];
  uint64_t rest; /* sampled: references found neither there nor cold */
  /* Their sampled lines' distances among the sampled lines, at rate 2^-k. */
  uint64_t *shist;
  size_t shist_len, shist_cap;
  /* The exact distances, and the sample's before the last change of
   * rate at their scale (est: how many references those stand for). */
  uint64_t *acc;
  size_t acc_len, acc_cap;
  uint64_t est;
  uint64_t exact_max, sample_max; /* tests lower them */
  /* cb_shadow_histogram's answer. */
  uint64_t *out;
  size_t out_len, out_cap;
} cb_shadow;

/* exact: distances of every reference, always (--exact-mrc). */
bool cb_shadow_init(cb_shadow *s, uint64_t n_lines, bool exact);
void cb_shadow_free(cb_shadow *s);
void cb_shadow_reset(cb_shadow *s);

/* What a reference's caller knows of whether it is the line's first
 * (the level above, with the same lines, saw it first or not). */
enum { SHADOW_COLD_UNKNOWN, SHADOW_COLD_YES, SHADOW_COLD_NO };

/* The out-of-line steps of cb_shadow_ref. */
unsigned cb_shadow_to_sampled(cb_shadow *s);
unsigned cb_shadow_fa_miss(cb_shadow *s, uint64_t line, bool hit, unsigned cold,
                           bool far);
void cb_shadow_sample(cb_shadow *s, uint64_t line, bool far);

/* The window of the lines referenced last, for a line other than the
 * last: counts a reference found there, moves the line to its front;
 * false if it was found. Branch-free and unrolled (the position is as
 * unpredictable as the stream; GCC called memmove for the loop's shift,
 * 4% of a random stream's simulation). */
static inline __attribute__((always_inline)) bool
cb_shadow_window(cb_shadow *s, uint64_t line) {
  uint32_t d = 0;
#pragma GCC unroll 8
  for (uint32_t i = 1; i < SHADOW_NEAR; i++)
    d |= (uint32_t)(s->win[i] == line) * i; /* the lines are distinct */
  const bool far = d == 0;
  s->near[d]++; /* near[0] counts the far ones: never read */
  const uint32_t e = far ? SHADOW_NEAR - 1 : d;
#pragma GCC unroll 8
  for (uint32_t i = SHADOW_NEAR - 1; i > 0; i--)
    if (i <= e)
      s->win[i] = s->win[i - 1];
  s->win[0] = line;
  return far;
}

/* A reference to `line`; `hit`: whether the level hit; `cold`: a
 * SHADOW_COLD_. Returns the class the miss would have (meaningful when
 * !hit). */
static inline __attribute__((always_inline)) unsigned
cb_shadow_ref(cb_shadow *s, uint64_t line, bool hit, unsigned cold) {
  if (!s->sampled) {
    uint64_t d = cb_stackdist_ref(&s->sd, line);
    if (d != SD_COLD)
      return d >= s->n_lines ? CB_MISS_CAPACITY : CB_MISS_CONFLICT;
    if (s->sd.distinct > s->exact_max)
      return cb_shadow_to_sampled(s);
    return CB_MISS_COMPULSORY;
  }
  if (line == s->last_line) {
    s->repeats++;
    return CB_MISS_CONFLICT;
  }
  s->last_line = line;
  const bool far = cb_shadow_window(s, line);
  unsigned cls = CB_MISS_CONFLICT;
  if (fa_lru_hit(&s->fa, line))
    s->rest += far;
  else
    cls = cb_shadow_fa_miss(s, line, hit, cold, far);
  if (cb_mix64(line) <= s->limit)
    cb_shadow_sample(s, line, far);
  return cls;
}

/* n references that repeat the latest line (the levels' fast paths). */
static inline void cb_shadow_repeat(cb_shadow *s, uint64_t n) {
  s->repeats += n;
}

/* count more references to stack[d], whose stack (most recent first) is
 * stack[0 .. d]: for callers that know the order comes out the same
 * (affine.c's warps). */
void cb_shadow_add_refs(cb_shadow *s, const uint64_t *stack, uint32_t d,
                        uint64_t count);

/* The histogram (cb_hierarchy_distance_histogram): valid until the next
 * call or reference. */
void cb_shadow_histogram(cb_shadow *s, const uint64_t **hist, size_t *len,
                         uint64_t *cold);
/* The sampling rate is 2^-scale_log2 (0: exact). */
static inline uint32_t cb_shadow_scale_log2(const cb_shadow *s) {
  return s->sampled ? s->k : 0;
}

#endif
