/* The part memo's runs (memo_parts.c says why they are exact): the
 * segment's references to the parts that run, each counted into its
 * part's counters. In a header so that it is compiled twice, as
 * affine_loop.h is: in memo_parts.c with policy.h's set updates, and in
 * memo_parts_avx512.c with lru_avx512.h's for cachegrind's caches on the
 * hosts that have AVX-512 (symm and covariance LARGE spent a quarter to
 * a third of their CPU here, in a scalar set walk that leaves at the way
 * that hits). The includer defines PARTS_TOUCH (the set update, with
 * policy.h's lru_touch contract), PARTS_RUN_NAME and PARTS_RUN_LINKAGE
 * (the entry's name and linkage), and may define PARTS_SHIFT(g), a
 * level's line shift, and PARTS_PART_SHIFT(s), the parts' shift
 * (constants where the geometry is known). Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_MEMO_PARTS_RUN_H
#define CBANA_CACHEMODEL_MEMO_PARTS_RUN_H

#include "hierarchy_internal.h"

#ifndef PARTS_SHIFT
#define PARTS_SHIFT(g) ((g)->shift)
#endif
#ifndef PARTS_PART_SHIFT
#define PARTS_PART_SHIFT(s) (s)
#endif

/* The AVX-512 copy's entry (memo_parts_avx512.c), called only where
 * accel.c chose it (h->avx512). */
void run_parts_avx512(cb_hierarchy *h, const memo_slots *s,
                      const cb_affine_block *b, uint64_t run,
                      uint64_t (*out)[MEMO_PART_COUNTERS]);

/* The levels' geometry for the references of one segment, read once:
 * held in the hierarchy, it would be read again after every store to a
 * set (both are uint64_t, so they may alias), as in records_lru2.c. The
 * memo's levels are all LRU and write-allocating (memo_init). */
typedef struct part_geo {
  uint64_t *tags;
  uint64_t set_mask;
  uint32_t shift, assoc;
} part_geo;

typedef struct part_hier {
  part_geo lv[CB_MAX_LEVELS];
  unsigned n;
  bool wide; /* some level has wide sets: the levels' own path */
} part_hier;

static void part_hier_of(part_hier *ph, const cb_hierarchy *h) {
  ph->n = h->n_levels;
  ph->wide = false;
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    ph->lv[l] = (part_geo){lv->tags, lv->set_mask, lv->line_shift, lv->assoc};
    ph->wide |= lv->wide != NULL;
  }
}

/* One line's lookup at level k of a part (ways: a, a constant where the
 * caller makes it one): the levels' own path with wide sets, else LRU,
 * write-allocating, cb_level_ref's lru_touch, filling. */
static inline __attribute__((always_inline)) bool
part_touch(cb_hierarchy *h, const part_hier *ph, unsigned k, uint32_t a,
           uint64_t line, bool is_write) {
  if (ph->wide)
    return cb_level_ref(&h->levels[k], line, is_write);
  const part_geo *g = &ph->lv[k];
  return PARTS_TOUCH(g->tags + (line & g->set_mask) * a, a, line, true);
}

/* access_rule.h's copy for the parts: a miss at level k counted in
 * c[1 + k]; no repeat fast path (the parts' last lines are not kept). */
#define RULE_PARAMS                                                            \
  cb_hierarchy *h, const part_hier *ph, uint32_t a1, uint32_t a2, uint64_t *c
#define RULE_ARGS h, ph, a1, a2, c
#define RULE_SHIFT(k) PARTS_SHIFT(&ph->lv[k])
#define RULE_REF(k, line)                                                      \
  part_touch(h, ph, k,                                                         \
             (k) == 0   ? a1                                                   \
             : (k) == 1 ? a2                                                   \
                        : ph->lv[k].assoc,                                     \
             line, is_write)
#define RULE_REPEATS 0
#define RULE_MISS(k, first, last) (c[1 + (k)]++)
#define RULE_PASS(k) ((void)0)
#define RULE_NAME rule_parts
#define RULE_UNROLLED 0
#include "access_rule.h"

/* One reference through every level, counted into c, its slot's
 * counters in its part. A line in front of its first-level set is a hit
 * that changes nothing (LRU). a1, a2: the first two levels' ways, a
 * constant where the caller makes them one. */
static inline __attribute__((always_inline)) void
part_ref(cb_hierarchy *h, const part_hier *ph, uint32_t a1, uint32_t a2,
         uint64_t addr, bool is_write, uint64_t *c) {
  const part_geo *g = &ph->lv[0];
  uint64_t line = addr >> PARTS_SHIFT(g);
  c[0]++;
  if (g->tags[(line & g->set_mask) * a1] == line)
    return;
  rule_parts(h, ph, a1, a2, c, ph->n, addr, addr, is_write, true);
}

