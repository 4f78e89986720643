/* The iteration loop of affine blocks (affine.c has the argument for
 * its warps), in a header so that it is compiled twice: in affine.c with
 * policy.h's set updates, and in lru2_avx512.c with lru_avx512.h's,
 * for the hosts that have AVX-512 (cb_affine_run picks at run time).
 * Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_AFFINE_LOOP_H
#define CBANA_CACHEMODEL_AFFINE_LOOP_H

#include "hierarchy_internal.h"
#include "lru2_regs.h"

/* Blocks of more accesses per iteration are run by expansion. */
#define AFFINE_MAX_INLINE 16
/* The most line references of an iteration warped with classification. */
#define SHADOW_MAX_REFS 64
/* The fewest accesses a warp with classification skips (run_iterations). */
#define SHADOW_MIN_WARP 16

/* Steps of mag bytes (lg: log2 of mag when a power of two, else -1) that
 * a byte with `room` bytes left before its line's edge can take without
 * leaving the line: a shift for the common strides, no 64-bit division
 * (which cost more than the iterations it saved). */
static inline uint64_t steps_in_room(uint32_t room, uint32_t mag, int lg) {
  return lg >= 0 ? room >> lg : room / mag;
}

/* access_lean out of line, for run_iterations. Inlined into each of
 * cb_affine_run's many copies of the loop, access_lean grew it past the
 * compiler's inlining limits: the replacement policies were then called
 * out of line in their generic form, the way count a variable: a miss
 * at the first level that hits the last cost 12.8 ns instead of 10.8
 * (sim_bench's column walk), cholesky LARGE 158 s instead of 124. Here
 * the call is one, and the 8- and 16-way sets get their unrolled copies
 * (`objdump -d` finds no call to lru_touch). */
static __attribute__((noinline, unused)) void
access_lean_call(cb_hierarchy *h, uint64_t addr, bool is_write, uint32_t site) {
  access_lean(h, addr, is_write, site);
}

/* Adds m times D(S) to the shadow's histogram (the comment at the top):
 * S is the line sequence of the n accesses [p[j], end[j]] at the first
 * level. False (nothing added) if S is longer than SHADOW_MAX_REFS. */
static inline bool shadow_warp(cb_shadow *sd, uint32_t shift, const uint64_t *p,
                               const uint64_t *end, uint32_t n, uint64_t m) {
  uint64_t seq[SHADOW_MAX_REFS], stack[SHADOW_MAX_REFS];
  uint32_t k = 0, depth = 0;
  for (uint32_t j = 0; j < n; j++) {
    uint64_t last = end[j] >> shift;
    for (uint64_t line = p[j] >> shift;; line++) {
      if (k == SHADOW_MAX_REFS)
        return false;
      seq[k++] = line;
      if (line == last)
        break;
    }
  }
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < k; i++) {
      uint32_t d = 0;
      while (d < depth && stack[d] != seq[i])
        d++;
      if (d == depth)
        depth++; /* only in the first pass: new on top */
      else if (pass == 1)
        cb_shadow_add_refs(sd, stack, d, m);
      for (; d > 0; d--)
        stack[d] = stack[d - 1];
      stack[0] = seq[i];
    }
  return true;
}

/* The iterations of a block of n accesses (a constant in the callers
 * below, so that the per-access arrays become registers). With a key
 * (parallel.c), only the accesses of partition `part`: the others are
 * another thread's, in sets this one never touches. With `inl` (no key,
 * a hierarchy accel.c chose lru2 for, a1 and a2 its ways), the two levels'
 * state is kept in locals for the whole block and each access past the
 * fast paths is lru2_step inline, or lru2_step_lines where it crosses a
 * line: called out of line (access_lean_lru2), every such access read
 * the geometry and wrote the counters back, and a column walk ran at 102
 * M accesses/s against 154 (sim_bench); heat-3d's rows of doubles read
 * 16 bytes at a time from odd elements, and when only aligned blocks
 * were taken so, its simulation spent a third of its time in
 * access_levels (1.36 -> 0.96 s of CPU at N = 120, 20 steps). With inl,
 * ls nonzero says both levels have lines of 1 << ls bytes and allocate
 * on writes (h->avx512, regs_fix): constants in this copy. */
