/* The fully associative LRU shadow of a level: classes by membership,
 * the miss-ratio curve from a spatial sample; see shadow.h. */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

/* The sampling hash: MurmurHash3's 64-bit finalizer, fixed, so that the
 * sample (and the curve) depend on nothing but the stream. */
static inline uint64_t sample_hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* The near list's entries: a line, and a flag for a sampled line whose
 * latest reference the sample's stack has not seen yet (near_flush). */
#define NEAR_DIRTY (1ull << 63)
#define NEAR_NONE (UINT64_MAX >> 1) /* no line (lines are below 2^58) */

static bool in_sample(uint64_t line, const void *limit) {
  return sample_hash(line) <= *(const uint64_t *)limit;
}

bool cb_shadow_init(cb_shadow *s, uint64_t lines, uint32_t max_sampled) {
  memset(s, 0, sizeof *s);
  if (lines == 0 || lines > UINT32_MAX / 2)
    return false;
  bool ok = cb_falru_init(&s->fa, (uint32_t)lines);
  ok = cb_lineset_init(&s->seen) && ok;
  ok = cb_stackdist_init(&s->sd, 1u << 12) && ok;
  s->max_sampled = max_sampled;
  s->near = lines < SHADOW_NEAR ? (uint32_t)lines : SHADOW_NEAR;
  s->defer = lines >= 2 * SHADOW_NEAR;
  if (!ok) {
    cb_shadow_free(s);
    return false;
  }
  cb_shadow_reset(s);
  return true;
}

void cb_shadow_free(cb_shadow *s) {
  cb_falru_free(&s->fa);
  cb_lineset_free(&s->seen);
  cb_stackdist_free(&s->sd);
  for (int f = 0; f < 2; f++)
    for (int k = 0; k < SHADOW_SHIFTS; k++)
      free(s->whist[f][k]);
  free(s->est);
  memset(s, 0, sizeof *s);
}

void cb_shadow_reset(cb_shadow *s) {
  cb_falru_reset(&s->fa);
  cb_lineset_reset(&s->seen);
  cb_stackdist_reset(&s->sd);
  for (int f = 0; f < 2; f++)
    for (int k = 0; k < SHADOW_SHIFTS; k++)
      if (s->whist[f][k])
        memset(s->whist[f][k], 0, s->whist_cap[f][k] * sizeof(uint64_t));
  memset(s->whist_len, 0, sizeof s->whist_len);
  for (int i = 0; i < SHADOW_NEAR; i++)
    s->top[i] = NEAR_NONE;
  memset(s->top_count, 0, sizeof s->top_count);
  s->n_dirty = 0;
  memset(s->near_refs, 0, sizeof s->near_refs);
  s->top_head = 0;
  s->last_line = UINT64_MAX;
  s->repeats = s->others = s->cold = s->fa_misses = 0;
  s->shift = 0;
  s->limit = UINT64_MAX;
  s->est_len = 0;
  s->est_refs = UINT64_MAX;
}

/* count more sampled references at sampled distance d, at the current
 * rate, that the cache of C lines missed (far) or hit. */
static void sampled_add(cb_shadow *s, bool far, uint64_t d, uint64_t count) {
  uint32_t k = s->shift;
  uint64_t **h = &s->whist[far][k];
  size_t *cap = &s->whist_cap[far][k], *len = &s->whist_len[far][k];
  if (d >= *cap) {
    size_t n = *cap ? *cap : 64;
    while (n <= d)
      n *= 2;
    uint64_t *nh = realloc(*h, n * sizeof *nh);
    if (!nh)
      abort(); /* no partial answer to give, as in stackdist.c */
    memset(nh + *cap, 0, (n - *cap) * sizeof *nh);
    *h = nh;
    *cap = n;
  }
  if (d >= *len)
    *len = (size_t)d + 1;
  (*h)[d] += count;
}

/* A reference to a sampled line that is not a repeat, at a distance of
 * `near` lines or more (count: its sampled stack distance), or not
 * (only the sample's order). */
static void sample_ref(cb_shadow *s, uint64_t line, bool count, bool far) {
  uint64_t d = cb_stackdist_ref(&s->sd, line);
  if (d != SD_COLD) {
    if (count)
      sampled_add(s, far, d, 1);
    return;
  }
  /* A new line in the sample: halve the rate while it is too big. */
  while (s->max_sampled && s->sd.distinct > s->max_sampled &&
         s->shift + 1 < SHADOW_SHIFTS) {
    s->shift++;
    s->limit = UINT64_MAX >> s->shift;
    if (!cb_stackdist_keep(&s->sd, in_sample, &s->limit))
      abort();
  }
}

