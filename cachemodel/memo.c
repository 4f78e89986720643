/* The segment memo (memo.h): a segment equal, line for line, to the
 * segments before it is counted without being run, once enough of them
 * ran.
 *
 * Why that is exact, for LRU levels that allocate on every miss. Take a
 * sequence X of line references run through one LRU set-associative
 * level, and f_X the state change it makes. In each set, after X, the
 * lines X referenced in that set are in front, ordered by their last
 * reference in X (only the most recent `assoc` of them if X referenced
 * more), then, if room is left, the lines that were there before and X
 * did not reference, in their old order. Run X again on that state:
 * the front is rebuilt the same (it depends on X alone), and the rest is
 * the same old lines in the same order. So f_X(f_X(s)) = f_X(s) for
 * every state s, and X's hits and misses on a state f_X(s) are the same
 * whatever s was: a reference hits if its line is in the set then, and
 * the lines of X in a set, at any point of X, do not depend on the old
 * lines below them (with room left every line of X stays; without, the
 * set holds lines of X only).
 *
 * A hierarchy: the first level sees every line of every access, so from
 * the second run of a segment on, its outcomes are those of the fixed
 * point; the second level is consulted with exactly the accesses the
 * first missed (hierarchy.c's rules), so it sees one and the same
 * sequence from the second run on, reaches its own fixed point after
 * that, and has fixed outcomes from the third run on; and so on down. In
 * a hierarchy of L levels, run k of an equal segment, for k >= L + 1,
 * finds every level in the state run k - 1 found it and leaves it so:
 * it counts what run k - 1 counted and changes nothing else.
 *
 * Often sooner: a level whose input is steady from run s on, and that
 * missed nothing in run s, is steady from run s itself. Nothing was
 * evicted there in run s and every line it referenced was present, so
 * all of them still are, and run s + 1 hits them all again (and leaves
 * the state as run s did, by the above). The column walks of PolyBench
 * miss the first level on every step but hit a large last level: with
 * two levels they are steady from run 2, not 3. So the first level is
 * steady from run 2, and each level below from the run its upper level
 * is steady from, or the one after if it missed anything in that run
 * (steady_from; never later than run L + 1). The segments run from
 * run 2 on are measured (every counter before and after); once the one
 * just run was steady, the equal ones after it add its differences and
 * are not run. The repeat fast path's last
 * line per level is a cache line in front of its set, part of that state
 * (a hit there is a hit that reorders nothing).
 *
 * Segments are compared by their line references at the smallest line
 * size (equal there, equal at every level): records by the lines of their
 * first and last bytes, direction and site; blocks by iterations,
 * accesses, sizes, directions, sites and strides, and each access's base
 * equal, or, for a stride of whole lines, in the same lines (then every
 * iteration's lines are equal too). The records of a segment are held
 * back until its block comes (memo_hold), so that a skipped segment is
 * skipped whole; anything else that reaches the hierarchy, and any read
 * of its counters, runs them first (memo_settle).
 *
 * Period 2. A loop body with two inner loops (gramschmidt's j loop)
 * emits segments A, B, A', B', ... where A' equals A and B' equals B
 * but A never equals B. The argument above holds for any sequence X, so
 * for X = A B: a unit of two segments repeated is counted the same way,
 * repetition by repetition, each measured as the sum of its two
 * segments' misses. Inside a repetition at the fixed point each segment
 * starts from the state its equal of the repetition before started
 * from (the unit's start state is the same, and the first segment is
 * the same sequence), so it adds that one's differences. But a skipped
 * segment leaves the model's state where the last run segment left it:
 * skips must end where runs could resume, at a repetition's end. So
 * the first segment of a skipped repetition is owed, neither counted nor
 * run, until the second one is skipped too (both counted then); if the
 * stream breaks off first, or something settles the memo, the owed
 * segment runs for real (from the state its equal of the repetition
 * before started from, so it counts what it would have counted).
 * A stretch of period 1 is periodic with period 2 too; period 1 is asked
 * first (it is steady sooner), and a skip by either period restarts the
 * other one's count, whose measurements need segments that ran.
 *
 * FIFO, MRU, tree-PLRU and random, and levels that do not allocate on a
 * write miss, do not have this property in general: the memo is off for
 * them, and with classification (the shadows' histograms would need
 * their own differences). Warping cache simulation (Morelli and
 * Reineke, PLDI 2022) skips repeated loop iterations on a related
 * argument, with symmetry between iterations in place of equality. */