/* The first iteration at or after 0 at which an access whose address
 * moves by a whole number a of parts' units (a multiple of 1 << shift) a
 * step, starting in part p0, is in part p, of n (a power of two); and
 * the period after which it is there again (*period; 0: never there).
 * (p0 + a t) = p (mod n) has a solution iff g = gcd(a, n) divides
 * p - p0; t is then unique modulo n / g: (p - p0) / g times the inverse
 * of the odd a / g modulo n / g. */
static uint64_t first_in_part(uint64_t a, uint64_t p0, uint64_t p, uint64_t n,
                              uint64_t *period) {
  a &= n - 1;
  uint64_t g = a ? a & (0 - a) : n; /* the lowest set bit: gcd with 2^k */
  uint64_t diff = (p - p0) & (n - 1);
  if (diff % g != 0) {
    *period = 0;
    return 0;
  }
  /* Newton: odd * odd = 1 modulo 8, and each step doubles the low bits
   * that are right */
  uint64_t m = n / g, odd = a / g, inv = odd;
  for (int k = 0; k < 6; k++)
    inv *= 2 - odd * inv;
  *period = m;
  return ((diff / g) * inv) & (m - 1);
}

/* The block's references to part p in order, when every access moves by
 * whole units of the parts (a column, or a fixed address): each access's
 * iterations in p form an arithmetic progression, merged by iteration. */
static inline __attribute__((always_inline)) void
run_one_part(cb_hierarchy *h, const part_hier *ph, uint32_t a1, uint32_t a2,
             const cb_affine_block *b, const uint32_t n, const uint64_t *offset,
             uint64_t p, uint64_t *c) {
  const memo_parts *P = &h->memo->parts;
  uint64_t next[MEMO_MAX_ACC], period[MEMO_MAX_ACC];
  for (uint32_t j = 0; j < n; j++) {
    const cb_affine_access *a = &b->acc[j];
    next[j] = first_in_part((uint64_t)a->stride >> P->shift,
                            a->base >> P->shift, p, P->n_parts, &period[j]);
    if (period[j] == 0)
      next[j] = UINT64_MAX;
  }
  for (;;) {
    uint32_t best = 0;
#pragma GCC unroll 4
    for (uint32_t j = 1; j < n; j++)
      if (next[j] < next[best])
        best = j; /* ties: the access first in the iteration */
    uint64_t t = next[best];
    if (t >= b->n_iter)
      return;
    const cb_affine_access *a = &b->acc[best];
    part_ref(h, ph, a1, a2, a->base + t * (uint64_t)a->stride, a->is_write,
             c + offset[best]);
    next[best] = t + period[best];
  }
}

/* The segment's references to the parts in `run`, each counted into
 * out[its part]: in the stream's order within each part, which is all a
 * part's outcomes depend on. */
static inline __attribute__((always_inline)) void
run_parts_in(cb_hierarchy *h, const part_hier *ph, uint32_t a1, uint32_t a2,
             const memo_slots *s, const cb_affine_block *b, uint64_t run,
             bool by_part, uint64_t (*out)[MEMO_PART_COUNTERS]) {
  const seg_memo *m = h->memo;
  const uint32_t shift = PARTS_PART_SHIFT(m->parts.shift);
  const uint64_t part_mask = m->parts.n_parts - 1;
  const size_t per_slot = 1 + h->n_levels;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i];
    uint64_t p = (x->addr >> shift) & part_mask;
    if (run >> p & 1)
      part_ref(h, ph, a1, a2, x->addr, x->is_write,
               out[p] + s->rec_slot[i] * per_slot);
  }
  uint64_t addr[MEMO_MAX_ACC], stride[MEMO_MAX_ACC], offset[MEMO_MAX_ACC];
  const uint32_t n_acc = b->n_acc;
  for (uint32_t j = 0; j < n_acc; j++) {
    addr[j] = b->acc[j].base;
    stride[j] = (uint64_t)b->acc[j].stride;
    offset[j] = s->acc_slot[j] * per_slot;
  }
  if (by_part) {
    /* the merge's state in registers for the commonest sizes */
#define ONE_PARTS(N)                                                           \
  for (uint64_t p = 0; p <= part_mask; p++)                                    \
    if (run >> p & 1)                                                          \
      run_one_part(h, ph, a1, a2, b, N, offset, p, out[p]);
    if (n_acc == 2) {
      ONE_PARTS(2)
    } else if (n_acc == 3) {
      ONE_PARTS(3)
    } else {
      ONE_PARTS(n_acc)
    }
#undef ONE_PARTS
  } else {
    for (uint64_t t = 0; t < b->n_iter; t++)
      for (uint32_t j = 0; j < n_acc; j++) {
        uint64_t x = addr[j];
        addr[j] = x + stride[j];
        uint64_t p = (x >> shift) & part_mask;
        if (run >> p & 1)
          part_ref(h, ph, a1, a2, x, b->acc[j].is_write, out[p] + offset[j]);
      }
  }
  /* The repeat fast path's lines are those of references some parts
   * did not make: none is known. */
  for (unsigned l = 0; l < h->n_levels; l++)
    h->levels[l].last_line = NO_LINE;
}