/* The near list defers work: a reference found there only flags its
 * entry, and the flagged lines are referenced again, oldest first, in
 * the sample's stack (sampled lines) and, with `defer`, in the fully
 * associative cache, before either is asked anything (a reference not
 * found in the list) or a flagged line leaves the list. A flush precedes
 * every reference those structures see, so the deferred references are
 * later than all of theirs, and the flagged entries are the front of
 * the list: after a flush both hold the true LRU order, and every answer
 * they give is exact. The cache's order matters only for its victim, its
 * least recent line, which is never in the list (C >= 2 SHADOW_NEAR). A
 * hot working set of up to SHADOW_NEAR lines costs neither anything
 * between references that leave it. */
static void near_flush(cb_shadow *s) {
  const uint32_t mask = SHADOW_NEAR - 1;
  for (uint32_t p = s->near; p-- > 0;) {
    const uint32_t at = (s->top_head + p) & mask;
    if (!(s->top[at] & NEAR_DIRTY))
      continue;
    const uint64_t line = s->top[at] &= ~NEAR_DIRTY;
    if (s->defer && s->top_node[at] != s->fa.head) {
      fa_unlink(&s->fa, s->top_node[at]);
      fa_push_front(&s->fa, s->top_node[at]);
    }
    /* the rate may have dropped since: the line is no longer sampled */
    if (sample_hash(line) <= s->limit)
      cb_stackdist_ref(&s->sd, line);
  }
  s->n_dirty = 0;
}

static inline uint32_t near_tag(uint64_t line) {
  return (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> 56);
}

/* Moves the entry at position p (0 < p < near) to the front, flagged. */
static inline void near_to_front(cb_shadow *s, uint32_t p) {
  const uint32_t mask = SHADOW_NEAR - 1;
  uint32_t at = (s->top_head + p) & mask;
  uint64_t e = s->top[at];
  uint32_t node = s->top_node[at];
  if (!(e & NEAR_DIRTY)) {
    e |= NEAR_DIRTY;
    s->n_dirty++;
  }
  for (uint32_t q = p; q > 0; q--) {
    uint32_t to = (s->top_head + q) & mask, from = (to - 1) & mask;
    s->top[to] = s->top[from];
    s->top_node[to] = s->top_node[from];
  }
  s->top[s->top_head] = e;
  s->top_node[s->top_head] = node;
}

/* A line on top of the list, the one at position SHADOW_NEAR - 1 leaving
 * it (the list clean: flushed). */
static inline void near_push(cb_shadow *s, uint64_t line, uint32_t node) {
  const uint32_t mask = SHADOW_NEAR - 1;
  s->top_head = (s->top_head - 1) & mask;
  if (s->top[s->top_head] != NEAR_NONE)
    s->top_count[near_tag(s->top[s->top_head])]--;
  s->top[s->top_head] = line;
  s->top_node[s->top_head] = node;
  s->top_count[near_tag(line)]++;
}

/* The position of `line` in the list, 0 if absent. */
static inline uint32_t near_find(const cb_shadow *s, uint64_t line) {
  const uint32_t mask = SHADOW_NEAR - 1;
  for (uint32_t p = 1; p < s->near; p++)
    if ((s->top[(s->top_head + p) & mask] & ~NEAR_DIRTY) == line)
      return p;
  return 0;
}

/* The distance of a reference to `line` if below s->near (0 if not), the
 * list brought up to date, for caches of fewer than 2 SHADOW_NEAR lines
 * (no deferral of the cache's work; its verdict is in: searched only
 * when it hit, as a miss is at distance C or more). */
static inline uint32_t near_ref(cb_shadow *s, uint64_t line, bool fa_hit) {
  const uint32_t mask = SHADOW_NEAR - 1;
  uint32_t p = fa_hit ? near_find(s, line) : 0;
  if (!p) {
    s->top_head = (s->top_head - 1) & mask;
    s->top[s->top_head] = line;
    return 0;
  }
  near_to_front(s, p);
  return p;
}

unsigned cb_shadow_ref_new(cb_shadow *s, uint64_t line) {
  s->last_line = line;
  s->others++;
  const bool sampled = sample_hash(line) <= s->limit;
  if (s->defer && s->top_count[near_tag(line)]) {
    uint32_t p = near_find(s, line);
    if (p) { /* distance p < C: a hit, counted, the work deferred */
      near_to_front(s, p);
      s->near_refs[p]++;
      return CB_MISS_CONFLICT;
    }
  }
  if (s->n_dirty)
    near_flush(s);
  unsigned cls;
  const bool fa_hit = cb_falru_ref(&s->fa, line);
  if (fa_hit) {
    cls = CB_MISS_CONFLICT;
  } else if (cb_lineset_add(&s->seen, line)) {
    s->cold++;
    cls = CB_MISS_COMPULSORY;
  } else {
    s->fa_misses++;
    cls = CB_MISS_CAPACITY;
  }
  uint32_t d = 0;
  if (s->defer)
    near_push(s, line, s->fa.head); /* the line's node is the front */
  else if (s->near > 1 && (d = near_ref(s, line, fa_hit)) != 0)
    s->near_refs[d]++;
  if (sampled && d == 0)
    sample_ref(s, line, cls != CB_MISS_COMPULSORY, cls == CB_MISS_CAPACITY);
  return cls;
}

