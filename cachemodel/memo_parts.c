/* The part memo (memo.h): a segment whose block repeats the one before
 * but whose records moved is run only in the parts of the cache its
 * changes reach; the other parts are counted from their last run.
 *
 * Why that is exact. A part is the set of lines whose address bits
 * [shift, shift + log2 n_parts) have one value, bits that every level's
 * set index holds. A reference to a line of part p consults, at every
 * level, only sets of part p, and the hierarchy passes a miss down with
 * the same address (hierarchy.c's rules), so the sets of part p, all
 * levels together, change only by the references to part p, in their
 * order: part p is a hierarchy of its own, fed by the stream's
 * references to it. memo.c's argument then holds part by part: if the
 * segment's references to part p are the same, in the same order, as
 * those of the segments before, run k of that sequence counts what run
 * k - 1 counted once k is past the part's fixed point (memo_steady_from,
 * on that part's misses), and changes nothing.
 *
 * What changes between two segments with the same block (every access
 * the same lines, iteration by iteration) and records of the same shape
 * is the records whose lines moved: the parts of their old and new
 * lines ("dirty") start a new run of equal sequences; the others go on.
 * correlation's and covariance's inner loop is two column walks that keep
 * their lines for eight iterations of the loop around it, and a store
 * `corr[j][i]` a row further on every time: one or two of the 64 parts
 * of the cachegrind preset change per segment, and the segment memo,
 * which needs the whole segment equal, skipped none of them.
 *
 * The parts that run go through the model access by access, each access
 * counted into its part's counters; the blocks taken are those that
 * cannot warp (a stride of a line or more), where cb_affine_run does the
 * same per access. A part is counted once its last run was steady and its
 * references did not change since; its counters are those of that run. */
#include "hierarchy_internal.h"

#include <string.h>

#define NO_SLOT UINT32_MAX
/* The fewest references a block needs to be run part by part (the
 * default of memo_parts.min_refs): the bookkeeping costs about as much as
 * running 300 references (doitgen LARGE, blocks of 320: 4.0 s whole,
 * 5.2 s part by part). */
#define MEMO_PART_MIN_REFS 1024

void memo_parts_init(memo_parts *P, const cb_hierarchy *h) {
  memset(P, 0, sizeof *P);
  if (h->n_levels > MEMO_PART_LEVELS || h->lean_mask == 0)
    return;
  uint32_t lo = 0, hi = 64;
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    if (lv->wide)
      return;
    uint32_t set_bits = (uint32_t)__builtin_popcountll(lv->set_mask);
    if (lv->line_shift > lo)
      lo = lv->line_shift;
    if (lv->line_shift + set_bits < hi)
      hi = lv->line_shift + set_bits;
  }
  if (hi <= lo)
    return; /* some level has one set: no bits in common */
  uint32_t bits = hi - lo < 6 ? hi - lo : 6;
  P->min_refs = MEMO_PART_MIN_REFS;
  P->shift = lo;
  P->n_parts = 1u << bits;
  P->enabled = true;
}

void memo_parts_ran(memo_parts *P) {
  if (!P->enabled)
    return;
  P->len_one = UINT64_MAX;
  P->steady = 0;
  P->valid = true;
  P->cf_valid = P->cf_pending = false; /* memo_parts_closed's to set */
}

/* A part that was not steady yet restarts its count: the skipped run
 * measured nothing for it (memo_steady_from needs the misses of every
 * run it counts). Counting fewer runs than there were is safe: every
 * level is at least as steady after more runs. */
void memo_parts_skipped(memo_parts *P) {
  if (!P->enabled || !P->valid)
    return;
  P->len_one |= ~P->steady;
}

void memo_parts_forget(memo_parts *P) {
  P->valid = false;
  P->cf_valid = P->cf_pending = false;
}

static bool slot_of(memo_slots *s, uint32_t site, bool is_write,
                    uint32_t *slot) {
  for (uint32_t k = 0; k < s->n; k++)
    if (s->site[k] == site && s->is_write[k] == is_write) {
      *slot = k;
      return true;
    }
  if (s->n == MEMO_PART_SITES)
    return false;
  s->site[s->n] = site;
  s->is_write[s->n] = is_write;
  *slot = s->n++;
  return true;
}

