/* Which acceleration applies to a hierarchy: decided here, once, when
 * the hierarchy is made (accel_choose), from its levels alone. The
 * reference model is level.c and policy.h (sets and replacement),
 * shadow.c (classes and distances) and access_rule.h's full copy
 * (rule_full, through access_levels): every acceleration below is exact
 * where its predicate holds, and where it does not the access, block or
 * segment falls back to the path named. The tests hold each one to the
 * brute-force model (tests/unit/cachemodel/ref_cache.h);
 * docs/speed.md says which switch turns each off.
 *
 * - Repeat fast path (hierarchy.c, affine_loop.h): always; per access,
 *   inside the line the first level referenced last. Fallback: the rule.
 * - MRU hit (l1_mru_hit, mru_max): classification, a first level that is
 *   LRU, not wide, allocating on writes; per access, one line at a
 *   distance below the ways in an exact shadow. Fallback: the rule.
 * - Lean copy of the rule (rule_lean, lean_mask): no classification, no
 *   wide sets; per access, inside one line of the smallest size.
 *   Fallback: rule_full.
 * - cachegrind's shape with classes (rule_full2, cg_mask): two LRU
 *   levels of 8 and 16 ways, not wide, with classification; per access,
 *   inside one line. Fallback: rule_full.
 * - Two LRU levels in locals (records_lru2.c, lru2_regs.h: rule_regs,
 *   rule_lean2; lru2): two LRU levels, no classification, no wide sets;
 *   their ways as constants where they are 8 and 16 (lru2_cg_ways).
 *   Fallback: cb_records_run's loop and access_lean.
 * - AVX-512 set updates (lru2_avx512.c, memo_parts_avx512.c; avx512):
 *   lru2_cg_ways with 64-byte lines allocating on writes, on a host with
 *   AVX-512F unless CBANA_SIMD=0. Fallback: the same loops with
 *   policy.h's lru_touch.
 * - Affine blocks (affine.c): always; per block, warping (strides below
 *   a line), alignment (every access inside one line), repeats left out
 *   (no classification), way-0 hits (way0: no classification, a first
 *   level neither wide nor PLRU). Fallback: iterations through the
 *   rule; expansion past 16 accesses an iteration.
 * - Split by set (parallel.c; split_by_set): no classification, no wide
 *   or random level, `--sim-threads` above 1; per block, aligned and
 *   long enough. Fallback: one thread.
 * - Segment memos (memo.c and memo_parts.c, memo_closed*.c,
 *   memo_long.c; memo): no classification, every level LRU and
 *   allocating on writes; per segment, equality with the ones before.
 *   Fallback: the block runs (cb_affine_run).
 * - Record memo and state snapshots (memo_records.c, snapshot.c;
 *   state_copies): memo, and no wide sets (a level's state is then its
 *   tags). Fallback: the records run; no time split. */
#include "hierarchy_internal.h"
#include "lru2_regs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

static bool is_lru(const cb_level *lv) {
  return lv->policy == CB_POLICY_LRU && !lv->wide;
}

/* Two LRU levels of 8 and 16 ways without wide sets (cachegrind's
 * default geometry, and the model's: presets.c). */
static bool cg_ways(const cb_hierarchy *h) {
  return h->n_levels == 2 && is_lru(&h->levels[0]) && is_lru(&h->levels[1]) &&
         h->levels[0].assoc == 8 && h->levels[1].assoc == 16;
}

/* Whether the two levels are cachegrind's down to the constants that the
 * AVX-512 copies (lru2_avx512.c) are compiled with: 8 and 16 ways,
 * 64-byte lines (its default), both allocating on writes (cg_sim.c takes
 * a write as a read). In those copies the shifts are immediates and the
 * set index needs no multiply, where the generic copy reloaded them from
 * the stack (the register allocator had spilled them): simulation CPU
 * 0.83 of the generic copy's on nussinov LARGE, 0.78 on gemm LARGE
 * (pinned pairs, bench/results/fast_notes.md). */
static bool cg_lines(const cb_hierarchy *h) {
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  return l1->line_shift == LRU2_CG_SHIFT && l2->line_shift == LRU2_CG_SHIFT &&
         l1->write_allocate && l2->write_allocate;
}

bool memo_state_copies(const cb_hierarchy *h) {
  for (unsigned l = 0; l < h->n_levels; l++)
    if (h->levels[l].wide)
      return false;
  return true;
}

bool accel_split_applies(const cb_hierarchy *h) {
  if (h->classify)
    return false;
  for (unsigned l = 0; l < h->n_levels; l++)
    if (h->levels[l].wide || h->levels[l].policy == CB_POLICY_RANDOM)
      return false;
  return true;
}

void accel_choose(cb_hierarchy *h) {
  const cb_level *l1 = &h->levels[0];
  h->lean_mask = h->classify ? 0 : UINT64_MAX;
  uint32_t min_shift = 63;
  for (unsigned i = 0; i < h->n_levels; i++) {
    uint32_t s = h->levels[i].line_shift;
    if (s < min_shift)
      min_shift = s;
    if (h->levels[i].wide)
      h->lean_mask = 0;
  }
  if (h->lean_mask)
    h->lean_mask = (1ull << min_shift) - 1;
  h->mru_max = 0;
  if (h->classify && is_lru(l1) && l1->write_allocate)
    h->mru_max = l1->assoc < SD_MRU ? l1->assoc : SD_MRU;
  h->cg_mask = h->classify && cg_ways(h) ? (1ull << min_shift) - 1 : 0;
  h->lru2 =
      h->n_levels == 2 && h->lean_mask && is_lru(l1) && is_lru(&h->levels[1]);
  h->lru2_cg_ways = h->lru2 && cg_ways(h);
  h->avx512 = h->lru2_cg_ways && cg_lines(h) && lru2_avx512_usable();
  h->way0 = !h->classify && !l1->wide && l1->policy != CB_POLICY_PLRU;
  h->memo_applies = !h->classify;
  for (unsigned i = 0; i < h->n_levels; i++)
    if (h->levels[i].policy != CB_POLICY_LRU || !h->levels[i].write_allocate)
      h->memo_applies = false;
}