#include "hierarchy_internal.h"

#include <string.h>

void memo_init(seg_memo *m, const struct cb_hierarchy *h) {
  uint32_t shift = 63;
  for (unsigned l = 0; l < h->n_levels; l++)
    if (h->levels[l].line_shift < shift)
      shift = h->levels[l].line_shift;
  memo_long *lng = m->lng; /* kept across a reset */
  rec_memo *rec = m->rec;
  uint64_t *ll_refs = m->ll_refs, *ll_mark = m->ll_mark;
  uint32_t ll_gen = m->ll_gen; /* the marks stay valid */
  memset(m, 0, sizeof *m);
  m->ll_refs = ll_refs;
  m->ll_mark = ll_mark;
  m->ll_gen = ll_gen;
  m->lng = lng;
  if (lng)
    memo_long_reset(lng);
  m->rec = rec;
  rmemo_reset(rec);
  m->shift = shift;
  m->closed_slack = 64;
  memo_parts_init(&m->parts, h);
}

/* Runs a segment kept in the history (an owed one). */
static void run_seg(cb_hierarchy *h, const memo_seg *s) {
  cb_records_run(h, s->rec, s->n_rec);
  cb_affine_block b = {s->n_iter, s->n_acc, s->acc};
  cb_affine_run(h, &b);
}

/* Runs the owed segment, the last one seen: the model's state is then
 * the stream's again. */
void memo_pay_pair(cb_hierarchy *h) {
  seg_memo *m = h->memo;
  if (!m->owed)
    return;
  m->owed = false;
  memo_parts_forget(&m->parts);
  m->skipped--;
  m->skipped_pair--;
  run_seg(h, &m->hist[(m->seq - 1) & 1]);
}

void memo_restart(cb_hierarchy *h) {
  seg_memo *m = h->memo;
  memo_parts_forget(&m->parts);
  m->hist[0].valid = m->hist[1].valid = false;
  m->period[0].len = m->period[1].len = 0;
  m->period[0].steady = m->period[1].steady = false;
}

void memo_settle(cb_hierarchy *h) {
  if (!h->memo)
    return;
  rmemo_settle(h, h->memo->rec);
  memo_settle_segments(h);
}

void memo_settle_segments(cb_hierarchy *h) {
  seg_memo *m = h->memo;
  if (!m)
    return;
  memo_long_settle(h); /* its owed segments came before the rest */
  memo_pay_pair(h);
  memo_restart(h);
  m->closed_seq = 0; /* the closed form's run 2 has not come */
  if (m->n_pend) {
    uint32_t n = m->n_pend;
    m->n_pend = 0;
    cb_records_run(h, m->pend, n);
  }
}

bool memo_hold(cb_hierarchy *h, const cb_access *batch, size_t n) {
  seg_memo *m = h->memo;
  if (n > MEMO_MAX_RECORDS - m->n_pend)
    return false;
  rmemo_settle(h, m->rec); /* its records came first */
  memcpy(m->pend + m->n_pend, batch, n * sizeof *batch);
  m->n_pend += (uint32_t)n;
  return true;
}

static bool same_lines(const seg_memo *m, uint64_t a, uint32_t size_a,
                       uint64_t b, uint32_t size_b) {
  return a >> m->shift == b >> m->shift &&
         access_end(a, size_a) >> m->shift == access_end(b, size_b) >> m->shift;
}