bool memo_segment_slots(const cb_hierarchy *h, const cb_affine_block *b,
                        memo_slots *s, bool *column) {
  const seg_memo *m = h->memo;
  const uint64_t lean = h->lean_mask;
  s->n = 0;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i];
    if ((x->addr & lean) + x->size > lean + 1 ||
        !slot_of(s, x->site, x->is_write, &s->rec_slot[i]))
      return false;
  }
  const uint64_t line_mask = (1ull << h->levels[0].line_shift) - 1;
  *column = false;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    uint64_t z = a->size ? a->size : 1;
    uint64_t mag =
        a->stride < 0 ? 0 - (uint64_t)a->stride : (uint64_t)a->stride;
    if ((z & (z - 1)) != 0 || z > lean + 1 || (a->base & (z - 1)) != 0 ||
        ((uint64_t)a->stride & (z - 1)) != 0 ||
        !slot_of(s, a->site, a->is_write, &s->acc_slot[j]))
      return false;
    *column |= mag > line_mask;
  }
  return true;
}

/* Whether the segment qualifies: the records the same as prev's but for
 * their lines; the block the same lines as prev's (the caller's
 * same_block); memo_segment_slots takes it, with a column; and min_refs
 * references or more. Fills the slots and, in *dirty, the parts of moved
 * records. */
static bool qualifies(const cb_hierarchy *h, const memo_seg *prev,
                      const cb_affine_block *b, memo_slots *s,
                      uint64_t *dirty) {
  const seg_memo *m = h->memo;
  const memo_parts *P = &m->parts;
  const uint64_t lean = h->lean_mask;
  if (m->n_pend != prev->n_rec)
    return false;
  *dirty = 0;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i], *y = &prev->rec[i];
    if (x->is_write != y->is_write || x->site != y->site ||
        x->size != y->size || (y->addr & lean) + y->size > lean + 1)
      return false;
    if (x->addr >> m->shift != y->addr >> m->shift)
      *dirty |=
          1ull << memo_part_of(P, x->addr) | 1ull << memo_part_of(P, y->addr);
  }
  bool column;
  return memo_segment_slots(h, b, s, &column) && column &&
         b->n_iter * b->n_acc >= P->min_refs;
}

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

/* One reference through every level, counted into c, its slot's
 * counters in its part. A line in front of its first-level set is a hit
 * that changes nothing (LRU). a1, a2: the first two levels' ways, a
 * constant where the caller makes them one. */
