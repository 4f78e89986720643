/* The fully associative LRU shadow (shadow.h): every reference's class
 * against a brute-force fully associative LRU cache (a move-to-front
 * list cut at C lines) and against the class the stack distance gives
 * (stackdist.h), on random, sweeping and mixed streams and several
 * capacities; the exact histogram against stackdist's; warps against
 * the references they stand for; and the sampled miss-ratio curve
 * within its stated error of the exact one. */
#include "cbana/stream.h"
#include "check.h"
#include "shadow.h"
#include "stackdist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 11;
static uint64_t rnd(uint64_t n) {
  uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % n;
}

enum stream_kind { RANDOM, SWEEP, MIXED, N_KINDS };

/* Line i of a stream: uniform over 3000 lines; passes over 700 lines in
 * order with strides 1 and 3, now and then a line from elsewhere; a hot
 * few, a wider pool, repeats and sparse lines far apart. */
static uint64_t stream_line(enum stream_kind k, uint64_t i) {
  switch (k) {
  case RANDOM:
    return rnd(3000);
  case SWEEP:
    if (rnd(50) == 0)
      return rnd(5000);
    return i % 700 * (i / 7000 % 2 ? 3 : 1);
  default:
    switch (rnd(5)) {
    case 0:
      return rnd(8);
    case 1:
      return 1000 + rnd(600);
    case 2:
      return rnd(300) * 4099 + (1ull << 40);
    case 3:
      return 7; /* repeats */
    default:
      return 5000 + i % 900;
    }
  }
}

/* A move-to-front list of at most cap lines, and the lines ever seen. */
typedef struct brute {
  uint64_t *stack, *seen;
  size_t depth, cap, n_seen;
} brute;

static unsigned brute_ref(brute *b, uint64_t line) {
  size_t p = 0;
  while (p < b->depth && b->stack[p] != line)
    p++;
  unsigned cls = CB_MISS_CONFLICT;
  if (p == b->depth) {
    size_t s = 0;
    while (s < b->n_seen && b->seen[s] != line)
      s++;
    if (s == b->n_seen) {
      b->seen[b->n_seen++] = line;
      cls = CB_MISS_COMPULSORY;
    } else {
      cls = CB_MISS_CAPACITY;
    }
    if (b->depth < b->cap)
      b->depth++;
    p = b->depth - 1; /* the least recent line's place, or a new one */
  }
  memmove(b->stack + 1, b->stack, p * sizeof *b->stack);
  b->stack[0] = line;
  return cls;
}

static void test_classes(enum stream_kind kind, uint32_t cap,
                         uint32_t max_sampled) {
  enum { N = 40000 };
  brute b = {malloc(cap * sizeof(uint64_t)), malloc(N * sizeof(uint64_t)), 0,
             cap, 0};
  cb_shadow s;
  cb_stackdist sd;
  CHECK(cb_shadow_init(&s, cap, max_sampled));
  CHECK(cb_stackdist_init(&sd, 1u << 12));
  uint64_t wrong_brute = 0, wrong_sd = 0, counts[CB_MISS_CLASSES] = {0};
  for (uint64_t i = 0; i < N; i++) {
    uint64_t line = stream_line(kind, i);
    unsigned got = cb_shadow_ref(&s, line);
    unsigned want = brute_ref(&b, line);
    uint64_t d = cb_stackdist_ref(&sd, line);
    unsigned by_distance = d == SD_COLD ? CB_MISS_COMPULSORY
                           : d >= cap   ? CB_MISS_CAPACITY
                                        : CB_MISS_CONFLICT;
    wrong_brute += got != want;
    wrong_sd += got != by_distance;
    counts[want]++;
  }
  CHECK_EQ_U64(wrong_brute, 0);
  CHECK_EQ_U64(wrong_sd, 0);
  /* every class occurs, so the comparison means something */
  if (cap > 3 && cap < 600 && !(counts[0] && counts[1] && counts[2]))
    fprintf(stderr, "kind %d cap %u: classes %llu %llu %llu\n", (int)kind, cap,
            (unsigned long long)counts[0], (unsigned long long)counts[1],
            (unsigned long long)counts[2]);
  if (cap > 3 && cap < 600)
    CHECK(counts[0] && counts[1] && counts[2]);
  CHECK_EQ_U64(s.cold, counts[CB_MISS_COMPULSORY]);
  CHECK_EQ_U64(s.fa_misses, counts[CB_MISS_CAPACITY]);
  CHECK_EQ_U64(cb_shadow_refs(&s), N);
  /* The exact curve is stackdist's histogram, bin for bin; so is the
   * sampled mode's while every line is in the sample (its near list
   * exact, the sample's stack updated late, shadow.c's near_flush). */
  if (max_sampled == 0 || max_sampled == UINT32_MAX) {
    const uint64_t *hist;
    size_t len;
    uint64_t cold;
    CHECK(cb_shadow_histogram(&s, &hist, &len, &cold));
    CHECK_EQ_U64(cold, sd.cold);
    CHECK_EQ_U64(len, sd.hist_len);
    bool same = len == sd.hist_len;
    for (size_t d = 0; same && d < len; d++)
      same = hist[d] == sd.hist[d];
    CHECK(same);
  }
  cb_shadow_reset(&s);
  CHECK_EQ_U64(cb_shadow_refs(&s), 0);
  CHECK(cb_shadow_ref(&s, 5) == CB_MISS_COMPULSORY);
  cb_shadow_free(&s);
  cb_stackdist_free(&sd);
  free(b.stack);
  free(b.seen);
}

