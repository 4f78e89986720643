/* The record memo (memo_records.c): record streams that repeat a unit
 * many times (an iterative program's sweeps over data that does not
 * move), with breaks where real streams have them (the last repetition
 * cut short, one record of a repetition changed, a lone access or a
 * block between two batches, a small batch the segment memo holds), run
 * through hierarchies of one to three levels against the brute-force
 * model of ref_cache.h, counter for counter and site by site. Chunks are
 * made small here (at least 64 records) so that short units repeat many
 * chunks. The memo must have counted records without running them where
 * it applies, and must not exist where it does not. */
#include "hierarchy_internal.h"
#include "ref_cache.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 29;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

#define N_SITES 6

/* Random records over `region` bytes: some in a few hot lines, sizes
 * that sometimes straddle two lines, a site or none, some writes. */
static void make_records(cb_access *a, size_t n, uint64_t region) {
  for (size_t i = 0; i < n; i++) {
    uint64_t addr =
        0x20000000ull + (rnd(4) == 0 ? rnd(512) : rnd(region)); /* hot lines */
    a[i] = (cb_access){.addr = addr,
                       .site = rnd(8) ? (uint32_t)rnd(N_SITES) : CB_SITE_NONE,
                       .size = (uint16_t)(rnd(5) ? 8 : 1 + rnd(16)),
                       .is_write = rnd(3) == 0};
  }
}

/* Feeds records to both, in batches of random sizes: mostly more than
 * the segment memo holds (so they reach the record memo), now and then
 * a small one, a lone access or a block, which settle it. */
static void feed(cb_hierarchy *h, ref_model *m, const cb_access *a, size_t n,
                 bool interrupt) {
  size_t i = 0;
  while (i < n) {
    size_t k = MEMO_MAX_RECORDS + 1 + rnd(600);
    if (interrupt && rnd(40) == 0)
      k = 1 + rnd(MEMO_MAX_RECORDS);
    if (k > n - i)
      k = n - i;
    cb_hierarchy_run(h, a + i, k);
    for (size_t j = i; j < i + k; j++)
      ref_access(m, a[j].addr, a[j].size, a[j].is_write, a[j].site, false);
    i += k;
    if (interrupt && rnd(60) == 0) {
      uint64_t addr = 0x20000000ull + rnd(4096);
      cb_hierarchy_access(h, addr, 8, false, 1);
      ref_access(m, addr, 8, false, 1, false);
    } else if (interrupt && rnd(60) == 0) {
      cb_affine_access acc = {.base = 0x30000000ull + 8 * rnd(64),
                              .stride = 8,
                              .site = 2,
                              .size = 8,
                              .is_write = false};
      cb_affine_block b = {.n_iter = 16 + rnd(32), .n_acc = 1, .acc = &acc};
      cb_hierarchy_run_affine(h, &b);
      for (uint64_t t = 0; t < b.n_iter; t++)
        ref_access(m, acc.base + 8 * t, 8, false, 2, false);
    }
  }
}

/* A unit of len records repeated reps times; the last repetition cut
 * short now and then, and now and then one record of a middle
 * repetition moved to another line or given another site (which the
 * memo must notice), then a stretch of other records. */
static void periodic(cb_hierarchy *h, ref_model *m, size_t len, unsigned reps,
                     uint64_t region, bool interrupt) {
  cb_access *unit = malloc(len * sizeof *unit);
  cb_access *rep = malloc(len * sizeof *rep);
  if (!unit || !rep) {
    CHECK(false);
    free(unit);
    free(rep);
    return;
  }
  make_records(unit, len, region);
  unsigned changed = rnd(3) == 0 ? 2 + (unsigned)rnd(reps) : reps;
  for (unsigned r = 0; r < reps; r++) {
    memcpy(rep, unit, len * sizeof *rep);
    size_t n = len;
    if (r == changed) {
      size_t at = rnd(len);
      if (rnd(2))
        rep[at].addr += 64 * (1 + rnd(4));
      else
        rep[at].site = (rep[at].site + 1) % N_SITES;
    }
    if (r + 1 == reps && rnd(2))
      n = rnd(len);
    feed(h, m, rep, n, interrupt);
  }
  size_t tail = 100 + rnd(2000);
  cb_access *t = malloc(tail * sizeof *t);
  if (t) {
    make_records(t, tail, region);
    feed(h, m, t, tail, interrupt);
  }
  free(t);
  free(unit);
  free(rep);
}

static uint64_t skipped_total;
static uint64_t skipped_by_levels[4];

