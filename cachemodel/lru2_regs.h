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

/* The set update regs_touch makes: policy.h's lru_touch, unless the file
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

/* With ls nonzero (a constant in the caller's copy), the level's line
 * shift and write allocation made constants: ls and true, as accel.c
 * checked (h->avx512). */
static inline __attribute__((always_inline)) void regs_fix(lvl_regs *r,
                                                           uint32_t ls) {
  if (ls) {
    r->shift = ls;
    r->write_allocate = true;
  }
}

/* A miss at level k (its site's counters ss[k], ss NULL: none). */
static inline __attribute__((always_inline)) void
regs_miss(lvl_regs *r, bool is_write, cb_site_stats *ss, unsigned k) {
  r->misses++;
  r->write_misses += is_write;
  if (ss)
    ss[k].misses++;
}

/* The access presented to level k. */
static inline __attribute__((always_inline)) void
regs_pass(lvl_regs *r, bool is_write, cb_site_stats *ss, unsigned k) {
  r->accesses++;
  r->writes += is_write;
  if (ss)
    ss[k].accesses++;
}

/* cb_level_ref for an LRU level of `assoc` ways without wide sets: the
 * set's lru_touch (LRU2_TOUCH). */
static inline __attribute__((always_inline)) bool
regs_touch(const lvl_regs *r, uint32_t assoc, uint64_t line, bool is_write) {
  uint64_t *set = r->tags + (line & r->set_mask) * assoc;
  return LRU2_TOUCH(set, assoc, line, !is_write || r->write_allocate);
}

/* access_rule.h's copy on the two levels' locals, unrolled (a1, a2:
 * their ways; ss: the site's counters or NULL). */
#define RULE_REGS_(k) ((k) == 0 ? r1 : r2)
#define RULE_PARAMS                                                            \
  lvl_regs *r1, lvl_regs *r2, uint32_t a1, uint32_t a2, cb_site_stats *ss
#define RULE_ARGS r1, r2, a1, a2, ss
#define RULE_SHIFT(k) (RULE_REGS_(k)->shift)
#define RULE_REF(k, line)                                                      \
  regs_touch(RULE_REGS_(k), (k) == 0 ? a1 : a2, line, is_write)
#define RULE_REPEATS 1
#define RULE_LAST(k) (RULE_REGS_(k)->last_line)
#define RULE_ALLOCATES(k) (RULE_REGS_(k)->write_allocate)
#define RULE_MISS(k, first, last) regs_miss(RULE_REGS_(k), is_write, ss, k)
#define RULE_PASS(k) regs_pass(RULE_REGS_(k), is_write, ss, k)
#define RULE_REPEAT(k) ((void)0)
#define RULE_NAME rule_regs
#define RULE_UNROLLED 1
#include "access_rule.h"
#undef RULE_REGS_

/* The rule past the first level's fast path for an access inside one
 * line at both levels (a1, a2: their ways; ss: the site's counters or
 * NULL). The first level's accesses and writes are the caller's to
 * count. */
static inline __attribute__((always_inline)) void
lru2_step(lvl_regs *r1, lvl_regs *r2, uint32_t a1, uint32_t a2, uint64_t addr,
          bool w, cb_site_stats *ss) {
  rule_regs(r1, r2, a1, a2, ss, 2, addr, addr, w, true);
}

/* lru2_step for an access from addr to end (its last byte) that may
 * cross into the next line, as access_levels takes it. */
static inline __attribute__((always_inline)) void
lru2_step_lines(lvl_regs *r1, lvl_regs *r2, uint32_t a1, uint32_t a2,
                uint64_t addr, uint64_t end, bool w, cb_site_stats *ss) {
  rule_regs(r1, r2, a1, a2, ss, 2, addr, end, w, false);
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
 * caches, compiled with AVX-512 set updates (lru2_avx512.c), where
 * accel.c chose them (h->avx512); lru2_avx512_usable (accel.c) is false
 * where this build or this host has none, or where CBANA_SIMD=0 asks for
 * policy.h's (the tests run both). */
bool lru2_avx512_usable(void);
void records_run_lru2_avx512(cb_hierarchy *h, const cb_access *batch, size_t n);

#endif
