/* Affine blocks split by cache set over threads (cb_hierarchy_set_threads,
 * parallel.c) against one thread and the brute-force model.
 *
 * Random hierarchies of 1 to 3 levels (LRU, FIFO, MRU, tree-PLRU; line
 * sizes that differ between levels; write-allocate on and off; 2 to 16
 * ways) get the same stream three ways: split over 2, 3 (so 2), 4 or 8
 * threads; on one thread; and through ref_cache.h's model. The stream
 * mixes straddling records, column walks long enough to be split (every
 * access inside one line, strides of many lines, so the parts must agree
 * on every set), short and straddling blocks that run on the caller, and
 * repeated blocks that the LRU memo counts without running (its measured
 * differences must include the parts' counters), and a line referenced
 * last at every level, evicted everywhere by a split block and referenced
 * again (no level may keep it as its repeat line). Every level and site
 * counter must be equal, and the split must really have happened.
 * set_threads must refuse what it cannot split: classification, random
 * levels, fully associative levels. */
#include "cbana/stream.h"
#include "check.h"
#include "ref_cache.h"

#include <stdio.h>
#include <string.h>

#define N_SITES 6

static uint64_t rnd_state = 11;
static uint64_t memo_skips; /* segments the memo counted, last case */
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

typedef struct trio {
  cb_hierarchy *split, *one;
  ref_model m;
} trio;

static void feed_records(trio *t, uint64_t base, uint64_t region, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cb_access a = {.addr = base + rnd(region),
                   .site = (uint32_t)rnd(N_SITES + 1),
                   .size = (uint16_t)(1 + rnd(16)),
                   .is_write = rnd(4) == 0};
    cb_hierarchy_run(t->split, &a, 1);
    cb_hierarchy_run(t->one, &a, 1);
    ref_access(&t->m, a.addr, a.size, a.is_write, a.site, false);
  }
}

static void feed_block(trio *t, const cb_affine_block *b) {
  cb_hierarchy_run_affine(t->split, b);
  cb_hierarchy_run_affine(t->one, b);
  for (uint64_t it = 0; it < b->n_iter; it++)
    for (uint32_t j = 0; j < b->n_acc; j++) {
      const cb_affine_access *a = &b->acc[j];
      ref_access(&t->m, a->base + it * (uint64_t)a->stride, a->size,
                 a->is_write, a->site, false);
    }
}

/* A loop nest's innermost loop as compilers lay it out: 1 to 4 accesses
 * of 8 (or 4) aligned bytes, some walking a column (a stride of many
 * lines), some a row, some a scalar. */
static cb_affine_block column_block(cb_affine_access *acc, uint64_t base,
                                    uint64_t n_iter) {
  uint32_t n = 1 + (uint32_t)rnd(4);
  for (uint32_t j = 0; j < n; j++) {
    uint16_t size = rnd(4) ? 8 : 4;
    int64_t stride;
    switch (rnd(4)) {
    case 0:
      stride = size;
      break;
    case 1:
      stride = 0;
      break;
    default:
      stride = (int64_t)size * (int64_t)(100 + rnd(1200));
      break;
    }
    if (rnd(5) == 0)
      stride = -stride;
    acc[j] = (cb_affine_access){
        .base = (base + rnd(1u << 20) + n_iter * 10000) & ~(uint64_t)(size - 1),
        .stride = stride,
        .site = (uint32_t)rnd(N_SITES + 1),
        .size = size,
        .is_write = rnd(3) == 0};
  }
  /* at least one column walk, so the block is worth splitting */
  acc[0].stride = 8 * (int64_t)(64 + rnd(2000));
  acc[0].size = 8;
  acc[0].base &= ~(uint64_t)7;
  return (cb_affine_block){n_iter, n, acc};
}