static inline __attribute__((always_inline)) void
run_iterations(cb_hierarchy *h, const cb_affine_block *b, const uint32_t n,
               const bool can_warp, const bool aligned, const bool inl,
               const uint32_t a1, const uint32_t a2, const uint32_t ls,
               const par_key *key, const uint32_t part, affine_run *out) {
  uint64_t addr[AFFINE_MAX_INLINE], stride[AFFINE_MAX_INLINE];
  uint16_t size[AFFINE_MAX_INLINE];
  bool is_write[AFFINE_MAX_INLINE], up[AFFINE_MAX_INLINE];
  uint32_t site[AFFINE_MAX_INLINE], mag[AFFINE_MAX_INLINE];
  int lg[AFFINE_MAX_INLINE];
  cb_level *l1 = &h->levels[0];
  const uint32_t shift = inl && ls ? ls : l1->line_shift;
  const uint64_t offset_mask = (1ull << shift) - 1;
  const uint64_t lean_mask = inl && ls ? offset_mask : h->lean_mask;
  /* A first-level line found in way 0 of its set may be taken as a hit
   * without the policy's update (h->way0, accel.c): LRU and MRU keep the
   * most recent line there (a hit on it reorders nothing), FIFO and
   * random change nothing on any hit. Not PLRU (a hit sets tree bits),
   * not wide sets (their ways are not in order), not with
   * classification (the shadow must see every reference). The hit sets
   * last_line, as the slow path would; the lower levels are not
   * consulted on a hit. */
  const uint64_t *const way0 = h->way0 ? l1->tags : NULL;
  const uint64_t set_mask = l1->set_mask;
  const uint32_t assoc = inl ? a1 : l1->assoc;
  cb_shadow *const shadow = can_warp ? l1->shadow : NULL;
  const bool lru2 = h->lru2;
  /* Whether an iteration that missed may start a warp too (the comment
   * at the top): an LRU first level that fills on every miss, with ways
   * enough for all of an iteration's line references. */
  const bool warp_after_miss = can_warp && l1->policy == CB_POLICY_LRU &&
                               l1->write_allocate &&
                               (aligned ? n : 2 * n) <= assoc;
#pragma GCC unroll 8
  for (uint32_t j = 0; j < n; j++) {
    const cb_affine_access *a = &b->acc[j];
    addr[j] = a->base;
    stride[j] = (uint64_t)a->stride;
    size[j] = a->size;
    is_write[j] = a->is_write;
    site[j] = a->site;
    up[j] = a->stride > 0;
    /* only used when warping, where every stride is below a line */
    uint64_t m = a->stride < 0 ? 0 - stride[j] : stride[j];
    mag[j] = (uint32_t)(m & offset_mask);
    lg[j] = m && (m & (m - 1)) == 0 ? __builtin_ctzll(m) : -1;
  }
  lvl_regs r1 = {0}, r2 = {0};
  cb_site_stats *ss[AFFINE_MAX_INLINE];
  if (inl) {
    r1 = regs_of(l1);
    r2 = regs_of(&h->levels[1]);
    regs_fix(&r1, ls);
    regs_fix(&r2, ls);
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++)
      ss[j] = site[j] < h->n_sites ? &h->sites[(size_t)site[j] * 2] : NULL;
  }
  uint64_t last_line = l1->last_line;
  uint64_t slow = 0, warped = 0, warps = 0, next_check = 0;
  const uint64_t n_iter = b->n_iter;
  for (uint64_t t = 0; t < n_iter;) {
    const uint64_t misses_before = !can_warp ? 0 : inl ? r1.misses : l1->misses;
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++) {
      uint64_t a = addr[j];
      addr[j] = a + stride[j];
      /* Within the last line: cb_hierarchy_run's fast path. */
      const bool one_line =
          aligned || (a & offset_mask) + size[j] <= offset_mask + 1;
      if (a >> shift == last_line && one_line)
        continue;
      if (key && par_part(key, a) != part)
        continue;
      slow++;
      /* In front of its set: a hit that changes nothing (way0). */
      if (way0 && one_line &&
          way0[((a >> shift) & set_mask) * assoc] == a >> shift) {
        last_line = a >> shift;
        continue;
      }
      if (inl) {
        if (aligned || (a & lean_mask) + size[j] <= lean_mask + 1)
          lru2_step(&r1, &r2, a1, a2, a, is_write[j], ss[j]);
        else
          lru2_step_lines(&r1, &r2, a1, a2, a, access_end(a, size[j]),
                          is_write[j], ss[j]);
        last_line = r1.last_line;
        continue;
      }
      if (aligned || (lean_mask && (a & lean_mask) + size[j] <= lean_mask + 1))
        (lru2 ? access_lean_lru2 : access_lean_call)(h, a, is_write[j],
                                                     site[j]);
      else
        access_levels(h, a, access_end(a, size[j]), is_write[j], site[j]);
      last_line = l1->last_line;
    }
    t++;
    if (!can_warp || t == n_iter || t < next_check ||
        ((inl ? r1.misses : l1->misses) != misses_before && !warp_after_miss))
      continue;
    /* Iteration t-1 hit everywhere, or may be taken as if it had
     * (warp_after_miss). How many of the following reference
     * its lines: the fewest steps any access's first or last byte (at
     * addr - stride) can take inside its line. An access whose end is
     * clamped at the top of the address space stops the warp. */
    uint64_t m = n_iter - t;
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++) {
      uint64_t p = addr[j] - stride[j];
      uint64_t end = p + size[j] - (size[j] != 0);
      if (end < p)
        m = 0;
      if (mag[j] == 0)
        continue; /* stride 0 */
      uint32_t off_a = (uint32_t)(p & offset_mask);
      uint32_t off_e = (uint32_t)(end & offset_mask);
      uint32_t room =
          up[j] ? (uint32_t)offset_mask - (off_a > off_e ? off_a : off_e)
                : (off_a < off_e ? off_a : off_e);
      uint64_t k = steps_in_room(room, mag[j], lg[j]);
      if (k < m)
        m = k;
    }
    if (m == 0)
      continue;
    if (shadow) {
      /* With classification the iterations run take the repeat fast path
       * mostly (a few instructions per access) and a warp costs more
       * (shadow_warp): worth it for longer spans only. */
      if (m * n < SHADOW_MIN_WARP) {
        next_check = t + m; /* the same lines until then: no longer span */
        continue;
      }
      uint64_t p[AFFINE_MAX_INLINE], end[AFFINE_MAX_INLINE];
      for (uint32_t j = 0; j < n; j++) {
        p[j] = addr[j] - stride[j];
        end[j] = p[j] + size[j] - (size[j] != 0);
      }
      if (!shadow_warp(shadow, shift, p, end, n, m))
        continue;
    }
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++)
      addr[j] += m * stride[j];
    t += m;
    warped += m;
    warps++;
  }
  /* The way-0 hits' last line (the slow paths set theirs). */
  if (inl) {
    r1.last_line = last_line;
    regs_store(&r1, l1);
    regs_store(&r2, &h->levels[1]);
  }
  l1->last_line = last_line;
  out->slow = slow;
  out->warped = warped;
  out->warps = warps;
}

/* RUN(N) with N the constant n_acc for the access counts that have a
 * copy of the loop of their own (per-access arrays in registers), and
 * n_acc itself otherwise: the one list that cb_affine_run's copies and
 * lru2_avx512.c's share. */
#define AFFINE_BY_N_ACC(n_acc, RUN)                                            \
  do {                                                                         \
    switch (n_acc) {                                                           \
    case 1:                                                                    \
      RUN(1);                                                                  \
      break;                                                                   \
    case 2:                                                                    \
      RUN(2);                                                                  \
      break;                                                                   \
    case 3:                                                                    \
      RUN(3);                                                                  \
      break;                                                                   \
    case 4:                                                                    \
      RUN(4);                                                                  \
      break;                                                                   \
    case 6:                                                                    \
      RUN(6);                                                                  \
      break;                                                                   \
    default:                                                                   \
      RUN(n_acc);                                                              \
      break;                                                                   \
    }                                                                          \
  } while (0)

/* cb_affine_run's `inl` loop with AVX-512 set updates (lru2_avx512.c),
 * where accel.c chose it (h->avx512). */
void affine_run_inl_avx512(cb_hierarchy *h, const cb_affine_block *b,
                           bool can_warp, bool aligned, affine_run *r);

#endif
