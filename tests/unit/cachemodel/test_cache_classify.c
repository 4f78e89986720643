/* Miss classes past the exact stack distances (shadow.h): hierarchies
 * whose shadows go over to the LRU cache of C lines and the set of lines
 * seen after a few distinct lines (exact_max lowered from 65536 to 40,
 * the sample's size from 16384 to 64, so the rate halves many times)
 * against the brute-force model of ref_cache.h, which classifies by
 * every reference's exact stack distance: every level and site counter,
 * the classes included, on random, sweeping and mixed streams with
 * straddling accesses, through levels of every policy, direct-mapped to
 * fully associative, with and without write allocation (cachegrind's two
 * LRU levels of 8 and 16 ways included, which have their own copy of
 * the steps). The exact counts of the sampled histograms (first
 * references, distances below SHADOW_NEAR, the total) must equal the
 * model's, and the sampled curve must stay close to the exact one on a
 * stream of many lines. Affine blocks that warp with a sampled shadow
 * must give what their records give. */
#include "cbana/stream.h"
#include "check.h"
#include "hierarchy_internal.h"
#include "ref_cache.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 11;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

enum { S_RANDOM, S_SWEEP, S_MIXED, S_STREAMS };

/* The address of access i of a stream over `lines` lines of 64 bytes. */
static uint64_t stream_addr(int kind, uint64_t i, uint64_t lines) {
  const uint64_t base = 1ull << 24;
  switch (kind) {
  case S_RANDOM:
    return base + rnd(lines * 64);
  case S_SWEEP: /* passes of stride 8 bytes or 3 lines, a stray now and then */
    if (rnd(40) == 0)
      return base + rnd(lines * 64);
    return (i / (8 * lines)) % 2 ? base + (i * 3 % lines) * 64
                                 : base + (i * 8) % (lines * 64);
  default: /* a hot few lines, a wider pool, far ones */
    switch (rnd(4)) {
    case 0:
      return base + rnd(6 * 64);
    case 1:
      return base + 4096 + rnd(lines * 32);
    case 2:
      return base + rnd(lines / 4 + 1) * 4160 + (1ull << 30);
    default:
      return base + 8192 + rnd(lines / 8 + 1) * 1024;
    }
  }
}

static void lower_bounds(cb_hierarchy *h, uint64_t exact_max,
                         uint64_t sample_max) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    h->shadows[l].exact_max = exact_max;
    h->shadows[l].sample_max = sample_max;
  }
}

/* The sampled histogram's exact parts against the model's. */
static int exact_parts(const cb_hierarchy *h, const ref_model *m) {
  int bad = 0;
  for (unsigned l = 0; l < m->n; l++) {
    const ref_level *r = &m->lv[l];
    const uint64_t *hist;
    size_t len;
    uint64_t cold, refs = r->cold;
    for (size_t d = 0; d < MAX_LINES; d++)
      refs += r->hist[d];
    CHECK(cb_hierarchy_distance_histogram(h, l, &hist, &len, &cold));
    bad += cold != r->cold;
    /* repeats and the window's distances are exact */
    for (size_t d = 0; d < SHADOW_NEAR; d++)
      bad += (d < len ? hist[d] : 0) != r->hist[d];
    bad += cb_hierarchy_line_refs(h, l) != refs;
    /* a cache of one line misses all but the repeats, sampled or not */
    bad += cb_hierarchy_fa_lru_misses(h, l, 1) != refs - r->hist[0];
  }
  return bad;
}

