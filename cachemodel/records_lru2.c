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
 * with AVX-512 set updates; this file picks that copy where
 * lru2_avx512_usable, defined here, says the host has them.
 * test_cache_reference holds every copy to the brute-force model. */
#include "hierarchy_internal.h"
#include "lru2_regs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

bool lru2_applies(const cb_hierarchy *h) {
  if (h->n_levels != 2 || !h->lean_mask)
    return false;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  return l1->policy == CB_POLICY_LRU && l2->policy == CB_POLICY_LRU &&
         !l1->wide && !l2->wide && !l1->shadow && !l2->shadow;
}

bool records_run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n) {
  if (!lru2_applies(h))
    return false;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  if (lru2_is_cachegrinds(h) && lru2_avx512_usable())
    records_run_lru2_avx512(h, batch, n);
  else if (l1->assoc == 8 && l2->assoc == 16)
    run_lru2(h, batch, n, 8, 16, 0);
  else
    run_lru2(h, batch, n, l1->assoc, l2->assoc, 0);
  return true;
}

/* One access past the first level's fast path (access_lean's steps),
 * the geometry read once into locals. The same steps as run_lru2's slow
 * path, but counting straight into the levels, and only on a miss:
 * sharing run_lru2's step and writing its local counters back on every
 * call cost affine blocks 8 to 10 % (sim_bench column walk 106 -> 93
 * M/s, gemm 423 -> 389). */
static inline __attribute__((always_inline)) void
lean_lru2(cb_hierarchy *h, uint64_t addr, bool w, uint32_t site, uint32_t a1,
          uint32_t a2) {
  cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  lvl_regs r1 = regs_of(l1), r2 = regs_of(l2);
  cb_site_stats *ss = site < h->n_sites ? &h->sites[(size_t)site * 2] : NULL;
  bool hit = regs_ref(&r1, a1, addr >> r1.shift, w);
  l1->last_line = r1.last_line;
  if (hit)
    return;
  l1->misses++;
  l1->write_misses += w;
  if (ss)
    ss[0].misses++;
  l2->accesses++;
  l2->writes += w;
  if (ss)
    ss[1].accesses++;
  if (addr >> r2.shift == r2.last_line)
    return;
  hit = regs_ref(&r2, a2, addr >> r2.shift, w);
  l2->last_line = r2.last_line;
  if (hit)
    return;
  l2->misses++;
  l2->write_misses += w;
  if (ss)
    ss[1].misses++;
}

void access_lean_lru2(cb_hierarchy *h, uint64_t addr, bool is_write,
                      uint32_t site) {
  if (h->levels[0].assoc == 8 && h->levels[1].assoc == 16)
    lean_lru2(h, addr, is_write, site, 8, 16);
  else
    lean_lru2(h, addr, is_write, site, h->levels[0].assoc, h->levels[1].assoc);
}

bool lru2_avx512_usable(void) {
#ifdef CB_HAVE_AVX512
  /* -1: not looked up yet. Threads that race here write the same value. */
  static _Atomic int usable = -1;
  int u = atomic_load_explicit(&usable, memory_order_relaxed);
  if (u < 0) {
    const char *env = getenv("CBANA_SIMD");
    u = !(env && strcmp(env, "0") == 0) && __builtin_cpu_supports("avx512f");
    atomic_store_explicit(&usable, u, memory_order_relaxed);
  }
  return u;
#else
  return false;
#endif
}

#ifndef CB_HAVE_AVX512
void affine_run_inl_avx512(cb_hierarchy *h, const cb_affine_block *b,
                           bool can_warp, bool aligned, affine_run *r) {
  (void)h, (void)b, (void)can_warp, (void)aligned, (void)r;
  abort(); /* lru2_avx512_usable said no */
}

void records_run_lru2_avx512(cb_hierarchy *h, const cb_access *batch,
                             size_t n) {
  (void)h, (void)batch, (void)n;
  abort(); /* lru2_avx512_usable said no */
}
#endif