/* Whether block b makes the same line references as segment s's. */
bool memo_same_block(const seg_memo *m, const memo_seg *s,
                     const cb_affine_block *b) {
  if (!s->valid || b->n_acc != s->n_acc || b->n_iter != s->n_iter)
    return false;
  const uint64_t line_mask = (1ull << m->shift) - 1;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *x = &b->acc[j], *y = &s->acc[j];
    if (x->is_write != y->is_write || x->site != y->site ||
        x->size != y->size || x->stride != y->stride)
      return false;
    if (x->base != y->base &&
        (((uint64_t)x->stride & line_mask) != 0 ||
         !same_lines(m, x->base, x->size, y->base, y->size)))
      return false;
  }
  return true;
}

/* Whether the held-back records make the same line references as
 * segment s's. */
bool memo_same_records(const seg_memo *m, const memo_seg *s) {
  if (!s->valid || m->n_pend != s->n_rec)
    return false;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i], *y = &s->rec[i];
    if (x->is_write != y->is_write || x->site != y->site ||
        !same_lines(m, x->addr, x->size, y->addr, y->size))
      return false;
  }
  return true;
}

void memo_copy_segment(const seg_memo *m, memo_seg *s,
                       const cb_affine_block *b) {
  memcpy(s->rec, m->pend, m->n_pend * sizeof *m->pend);
  s->n_rec = m->n_pend;
  memcpy(s->acc, b->acc, b->n_acc * sizeof *b->acc);
  s->n_acc = b->n_acc;
  s->n_iter = b->n_iter;
  s->valid = true;
}

/* The current segment (held-back records and block b) into s, the next
 * segment started; its delta_of is left as it is. */
static void keep_segment(seg_memo *m, memo_seg *s, const cb_affine_block *b) {
  memo_copy_segment(m, s, b);
  m->n_pend = 0;
  m->seq++;
}

/* The sites the segment counts at, each once. */
static void segment_sites(const cb_hierarchy *h, const seg_memo *m,
                          const cb_affine_block *b, memo_delta *d) {
  d->n_sites = 0;
  for (uint32_t i = 0; i < m->n_pend + b->n_acc; i++) {
    uint32_t s = i < m->n_pend ? m->pend[i].site : b->acc[i - m->n_pend].site;
    if (s >= h->n_sites)
      continue;
    uint32_t k = 0;
    while (k < d->n_sites && d->site[k] != s)
      k++;
    if (k == d->n_sites)
      d->site[d->n_sites++] = s;
  }
}

/* Every counter the memo keeps (the sites listed in d). */
static void read_counters(const cb_hierarchy *h, memo_delta *d) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    d->accesses[l] = lv->accesses;
    d->writes[l] = lv->writes;
    d->misses[l] = lv->misses;
    d->write_misses[l] = lv->write_misses;
  }
  for (uint32_t k = 0; k < d->n_sites; k++)
    for (unsigned l = 0; l < h->n_levels; l++) {
      const cb_site_stats *ss = &h->sites[(size_t)d->site[k] * h->n_levels + l];
      d->site_accesses[k][l] = ss->accesses;
      d->site_misses[k][l] = ss->misses;
    }
  d->slow_accesses = h->slow_accesses;
  d->affine = h->affine;
}

/* d = after - d, counter by counter. */
static void subtract_from(const memo_delta *after, memo_delta *d,
                          unsigned n_levels) {
  for (unsigned l = 0; l < n_levels; l++) {
    d->accesses[l] = after->accesses[l] - d->accesses[l];
    d->writes[l] = after->writes[l] - d->writes[l];
    d->misses[l] = after->misses[l] - d->misses[l];
    d->write_misses[l] = after->write_misses[l] - d->write_misses[l];
  }
  for (uint32_t k = 0; k < d->n_sites; k++)
    for (unsigned l = 0; l < n_levels; l++) {
      d->site_accesses[k][l] =
          after->site_accesses[k][l] - d->site_accesses[k][l];
      d->site_misses[k][l] = after->site_misses[k][l] - d->site_misses[k][l];
    }
  d->slow_accesses = after->slow_accesses - d->slow_accesses;
  d->affine.blocks = after->affine.blocks - d->affine.blocks;
  d->affine.iterations = after->affine.iterations - d->affine.iterations;
  d->affine.warped_iterations =
      after->affine.warped_iterations - d->affine.warped_iterations;
  d->affine.warps = after->affine.warps - d->affine.warps;
}