/* The stack distances of a second pass over seq, after a first one, on a
 * move-to-front list (n is small); keep: only the lines it says yes to,
 * the others absent from the stream. */
static void mtf_distances(const uint64_t *seq, uint32_t n, const bool *keep,
                          uint32_t *dist) {
  uint64_t stack[SHADOW_WARP_REFS];
  uint32_t depth = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < n; i++) {
      if (keep && !keep[i])
        continue;
      uint32_t d = 0;
      while (d < depth && stack[d] != seq[i])
        d++;
      if (d == depth)
        depth++; /* only in the first pass: new on top */
      else if (pass == 1)
        dist[i] = d;
      for (; d > 0; d--)
        stack[d] = stack[d - 1];
      stack[0] = seq[i];
    }
}

void cb_shadow_warp(cb_shadow *s, const uint64_t *seq, uint32_t n, uint64_t m) {
  if (n == 0 || n > SHADOW_WARP_REFS)
    abort(); /* the callers' limit */
  if (m == 0)
    return;
  uint32_t full[SHADOW_WARP_REFS], sampled[SHADOW_WARP_REFS];
  bool keep[SHADOW_WARP_REFS];
  mtf_distances(seq, n, NULL, full);
  bool any = false;
  for (uint32_t i = 0; i < n; i++)
    any |= keep[i] = sample_hash(seq[i]) <= s->limit;
  if (any)
    mtf_distances(seq, n, keep, sampled);
  /* The list of the most recent lines and the sample's order are as the
   * iteration before left them: only counts change. */
  for (uint32_t i = 0; i < n; i++) {
    if (full[i] == 0) {
      s->repeats += m;
      continue;
    }
    s->others += m;
    bool far = full[i] >= s->fa.cap;
    s->fa_misses += far ? m : 0;
    if (full[i] < s->near)
      s->near_refs[full[i]] += m;
    else if (keep[i])
      sampled_add(s, far, sampled[i], m);
  }
}

/* est[lo..hi) := total spread in proportion to the weights in
 * est[lo..hi), whose sum is `weights`, rounding so that the parts sum
 * to total exactly; all of it at lo if there are no weights. */
static void spread(uint64_t *est, size_t lo, size_t hi, uint64_t weights,
                   uint64_t total) {
  if (!weights) {
    if (total)
      est[lo] += total;
    return;
  }
  unsigned __int128 cum = 0;
  uint64_t given = 0;
  for (size_t d = lo; d < hi; d++) {
    cum += est[d];
    uint64_t upto = (uint64_t)(cum * total / weights);
    est[d] = upto - given;
    given = upto;
  }
}

bool cb_shadow_histogram(cb_shadow *s, const uint64_t **hist, size_t *len,
                         uint64_t *cold) {
  const uint64_t refs = cb_shadow_refs(s);
  if (s->est_refs != refs || !s->est) {
    const uint64_t cap = s->fa.cap, near = s->near;
    /* The sampled references' weights at their estimated distances d/R,
     * kept between near and C - 1 for the hits of the cache of C lines,
     * at C or more for its misses. */
    size_t n = cap + 1;
    for (uint32_t k = 0; k < SHADOW_SHIFTS; k++)
      if (s->whist_len[1][k] && ((s->whist_len[1][k] - 1) << k) + 1 > n)
        n = ((s->whist_len[1][k] - 1) << k) + 1;
    free(s->est);
    s->est = calloc(n, sizeof *s->est);
    if (!s->est)
      return false;
    uint64_t weights[2] = {0, 0};
    for (int f = 0; f < 2; f++)
      for (uint32_t k = 0; k < SHADOW_SHIFTS; k++)
        for (size_t ds = 0; ds < s->whist_len[f][k]; ds++) {
          uint64_t c = s->whist[f][k][ds] << k, d = (uint64_t)ds << k;
          if (!c)
            continue;
          if (f)
            d = d < cap ? cap : d;
          else
            d = d < near ? near : d >= cap ? cap - 1 : d;
          s->est[d] += c;
          weights[f] += c;
        }
    /* Exactly known: the references below near by distance, the others
     * that were no first reference, and how many of them the cache of C
     * lines missed (distance >= C). */
    uint64_t warm = s->others - s->cold, far = s->fa_misses, mid = warm - far;
    for (uint32_t d = 1; d < near; d++)
      mid -= s->near_refs[d];
    if (near < cap)
      spread(s->est, near, cap, weights[0], mid);
    spread(s->est, cap, n, weights[1], far);
    for (uint32_t d = 1; d < near; d++)
      s->est[d] = s->near_refs[d];
    s->est[0] = s->repeats;
    while (n > 1 && !s->est[n - 1])
      n--;
    s->est_len = n;
    s->est_refs = refs;
  }
  *hist = s->est;
  *len = s->est_len;
  *cold = s->cold;
  return true;
}