static void one_case(const cb_cache_config *cfg, unsigned threads,
                     const char *what) {
  char err[CB_ERR_MAX];
  trio t;
  t.split = cb_hierarchy_create(cfg, N_SITES, 0, err, sizeof err);
  t.one = cb_hierarchy_create(cfg, N_SITES, 0, err, sizeof err);
  CHECK(t.split && t.one);
  if (!t.split || !t.one)
    return;
  unsigned got = cb_hierarchy_set_threads(t.split, threads);
  CHECK(got >= 2 && got <= threads && (got & (got - 1)) == 0);
  ref_init(&t.m, cfg, N_SITES);
  const uint64_t base = 0x10000000;
  cb_affine_access acc[4], prev[4];
  cb_affine_block pb = {0, 0, prev};
  for (int k = 0; k < 12; k++) {
    feed_records(&t, base, 1u << 21, rnd(200));
    cb_affine_block b = column_block(acc, base, 600 + rnd(2400));
    feed_block(&t, &b);
    /* the same block again, a few times (the memo's segments) */
    if (k % 3 == 0) {
      memcpy(prev, acc, sizeof acc);
      pb = (cb_affine_block){b.n_iter, b.n_acc, prev};
      for (int r = 0; r < 4; r++)
        feed_block(&t, &pb);
    }
    /* a short block and a straddling one: the caller's */
    cb_affine_access small[2] = {
        {.base = base + rnd(4096), .stride = 8, .site = 1, .size = 8},
        {.base = base + 61 + 64 * rnd(64),
         .stride = 4096,
         .site = 2,
         .size = 8}};
    cb_affine_block sb = {1 + rnd(3000), 2, small};
    feed_block(&t, &sb);
  }
  /* A line referenced last at every level just before a block that
   * evicts it everywhere (a column of its sets at every level), then
   * referenced again: a level that kept it as its repeat line would
   * count a hit. */
  uint64_t span = 0;
  for (unsigned l = 0; l < cfg->n_levels; l++) {
    const cb_level_config *lc = &cfg->levels[l];
    uint64_t s = lc->size / lc->assoc;
    if (s > span)
      span = s;
  }
  cb_access x = {.addr = base + (1u << 23), .site = 0, .size = 8};
  cb_hierarchy_run(t.split, &x, 1);
  cb_hierarchy_run(t.one, &x, 1);
  ref_access(&t.m, x.addr, x.size, false, x.site, false);
  cb_affine_access col = {
      .base = x.addr + span, .stride = (int64_t)span, .site = 3, .size = 8};
  cb_affine_block cb = {2000, 1, &col};
  feed_block(&t, &cb);
  cb_hierarchy_run(t.split, &x, 1);
  cb_hierarchy_run(t.one, &x, 1);
  ref_access(&t.m, x.addr, x.size, false, x.site, false);
  int bad = hier_counter_diffs(t.split, t.one, N_SITES);
  bad += ref_compare(t.split, &t.m, false, what);
  if (bad)
    fprintf(stderr, "%s: split and one thread differ (%d)\n", what, bad);
  CHECK(bad == 0);
  cb_affine_stats st;
  cb_hierarchy_affine_stats(t.split, &st);
  CHECK(st.split_blocks >= 7);
  memo_skips += st.segments_skipped;
  /* a reset keeps the threads and the results right */
  cb_hierarchy_reset(t.split);
  cb_hierarchy_reset(t.one);
  ref_free(&t.m);
  ref_init(&t.m, cfg, N_SITES);
  cb_affine_block b = column_block(acc, base, 3000);
  feed_block(&t, &b);
  CHECK(hier_counter_diffs(t.split, t.one, N_SITES) == 0);
  CHECK(ref_compare(t.split, &t.m, false, what) == 0);
  cb_hierarchy_destroy(t.split);
  cb_hierarchy_destroy(t.one);
  ref_free(&t.m);
}

static void refused(const cb_cache_config *cfg, unsigned flags,
                    const char *what) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, N_SITES, flags, err, sizeof err);
  CHECK(h != NULL);
  if (!h)
    return;
  unsigned got = cb_hierarchy_set_threads(h, 4);
  if (got != 1)
    fprintf(stderr, "%s: split over %u threads\n", what, got);
  CHECK_EQ_U64(got, 1);
  cb_hierarchy_destroy(h);
}

int main(void) {
  static const cb_policy policies[] = {CB_POLICY_LRU, CB_POLICY_FIFO,
                                       CB_POLICY_MRU, CB_POLICY_PLRU};
  static const unsigned threads[] = {2, 3, 4, 8};
  char what[160];
  for (int k = 0; k < 24; k++) {
    cb_policy p1 = policies[k % 4], p2 = policies[(k / 4 + k) % 4];
    uint32_t a1 = 2u << rnd(3), a2 = 4u << rnd(3); /* 2..8, 4..16 */
    uint32_t line1 = 32u << rnd(2), line2 = 64u << rnd(2);
    cb_cache_config cfg = {
        1 + (unsigned)(k % 3),
        {lvl("L1D", 64 * (uint64_t)a1 * line1, a1, line1, p1, k & 1, 1),
         lvl("L2", 1024 * (uint64_t)a2 * line2, a2, line2, p2, true, 2),
         lvl("L3", 4096 * 16 * 64, 16, 64, CB_POLICY_LRU, !(k & 2), 3)}};
    unsigned n = threads[k % 4];
    snprintf(what, sizeof what,
             "case %d: %u levels, %s %u-way %u B, %s %u-way %u B, %u threads",
             k, cfg.n_levels, cb_policy_name(p1), a1, line1, cb_policy_name(p2),
             a2, line2, n);
    one_case(&cfg, n, what);
  }
  /* All LRU, every level allocating: the memo counts repeated segments
   * without running them, from differences that include the parts'. */
  for (unsigned n_levels = 1; n_levels <= 3; n_levels++) {
    cb_cache_config all = {
        n_levels,
        {lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, true, 1),
         lvl("L2", 262144, 4, 64, CB_POLICY_LRU, true, 2),
         lvl("L3", 1 << 20, 16, 64, CB_POLICY_LRU, true, 3)}};
    snprintf(what, sizeof what, "all LRU, %u levels", n_levels);
    memo_skips = 0;
    one_case(&all, 2, what);
    CHECK(memo_skips > 0);
  }
  cb_cache_config lru = {2,
                         {lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, true, 1),
                          lvl("LL", 1 << 20, 16, 64, CB_POLICY_LRU, true, 2)}};
  refused(&lru, CB_CLASSIFY, "classification");
  cb_cache_config rnd_ll = lru;
  rnd_ll.levels[1].policy = CB_POLICY_RANDOM;
  refused(&rnd_ll, 0, "a random level");
  cb_cache_config full = lru;
  full.levels[1] = lvl("LL", 4096, 0, 64, CB_POLICY_LRU, true, 2);
  refused(&full, 0, "a fully associative level");
  return check_done();
}
