/* Affine blocks (cb_hierarchy_run_affine, affine.c) against their
 * expansion: random blocks (iterations 0..2000, 0..500 with
 * classification; 1..8 accesses and a few wide ones; strides 0,
 * +-1..+-4096; sizes 0..32 straddling lines, a third of the blocks
 * aligned to their sizes, a third of the accesses beside the one before
 * with its stride; sites counted and not), each
 * after a random cache state, through random hierarchies of every policy,
 * 1 to 3 levels, write-allocate on and off, classification on and off.
 * Every counter must equal both the same hierarchy fed the expansion
 * record by record (written out here, not by cb_affine_expand) and the
 * brute-force model of ref_cache.h.
 *
 * Warping must also really happen, with classification and without (the
 * shadow's distances of the skipped iterations are added in closed form,
 * and the distance histograms are among the counters compared): long
 * strided blocks must skip most iterations (cb_affine_stats), and every
 * policy must have warped in the random part too, both ways, so that a
 * loop that never warps cannot pass. Row walks of several accesses a line
 * through a first level of few sets have their own cases. */
#include "cbana/stream.h"
#include "check.h"
#include "ref_cache.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 7;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

/* Every counter of two hierarchies of the same configuration. */
static int same_counters(const cb_hierarchy *a, const cb_hierarchy *b,
                         uint32_t n_sites) {
  int bad = hier_counter_diffs(a, b, n_sites);
  unsigned nl = cb_hierarchy_n_levels(a);
  for (unsigned l = 0; l < nl; l++) {
    bad += cb_hierarchy_line_refs(a, l) != cb_hierarchy_line_refs(b, l);
    for (uint64_t lines = 1; lines <= 4096; lines *= 4)
      bad += cb_hierarchy_fa_lru_misses(a, l, lines) !=
             cb_hierarchy_fa_lru_misses(b, l, lines);
    const uint64_t *ha, *hb;
    size_t la, lb;
    uint64_t ca, cb;
    bool ka = cb_hierarchy_distance_histogram(a, l, &ha, &la, &ca);
    bool kb = cb_hierarchy_distance_histogram(b, l, &hb, &lb, &cb);
    bad += ka != kb;
    if (ka && kb) {
      bad += ca != cb;
      size_t len = la > lb ? la : lb;
      for (size_t d = 0; d < len; d++)
        bad += (d < la ? ha[d] : 0) != (d < lb ? hb[d] : 0);
    }
  }
  if (bad)
    fprintf(stderr, "affine and expansion differ (%d)\n", bad);
  return bad;
}

static const uint16_t sizes[] = {0, 1, 2, 4, 8, 8, 8, 16, 3, 12, 32, 5};
static const uint32_t sites[] = {0, 1, 2, 3, 4, CB_SITE_NONE, 1000};

static int64_t random_stride(void) {
  int64_t s;
  switch (rnd(6)) {
  case 0:
    s = 0;
    break;
  case 1:
  case 2:
    s = (int64_t)(1u << rnd(4)); /* 1..8: stays in a line for a while */
    break;
  case 3:
    s = 1 + (int64_t)rnd(64);
    break;
  default:
    s = 1 + (int64_t)rnd(4096);
    break;
  }
  return rnd(4) == 0 ? -s : s;
}

/* max_iter: 2000, or less where the model's move-to-front shadow
 * (classification) would make the test slow. */
