/* A level's classes and sampled stack distances; see shadow.h. */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

#define NO_LINE UINT64_MAX
#define MAX_K 40 /* a rate of 2^-40: more lines than an address space */

static void no_memory(void) {
  /* as stackdist.c: a shadow that dropped a reference would misclassify
   * every later one; there is no partial answer */
  abort();
}

bool cb_shadow_init(cb_shadow *s, uint64_t n_lines, bool exact) {
  memset(s, 0, sizeof *s);
  s->n_lines = n_lines;
  s->exact_max = exact ? UINT64_MAX : SHADOW_EXACT_MAX;
  s->sample_max = SHADOW_SAMPLE_MAX;
  s->last_line = NO_LINE;
  s->limit = UINT64_MAX;
  return cb_stackdist_init(&s->sd, 1u << 16);
}

void cb_shadow_free(cb_shadow *s) {
  cb_stackdist_free(&s->sd);
  fa_lru_free(&s->fa);
  seen_free(&s->seen);
  free(s->acc);
  free(s->shist);
  free(s->out);
  memset(s, 0, sizeof *s);
}

void cb_shadow_reset(cb_shadow *s) {
  cb_stackdist_reset(&s->sd);
  fa_lru_free(&s->fa);
  seen_free(&s->seen);
  s->sampled = false;
  s->repeats = s->cold = s->rest = s->est = 0;
  memset(s->near, 0, sizeof s->near);
  /* hist_add adds into what is there: the previous stream's counts go */
  if (s->shist)
    memset(s->shist, 0, s->shist_cap * sizeof *s->shist);
  if (s->acc)
    memset(s->acc, 0, s->acc_cap * sizeof *s->acc);
  s->shist_len = 0;
  s->last_line = NO_LINE;
  s->k = 0;
  s->limit = UINT64_MAX;
  s->acc_len = 0;
}

/* Adds n at d to a growing histogram. */
static void hist_add(uint64_t **h, size_t *len, size_t *cap, uint64_t d,
                     uint64_t n) {
  if (d >= *cap) {
    size_t c = *cap ? *cap : 64;
    while (c <= d)
      c *= 2;
    uint64_t *a = realloc(*h, c * sizeof *a);
    if (!a)
      no_memory();
    memset(a + *cap, 0, (c - *cap) * sizeof *a);
    *h = a;
    *cap = c;
  }
  if (d >= *len)
    *len = (size_t)d + 1;
  (*h)[d] += n;
}

static void acc_add(cb_shadow *s, uint64_t d, uint64_t n) {
  hist_add(&s->acc, &s->acc_len, &s->acc_cap, d, n);
}

/* A sampled distance d at rate 2^-k: d * 2^k, at least SHADOW_NEAR
 * (the references it stands for were not in the window). */
static inline uint64_t scaled(uint64_t d, uint32_t k) {
  d <<= k;
  return d > SHADOW_NEAR ? d : SHADOW_NEAR;
}

/* sd's histogram into acc at the current rate, and sd's lines again
 * from `lines` (its stack bottom up), those still sampled. */
static void resample(cb_shadow *s, const uint64_t *lines, size_t n) {
  cb_stackdist_reset(&s->sd);
  for (size_t i = 0; i < n; i++)
    if (cb_mix64(lines[i]) <= s->limit)
      cb_stackdist_ref(&s->sd, lines[i]);
}

static size_t sampled_count(const uint64_t *lines, size_t n, uint64_t limit) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += cb_mix64(lines[i]) <= limit;
  return c;
}

/* Halves the rate (more than once if needed): the distances so far go
 * into acc at their weight, the lines out of range leave sd. */
static void lower_rate(cb_shadow *s) {
  const cb_stackdist *sd = &s->sd;
  for (size_t d = 0; d < s->shist_len; d++)
    if (s->shist[d]) {
      acc_add(s, scaled(d, s->k), s->shist[d] << s->k);
      s->est += s->shist[d] << s->k;
      s->shist[d] = 0;
    }
  s->shist_len = 0;
  size_t n = (size_t)sd->distinct;
  uint64_t *lines = malloc((n ? n : 1) * sizeof *lines);
  if (!lines)
    no_memory();
  cb_stackdist_order(sd, lines);
  do {
    s->k++;
    s->limit >>= 1;
  } while (s->k < MAX_K && sampled_count(lines, n, s->limit) > s->sample_max);
  resample(s, lines, n);
  free(lines);
}

