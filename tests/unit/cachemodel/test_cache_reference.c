/* The cache model against the brute-force reference (ref_cache.h), on random
 * traces (straddling accesses, writes, sites), for every policy, several
 * geometries (direct-mapped and fully associative included) and
 * hierarchies, write-allocate on and off, comparing every counter: per
 * level, per site, the miss classes and the stack-distance histograms.
 */
#include "cbana/stream.h"
#include "check.h"
#include "ref_cache.h"

#include <stdlib.h>
#include <string.h>

/* ---- Random traces --------------------------------------------------------
 */

static uint64_t rnd_state = 42;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

/* A mix of uniform references in a region a few times the cache, strided
 * walks and re-references of recent addresses, with sizes that straddle
 * lines, 30% writes, and sites including none and out-of-range ones. */
static void make_trace(cb_access *t, size_t n, uint64_t region) {
  uint64_t base = 0x7f0000000000ull, walk = 0, stride = 8;
  static const uint16_t sizes[] = {1, 2, 4, 8, 8, 8, 16, 3, 12, 64, 100};
  for (size_t i = 0; i < n; i++) {
    uint64_t addr;
    switch (rnd(4)) {
    case 0:
      addr = base + rnd(region);
      break;
    case 1:
      walk = (walk + stride) % region;
      addr = base + walk;
      if (rnd(64) == 0)
        stride = 1u << rnd(9);
      break;
    default:
      addr = i ? t[i - 1 - rnd(i < 16 ? i : 16)].addr + rnd(24) : base;
      break;
    }
    if (rnd(500) == 0)
      addr = UINT64_MAX - rnd(40); /* the top of the address space */
    uint32_t site = (uint32_t)rnd(7);
    t[i] = (cb_access){.addr = addr,
                       .site = site == 5   ? CB_SITE_NONE
                               : site == 6 ? 1000
                                           : site,
                       .size = sizes[rnd(sizeof sizes / sizeof sizes[0])],
                       .is_write = rnd(10) < 3};
  }
}

/* Long runs of accesses inside one line (the hierarchy's repeat fast
 * path and its lean miss path, hierarchy.c), each run starting at a new
 * line: uniform, the next line, or one of the last few lines. A few
 * accesses straddle the line's end (the general path). */
static void make_runs(cb_access *t, size_t n, uint64_t region, uint32_t line) {
  uint64_t base = 0x7f0000000000ull, cur = base, recent[8] = {base};
  size_t i = 0;
  while (i < n) {
    switch (rnd(3)) {
    case 0:
      cur = base + rnd(region) / line * line;
      break;
    case 1:
      cur += line;
      break;
    default:
      cur = recent[rnd(8)];
      break;
    }
    recent[rnd(8)] = cur;
    size_t run = 1 + rnd(rnd(4) ? 40 : 400);
    bool w = rnd(3) == 0;
    for (size_t k = 0; k < run && i < n; k++, i++) {
      uint16_t size = (uint16_t)(1u << rnd(4));
      uint64_t off = rnd(line) & ~(uint64_t)(size - 1);
      if (rnd(50) == 0)
        off = line - 1; /* straddles into the next line */
      uint32_t site = (uint32_t)rnd(6);
      t[i] = (cb_access){.addr = cur + off,
                         .site = site == 5 ? 1000 : site,
                         .size = size,
                         .is_write = w || rnd(8) == 0};
    }
  }
}

/* Runs a trace through both, half by batches and half one at a time. */
static void run_both(const cb_cache_config *cfg, const cb_access *t, size_t n,
                     unsigned flags, const char *what) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 5, flags, err, sizeof err);
  if (!h) {
    fprintf(stderr, "%s: %s\n", what, err);
    CHECK(h != NULL);
    return;
  }
  bool classify = flags & CB_CLASSIFY;
  ref_model m;
  ref_init(&m, cfg, 5);
  /* The last quarter one at a time with its outcome, which must match
   * what the reference's counters did on that access. */
  size_t q = n - n / 4;
  for (size_t i = 0; i < q; i++)
    ref_access(&m, t[i].addr, t[i].size, t[i].is_write, t[i].site, classify);
  cb_hierarchy_run(h, t, n / 2);
  for (size_t i = n / 2; i < q; i++)
    cb_hierarchy_access(h, t[i].addr, t[i].size, t[i].is_write, t[i].site);
  size_t bad_outcomes = 0, misses_seen = 0;
  uint8_t(*out_cls)[CB_MAX_LEVELS] = calloc(n - q, sizeof *out_cls);
  uint8_t *out_missed = calloc(n - q, 1);
  for (size_t i = q; i < n; i++) {
    cb_level_stats before[CB_MAX_LEVELS];
    for (unsigned l = 0; l < m.n; l++)
      before[l] = m.lv[l].st;
    ref_access(&m, t[i].addr, t[i].size, t[i].is_write, t[i].site, classify);
    uint8_t cls[CB_MAX_LEVELS];
    unsigned missed = cb_hierarchy_access_outcome(
        h, t[i].addr, t[i].size, t[i].is_write, t[i].site, cls);
    out_missed[i - q] = (uint8_t)missed;
    memcpy(out_cls[i - q], cls, missed);
    unsigned want = 0;
    while (want < m.n && m.lv[want].st.misses != before[want].misses)
      want++;
    bad_outcomes += missed != want;
    misses_seen += missed;
    for (unsigned l = 0; l < missed && l < want; l++) {
      unsigned c = CB_MISS_CLASSES;
      for (unsigned k = 0; classify && k < CB_MISS_CLASSES; k++)
        if (m.lv[l].st.miss_class[k] != before[l].miss_class[k])
          c = k;
      bad_outcomes += cls[l] != c;
    }
  }
  CHECK_EQ_U64(bad_outcomes, 0);
  CHECK(misses_seen > 0);
  CHECK(ref_compare(h, &m, classify, what) == 0);
  /* The same accesses through cb_hierarchy_run_outcomes, in chunks of
   * a few: the same outcomes, the same counters. */
  cb_hierarchy *b = cb_hierarchy_create(cfg, 5, flags, err, sizeof err);
  CHECK(b != NULL);
  cb_hierarchy_run(b, t, q);
  size_t bad_batch = 0;
  for (size_t i = q; i < n;) {
    uint8_t missed[13], cls[13][CB_MAX_LEVELS];
    size_t k = 1 + (i * 7) % 13;
    if (k > n - i)
      k = n - i;
    cb_hierarchy_run_outcomes(b, t + i, k, missed, cls);
    for (size_t j = 0; j < k; j++, i++) {
      bad_batch += missed[j] != out_missed[i - q];
      bad_batch += memcmp(cls[j], out_cls[i - q], out_missed[i - q]) != 0;
    }
  }
  CHECK_EQ_U64(bad_batch, 0);
  CHECK(ref_compare(b, &m, classify, what) == 0);
  cb_hierarchy_destroy(b);
  free(out_cls);
  free(out_missed);
  /* A reset starts the same run again, random policies included. */
  cb_hierarchy_reset(h);
  cb_hierarchy_run(h, t, n);
  CHECK(ref_compare(h, &m, classify, what) == 0);
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