static cb_affine_block random_block(cb_affine_access *acc, uint64_t region,
                                    uint64_t max_iter) {
  uint32_t n_acc = rnd(20) == 0 ? 17 + (uint32_t)rnd(4) : 1 + (uint32_t)rnd(8);
  uint64_t base = 0x7f0000000000ull + region;
  for (uint32_t j = 0; j < n_acc; j++)
    acc[j] =
        (cb_affine_access){.base = base + rnd(region),
                           .stride = random_stride(),
                           .site = sites[rnd(sizeof sites / sizeof sites[0])],
                           .size = sizes[rnd(sizeof sizes / sizeof sizes[0])],
                           .is_write = rnd(10) < 3};
  /* A third of the blocks aligned as compilers lay out arrays: each
   * access's base and stride multiples of its size when that is a power
   * of two (affine.c's copy without straddle checks). */
  if (rnd(3) == 0)
    for (uint32_t j = 0; j < n_acc; j++) {
      uint64_t z = acc[j].size ? acc[j].size : 1;
      if ((z & (z - 1)) == 0) {
        acc[j].base &= ~(z - 1);
        acc[j].stride = (int64_t)((uint64_t)acc[j].stride & ~(z - 1));
      }
    }
  /* A third of the accesses next to the one before, with its stride: a
   * vectorised row walk's halves, a load and its store, in one line on
   * every iteration or not (affine.c runs only the first of such). */
  for (uint32_t j = 1; j < n_acc; j++)
    if (rnd(3) == 0) {
      acc[j].stride = acc[j - 1].stride;
      acc[j].base = acc[j - 1].base + rnd(33) - 16;
    }
  /* Mostly short; now and then up to 2000 iterations. */
  uint64_t n_iter = rnd(8) == 0 ? rnd(max_iter + 1) : rnd(1 + rnd(300));
  return (cb_affine_block){n_iter, n_acc, acc};
}

/* Random records (the state the block finds) into all three. */
static void random_records(cb_hierarchy *ha, cb_hierarchy *he, ref_model *m,
                           bool classify, uint64_t region, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cb_access a = {.addr = 0x7f0000000000ull + region + rnd(region),
                   .site = sites[rnd(sizeof sites / sizeof sites[0])],
                   .size = sizes[rnd(sizeof sizes / sizeof sizes[0])],
                   .is_write = rnd(10) < 3};
    cb_hierarchy_run(ha, &a, 1);
    cb_hierarchy_run(he, &a, 1);
    ref_access(m, a.addr, a.size, a.is_write, a.site, classify);
  }
}

/* The expansion, written out: iteration t, access j. */
static void run_expansion(cb_hierarchy *h, ref_model *m, bool classify,
                          const cb_affine_block *b) {
  cb_access buf[256];
  size_t n = 0;
  for (uint64_t t = 0; t < b->n_iter; t++)
    for (uint32_t j = 0; j < b->n_acc; j++) {
      const cb_affine_access *a = &b->acc[j];
      uint64_t addr = a->base + t * (uint64_t)a->stride;
      buf[n++] = (cb_access){.addr = addr,
                             .site = a->site,
                             .size = a->size,
                             .is_write = a->is_write};
      ref_access(m, addr, a->size, a->is_write, a->site, classify);
      if (n == 256) {
        cb_hierarchy_run(h, buf, n);
        n = 0;
      }
    }
  cb_hierarchy_run(h, buf, n);
}

/* cb_affine_expand, in pieces of every size, against the written-out
 * expansion. */
static void check_expand(const cb_affine_block *b) {
  cb_access out[37];
  uint64_t pos = 0, k = 0;
  size_t cap = 1 + rnd(37), got;
  bool same = true;
  while ((got = cb_affine_expand(b, &pos, out, cap)) > 0) {
    for (size_t i = 0; i < got; i++, k++) {
      const cb_affine_access *a = &b->acc[k % b->n_acc];
      uint64_t addr = a->base + (k / b->n_acc) * (uint64_t)a->stride;
      same &= out[i].addr == addr && out[i].site == a->site &&
              out[i].size == a->size && out[i].is_write == a->is_write;
    }
    cap = 1 + rnd(37);
  }
  CHECK(same);
  CHECK_EQ_U64(k, b->n_iter * b->n_acc);
}

/* The block-fed hierarchy ha against the expansion-fed he and the
 * model m: every counter equal. */
static void check_same(const cb_hierarchy *ha, const cb_hierarchy *he,
                       ref_model *m, bool classify, const char *what) {
  int bad = same_counters(ha, he, 5) + ref_compare(ha, m, classify, what);
  if (bad)
    fprintf(stderr, "%s: differs\n", what);
  CHECK(bad == 0);
}