/* The block's iterations through two levels of plain sets, the
 * references to the parts in `run` counted into out (every part when
 * `all`, a constant in the copies): part_ref's steps on a copy of the
 * geometry (two levels, a constant) with the accesses a constant n.
 * Through run_parts_in's general loop, where n is a variable, the
 * addresses and the geometry went through the stack on every access: a
 * segment run in parts cost 1.65 times one run whole (perf, 2mm LARGE). */
static inline __attribute__((always_inline)) void
block_lru2(cb_hierarchy *h, const part_hier *hier, const cb_affine_block *b,
           const uint32_t n, uint32_t a1, uint32_t a2, uint32_t pshift,
           uint64_t pmask, uint64_t run, const bool all,
           const uint32_t *acc_slot, uint64_t *out) {
  part_hier ph = *hier;
  ph.n = 2; /* constants for the compiler: the caller's case */
  ph.wide = false;
  uint64_t addr[MEMO_MAX_ACC], stride[MEMO_MAX_ACC], offset[MEMO_MAX_ACC];
#pragma GCC unroll 8
  for (uint32_t j = 0; j < n; j++) {
    addr[j] = b->acc[j].base;
    stride[j] = (uint64_t)b->acc[j].stride;
    offset[j] = acc_slot[j] * 3; /* slots of 1 + 2 levels' counters */
  }
  for (uint64_t t = 0; t < b->n_iter; t++) {
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++) {
      const uint64_t x = addr[j];
      addr[j] = x + stride[j];
      const uint64_t p = (x >> PARTS_PART_SHIFT(pshift)) & pmask;
      if (all || run >> p & 1)
        part_ref(h, &ph, a1, a2, x, b->acc[j].is_write,
                 out + p * MEMO_PART_COUNTERS + offset[j]);
    }
  }
}

/* block_lru2's copies: every part or some, cachegrind's ways (8 and 16)
 * or any, the commonest numbers of accesses. */
#define BLOCK_LRU2(N, A1, A2)                                                  \
  (all ? block_lru2(h, ph, b, N, A1, A2, pshift, pmask, run, true, slot, o)    \
       : block_lru2(h, ph, b, N, A1, A2, pshift, pmask, run, false, slot, o))
static void block_parts_lru2(cb_hierarchy *h, const part_hier *ph,
                             const memo_slots *s, const cb_affine_block *b,
                             uint32_t pshift, uint64_t pmask, uint64_t run,
                             bool all, uint64_t (*out)[MEMO_PART_COUNTERS]) {
  const uint32_t a1 = ph->lv[0].assoc, a2 = ph->lv[1].assoc;
  const uint32_t *slot = s->acc_slot;
  uint64_t *o = &out[0][0];
  if (a1 != 8 || a2 != 16)
    BLOCK_LRU2(b->n_acc, a1, a2);
  else if (b->n_acc == 1)
    BLOCK_LRU2(1, 8, 16);
  else if (b->n_acc == 2)
    BLOCK_LRU2(2, 8, 16);
  else if (b->n_acc == 3)
    BLOCK_LRU2(3, 8, 16);
  else
    BLOCK_LRU2(b->n_acc, 8, 16);
}
#undef BLOCK_LRU2

/* The segment's references to the parts in `run`: part by part
 * (run_one_part) where only some parts run and every stride is a whole
 * number of parts' units, so that each part's iterations form
 * progressions; else in one pass over the iterations. run_parts_in with
 * cachegrind's ways (8 and 16) constants, or any; for two levels of plain
 * sets, the one pass is block_lru2's. */
PARTS_RUN_LINKAGE void PARTS_RUN_NAME(cb_hierarchy *h, const memo_slots *s,
                                      const cb_affine_block *b, uint64_t run,
                                      uint64_t (*out)[MEMO_PART_COUNTERS]) {
  part_hier ph = {0};
  part_hier_of(&ph, h);
  const memo_parts *P = &h->memo->parts;
  const uint64_t part_mask = P->n_parts - 1;
  const bool all = run == memo_parts_mask(P);
  bool whole_units = true;
  for (uint32_t j = 0; j < b->n_acc; j++)
    whole_units &= ((uint64_t)b->acc[j].stride & ((1ull << P->shift) - 1)) == 0;
  const bool by_part = whole_units && !all;
  if (ph.n == 2 && !ph.wide && !by_part) {
    /* the records through the general path first, then the block */
    run_parts_in(h, &ph, ph.lv[0].assoc, ph.lv[1].assoc, s,
                 &(cb_affine_block){0, 0, NULL}, run, false, out);
    block_parts_lru2(h, &ph, s, b, P->shift, part_mask, run, all, out);
  } else if (ph.n == 2 && ph.lv[0].assoc == 8 && ph.lv[1].assoc == 16) {
    run_parts_in(h, &ph, 8, 16, s, b, run, by_part, out);
  } else {
    run_parts_in(h, &ph, ph.lv[0].assoc, ph.n > 1 ? ph.lv[1].assoc : 0, s, b,
                 run, by_part, out);
  }
}

#endif