static void hierarchies(void) {
  cb_cache_config cfgs[] = {
      {1, {lvl("L1D", 512, CB_ASSOC_FULL, 64, CB_POLICY_LRU, true, 1)}},
      {2,
       {lvl("L1D", 2048, 4, 64, CB_POLICY_LRU, true, 1),
        lvl("LL", 16384, 8, 64, CB_POLICY_FIFO, true, 2)}},
      {3,
       {lvl("L1D", 1024, 2, 32, CB_POLICY_PLRU, false, 1),
        lvl("L2", 8192, 4, 64, CB_POLICY_RANDOM, true, 7),
        lvl("LL", 32768, 16, 128, CB_POLICY_MRU, true, 3)}},
      {2,
       {lvl("L1D", 4096, 1, 32, CB_POLICY_LRU, false, 1),
        lvl("LL", 8192, CB_ASSOC_FULL, 64, CB_POLICY_RANDOM, true, 5)}},
      /* cachegrind's shape (hierarchy_internal.h, access_cg_one_line),
       * with and without write allocation at the first level */
      {2,
       {lvl("L1D", 2048, 8, 64, CB_POLICY_LRU, true, 1),
        lvl("LL", 16384, 16, 64, CB_POLICY_LRU, true, 2)}},
      {2,
       {lvl("L1D", 1024, 8, 64, CB_POLICY_LRU, false, 1),
        lvl("LL", 8192, 16, 64, CB_POLICY_LRU, true, 2)}},
  };
  const uint64_t pools[] = {30, 300, 2500};
  const uint32_t n_sites = 5;
  int checked = 0, sampled = 0;
  for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
    for (int kind = 0; kind < S_STREAMS; kind++)
      for (size_t p = 0; p < sizeof pools / sizeof pools[0]; p++) {
        char err[256];
        cb_hierarchy *h = cb_hierarchy_create(&cfgs[c], n_sites, CB_CLASSIFY,
                                              err, sizeof err);
        cb_hierarchy *x = cb_hierarchy_create(
            &cfgs[c], n_sites, CB_CLASSIFY | CB_EXACT_MRC, err, sizeof err);
        CHECK(h && x);
        if (!h || !x)
          return;
        lower_bounds(h, 40, 64);
        /* the last two configurations take the copy for cachegrind's
         * shape, the others the general path */
        CHECK_EQ_U64(h->cg_mask != 0, c + 2 >= sizeof cfgs / sizeof cfgs[0]);
        ref_model m;
        ref_init(&m, &cfgs[c], n_sites);
        const uint64_t n = 30000;
        for (uint64_t i = 0; i < n; i++) {
          uint64_t addr = stream_addr(kind, i, pools[p]);
          uint32_t size = rnd(8) == 0 ? (uint32_t)rnd(100) : 8;
          bool w = rnd(3) == 0;
          uint32_t site = (uint32_t)rnd(n_sites + 1); /* one counted nowhere */
          if (rnd(4) == 0) { /* a repeat of the access before, batched */
            cb_access a[2] = {{addr, site, (uint16_t)size, w, 0},
                              {addr, site, (uint16_t)size, w, 0}};
            cb_hierarchy_run(h, a, 2);
            cb_hierarchy_run(x, a, 2);
            ref_access(&m, addr, size, w, site, true);
          } else {
            cb_hierarchy_access(h, addr, size, w, site);
            cb_hierarchy_access(x, addr, size, w, site);
          }
          ref_access(&m, addr, size, w, site, true);
        }
        char what[64];
        snprintf(what, sizeof what, "config %zu stream %d pool %zu", c, kind,
                 p);
        CHECK_EQ_U64(ref_compare(h, &m, false, what), 0);
        CHECK_EQ_U64(ref_compare(x, &m, true, what), 0);
        CHECK_EQ_U64(exact_parts(h, &m), 0);
        checked++;
        sampled += cb_hierarchy_distance_scale_log2(h, 0) > 0;
        CHECK_EQ_U64(cb_hierarchy_distance_scale_log2(x, 0), 0);
        ref_free(&m);
        cb_hierarchy_destroy(h);
        cb_hierarchy_destroy(x);
      }
  /* the pools of 300 and 2500 lines go past 40 distinct lines and their
   * samples past 64 lines: at a rate below 1 */
  CHECK(sampled >= checked / 2);
}