int main(void) {
  enum { N = 12000 };
  cb_access *t = malloc(N * sizeof *t);
  /* size, assoc, line: direct-mapped, set-associative, fully assoc. */
  static const uint32_t geo[][3] = {
      {256, 1, 16},
      {512, 2, 32},
      {256, 4, 16},
      {128, 0, 16},
      {1024, 8, 64},
      {64, 0, 64},
      {2048, 16, 32},
      {512, 0, 8},
      /* wide sets (wideset.c): fully associative, and 4 sets of 64 */
      {2048, 0, 16},
      {4096, 64, 16},
  };
  char what[128];
  for (int g = 0; g < (int)(sizeof geo / sizeof geo[0]); g++)
    for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++)
      for (int wa = 0; wa < 2; wa++) {
        make_trace(t, N, 4 * (uint64_t)geo[g][0]);
        /* One level, and the same above a bigger L2 of another policy. */
        cb_cache_config one = {1,
                               {lvl("L1D", geo[g][0], geo[g][1], geo[g][2],
                                    (cb_policy)p, wa, (uint64_t)g * 11 + 3)}};
        snprintf(what, sizeof what, "geometry %d policy %s wa %d", g,
                 cb_policy_name((cb_policy)p), wa);
        run_both(&one, t, N, CB_CLASSIFY, what);
        run_both(&one, t, N, 0, what);
        cb_cache_config two = one;
        two.n_levels = 2;
        two.levels[1] = lvl("L2", 4 * (uint64_t)geo[g][0], 4, 64,
                            (cb_policy)((p + 1 + g) % 5), !wa, 99);
        strcat(what, " +L2");
        run_both(&two, t, N, CB_CLASSIFY, what);
        run_both(&two, t, N, 0, what);
      }
  /* Same-line runs through cachegrind-like hierarchies (8- and 16-way,
   * the geometries lru_touch unrolls), a 4-way L1 with 32-byte lines
   * above 64-byte ones, and a fully associative (wide) last level. */
  static const uint32_t runs_geo[][6] = {
      {1024, 8, 64, 8192, 16, 64},
      {512, 4, 32, 4096, 8, 64},
      {2048, 16, 64, 8192, 0, 64},
  };
  for (int g = 0; g < 3; g++)
    for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++)
      for (int wa = 0; wa < 2; wa++) {
        const uint32_t *q = runs_geo[g];
        make_runs(t, N, 8 * (uint64_t)q[3], q[2]);
        cb_cache_config two = {
            2,
            {lvl("L1D", q[0], q[1], q[2], (cb_policy)p, wa, 7),
             lvl("LL", q[3], q[4], q[5], (cb_policy)((p + g) % 5), true, 8)}};
        snprintf(what, sizeof what, "runs %d policy %s wa %d", g,
                 cb_policy_name((cb_policy)p), wa);
        run_both(&two, t, N, 0, what);
        run_both(&two, t, N, CB_CLASSIFY, what);
      }
  /* Three levels with mixed lines and policies, on a bigger region. */
  for (int k = 0; k < 10; k++) {
    make_trace(t, N, 16384);
    cb_cache_config three = {
        3,
        {lvl("L1D", 512, 2, 16, (cb_policy)(k % 5), k & 1, (uint64_t)k),
         lvl("L2", 2048, 4, 32, (cb_policy)((k + 2) % 5), true, 5),
         lvl("L3", 8192, 0, 64, (cb_policy)((k + 4) % 5), k & 2, 6)}};
    snprintf(what, sizeof what, "three levels %d", k);
    run_both(&three, t, N, CB_CLASSIFY, what);
    run_both(&three, t, N, 0, what);
  }
  free(t);
  return check_done();
}