/* The three a case compares, for configuration cfg: ha fed blocks, he
 * fed their expansion, m the brute-force model; false (checked) if a
 * hierarchy could not be made. */
static bool open_three(const cb_cache_config *cfg, unsigned flags,
                       cb_hierarchy **ha, cb_hierarchy **he, ref_model *m) {
  char err[CB_ERR_MAX];
  *ha = cb_hierarchy_create(cfg, 5, flags, err, sizeof err);
  *he = cb_hierarchy_create(cfg, 5, flags, err, sizeof err);
  CHECK(*ha && *he);
  if (!*ha || !*he) {
    cb_hierarchy_destroy(*ha);
    cb_hierarchy_destroy(*he);
    return false;
  }
  ref_init(m, cfg, 5);
  return true;
}

static void close_three(cb_hierarchy *ha, cb_hierarchy *he, ref_model *m) {
  cb_hierarchy_destroy(ha);
  cb_hierarchy_destroy(he);
  ref_free(m);
}

/* [policy][classification] */
static uint64_t warped_by_policy[5][2];

static void random_case(const cb_cache_config *cfg, bool classify,
                        uint64_t region, const char *what) {
  unsigned flags = classify ? CB_CLASSIFY : 0;
  cb_hierarchy *ha, *he;
  ref_model m;
  if (!open_three(cfg, flags, &ha, &he, &m))
    return;
  cb_affine_access acc[24];
  uint64_t iters = 0;
  for (int k = 0; k < 6; k++) {
    random_records(ha, he, &m, classify, region, rnd(300));
    cb_affine_block b = random_block(acc, region, classify ? 500 : 2000);
    if (k == 0)
      check_expand(&b);
    cb_hierarchy_run_affine(ha, &b);
    run_expansion(he, &m, classify, &b);
    iters += b.n_iter;
  }
  check_same(ha, he, &m, classify, what);
  cb_affine_stats st;
  cb_hierarchy_affine_stats(ha, &st);
  CHECK_EQ_U64(st.blocks, 6);
  CHECK_EQ_U64(st.iterations, iters);
  CHECK(st.warped_iterations <= iters);
  warped_by_policy[cfg->levels[0].policy][classify] += st.warped_iterations;
  /* A reset zeroes the block counters too. */
  cb_hierarchy_reset(ha);
  cb_hierarchy_affine_stats(ha, &st);
  CHECK_EQ_U64(st.blocks + st.iterations + st.warped_iterations + st.warps, 0);
  close_three(ha, he, &m);
}

/* A long loop: a[i] (8 bytes, stride 8), b[i] written (4 bytes, stride
 * 4), a scalar s (stride 0) and a straddling 16-byte read at stride -2:
 * with 64-byte lines most iterations stay in the lines of the one before
 * and must be warped; the counters still equal the expansion's. */
static void long_case(cb_policy p, bool wa, bool classify) {
  cb_cache_config cfg = {
      2,
      {lvl("L1D", 4096, 4, 64, p, wa, 3),
       lvl("LL", 65536, 8, 64, (cb_policy)((p + 1) % 5), true, 4)}};
  unsigned flags = classify ? CB_CLASSIFY : 0;
  cb_hierarchy *ha, *he;
  ref_model m;
  if (!open_three(&cfg, flags, &ha, &he, &m))
    return;
  const uint64_t n_iter = 60000;
  cb_affine_access acc[4] = {
      {.base = 0x10000, .stride = 8, .site = 0, .size = 8},
      /* written only where writes allocate: a write that does not
       * allocate misses every time, and no iteration would warp */
      {.base = 0x90000, .stride = 4, .site = 1, .size = 4, .is_write = wa},
      {.base = 0x5000c, .stride = 0, .site = 2, .size = 8},
      {.base = 0x200000 + 2 * n_iter + 60, .stride = -2, .site = 3, .size = 16},
  };
  cb_affine_block b = {n_iter, 4, acc};
  cb_hierarchy_run_affine(ha, &b);
  run_expansion(he, &m, false, &b);
  CHECK(same_counters(ha, he, 5) == 0);
  /* The model's shadow is a move-to-front list, too slow for this many
   * distinct lines: with classification, the expansion is the reference
   * here (the random cases above compare classification with the model). */
  if (!classify)
    CHECK(ref_compare(ha, &m, classify, "long block") == 0);
  cb_affine_stats st;
  cb_hierarchy_affine_stats(ha, &st);
  {
    /* Every 32 iterations a[] enters 4 new lines, b[] 2, the straddling
     * read's first and last byte 1 each: at most 8 iterations change
     * lines, each run with the all-hit one after it, so at least 16 of 32
     * are warped (give or take the block's ends). With classification,
     * spans of fewer than 4 iterations (16 accesses: affine.c,
     * SHADOW_MIN_WARP) run instead: at least 12 of 32. */
    const uint64_t least = n_iter / 32 * (classify ? 12 : 15);
    CHECK(st.warped_iterations >= least);
    if (st.warped_iterations < least)
      fprintf(stderr, "policy %s: %llu of %llu iterations warped\n",
              cb_policy_name(p), (unsigned long long)st.warped_iterations,
              (unsigned long long)n_iter);
  }
  close_three(ha, he, &m);
}