/* A level's shadow on its own, fed every reference as a miss of the
 * level (the set of lines seen decides first references) or, for a line
 * seen before, now and then as a hit (the set is not asked then), for
 * capacities from 1 to more lines than the stream has. */
static void shadow_alone(void) {
  const uint64_t caps[] = {1, 2, 7, 64, 500, 5000};
  for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
    for (int kind = 0; kind < S_STREAMS; kind++) {
      cb_shadow s;
      CHECK(cb_shadow_init(&s, caps[c], false));
      s.exact_max = kind == S_MIXED ? 0 : 100;
      s.sample_max = 32;
      ref_level r;
      memset(&r, 0, sizeof r);
      r.stack = calloc(MAX_LINES, sizeof *r.stack);
      r.hist = calloc(MAX_LINES, sizeof *r.hist);
      int wrong = 0;
      for (uint64_t i = 0; i < 40000; i++) {
        uint64_t line = stream_addr(kind, i, 3000) / 64;
        long d = ref_stack_ref(&r, line);
        bool hit = d >= 0 && rnd(3) == 0;
        unsigned want = d < 0                    ? CB_MISS_COMPULSORY
                        : (uint64_t)d >= caps[c] ? CB_MISS_CAPACITY
                                                 : CB_MISS_CONFLICT;
        unsigned got = cb_shadow_ref(&s, line, hit, SHADOW_COLD_UNKNOWN);
        wrong += got != want;
      }
      CHECK_EQ_U64(wrong, 0);
      CHECK(s.sampled && s.k > 0);
      const uint64_t *hist;
      size_t len;
      uint64_t cold;
      cb_shadow_histogram(&s, &hist, &len, &cold);
      CHECK_EQ_U64(cold, r.cold);
      CHECK_EQ_U64(hist[0], r.hist[0]);
      cb_shadow_reset(&s);
      CHECK(!s.sampled);
      CHECK(cb_shadow_ref(&s, 5, false, SHADOW_COLD_UNKNOWN) ==
            CB_MISS_COMPULSORY);
      CHECK(cb_shadow_ref(&s, 5, false, SHADOW_COLD_UNKNOWN) ==
            CB_MISS_CONFLICT);
      cb_shadow_free(&s);
      free(r.stack);
      free(r.hist);
    }
}

/* The sampled curve of a stream over 60000 lines (a random walk over a
 * hot and a cold region, and sweeps) against the exact one: within 0.02
 * of the references at every power of two of lines, with the default
 * sample of 16384 lines past 4096 exact ones. */
static void curve_error(void) {
  cb_cache_config cfg = {1, {lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, true, 1)}};
  char err[256];
  cb_hierarchy *h = cb_hierarchy_create(&cfg, 0, CB_CLASSIFY, err, sizeof err);
  cb_hierarchy *x =
      cb_hierarchy_create(&cfg, 0, CB_CLASSIFY | CB_EXACT_MRC, err, sizeof err);
  CHECK(h && x);
  if (!h || !x)
    return;
  lower_bounds(h, 4096, SHADOW_SAMPLE_MAX);
  const uint64_t n_lines = 60000, base = 1ull << 32;
  for (uint64_t i = 0; i < 3000000; i++) {
    uint64_t r = rnd(100), line;
    if (r < 50)
      line = rnd(2000); /* hot */
    else if (r < 80)
      line = rnd(n_lines);
    else
      line = (i / 3) % n_lines; /* a slow sweep */
    uint64_t addr = base + line * 64 + rnd(8) * 8;
    cb_hierarchy_access(h, addr, 8, false, CB_SITE_NONE);
    cb_hierarchy_access(x, addr, 8, false, CB_SITE_NONE);
  }
  CHECK(cb_hierarchy_distance_scale_log2(h, 0) >= 2);
  uint64_t refs = cb_hierarchy_line_refs(x, 0);
  CHECK_EQ_U64(cb_hierarchy_line_refs(h, 0), refs);
  double worst = 0;
  for (uint64_t c = 1; c <= 131072; c *= 2) {
    double e = ((double)cb_hierarchy_fa_lru_misses(h, 0, c) -
                (double)cb_hierarchy_fa_lru_misses(x, 0, c)) /
               (double)refs;
    e = e < 0 ? -e : e;
    if (e > worst)
      worst = e;
  }
  printf("sampled curve: worst error %.4f of the references\n", worst);
  CHECK(worst < 0.02);
  /* the classes are exact either way */
  CHECK_EQ_U64(hier_counter_diffs(h, x, 0), 0);
  cb_hierarchy_destroy(h);
  cb_hierarchy_destroy(x);
}