static inline __attribute__((always_inline)) void
part_ref(cb_hierarchy *h, const part_hier *ph, uint32_t a1, uint32_t a2,
         uint64_t addr, bool is_write, uint64_t *c) {
  const part_geo *g = &ph->lv[0];
  uint64_t line = addr >> g->shift;
  c[0]++;
  uint64_t *set = g->tags + (line & g->set_mask) * a1;
  if (set[0] == line)
    return;
  if (ph->wide) {
    for (unsigned l = 0; l < h->n_levels; l++) {
      cb_level *lv = &h->levels[l];
      if (cb_level_ref(lv, addr >> lv->line_shift, is_write))
        return;
      c[1 + l]++;
    }
    return;
  }
  /* LRU, write-allocating: cb_level_ref's lru_touch, filling */
  if (lru_touch(set, a1, line, true))
    return;
  c[1]++;
  for (unsigned l = 1; l < ph->n; l++) {
    g = &ph->lv[l];
    uint32_t a = l == 1 ? a2 : g->assoc;
    line = addr >> g->shift;
    if (lru_touch(g->tags + (line & g->set_mask) * a, a, line, true))
      return;
    c[1 + l]++;
  }
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
  const uint32_t shift = m->parts.shift;
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
      const uint64_t p = (x >> pshift) & pmask;
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
static void run_parts(cb_hierarchy *h, const memo_slots *s,
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

/* The segment's counters t (by slot) into the hierarchy and into d: a
 * level below the first is accessed by the misses of the one above. */
static void count_segment(cb_hierarchy *h, const memo_slots *s,
                          const cb_affine_block *b, const uint64_t *t,
                          memo_delta *d) {
  const unsigned n_levels = h->n_levels;
  /* Only what is used is cleared: the whole delta is 10 KiB, and this
   * runs for every segment run part by part. */
  memset(d->accesses, 0, sizeof d->accesses);
  memset(d->writes, 0, sizeof d->writes);
  memset(d->misses, 0, sizeof d->misses);
  memset(d->write_misses, 0, sizeof d->write_misses);
  d->slow_accesses = 0;
  memset(&d->affine, 0, sizeof d->affine);
  d->n_sites = 0;
  for (uint32_t k = 0; k < s->n; k++) {
    const uint64_t *c = t + k * (1 + n_levels);
    bool w = s->is_write[k];
    uint32_t site = s->site[k], i = 0;
    if (site < h->n_sites) {
      while (i < d->n_sites && d->site[i] != site)
        i++;
      if (i == d->n_sites) {
        d->site[d->n_sites++] = site;
        memset(d->site_accesses[i], 0, sizeof d->site_accesses[i]);
        memset(d->site_misses[i], 0, sizeof d->site_misses[i]);
      }
    }
    for (unsigned l = 0; l < n_levels; l++) {
      uint64_t acc = l == 0 ? c[0] : c[l];
      d->accesses[l] += acc;
      d->writes[l] += w ? acc : 0;
      d->misses[l] += c[1 + l];
      d->write_misses[l] += w ? c[1 + l] : 0;
      if (site < h->n_sites) {
        d->site_accesses[i][l] += acc;
        d->site_misses[i][l] += c[1 + l];
      }
    }
  }
  d->affine.blocks = 1;
  d->affine.iterations = b->n_iter;
  memo_add_delta(h, d);
}

bool memo_parts_segment(cb_hierarchy *h, const memo_seg *prev,
                        const cb_affine_block *b, memo_delta *d) {
  seg_memo *m = h->memo;
  memo_parts *P = &m->parts;
  memo_slots s;
  uint64_t dirty;
  if (!P->enabled || !P->valid || !prev->valid ||
      !qualifies(h, prev, b, &s, &dirty))
    return false;
  memo_parts_closed_start(h, prev, b);
  /* Nothing moved and no part steady: the segment equals the one before,
   * and once steady the segment memo (period 1) counts the next ones
   * whole; running this one whole costs less than measuring every part. */
  if (dirty == 0 && P->steady == 0)
    return false;
  const size_t n_levels = h->n_levels;
  const size_t n_counters = s.n * (1 + n_levels);
  /* Which parts go on and which start over; the steady ones that go on
   * are counted, the others run. */
  P->steady &= ~dirty;
  if (P->cf_valid)
    memo_parts_closed_count(h, &s);
  const uint64_t run = ~P->steady & memo_parts_mask(P);
  for (uint64_t w = run; w; w &= w - 1) {
    uint32_t p = (uint32_t)__builtin_ctzll(w);
    if (P->len_one >> p & 1)
      P->len[p] = 1;
    if (dirty >> p & 1)
      P->len[p] = 1;
    else if (P->len[p] < CB_MAX_LEVELS + 1)
      P->len[p]++;
  }
  P->len_one &= ~run;
  uint64_t(*out)[MEMO_PART_COUNTERS] = P->out;
  for (uint64_t w = run; w; w &= w - 1)
    memset(out[__builtin_ctzll(w)], 0, n_counters * sizeof out[0][0]);
  run_parts(h, &s, b, run, out);
  /* The segment counts what every part last counted: the counted parts'
   * deltas stand, the parts that ran replace theirs, and P->sum, the sum
   * of all parts' deltas, is then the segment's total. */
  for (uint64_t w = run; w; w &= w - 1) {
    uint32_t p = (uint32_t)__builtin_ctzll(w);
    memo_part *q = &P->part[p];
    for (size_t k = 0; k < n_counters; k++) {
      P->sum[k] += out[p][k] - q->delta[k];
      q->delta[k] = out[p][k];
    }
    uint32_t r = P->len[p];
    if (r >= 2 && r <= n_levels + 1)
      for (unsigned l = 0; l < n_levels; l++) {
        q->run_misses[r][l] = 0;
        for (uint32_t k = 0; k < s.n; k++)
          q->run_misses[r][l] += out[p][k * (1 + n_levels) + 1 + l];
      }
    if (r >= 2 && r >= memo_steady_from(q->run_misses, h->n_levels, r))
      P->steady |= 1ull << p;
  }
  count_segment(h, &s, b, P->sum, d);
  if (P->cf_valid)
    memo_parts_closed_ran(h, &s, b, run);
  P->segments++;
  P->counted += P->n_parts - (uint32_t)__builtin_popcountll(run);
  return true;
}