/* Row walks as compilers vectorise them (gemm's j loop at -O2): one to four
 * arrays, each walked by one to four accesses of 8 or 16 bytes at one
 * stride, a few bytes apart: some share every line (two 16-byte halves
 * at stride 32) and some do not (at stride 16, an access 24 bytes after
 * another leaves its line first), the arrays at random phases, through a
 * first level of 8 sets that their lines often share. Every counter must
 * equal the expansion's and the model's, and the walks must have skipped
 * iterations (*skipped). With cg_shape, both levels LRU with cachegrind's
 * ways (8 and 16: affine.c's copies with the levels' state in locals),
 * still 8 sets at the first level. */
static void row_walk_case(cb_policy p, bool wa, int k, uint64_t *skipped,
                          bool cg_shape) {
  static const int64_t strides[] = {8, 16, 32, 24, 48, 32};
  cb_cache_config cfg = {
      2,
      {lvl("L1D", 1024, 2, 64, p, wa, 3 + (uint64_t)k),
       lvl("LL", 8192, 4, 64, (cb_policy)((p + 2) % 5), true, 4)}};
  if (cg_shape) {
    cfg.levels[0] = lvl("L1D", 4096, 8, 64, CB_POLICY_LRU, wa, 3);
    cfg.levels[1] = lvl("LL", 16384, 16, 64, CB_POLICY_LRU, true, 4);
  }
  char what[64];
  cb_hierarchy *ha, *he;
  ref_model m;
  if (!open_three(&cfg, 0, &ha, &he, &m))
    return;
  for (int rep = 0; rep < 8; rep++) {
    random_records(ha, he, &m, false, 16384, rnd(200));
    cb_affine_access acc[16];
    uint32_t n = 0, arrays = 1 + (uint32_t)rnd(4);
    int64_t s = strides[rnd(6)];
    for (uint32_t a = 0; a < arrays; a++) {
      if (rnd(3) == 0)
        s = strides[rnd(6)];
      int64_t sa = rnd(4) == 0 ? -s : s;
      uint64_t base = (0x7f0000010000ull + rnd(16384)) & ~15ull;
      for (uint32_t q = 1 + (uint32_t)rnd(4); q > 0 && n < 16; q--) {
        uint16_t z = s % 16 == 0 && rnd(2) ? 16 : 8;
        acc[n++] =
            (cb_affine_access){.base = (base + 8 * rnd(4)) & ~(uint64_t)(z - 1),
                               .stride = sa,
                               .site = (uint32_t)rnd(5),
                               .size = z,
                               .is_write = rnd(3) == 0};
      }
    }
    cb_affine_block b = {1 + rnd(3000), n, acc};
    cb_hierarchy_run_affine(ha, &b);
    run_expansion(he, &m, false, &b);
  }
  snprintf(what, sizeof what, "row walks, policy %s wa %d case %d%s",
           cb_policy_name(p), wa, k, cg_shape ? ", 8 and 16 ways" : "");
  check_same(ha, he, &m, false, what);
  cb_affine_stats st;
  cb_hierarchy_affine_stats(ha, &st);
  *skipped += st.warped_iterations;
  close_three(ha, he, &m);
}

