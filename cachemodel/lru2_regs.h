/* The two-level LRU hierarchy's state in locals (records_lru2.c's
 * batch loop, affine.c's iterations): each level's geometry, last line
 * and counters copied out of cb_level for a whole batch or block and
 * written back at its end, one access's steps on them, and the records'
 * batch loop itself (here, like affine_loop.h's, so that lru2_avx512.c
 * compiles it again with AVX-512 set updates). Held in the hierarchy,
 * every field would be read again after each store to a set (both are
 * uint64_t, so they may alias). Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_LRU2_REGS_H
#define CBANA_CACHEMODEL_LRU2_REGS_H

#include "hierarchy_internal.h"

/* The set update regs_ref makes: policy.h's lru_touch, unless the file
 * that includes this one names another of the same contract first
 * (lru2_avx512.c: lru_avx512.h's). */
#ifndef LRU2_TOUCH
#define LRU2_TOUCH lru_touch
#endif

/* The level state a batch keeps in locals. */
typedef struct lvl_regs {
  uint64_t *tags;
  uint64_t set_mask, last_line;
  uint32_t shift;
  bool write_allocate;
  uint64_t accesses, writes, misses, write_misses;
} lvl_regs;

static inline lvl_regs regs_of(const cb_level *lv) {
  return (lvl_regs){.tags = lv->tags,
                    .set_mask = lv->set_mask,
                    .last_line = lv->last_line,
                    .shift = lv->line_shift,
                    .write_allocate = lv->write_allocate};
}

/* The counters added to the level's (and back to zero in r), the last
 * line its. The geometry in r stays as it is, a constant where the copy
 * was compiled with one (regs_fix). */
static inline void regs_store(lvl_regs *r, cb_level *lv) {
  lv->last_line = r->last_line;
  lv->accesses += r->accesses;
  lv->writes += r->writes;
  lv->misses += r->misses;
  lv->write_misses += r->write_misses;
  r->accesses = r->writes = r->misses = r->write_misses = 0;
}

/* The line shift of cachegrind's caches (64-byte lines). */
#define LRU2_CG_SHIFT 6

/* Whether the two levels are cachegrind's down to the constants that the
 * AVX-512 copies (lru2_avx512.c) are compiled with: 8 and 16 ways,
 * 64-byte lines (its default), both allocating on writes (cg_sim.c takes
 * a write as a read). In those copies the shifts are immediates and the
 * set index needs no multiply, where the generic copy reloaded them from
 * the stack (the register allocator had spilled them): simulation CPU
 * 0.83 of the generic copy's on nussinov LARGE, 0.78 on gemm LARGE
 * (pinned pairs, bench/results/fast_notes.md). */
static inline bool lru2_is_cachegrinds(const cb_hierarchy *h) {
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  return l1->assoc == 8 && l2->assoc == 16 && l1->line_shift == LRU2_CG_SHIFT &&
         l2->line_shift == LRU2_CG_SHIFT && l1->write_allocate &&
         l2->write_allocate;
}

/* With ls nonzero (a constant in the caller's copy), the level's line
 * shift and write allocation made constants: ls and true, as
 * lru2_is_cachegrinds checked. */
static inline __attribute__((always_inline)) void regs_fix(lvl_regs *r,
                                                           uint32_t ls) {
  if (ls) {
    r->shift = ls;
    r->write_allocate = true;
  }
}

/* A miss at level k (its site's counters ss[k], ss NULL: none). */
static inline __attribute__((always_inline)) void
regs_miss(lvl_regs *r, bool is_write, cb_site_stats *ss, int k) {
  r->misses++;
  r->write_misses += is_write;
  if (ss)
    ss[k].misses++;
}

/* cb_level_ref and access_lean's last-line rule, for an LRU level. */
static inline __attribute__((always_inline)) bool
regs_ref(lvl_regs *r, uint32_t assoc, uint64_t line, bool is_write) {
  uint64_t *set = r->tags + (line & r->set_mask) * assoc;
  bool fill = !is_write || r->write_allocate;
  bool hit = LRU2_TOUCH(set, assoc, line, fill);
  r->last_line = hit || !is_write || r->write_allocate ? line : NO_LINE;
  return hit;
}

/* A first-level miss, counted there and presented to the last level
 * (ss: the site's counters or NULL). */
static inline __attribute__((always_inline)) void
regs_pass_down(lvl_regs *r1, lvl_regs *r2, bool w, cb_site_stats *ss) {
  regs_miss(r1, w, ss, 0);
  r2->accesses++;
  r2->writes += w;
  if (ss)
    ss[1].accesses++;
}

/* regs_ref for every line from first to last: whether all of them hit
 * (level_ref_lines' rule; the last line's outcome sets last_line). */