/* A warp of m iterations of seq counts what referencing seq m more times
 * does: the same counters and the same sampled histograms (the sample
 * limit tiny, so that the rate has dropped), and afterwards the same
 * classes. */
static void test_warp(uint32_t cap, uint32_t max_sampled) {
  cb_shadow a, b;
  CHECK(cb_shadow_init(&a, cap, max_sampled));
  CHECK(cb_shadow_init(&b, cap, max_sampled));
  int bad = 0;
  for (int round = 0; round < 300; round++) {
    /* Some history, then one iteration of seq on both. */
    for (int i = 0, n = (int)rnd(200); i < n; i++) {
      uint64_t line = stream_line(MIXED, (uint64_t)i);
      bad += cb_shadow_ref(&a, line) != cb_shadow_ref(&b, line);
    }
    uint64_t seq[SHADOW_WARP_REFS];
    uint32_t n = 1 + (uint32_t)rnd(SHADOW_WARP_REFS);
    for (uint32_t i = 0; i < n; i++)
      seq[i] = rnd(3) ? 20000 + rnd(12) : i && rnd(2) ? seq[i - 1] : rnd(4000);
    for (uint32_t i = 0; i < n; i++)
      bad += cb_shadow_ref(&a, seq[i]) != cb_shadow_ref(&b, seq[i]);
    uint64_t m = 1 + rnd(5);
    cb_shadow_warp(&a, seq, n, m);
    for (uint64_t k = 0; k < m; k++)
      for (uint32_t i = 0; i < n; i++)
        cb_shadow_ref(&b, seq[i]);
    bad += a.repeats != b.repeats || a.others != b.others || a.cold != b.cold ||
           a.fa_misses != b.fa_misses || a.shift != b.shift;
    bad += memcmp(a.near_refs, b.near_refs, sizeof a.near_refs) != 0;
    for (int f = 0; f < 2; f++)
      for (int k = 0; k < SHADOW_SHIFTS; k++) {
        const size_t la = a.whist_len[f][k], lb = b.whist_len[f][k];
        for (size_t d = 0; d < la || d < lb; d++)
          bad += (d < la ? a.whist[f][k][d] : 0) !=
                 (d < lb ? b.whist[f][k][d] : 0);
      }
  }
  CHECK_EQ_U64(bad, 0);
  if (max_sampled)
    CHECK(a.shift > 0); /* the sampled path was taken */
  cb_shadow_free(&a);
  cb_shadow_free(&b);
}

/* Streams of about a million references over 2^16 to 2^18 lines, so
 * that the default sample (SHADOW_SAMPLED_LINES) drops to rates of 1/4
 * to 1/16: */
