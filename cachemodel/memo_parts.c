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

#include <stdlib.h>
#include <string.h>

#include "lru2_regs.h"

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

/* run_parts: memo_parts_run.h with policy.h's set updates, or its
 * AVX-512 copy (memo_parts_avx512.c) for cachegrind's caches where the
 * host has it; both count the same, reference for reference. */
#define PARTS_TOUCH lru_touch
#define PARTS_RUN_NAME run_parts_plain
#define PARTS_RUN_LINKAGE static
#include "memo_parts_run.h"

#ifndef CB_HAVE_AVX512
void run_parts_avx512(cb_hierarchy *h, const memo_slots *s,
                      const cb_affine_block *b, uint64_t run,
                      uint64_t (*out)[MEMO_PART_COUNTERS]) {
  (void)h, (void)s, (void)b, (void)run, (void)out;
  abort(); /* accel.c chose no AVX-512 copy */
}
#endif

static void run_parts(cb_hierarchy *h, const memo_slots *s,
                      const cb_affine_block *b, uint64_t run,
                      uint64_t (*out)[MEMO_PART_COUNTERS]) {
  if (h->avx512)
    run_parts_avx512(h, s, b, run, out);
  else
    run_parts_plain(h, s, b, run, out);
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