static inline __attribute__((always_inline)) bool
regs_ref_lines(lvl_regs *r, uint32_t assoc, uint64_t first, uint64_t last,
               bool is_write) {
  bool hit = true;
  for (uint64_t x = first;; x++) {
    hit &= regs_ref(r, assoc, x, is_write);
    if (x == last)
      return hit;
  }
}

/* access_lean's steps past the first level's fast path, unrolled over
 * the two levels (a1, a2: their ways; ss: the site's counters or NULL).
 * The first level's accesses and writes are the caller's to count. */
static inline __attribute__((always_inline)) void
lru2_step(lvl_regs *r1, lvl_regs *r2, uint32_t a1, uint32_t a2, uint64_t addr,
          bool w, cb_site_stats *ss) {
  if (regs_ref(r1, a1, addr >> r1->shift, w))
    return;
  regs_pass_down(r1, r2, w, ss);
  if (addr >> r2->shift == r2->last_line)
    return;
  if (regs_ref(r2, a2, addr >> r2->shift, w))
    return;
  regs_miss(r2, w, ss, 1);
}

/* lru2_step for an access from addr to end (its last byte) that may
 * cross into the next line, as access_levels takes it: every line of
 * it is referenced at a level, one miss counted there if any line
 * missed, and then every line at the next level. */
static inline __attribute__((always_inline)) void
lru2_step_lines(lvl_regs *r1, lvl_regs *r2, uint32_t a1, uint32_t a2,
                uint64_t addr, uint64_t end, bool w, cb_site_stats *ss) {
  if (regs_ref_lines(r1, a1, addr >> r1->shift, end >> r1->shift, w))
    return;
  regs_pass_down(r1, r2, w, ss);
  const uint64_t first2 = addr >> r2->shift, last2 = end >> r2->shift;
  if (first2 == r2->last_line && last2 == r2->last_line)
    return;
  if (!regs_ref_lines(r2, a2, first2, last2, w))
    regs_miss(r2, w, ss, 1);
}

/* records_lru2.c's batch loop (cb_records_run's steps, the state in
 * locals for the batch; a1, a2: the levels' ways; ls: regs_fix's). */
static inline __attribute__((always_inline)) void
run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n, uint32_t a1,
         uint32_t a2, uint32_t ls) {
  cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  lvl_regs r1 = regs_of(l1), r2 = regs_of(l2);
  regs_fix(&r1, ls);
  regs_fix(&r2, ls);
  const uint64_t offset_mask = (1ull << r1.shift) - 1;
  /* both levels' lines of one size: the smallest is theirs */
  const uint64_t lean_mask = ls ? offset_mask : h->lean_mask;
  const uint32_t n_sites = h->n_sites;
  cb_site_stats *const sites = h->sites;
  uint64_t slow = 0, writes = 0;
  const cb_access *a = batch, *const end = batch + n;
  for (;; a++) {
    /* the fast path, in a loop of its own: what it keeps live is all
     * the register allocator must hold there */
    cb_site_stats *ss = NULL;
    for (;; a++) {
      if (a == end)
        goto done;
      writes += a->is_write;
      ss = NULL;
      if (a->site < n_sites) {
        ss = &sites[(size_t)a->site * 2];
        ss->accesses++;
      }
      if (a->addr >> r1.shift != r1.last_line ||
          (a->addr & offset_mask) + a->size > offset_mask + 1)
        break;
    }
    const uint64_t addr = a->addr;
    const bool w = a->is_write;
    slow++;
    if ((addr & lean_mask) + a->size > lean_mask + 1) {
      /* lines apart at some level: the general path, on the levels'
       * own fields */
      regs_store(&r1, l1);
      regs_store(&r2, l2);
      access_levels(h, addr, access_end(addr, a->size), w, a->site);
      r1.last_line = l1->last_line;
      r2.last_line = l2->last_line;
      continue;
    }
    lru2_step(&r1, &r2, a1, a2, addr, w, ss);
  }
done:
  r1.accesses += n;
  r1.writes += writes;
  regs_store(&r1, l1);
  regs_store(&r2, l2);
  h->slow_accesses += slow;
}

/* The loops of this file and affine_loop.h's `inl` copy for cachegrind's
 * caches (lru2_is_cachegrinds), compiled with AVX-512 set updates
 * (lru2_avx512.c);
 * lru2_avx512_usable is false where this build or this host has none, or
 * where CBANA_SIMD=0 asks for policy.h's (the tests run both). */
bool lru2_avx512_usable(void);
void records_run_lru2_avx512(cb_hierarchy *h, const cb_access *batch, size_t n);

#endif