void memo_add_delta(cb_hierarchy *h, const memo_delta *d) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_level *lv = &h->levels[l];
    lv->accesses += d->accesses[l];
    lv->writes += d->writes[l];
    lv->misses += d->misses[l];
    lv->write_misses += d->write_misses[l];
  }
  for (uint32_t k = 0; k < d->n_sites; k++)
    for (unsigned l = 0; l < h->n_levels; l++) {
      cb_site_stats *ss = &h->sites[(size_t)d->site[k] * h->n_levels + l];
      ss->accesses += d->site_accesses[k][l];
      ss->misses += d->site_misses[k][l];
    }
  h->slow_accesses += d->slow_accesses;
  h->affine.blocks += d->affine.blocks;
  h->affine.iterations += d->affine.iterations;
  h->affine.warped_iterations += d->affine.warped_iterations;
  h->affine.warps += d->affine.warps;
}

/* The flat copy of every counter (memo.h): per level accesses, writes,
 * misses, write misses; per site and level accesses and misses; then slow
 * accesses and the affine statistics. */
size_t memo_n_counters(const cb_hierarchy *h) {
  return 4 * (size_t)h->n_levels + 2 * (size_t)h->n_sites * h->n_levels + 5;
}

void memo_read_counters(const cb_hierarchy *h, uint64_t *c) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    *c++ = lv->accesses;
    *c++ = lv->writes;
    *c++ = lv->misses;
    *c++ = lv->write_misses;
  }
  for (size_t k = 0; k < (size_t)h->n_sites * h->n_levels; k++) {
    *c++ = h->sites[k].accesses;
    *c++ = h->sites[k].misses;
  }
  *c++ = h->slow_accesses;
  *c++ = h->affine.blocks;
  *c++ = h->affine.iterations;
  *c++ = h->affine.warped_iterations;
  *c = h->affine.warps;
}

/* One counter plus to[i] - from[i] (from NULL: zeros). */
static inline void add_diff(uint64_t *x, const uint64_t *to,
                            const uint64_t *from, size_t *i) {
  *x += to[*i] - (from ? from[*i] : 0);
  (*i)++;
}

void memo_add_counters(cb_hierarchy *h, const uint64_t *to,
                       const uint64_t *from) {
  size_t i = 0;
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_level *lv = &h->levels[l];
    add_diff(&lv->accesses, to, from, &i);
    add_diff(&lv->writes, to, from, &i);
    add_diff(&lv->misses, to, from, &i);
    add_diff(&lv->write_misses, to, from, &i);
  }
  for (size_t k = 0; k < (size_t)h->n_sites * h->n_levels; k++) {
    add_diff(&h->sites[k].accesses, to, from, &i);
    add_diff(&h->sites[k].misses, to, from, &i);
  }
  add_diff(&h->slow_accesses, to, from, &i);
  add_diff(&h->affine.blocks, to, from, &i);
  add_diff(&h->affine.iterations, to, from, &i);
  add_diff(&h->affine.warped_iterations, to, from, &i);
  add_diff(&h->affine.warps, to, from, &i);
}

size_t memo_state_words(const cb_hierarchy *h) {
  size_t w = 0;
  for (unsigned l = 0; l < h->n_levels; l++)
    w += (size_t)(h->levels[l].set_mask + 1) * h->levels[l].assoc + 1;
  return w;
}

void memo_copy_take(const cb_hierarchy *h, uint64_t *c) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    size_t n = (size_t)(lv->set_mask + 1) * lv->assoc;
    memcpy(c, lv->tags, n * sizeof *c);
    c += n;
    *c++ = lv->last_line;
  }
  memo_read_counters(h, c);
}