unsigned cb_shadow_to_sampled(cb_shadow *s) {
  cb_stackdist *sd = &s->sd;
  size_t n = (size_t)sd->distinct;
  uint64_t *lines = malloc(n * sizeof *lines);
  if (!lines || !fa_lru_init(&s->fa, s->n_lines) || !seen_init(&s->seen))
    no_memory();
  cb_stackdist_order(sd, lines);
  /* The exact distances so far stay as they are; their repeats join the
   * others. */
  s->repeats += sd->hist[0];
  for (size_t d = 1; d < sd->hist_len; d++)
    if (sd->hist[d])
      acc_add(s, d, sd->hist[d]);
  s->cold = sd->cold;
  for (size_t i = 0; i < SHADOW_NEAR; i++)
    s->win[i] = i < n ? lines[n - 1 - i] : NO_LINE;
  for (size_t i = 0; i < n; i++)
    seen_add(&s->seen, lines[i]);
  /* the LRU cache holds the C most recent, in their order */
  for (size_t i = n > s->n_lines ? n - (size_t)s->n_lines : 0; i < n; i++)
    fa_lru_ref(&s->fa, lines[i]);
  s->last_line = lines[n - 1];
  /* a rate that leaves room to grow: half the sample's size */
  while (s->k < MAX_K &&
         sampled_count(lines, n, s->limit) > s->sample_max / 2) {
    s->k++;
    s->limit >>= 1;
  }
  resample(s, lines, n);
  free(lines);
  s->sampled = true;
  return CB_MISS_COMPULSORY; /* the reference that got here was a first */
}

/* Not among the last C distinct lines: a capacity miss, or a first
 * reference (only a missing level can see one; a line it hits was seen
 * before; the level above may know, and the set must learn of a first
 * reference either way). */
unsigned cb_shadow_fa_miss(cb_shadow *s, uint64_t line, bool hit, unsigned cold,
                           bool far) {
  fa_lru_insert(&s->fa, line);
  if (!hit && cold != SHADOW_COLD_NO && seen_add(&s->seen, line)) {
    s->cold++;
    return CB_MISS_COMPULSORY;
  }
  s->rest += far;
  return CB_MISS_CAPACITY;
}

/* A sampled line: sd keeps their order; the distance is counted unless
 * the window counted it (a first reference is neither). */
void cb_shadow_sample(cb_shadow *s, uint64_t line, bool far) {
  uint64_t d = cb_stackdist_ref(&s->sd, line);
  if (d == SD_COLD) {
    if (s->sd.distinct > s->sample_max)
      lower_rate(s);
  } else if (far) {
    hist_add(&s->shist, &s->shist_len, &s->shist_cap, d, 1);
  }
}

void cb_shadow_add_refs(cb_shadow *s, const uint64_t *stack, uint32_t d,
                        uint64_t count) {
  if (d == 0) {
    s->repeats += count;
    return;
  }
  if (!s->sampled) {
    cb_stackdist_add_refs(&s->sd, d, count);
    return;
  }
  /* The window holds the stack's top: the same lines after each
   * iteration, in the same order. */
  if (d < SHADOW_NEAR) {
    s->near[d] += count;
    return;
  }
  s->rest += count;
  if (cb_mix64(stack[d]) > s->limit)
    return;
  /* its distance among the sampled lines: those of the lines between */
  uint64_t ds = 0;
  for (uint32_t i = 0; i < d; i++)
    ds += cb_mix64(stack[i]) <= s->limit;
  hist_add(&s->shist, &s->shist_len, &s->shist_cap, ds, count);
}

static void out_fit(cb_shadow *s, size_t len) {
  if (len > s->out_cap) {
    uint64_t *o = realloc(s->out, len * sizeof *o);
    if (!o)
      no_memory();
    s->out = o;
    s->out_cap = len;
  }
  memset(s->out, 0, len * sizeof *s->out);
  s->out_len = len;
}

void cb_shadow_histogram(cb_shadow *s, const uint64_t **hist, size_t *len,
                         uint64_t *cold) {
  const cb_stackdist *sd = &s->sd;
  if (!s->sampled) {
    out_fit(s, sd->hist_len);
    memcpy(s->out, sd->hist, sd->hist_len * sizeof *s->out);
    s->out[0] += s->repeats;
    *hist = s->out;
    *len = s->out_len;
    *cold = sd->cold;
    return;
  }
  size_t top = s->shist_len ? (size_t)scaled(s->shist_len - 1, s->k) : 0;
  if (top < s->acc_len)
    top = s->acc_len;
  out_fit(s, (top > SHADOW_NEAR ? top : SHADOW_NEAR) + 1);
  uint64_t *o = s->out;
  for (size_t d = 1; d < s->acc_len; d++)
    o[d] = s->acc[d];
  for (size_t d = 1; d < SHADOW_NEAR; d++)
    o[d] += s->near[d];
  uint64_t est = s->est;
  for (size_t d = 0; d < s->shist_len; d++) {
    o[scaled(d, s->k)] += s->shist[d] << s->k;
    est += s->shist[d] << s->k;
  }
  /* SHARDS_adj: the estimate's total to the exact count, the difference
   * at the smallest distance it stands for */
  if (est <= s->rest) {
    o[SHADOW_NEAR] += s->rest - est;
  } else {
    uint64_t over = est - s->rest;
    for (size_t d = SHADOW_NEAR; over && d < s->out_len; d++) {
      uint64_t t = o[d] < over ? o[d] : over;
      o[d] -= t;
      over -= t;
    }
  }
  o[0] = s->repeats;
  size_t n = s->out_len;
  while (n > 1 && !o[n - 1])
    n--;
  s->out_len = n;
  *hist = o;
  *len = n;
  *cold = s->cold;
}