/* Three row walks whose lines share one set of a 2-way first level: in
 * LRU each evicts another every iteration (thrash), so an iteration that
 * missed cannot start a warp however the lines repeat (affine.c,
 * warp_after_miss needs the ways for all of an iteration's lines). Then
 * two walks in the same set, which an iteration that missed may warp
 * from: the counters equal the expansion's and the model's in both. */
static void conflict_row_case(bool wa) {
  cb_cache_config cfg = {2,
                         {lvl("L1D", 1024, 2, 64, CB_POLICY_LRU, wa, 1),
                          lvl("LL", 8192, 4, 64, CB_POLICY_LRU, true, 2)}};
  cb_hierarchy *ha, *he;
  ref_model m;
  if (!open_three(&cfg, 0, &ha, &he, &m))
    return;
  /* 8 sets of 64 bytes: bases 512 bytes apart share every set */
  for (uint32_t n = 3; n >= 2; n--) {
    cb_affine_access acc[3];
    for (uint32_t j = 0; j < n; j++)
      acc[j] = (cb_affine_access){.base = 0x7f0000010000ull + 512 * j + 8 * n,
                                  .stride = 8,
                                  .site = j,
                                  .size = 8,
                                  .is_write = j == 1};
    cb_affine_block b = {4000, n, acc};
    cb_hierarchy_run_affine(ha, &b);
    run_expansion(he, &m, false, &b);
    check_same(ha, he, &m, false,
               n == 3 ? "conflicting row walks, three"
                      : "conflicting row walks, two");
  }
  close_three(ha, he, &m);
}

/* Column walks (a stride of a line or more: no warp) through two LRU
 * levels, the hierarchy records_lru2.c takes, with cachegrind's ways
 * (8 and 16, the constant copies) and others (4 and 8), the first level
 * write-allocating or not: one to four accesses of 8 bytes aligned,
 * strides of one to a few lines, either way, sites counted and not.
 * Every counter equals the expansion's and the model's. */
static void column_case(uint32_t a1, uint32_t a2, bool wa, int k) {
  static const int64_t strides[] = {64, 72, 200, 512, 1032, 4096};
  cb_cache_config cfg = {
      2,
      {lvl("L1D", 64 * a1 * 8, a1, 64, CB_POLICY_LRU, wa, 1),
       lvl("LL", 64 * a2 * 32, a2, 64, CB_POLICY_LRU, true, 2)}};
  char what[64];
  cb_hierarchy *ha, *he;
  ref_model m;
  if (!open_three(&cfg, 0, &ha, &he, &m))
    return;
  for (int rep = 0; rep < 10; rep++) {
    random_records(ha, he, &m, false, 65536, rnd(100));
    cb_affine_access acc[4];
    uint32_t n = 1 + (uint32_t)rnd(4);
    for (uint32_t j = 0; j < n; j++) {
      int64_t s = strides[rnd(6)];
      acc[j] =
          (cb_affine_access){.base = (0x7f0000010000ull + rnd(65536)) & ~7ull,
                             .stride = rnd(4) == 0 ? -s : s,
                             .site = sites[rnd(sizeof sites / sizeof sites[0])],
                             .size = 8,
                             .is_write = rnd(3) == 0};
    }
    /* now and then a row walk beside the columns, as A[i][k] beside
     * B[k][j] */
    if (n < 4 && rnd(2))
      acc[n++] = (cb_affine_access){.base = 0x7f0000030000ull + 8 * rnd(64),
                                    .stride = 8,
                                    .site = 2,
                                    .size = 8};
    cb_affine_block b = {1 + rnd(2000), n, acc};
    cb_hierarchy_run_affine(ha, &b);
    run_expansion(he, &m, false, &b);
  }
  snprintf(what, sizeof what, "columns, ways %u and %u, wa %d, case %d", a1, a2,
           wa, k);
  check_same(ha, he, &m, false, what);
  close_three(ha, he, &m);
}