bool memo_state_equal(const cb_hierarchy *h, const uint64_t *c) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    size_t n = (size_t)(lv->set_mask + 1) * lv->assoc;
    if (c[n] != lv->last_line || memcmp(c, lv->tags, n * sizeof *c) != 0)
      return false;
    c += n + 1;
  }
  return true;
}

void memo_state_restore(cb_hierarchy *h, const uint64_t *c) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_level *lv = &h->levels[l];
    size_t n = (size_t)(lv->set_mask + 1) * lv->assoc;
    memcpy(lv->tags, c, n * sizeof *c);
    lv->last_line = c[n];
    c += n + 1;
  }
}

/* The repetition from which every level is at its fixed point, as far
 * as repetitions 1 .. r tell (the comment at the top): the first level
 * from repetition 2; each level below from its upper level's repetition
 * s, or s + 1 if it missed in repetition s. Later than r while unknown. */
uint32_t memo_steady_from(const uint64_t run_misses[][CB_MAX_LEVELS],
                          unsigned n_levels, uint32_t r) {
  uint32_t s = 2;
  for (unsigned l = 1; l < n_levels; l++) {
    if (s > r)
      return s;
    if (run_misses[s][l] != 0)
      s++;
  }
  return s;
}

/* Period p's count after a segment that ran: `same` when it equals
 * segment i - p, and then `misses` holds its measured misses per level
 * (read only then); prev_valid: segment i - 1 is known. */
static void track_ran(memo_track *t, uint32_t p, bool same, bool prev_valid,
                      const uint64_t *misses, unsigned n_levels) {
  if (same)
    t->len++;
  else
    t->len = p == 1 || !prev_valid ? 1 : 2; /* the unit: the last p */
  t->steady = false;
  if (t->len <= p)
    return; /* repetition 1: never asked */
  uint32_t rep = (t->len + p - 1) / p;
  bool first = (t->len - 1) % p == 0, last = t->len % p == 0;
  for (unsigned l = 0; l < n_levels; l++)
    t->rep_misses[l] = (first ? 0 : t->rep_misses[l]) + misses[l];
  if (!last)
    return;
  if (rep <= n_levels + 1) /* steady by then (steady_from) */
    memcpy(t->run_misses[rep], t->rep_misses, sizeof t->run_misses[rep]);
  t->steady = rep >= memo_steady_from(t->run_misses, n_levels, rep);
  if (rep > n_levels + 1) /* keep len bounded; the phase stays */
    t->len -= p;
}

/* Period p skipped the segment: the other period starts over. */
static void track_restart(memo_track *t) {
  t->len = 1;
  t->steady = false;
}

/* Whether the closed form still pays: taking it costs about what run 2
 * would (the check walks run 2's last-level references), which is lost
 * where the segment after it is not equal (syr2k's and symm's segments
 * with a record on their row's last line, taken by a version of the
 * closed form that allowed it: 41 K and 111 K taken, not one followed by
 * its equal, 20 % more simulation time), so that it stops where most
 * were lost. */
static bool memo_closed_worth(const seg_memo *m) {
  return m->closed_wasted <= 2 * m->closed_used + m->closed_slack;
}

/* Runs the held-back records and block b as they are; into d (unless
 * NULL) what that changed. */
static void run_whole(cb_hierarchy *h, const cb_affine_block *b,
                      memo_delta *d) {
  seg_memo *m = h->memo;
  memo_delta after;
  if (d) {
    segment_sites(h, m, b, d);
    read_counters(h, d);
  }
  cb_records_run(h, m->pend, m->n_pend);
  uint64_t site_misses[MEMO_MAX_ACC];
  memo_parts_site_misses(h, b, site_misses);
  cb_affine_run(h, b);
  if (d) {
    after.n_sites = d->n_sites;
    memcpy(after.site, d->site, d->n_sites * sizeof *d->site);
    read_counters(h, &after);
    subtract_from(&after, d, h->n_levels);
  }
  memo_parts_ran(&m->parts);
  memo_parts_closed(h, b, site_misses);
}