enum curve_kind { LOOPS, ZIPF, PHASES, SCAN_HOT, N_CURVES };

static uint64_t curve_line(enum curve_kind k, uint64_t i) {
  switch (k) {
  case LOOPS: /* sweeps over arrays of several sizes, interleaved */
    switch (i % 3) {
    case 0:
      return i / 3 % 5000;
    case 1:
      return 100000 + i / 3 % 60000;
    default:
      return 200000 + i / 3 * 7 % 1500;
    }
  case ZIPF: { /* skewed random: line ~ 2^(18 u^2) */
    double u = (double)rnd(1u << 30) / (double)(1u << 30);
    return (uint64_t)exp2(18.0 * u * u) * 5 % 300000;
  }
  case PHASES: /* a working set that moves */
    return i / 200000 * 20000 + rnd(40000);
  default: /* a hot set with a scan through it */
    return rnd(4) ? rnd(3000) : 10000 + i % 200000;
  }
}

/* The stated error (shadow.h, docs/cache-config.md): at the capacities
 * of the curve, the sampled miss ratio within 0.02 of the exact one, and
 * exact at the level's own capacity. */
#define MRC_MAX_ERROR 0.02

static void test_sampled_curve(enum curve_kind kind, uint32_t cap) {
  enum { N = 1000000 };
  cb_shadow exact, sampled;
  CHECK(cb_shadow_init(&exact, cap, 0));
  CHECK(cb_shadow_init(&sampled, cap, SHADOW_SAMPLED_LINES));
  for (uint64_t i = 0; i < N; i++) {
    uint64_t line = curve_line(kind, i);
    cb_shadow_ref(&exact, line);
    cb_shadow_ref(&sampled, line);
  }
  CHECK(sampled.shift >= 2); /* it did sample */
  const uint64_t *he, *hs;
  size_t le, ls;
  uint64_t ce, cs;
  CHECK(cb_shadow_histogram(&exact, &he, &le, &ce));
  CHECK(cb_shadow_histogram(&sampled, &hs, &ls, &cs));
  CHECK_EQ_U64(cs, ce);
  CHECK_EQ_U64(hs[0], he[0]);
  double worst = 0;
  for (uint64_t c = 1; c <= (1u << 20); c *= 2) {
    uint64_t me = ce, ms = cs;
    for (size_t d = c; d < le; d++)
      me += he[d];
    for (size_t d = c; d < ls; d++)
      ms += hs[d];
    double err = fabs((double)me - (double)ms) / N;
    if (getenv("SHADOW_VERBOSE"))
      printf("  C %llu exact %.4f sampled %.4f\n", (unsigned long long)c,
             (double)me / N, (double)ms / N);
    if (err > worst)
      worst = err;
  }
  uint64_t me = ce, ms = cs;
  for (size_t d = cap; d < le; d++)
    me += he[d];
  for (size_t d = cap; d < ls; d++)
    ms += hs[d];
  CHECK_EQ_U64(ms, me);
  printf("curve %d cap %u: rate 1/%llu, largest error %.4f\n", (int)kind, cap,
         (unsigned long long)cb_shadow_rate_inverse(&sampled), worst);
  CHECK(worst <= MRC_MAX_ERROR);
  cb_shadow_free(&exact);
  cb_shadow_free(&sampled);
}

int main(void) {
  static const uint32_t caps[] = {1, 2, 3, 7, 64, 100, 512, 4096};
  for (int k = 0; k < N_KINDS; k++)
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
      test_classes((enum stream_kind)k, caps[c], 0);
      test_classes((enum stream_kind)k, caps[c], 64);
      test_classes((enum stream_kind)k, caps[c], UINT32_MAX);
    }
  test_warp(1, 0);
  test_warp(5, 0);
  test_warp(40, 0);
  test_warp(5, 16);
  test_warp(40, 64);
  for (int k = 0; k < N_CURVES; k++) {
    test_sampled_curve((enum curve_kind)k, 512);
    test_sampled_curve((enum curve_kind)k, 16384);
  }
  return check_done();
}
