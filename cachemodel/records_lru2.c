/* The batch loop (cb_records_run) for the commonest hierarchy, with
 * nothing but the steps it needs: two LRU levels (cachegrind's D1 and
 * LL), no classification, no wide sets. The steps are access_lean's and
 * cb_records_run's, in the same order, so the counts are theirs; what
 * differs is where the state lives. There, every level field is read
 * again for every access: the counters are uint64_t fields of cb_level,
 * as are the set words the policy shifts, so the compiler must assume
 * each store to a set may have changed the level's geometry. Here the
 * geometry and the level counters are locals for the whole batch,
 * written back at its end, and each level's policy is inlined with its
 * associativity a constant where it is cachegrind's (8 and 16 ways).
 * load_loop's random gathers at 10^8 accesses, nearly all missing both
 * levels: 15.7 -> 11.6 ns an access; sim_bench's record rows 4 % to 37 %
 * faster (bench/results/fast_notes.md). Affine blocks'
 * iterations (affine.c) take the same steps (lru2_regs.h): inline, the
 * state in locals for the whole block, for cachegrind's ways; out of
 * line for one access (access_lean_lru2) for others. The loop itself is
 * in lru2_regs.h (run_lru2), so that lru2_avx512.c compiles it again
 * with AVX-512 set updates; this file picks that copy where accel.c
 * chose it (h->avx512).
 * test_cache_reference holds every copy to the brute-force model. */
#include "hierarchy_internal.h"
#include "lru2_regs.h"

#include <stdlib.h>

void records_run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n) {
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  if (h->avx512)
    records_run_lru2_avx512(h, batch, n);
  else if (h->lru2_cg_ways)
    run_lru2(h, batch, n, 8, 16, 0);
  else
    run_lru2(h, batch, n, l1->assoc, l2->assoc, 0);
}

/* One access past the first level's fast path: access_rule.h's copy
 * with the geometry read once into locals, counting straight into the
 * levels, and only on a miss. Sharing run_lru2's copy (lru2_step) and
 * writing its local counters back on every call cost affine blocks 8 to
 * 10 % (sim_bench column walk 106 -> 93 M/s, gemm 423 -> 389). */
#define RULE_REGS_(k) ((k) == 0 ? r1 : r2)
#define RULE_PARAMS                                                            \
  cb_hierarchy *h, const lvl_regs *r1, const lvl_regs *r2, uint32_t a1,        \
      uint32_t a2, cb_site_stats *ss
#define RULE_ARGS h, r1, r2, a1, a2, ss
#define RULE_SHIFT(k) (RULE_REGS_(k)->shift)
#define RULE_REF(k, line)                                                      \
  regs_touch(RULE_REGS_(k), (k) == 0 ? a1 : a2, line, is_write)
#define RULE_REPEATS 1
#define RULE_LAST(k) (h->levels[k].last_line)
#define RULE_ALLOCATES(k) (RULE_REGS_(k)->write_allocate)
#define RULE_MISS(k, first, last) lean_miss(&h->levels[k], ss, k, is_write)
#define RULE_PASS(k) level_pass(&h->levels[k], ss, k, is_write)
#define RULE_REPEAT(k) ((void)0)
#define RULE_NAME rule_lean2
#define RULE_UNROLLED 1
#include "access_rule.h"
#undef RULE_REGS_

static inline __attribute__((always_inline)) void
lean_lru2(cb_hierarchy *h, uint64_t addr, bool w, uint32_t site, uint32_t a1,
          uint32_t a2) {
  const lvl_regs r1 = regs_of(&h->levels[0]), r2 = regs_of(&h->levels[1]);
  rule_lean2(h, &r1, &r2, a1, a2, site_stats(h, site), 2, addr, addr, w, true);
}

void access_lean_lru2(cb_hierarchy *h, uint64_t addr, bool is_write,
                      uint32_t site) {
  if (h->lru2_cg_ways)
    lean_lru2(h, addr, is_write, site, 8, 16);
  else
    lean_lru2(h, addr, is_write, site, h->levels[0].assoc, h->levels[1].assoc);
}

#ifndef CB_HAVE_AVX512
void affine_run_inl_avx512(cb_hierarchy *h, const cb_affine_block *b,
                           bool can_warp, bool aligned, affine_run *r) {
  (void)h, (void)b, (void)can_warp, (void)aligned, (void)r;
  abort(); /* accel.c chose no AVX-512 copy */
}

void records_run_lru2_avx512(cb_hierarchy *h, const cb_access *batch,
                             size_t n) {
  (void)h, (void)batch, (void)n;
  abort(); /* accel.c chose no AVX-512 copy */
}
#endif