/* A segment the long memo did not take: counted by period 1 or 2, or
 * run, whole or part by part. */
static void memo_segment(cb_hierarchy *h, const cb_affine_block *b) {
  seg_memo *m = h->memo;
  memo_seg *prev = &m->hist[(m->seq - 1) & 1], *prev2 = &m->hist[m->seq & 1];
  bool block1 = memo_same_block(m, prev, b);
  bool same1 = block1 && memo_same_records(m, prev);
  bool same2 = memo_same_block(m, prev2, b) && memo_same_records(m, prev2);
  memo_track *t1 = &m->period[0], *t2 = &m->period[1];
  /* run 1 of the segment before was taken as steady (closed form): its
   * run 2, this segment if it is skipped, may owe a change */
  const bool after_closed = m->closed_seq == m->seq;
  m->closed_seq = 0;
  if (m->owed && !(same2 && t2->steady))
    memo_pay_pair(h); /* the stream broke off inside a repetition */
  if (!m->owed && same1 && t1->steady) {
    if (after_closed && m->ll_owed)
      memo_closed_run2(h);
    m->closed_used += after_closed;
    m->pairs_last = false;
    memo_parts_skipped(&m->parts);
    memo_add_delta(h, &m->delta[prev->delta_of]);
    prev2->delta_of = prev->delta_of;
    keep_segment(m, prev2, b);
    track_restart(t2);
    m->skipped++;
    return;
  }
  m->closed_wasted += after_closed; /* not skipped after all */
  if (same2 && t2->steady) {
    /* counted by whole repetitions: the first segment is owed */
    if (m->owed) {
      memo_add_delta(h, &m->delta[prev->delta_of]);
      memo_add_delta(h, &m->delta[prev2->delta_of]);
    }
    m->owed = !m->owed;
    m->pairs_last = true;
    memo_parts_forget(&m->parts);
    keep_segment(m, prev2, b);
    track_restart(t1);
    m->skipped++;
    m->skipped_pair++;
    return;
  }
  /* Run it; measured when it repeats a segment (run 1 of a period is
   * never asked). */
  bool measure = same1 || same2;
  prev2->delta_of = (uint8_t)(1 - prev->delta_of);
  memo_delta *d = &m->delta[prev2->delta_of];
  /* part by part where only the records moved, else whole (and run 1 of
   * a new segment measured for memo_closed_segment) */
  bool whole = !block1 || !memo_parts_segment(h, prev, b, d);
  /* not where segments repeat in pairs (gramschmidt): taking run 1 of
   * a pair's segment as steady starts period 2 over, which then counts
   * the pairs after it a pair later */
  bool closed = whole && !same1 && !same2 && !m->pairs_last &&
                memo_closed_worth(m) && memo_closed_possible(h, b);
  if (whole)
    run_whole(h, b, measure || closed ? d : NULL);
  track_ran(t1, 1, same1, prev->valid, d->misses, h->n_levels);
  track_ran(t2, 2, same2, prev->valid, d->misses, h->n_levels);
  if (closed && memo_closed_segment(h, b, d)) {
    /* run 2 known: steady from here, d its counts (period 2 starts over:
     * its measurements need segments that ran) */
    t1->len = 2;
    t1->steady = true;
    track_restart(t2);
    m->closed++;
    m->closed_seq = m->seq + 1; /* ll_owed: memo_closed_segment's */
  }
  keep_segment(m, prev2, b);
}

void memo_block(cb_hierarchy *h, const cb_affine_block *b) {
  rmemo_settle(h, h->memo->rec);
  if (b->n_iter == 0 || b->n_acc == 0) {
    cb_affine_run(h, b); /* no access: the segment goes on */
    return;
  }
  if (b->n_acc > MEMO_MAX_ACC) {
    memo_settle(h);
    cb_affine_run(h, b);
    return;
  }
  if (memo_long_take(h, b)) {
    h->memo->closed_seq = 0; /* the closed form's run 2 never came */
    return;
  }
  memo_segment(h, b);
  memo_long_done(h);
}