/* Row walks as affine blocks (which warp with the shadow, adding each
 * skipped reference's distance among the sampled lines) against their
 * records, both sampled: every counter and the whole histogram. */
static void warps(void) {
  cb_cache_config cfg = {2,
                         {lvl("L1D", 4096, 4, 64, CB_POLICY_LRU, true, 1),
                          lvl("LL", 32768, 8, 64, CB_POLICY_LRU, true, 2)}};
  char err[256];
  cb_hierarchy *a = cb_hierarchy_create(&cfg, 4, CB_CLASSIFY, err, sizeof err);
  cb_hierarchy *b = cb_hierarchy_create(&cfg, 4, CB_CLASSIFY, err, sizeof err);
  CHECK(a && b);
  if (!a || !b)
    return;
  lower_bounds(a, 40, 64);
  lower_bounds(b, 40, 64);
  for (int blk = 0; blk < 300; blk++) {
    cb_affine_access acc[3];
    uint32_t n_acc = 1 + (uint32_t)rnd(3);
    for (uint32_t j = 0; j < n_acc; j++)
      acc[j] =
          (cb_affine_access){.base = (1ull << 20) + rnd(4000) * 64 + rnd(8) * 8,
                             .stride = rnd(4) == 0 ? 0 : 1 + (int64_t)rnd(2),
                             .site = (uint32_t)rnd(4),
                             .size = 1,
                             .is_write = rnd(4) == 0};
    cb_affine_block blkd = {.n_iter = 8 + rnd(200), .n_acc = n_acc, .acc = acc};
    cb_hierarchy_run_affine(a, &blkd);
    for (uint64_t t = 0; t < blkd.n_iter; t++)
      for (uint32_t j = 0; j < n_acc; j++)
        cb_hierarchy_access(b, acc[j].base + t * (uint64_t)acc[j].stride,
                            acc[j].size, acc[j].is_write, acc[j].site);
  }
  cb_affine_stats st;
  cb_hierarchy_affine_stats(a, &st);
  CHECK(st.warps > 100);
  CHECK(cb_hierarchy_distance_scale_log2(a, 0) > 0);
  CHECK_EQ_U64(hier_counter_diffs(a, b, 4), 0);
  for (unsigned l = 0; l < 2; l++) {
    const uint64_t *ha, *hb;
    size_t la, lb;
    uint64_t ca, cbb;
    cb_hierarchy_distance_histogram(a, l, &ha, &la, &ca);
    uint64_t *copy = malloc(la * sizeof *copy);
    memcpy(copy, ha, la * sizeof *copy);
    cb_hierarchy_distance_histogram(b, l, &hb, &lb, &cbb);
    CHECK_EQ_U64(la, lb);
    CHECK_EQ_U64(ca, cbb);
    CHECK(la == lb && memcmp(copy, hb, la * sizeof *copy) == 0);
    free(copy);
  }
  cb_hierarchy_destroy(a);
  cb_hierarchy_destroy(b);
}

int main(void) {
  shadow_alone();
  hierarchies();
  warps();
  curve_error();
  return check_done();
}