static void record_case(const cb_cache_config *cfg, bool expect_memo,
                        const char *what) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, N_SITES, 0, err, sizeof err);
  CHECK(h != NULL);
  if (!h)
    return;
  rec_memo *rm = h->memo ? h->memo->rec : NULL;
  CHECK(expect_memo == (rm != NULL));
  if (rm)
    rmemo_set_chunks(rm, 64, 4);
  ref_model m;
  ref_init(&m, cfg, N_SITES);
  uint64_t cache = cfg->levels[cfg->n_levels - 1].size;
  for (int k = 0; k < 6; k++) {
    /* units over more data than the last level holds, and less */
    uint64_t region = rnd(2) ? 4 * cache : cache / 4;
    periodic(h, &m, 300 + rnd(3000), 3 + (unsigned)rnd(10), region,
             rnd(3) == 0);
  }
  int bad = ref_compare(h, &m, false, what);
  if (bad)
    fprintf(stderr, "%s: differs from the model\n", what);
  CHECK(bad == 0);
  uint64_t skipped = rmemo_skipped(rm);
  skipped_total += skipped;
  skipped_by_levels[h->n_levels] += skipped;
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

/* A unit whose repetitions look alike before the cache state repeats:
 * the memo must compare the state, not only the records. The first
 * level has 2 sets of 2 ways, the last one set of 8 ways. The unit is a
 * filler cycling over lines q1 q2 q3 of the first level's set 1 (each a
 * first-level miss and, once loaded, a last-level hit), then x y z of
 * set 0. The prologue leaves x in the first level and p1 .. p7 above it
 * in the last. Repetition 1 hits x in the first level (the filler evicts
 * it from the last); repetition 2 misses x at both levels; from
 * repetition 3 on x hits the last level. All through the filler, the
 * last level holds p5 in repetition 2 where it holds x in repetition 3:
 * their states differ at every cut there, and counting 3 as 2 would
 * count a last-level miss too many each time. (The filler's offsets in
 * its lines vary, so that chunks are cut inside it.) */
static void not_yet_steady(void) {
  cb_cache_config cfg = {2,
                         {lvl("L1D", 256, 2, 64, CB_POLICY_LRU, true, 1),
                          lvl("LL", 512, 8, 64, CB_POLICY_LRU, true, 2)}};
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(&cfg, N_SITES, 0, err, sizeof err);
  CHECK(h != NULL && h->memo && h->memo->rec);
  if (!h || !h->memo || !h->memo->rec)
    return;
  /* short chunks, so that they are cut alike from repetition 2 on */
  rmemo_set_chunks(h->memo->rec, 16, 3);
  ref_model m;
  ref_init(&m, &cfg, N_SITES);
  const uint64_t base = 0x40000000ull; /* line 2k: set 0; 2k + 1: set 1 */
  enum { REPS = 12 };
  static cb_access stream[8 + REPS * 303];
  cb_access *pro = stream, *unit = stream + 8;
  pro[0] = (cb_access){.addr = base, .site = 0, .size = 8}; /* x */
  for (int k = 1; k <= 7; k++)                              /* p1 .. p7 */
    pro[k] = (cb_access){.addr = base + 64 * (2 * (uint64_t)k + 1), .size = 8};
  for (int k = 0; k < 300; k++) /* q1 q2 q3, lines 17, 19, 21 */
    unit[k] = (cb_access){.addr = base + 64 * (17 + 2 * (uint64_t)(k % 3)) +
                                  8 * rnd(8),
                          .site = 3,
                          .size = 8};
  for (int k = 0; k < 3; k++) /* x y z */
    unit[300 + k] =
        (cb_access){.addr = base + 128 * (uint64_t)k, .site = 1, .size = 8};
  for (int r = 1; r < REPS; r++)
    memcpy(unit + 303 * r, unit, 303 * sizeof *unit);
  /* one feed: no batch small enough for the segment memo to hold */
  feed(h, &m, stream, 8 + REPS * 303, false);
  CHECK(ref_compare(h, &m, false, "not yet steady") == 0);
  CHECK(rmemo_skipped(h->memo->rec) > 0);
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

int main(void) {
  char what[160];
  not_yet_steady();
  for (int rep = 0; rep < 12; rep++) {
    /* the shared shapes, the last level narrowed to 16 ways: a wide one
     * keeps more state than the tags, and has no record memo (below) */
    cb_cache_config one, two, three, wide;
    memo_shapes(&one, &two, &wide);
    three = wide;
    three.levels[2].assoc = 16;
    snprintf(what, sizeof what, "one level, rep %d", rep);
    record_case(&one, true, what);
    snprintf(what, sizeof what, "two levels, rep %d", rep);
    record_case(&two, true, what);
    snprintf(what, sizeof what, "three levels, rep %d", rep);
    record_case(&three, true, what);
    snprintf(what, sizeof what, "wide last level, rep %d", rep);
    record_case(&wide, false, what);
    /* where the segment memo is off, so is this one */
    cb_cache_config fifo = two;
    fifo.levels[1].policy = CB_POLICY_FIFO;
    snprintf(what, sizeof what, "FIFO, rep %d", rep);
    record_case(&fifo, false, what);
  }
  printf("%llu records counted without running them\n",
         (unsigned long long)skipped_total);
  for (int l = 1; l <= 3; l++) {
    printf("  %d level(s): %llu\n", l,
           (unsigned long long)skipped_by_levels[l]);
    CHECK(skipped_by_levels[l] > 0);
  }
  return check_done();
}
