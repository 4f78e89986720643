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
  for (int k = 0; k < SHADOW_SHIFTS; k++)
    free(s->whist[k]);
  free(s->est);
  memset(s, 0, sizeof *s);
}

void cb_shadow_reset(cb_shadow *s) {
  cb_falru_reset(&s->fa);
  cb_lineset_reset(&s->seen);
  cb_stackdist_reset(&s->sd);
  for (int k = 0; k < SHADOW_SHIFTS; k++)
    if (s->whist[k])
      memset(s->whist[k], 0, s->whist_cap[k] * sizeof *s->whist[k]);
  memset(s->whist_len, 0, sizeof s->whist_len);
  s->last_line = UINT64_MAX;
  s->repeats = s->others = s->cold = s->fa_misses = 0;
  s->shift = 0;
  s->limit = UINT64_MAX;
  s->est_len = 0;
  s->est_refs = UINT64_MAX;
}

/* count more sampled references at sampled distance d, at the current
 * rate. */
static void sampled_add(cb_shadow *s, uint64_t d, uint64_t count) {
  uint32_t k = s->shift;
  if (d >= s->whist_cap[k]) {
    size_t cap = s->whist_cap[k] ? s->whist_cap[k] : 64;
    while (cap <= d)
      cap *= 2;
    uint64_t *h = realloc(s->whist[k], cap * sizeof *h);
    if (!h)
      abort(); /* no partial answer to give, as in stackdist.c */
    memset(h + s->whist_cap[k], 0, (cap - s->whist_cap[k]) * sizeof *h);
    s->whist[k] = h;
    s->whist_cap[k] = cap;
  }
  if (d >= s->whist_len[k])
    s->whist_len[k] = (size_t)d + 1;
  s->whist[k][d] += count;
}

/* A reference to a sampled line that is not a repeat. */
static void sample_ref(cb_shadow *s, uint64_t line) {
  uint64_t d = cb_stackdist_ref(&s->sd, line);
  if (d != SD_COLD) {
    sampled_add(s, d, 1);
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

unsigned cb_shadow_ref_new(cb_shadow *s, uint64_t line) {
  s->last_line = line;
  s->others++;
  unsigned cls;
  if (cb_falru_ref(&s->fa, line)) {
    cls = CB_MISS_CONFLICT;
  } else if (cb_lineset_add(&s->seen, line)) {
    s->cold++;
    cls = CB_MISS_COMPULSORY;
  } else {
    s->fa_misses++;
    cls = CB_MISS_CAPACITY;
  }
  if (sample_hash(line) <= s->limit)
    sample_ref(s, line);
  return cls;
}

/* The stack distances of a second pass over seq, after a first one, on a
 * move-to-front list (n is small); keep:
 * only the lines it says yes to, the others absent from the stream. */
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
  for (uint32_t i = 0; i < n; i++) {
    if (full[i] == 0) {
      s->repeats += m;
      continue;
    }
    s->others += m;
    if (full[i] >= s->fa.cap)
      s->fa_misses += m;
    if (keep[i])
      sampled_add(s, sampled[i], m);
  }
}

/* est[lo..hi) := total spread in proportion to the weights in
 * est[lo..hi), whose sum is `weights`, rounding so that the parts sum
 * to total exactly. */
static void spread(uint64_t *est, size_t lo, size_t hi, uint64_t weights,
                   uint64_t total) {
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
    const uint64_t cap = s->fa.cap;
    /* The sampled references' weights by estimated distance: d / R,
     * at least 1 (the repeats are counted apart). */
    size_t n = 2;
    for (uint32_t k = 0; k < SHADOW_SHIFTS; k++)
      if (s->whist_len[k] && ((s->whist_len[k] - 1) << k) + 1 > n)
        n = ((s->whist_len[k] - 1) << k) + 1;
    if (n < cap + 1)
      n = cap + 1;
    free(s->est);
    s->est = calloc(n, sizeof *s->est);
    if (!s->est)
      return false;
    unsigned __int128 below = 0, above = 0;
    for (uint32_t k = 0; k < SHADOW_SHIFTS; k++)
      for (size_t ds = 0; ds < s->whist_len[k]; ds++) {
        uint64_t c = s->whist[k][ds], d = ds ? (uint64_t)ds << k : 1;
        if (!c)
          continue;
        s->est[d] += c << k;
        if (d < cap)
          below += c << k;
        else
          above += c << k;
      }
    /* Exactly known: the others that were no first reference, and how
     * many of them the cache of C lines missed (distance >= C). */
    const uint64_t warm = s->others - s->cold, far = s->fa_misses;
    if (below)
      spread(s->est, 1, cap, (uint64_t)below, warm - far);
    else
      s->est[1] += warm - far; /* cap > 1 here: a hit at distance >= 1 */
    if (above)
      spread(s->est, cap, n, (uint64_t)above, far);
    else
      s->est[cap] += far;
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