int main(void) {
  /* size, assoc, line: direct-mapped, set-associative, fully associative,
   * wide sets (wideset.c). */
  static const uint32_t geo[][3] = {
      {256, 1, 16}, {512, 2, 32},   {1024, 8, 64},
      {512, 0, 8},  {2048, 16, 32}, {4096, 64, 16},
  };
  char what[128];
  for (int g = 0; g < (int)(sizeof geo / sizeof geo[0]); g++)
    for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++)
      for (int wa = 0; wa < 2; wa++)
        for (int cl = 0; cl < 2; cl++) {
          uint64_t region = 4 * (uint64_t)geo[g][0];
          cb_cache_config one = {1,
                                 {lvl("L1D", geo[g][0], geo[g][1], geo[g][2],
                                      (cb_policy)p, wa, (uint64_t)g * 11 + 3)}};
          snprintf(what, sizeof what, "geometry %d policy %s wa %d cl %d", g,
                   cb_policy_name((cb_policy)p), wa, cl);
          random_case(&one, cl, region, what);
          cb_cache_config two = one;
          two.n_levels = 2;
          two.levels[1] = lvl("L2", 4 * (uint64_t)geo[g][0], 4, 64,
                              (cb_policy)((p + 1 + g) % 5), !wa, 99);
          strcat(what, " +L2");
          random_case(&two, cl, region, what);
        }
  for (int k = 0; k < 10; k++) {
    cb_cache_config three = {
        3,
        {lvl("L1D", 512, 2, 16, (cb_policy)(k % 5), k & 1, (uint64_t)k),
         lvl("L2", 2048, 4, 32, (cb_policy)((k + 2) % 5), true, 5),
         lvl("L3", 8192, 0, 64, (cb_policy)((k + 4) % 5), k & 2, 6)}};
    snprintf(what, sizeof what, "three levels %d", k);
    random_case(&three, k & 1, 16384, what);
  }
  for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++) {
    CHECK(warped_by_policy[p][0] > 0);
    CHECK(warped_by_policy[p][1] > 0);
    for (int wa = 0; wa < 2; wa++)
      for (int cl = 0; cl < 2; cl++)
        long_case((cb_policy)p, wa, cl);
  }
  for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++) {
    uint64_t skipped = 0;
    for (int k = 0; k < 12; k++)
      row_walk_case((cb_policy)p, k & 1, k, &skipped, false);
    CHECK(skipped > 0);
  }
  {
    uint64_t skipped = 0;
    for (int k = 0; k < 12; k++)
      row_walk_case(CB_POLICY_LRU, k & 1, k, &skipped, true);
    CHECK(skipped > 0);
  }
  for (int k = 0; k < 8; k++) {
    column_case(8, 16, k & 1, k);
    column_case(4, 8, k & 1, k);
  }
  /* cachegrind's shape, two LRU levels of 8 and 16 ways, whose state
   * affine.c keeps in locals: random blocks, a third of them with
   * accesses that straddle lines, last levels of lines half, as long as
   * and twice the first level's, write-allocate on and off */
  for (int k = 0; k < 24; k++) {
    static const uint32_t ll_line[] = {32, 64, 128};
    const uint32_t line2 = ll_line[k % 3];
    cb_cache_config two = {
        2,
        {lvl("L1D", 64 * 8 * 8, 8, 64, CB_POLICY_LRU, k & 1, (uint64_t)k),
         lvl("LL", (uint64_t)line2 * 16 * 16, 16, line2, CB_POLICY_LRU,
             (k >> 1) & 1, 99)}};
    snprintf(what, sizeof what, "two LRU levels of 8 and 16 ways, line %u, %d",
             line2, k);
    random_case(&two, false, 4 * 4096, what);
  }
  conflict_row_case(true);
  conflict_row_case(false);
  return check_done();
}
