/* The segment memo (memo.c): streams shaped like loop nests, where the
 * same segment (a few records, then an affine block) repeats for runs of
 * outer iterations and then moves on, through hierarchies of one to
 * three levels, against the brute-force model of ref_cache.h, counter
 * for counter and site by site. The memo must have skipped segments
 * where it applies (LRU, write-allocate, no classification) and none
 * where it does not. */
#include "hierarchy_internal.h"
#include "ref_cache.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 11;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

static void expand_into_model(ref_model *m, const cb_affine_block *b) {
  for (uint64_t t = 0; t < b->n_iter; t++)
    for (uint32_t j = 0; j < b->n_acc; j++) {
      const cb_affine_access *a = &b->acc[j];
      ref_access(m, a->base + t * (uint64_t)a->stride, a->size, a->is_write,
                 a->site, false);
    }
}

/* One inner loop of a nest: the records before it and its block. */
typedef struct inner {
  bool columns;
  uint32_t n_acc, n_rec;
  uint64_t n_iter;
  cb_affine_access proto[8];
  cb_access rec_proto[4];
} inner;

/* columns: correlation's shape, column walks and fixed accesses only,
 * with at least one record, every access 8 bytes (and aligned, with
 * nest's step). */
static void make_inner(inner *in, uint32_t line, uint64_t region,
                       bool columns) {
  uint32_t n_acc = in->n_acc = 1 + (uint32_t)rnd(4);
  uint32_t n_rec = in->n_rec = (uint32_t)rnd(4) + columns;
  in->columns = columns;
  cb_affine_access *proto = in->proto;
  cb_access *rec_proto = in->rec_proto;
  uint64_t n_iter = in->n_iter = 16 + rnd(200);
  for (uint32_t j = 0; j < n_acc; j++) {
    int kind = (int)rnd(columns ? 2 : 3);
    /* columns of whole lines, or of half a line more (2mm's rows of 7200
     * bytes: memo_parts.c's one-pass loop, the parts' iterations not an
     * arithmetic progression) */
    int64_t stride = kind == 0 ? (int64_t)line * (int64_t)(1 + rnd(40)) +
                                     (rnd(3) == 0 ? (int64_t)line / 2 : 0)
                     : kind == 1 ? 0
                                 : 8;
    if (rnd(5) == 0)
      stride = -stride;
    uint64_t base = 0x10000000ull + rnd(region);
    if (stride < 0)
      base += n_iter * (uint64_t)(-stride);
    proto[j] = (cb_affine_access){.base = base & ~7ull,
                                  .stride = stride,
                                  .site = (uint32_t)rnd(6),
                                  .size = columns || rnd(4) ? 8 : 16,
                                  .is_write = rnd(4) == 0};
  }
  for (uint32_t i = 0; i < n_rec; i++)
    rec_proto[i] = (cb_access){.addr = (0x10000000ull + rnd(region)) &
                                       (columns ? ~7ull : ~0ull),
                               .site = rnd(8) ? (uint32_t)rnd(6) : CB_SITE_NONE,
                               .size = (uint16_t)(columns || rnd(3) ? 8 : 12),
                               .is_write = rnd(3) == 0};
}

/* Outer iteration o of an inner loop: bases moved by o * step bytes,
 * records by o * rec_step. Now and then the segment is changed (another
 * trip count, a stray record) to break the runs. */
static void run_inner(cb_hierarchy *h, ref_model *m, const inner *in,
                      uint64_t region, uint64_t o, uint64_t step,
                      uint64_t rec_step) {
  cb_access rec[5];
  uint32_t nr = 0;
  for (uint32_t i = 0; i < in->n_rec; i++) {
    rec[nr] = in->rec_proto[i];
    rec[nr++].addr += o * rec_step;
  }
  if (rnd(25) == 0)
    rec[nr++] = (cb_access){.addr = 0x10000000ull + rnd(region), .size = 4};
  /* records arrive in batches of any split */
  for (uint32_t i = 0; i < nr;) {
    uint32_t k = 1 + (uint32_t)rnd(nr - i);
    cb_hierarchy_run(h, rec + i, k);
    for (uint32_t q = i; q < i + k; q++)
      ref_access(m, rec[q].addr, rec[q].size, rec[q].is_write, rec[q].site,
                 false);
    i += k;
  }
  cb_affine_access acc[8];
  for (uint32_t j = 0; j < in->n_acc; j++) {
    acc[j] = in->proto[j];
    if (in->proto[j].stride != 0 || (!in->columns && rnd(2)))
      acc[j].base += o * step;
  }
  cb_affine_block b = {rnd(30) == 0 ? in->n_iter + 1 : in->n_iter, in->n_acc,
                       acc};
  cb_hierarchy_run_affine(h, &b);
  expand_into_model(m, &b);
}

/* One loop nest: for o in 0..outer, one inner loop (or two in turn, as
 * gramschmidt's j loop: segments of period 2), each records then a block
 * whose accesses are column walks (stride a multiple of the line, base
 * moving by `step` bytes per o: the same lines for line/step o's in a
 * row), fixed bases, or row sweeps; records move with o the same way, or
 * down a column (correlation's `corr[j][i]`: a new line every time, the
 * block's lines unchanged, which the part memo runs part by part). */
static void nest(cb_hierarchy *h, ref_model *m, uint32_t line, uint64_t region,
                 uint32_t outer) {
  inner in[2];
  uint32_t n_inner = 1 + (uint32_t)rnd(2);
  bool columns = rnd(4) == 0;
  for (uint32_t k = 0; k < n_inner; k++)
    make_inner(&in[k], line, region, columns);
  /* 1..4 bytes per outer iteration; for the columns a double's 8, or
   * none (the walks stay, the records move) */
  uint64_t step = columns ? 8 * rnd(2) : 1u << rnd(3);
  /* down a column: rows of any number of lines, or of whole pages (the
   * records stay in their parts); or along a row, a new line now and then
   * (the record leaves a part it was steady in) */
  uint64_t rec_step = !columns      ? step
                      : rnd(3) == 0 ? line * (1 + rnd(40))
                      : rnd(2)      ? 4096 * (1 + rnd(3))
                                    : 8;
  for (uint32_t o = 0; o < outer; o++)
    for (uint32_t k = 0; k < n_inner; k++)
      run_inner(h, m, &in[k], region, o, step, rec_step);
}

/* cholesky's initialisation, B = A A^T, scaled down: for t, for r, a
 * record A[r][t] then a block over s of B[r][s] (read and written, a row)
 * and A[s][t] (a column). The whole r loop makes the same line references
 * for every t whose column lies in the same lines: a period of R segments
 * (R >= MEMO_LONG_MIN), which the long memo counts. Now and then the
 * stream breaks a repetition off (a longer block, or a lone access that
 * settles the memo) where segments may be owed. With an epilogue (a
 * record of A's column after each block, as cholesky's remainder loop)
 * each segment holds the record of the block before it, the repetitions
 * run from (t, 1) to (t + 1, 0), and the last one before a new column
 * line breaks off at its last segment: memo_long.c's tail. */
static void square_nest(cb_hierarchy *h, ref_model *m, uint32_t line,
                        bool epilogue) {
  uint64_t R = MEMO_LONG_MIN + rnd(64), S = 8 + rnd(24), T = 8 + rnd(24);
  uint64_t rowA = (uint64_t)line * (1 + rnd(6)), rowB = S * 8 + 8 * rnd(4);
  uint64_t A = 0x20000000ull + 64 * rnd(64), B = 0x30000000ull + 8 * rnd(8);
  for (uint64_t t = 0; t < T; t++)
    for (uint64_t r = 0; r < R; r++) {
      cb_access rec = {.addr = A + r * rowA + 8 * t, .site = 0, .size = 8};
      cb_hierarchy_run(h, &rec, 1);
      ref_access(m, rec.addr, 8, false, 0, false);
      cb_affine_access acc[3] = {
          {.base = B + r * rowB, .stride = 8, .site = 1, .size = 8},
          {.base = B + r * rowB,
           .stride = 8,
           .site = 2,
           .size = 8,
           .is_write = 1},
          {.base = A + 8 * t, .stride = (int64_t)rowA, .site = 3, .size = 8}};
      cb_affine_block b = {rnd(400) == 0 ? S + 1 : S, 3, acc};
      cb_hierarchy_run_affine(h, &b);
      expand_into_model(m, &b);
      if (epilogue) {
        /* the column's next element after the block, as a loop's
         * remainder: held back into the next segment */
        cb_access rest = {.addr = A + S * rowA + 8 * t, .site = 3, .size = 8};
        cb_hierarchy_run(h, &rest, 1);
        ref_access(m, rest.addr, 8, false, 3, false);
      }
      if (rnd(1000) == 0) {
        cb_hierarchy_access(h, B, 8, true, 4);
        ref_access(m, B, 8, true, 4, false);
      }
    }
}

/* covariance's inner loop, scaled down: column walks of one stride (whole
 * lines, each walk's line once per block) that move by a double per
 * outer iteration o, beside an accumulator the block stores to on every
 * iteration (stride 0, `cov[i][j]`), then records: the accumulator's
 * line, and a store moving down a column or along a row (`cov[j][i]`).
 * memo_closed.c's closed form covers the parts where the columns flood
 * the first level; its bounds on the last level's sets hit, miss or
 * straddle its ways as the stride and trip count fall. */
/* Whether every LRU level of h, after memo_settle, holds the lines the
 * model's sets hold, in the order of their last use: a skipped segment
 * must leave the state the run would have (memo.c), which a count may
 * not show until much later. */
static bool lru_state_matches(cb_hierarchy *h, const ref_model *m) {
  memo_settle(h);
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    const ref_level *rl = &m->lv[l];
    if (lv->wide || lv->policy != CB_POLICY_LRU)
      continue;
    for (uint64_t set = 0; set < rl->sets; set++) {
      const ref_way *w = rl->way + set * rl->ways;
      const uint64_t *tags = lv->tags + set * lv->assoc;
      uint64_t after = UINT64_MAX; /* ways by last use, most recent first */
      for (uint32_t k = 0; k < lv->assoc; k++) {
        const ref_way *next = NULL;
        for (uint64_t i = 0; i < rl->ways; i++)
          if (w[i].valid && w[i].last_use < after &&
              (!next || w[i].last_use > next->last_use))
            next = &w[i];
        if ((next ? next->line : NO_LINE) != tags[k])
          return false;
        after = next ? next->last_use : 0;
      }
    }
  }
  return true;
}

/* Appends `count` stores to the accumulator at addr (stride 0, site) to
 * the block's n accesses in a, runs the block and the model. */
static void accumulators_and_run(cb_hierarchy *h, ref_model *m,
                                 cb_affine_access *a, uint32_t n,
                                 uint32_t count, uint64_t addr, uint32_t site,
                                 uint64_t n_iter) {
  for (uint32_t k = 0; k < count; k++)
    a[n++] = (cb_affine_access){
        .base = addr, .stride = 0, .site = site, .size = 8, .is_write = 1};
  cb_affine_block b = {n_iter, n, a};
  cb_hierarchy_run_affine(h, &b);
  expand_into_model(m, &b);
}

/* column_pairs' own draws, so that the other shapes' streams stay as
 * they were */
static uint64_t crnd_state = 29;
static uint64_t crnd(uint64_t n) {
  return ref_rand(&crnd_state) % n;
}

static void column_pairs(cb_hierarchy *h, ref_model *m, uint32_t line,
                         int edge) {
  uint32_t n_col = 1 + (uint32_t)crnd(3), n_fix = (uint32_t)crnd(3);
  int64_t stride = (int64_t)line * (int64_t)(1 + crnd(crnd(2) ? 40 : 2));
  if (crnd(4) == 0)
    stride = -stride;
  if (edge) { /* one column of one line's stride: its sets' counts exact */
    n_col = 1;
    stride = (int64_t)line;
  }
  /* the first level's sets, ways and the lines its sets see per block:
   * a trip count near the flood (memo_closed.c: more than `ways` lines in
   * each set) half the time */
  const cb_level *l1 = &h->levels[0];
  uint64_t sets = l1->set_mask + 1, ways = l1->assoc;
  uint64_t km = (uint64_t)(stride / (int64_t)line) & (sets - 1);
  uint64_t period = sets / (km ? km & (0 - km) : sets);
  /* and the last level's, whose bound may straddle its ways */
  const cb_level *l2 = &h->levels[h->n_levels > 1 ? 1 : 0];
  uint64_t sets2 = l2->set_mask + 1, ways2 = l2->assoc;
  uint64_t km2 = (uint64_t)(stride / (int64_t)line) & (sets2 - 1);
  uint64_t period2 = sets2 / (km2 ? km2 & (0 - km2) : sets2);
  /* edge 1: every first-level set gets `ways` lines, no more (not a
   * flood); edge 2: half the last level's sets get `ways`, half one more
   * (its bounds straddle) */
  uint64_t pick = edge ? 2 + (uint64_t)edge : crnd(3);
  uint64_t n_iter = pick == 0   ? 64 + crnd(400)
                    : pick == 1 ? period * (ways - 1 + crnd(3)) + crnd(period)
                    : pick == 2
                        ? period2 * (ways2 - 1 + crnd(3)) + crnd(period2)
                    : pick == 3 ? period * ways
                                : period2 * ways2 + period2 / 2;
  uint64_t outer = 16 + crnd(48);
  /* the accumulator's record, or a burst of records */
  bool acc_rec = crnd(2);
  uint64_t data = 0x40000000ull + line * crnd(64) + 8 * crnd(8);
  uint64_t acc = 0x50000000ull + 8 * crnd(64);
  uint64_t rec = 0x60000000ull + 8 * crnd(8);
  uint64_t rec_step = crnd(2) ? line * (1 + crnd(40)) + 8 * crnd(8) : 8;
  uint64_t col[3];
  for (uint32_t j = 0; j < n_col; j++)
    col[j] = data + line * crnd(64) +
             (stride < 0 ? n_iter * (uint64_t)(-stride) : 0);
  /* or the first column starting in the accumulator's last-level set
   * (its first line referenced before the accumulator's) */
  if (crnd(3) == 0)
    col[0] = acc + sets2 * line * (1 + crnd(8)) +
             (stride < 0 ? n_iter * (uint64_t)(-stride) : 0);
  /* or the record on the first column's line of row o: a column
   * reference that hits in the segment */
  bool on_column = crnd(4) == 0;
  for (uint64_t o = 0; o < outer; o++) {
    cb_access r[16];
    uint32_t nr = 0;
    r[nr++] = (cb_access){
        .addr = on_column ? col[0] + 8 * o + (o % n_iter) * (uint64_t)stride
                          : rec + o * rec_step,
        .site = 5,
        .size = 8,
        .is_write = 1};
    if (acc_rec)
      r[nr++] =
          (cb_access){.addr = acc + 8 * o, .site = 4, .size = 8, .is_write = 1};
    else
      /* a burst of records in another first-level set, now and then in
       * the accumulator's (which pushes it out) */
      for (uint64_t k = 1, other = line * (1 + crnd(sets - 1)),
                    to = crnd(4) == 0 ? 0 : other;
           k <= ways + 2; k++)
        r[nr++] = (cb_access){
            .addr = acc + 8 * o + k * sets * line + to, .site = 4, .size = 8};
    cb_hierarchy_run(h, r, nr);
    for (uint32_t i = 0; i < nr; i++)
      ref_access(m, r[i].addr, 8, r[i].is_write, r[i].site, false);
    cb_affine_access a[5];
    uint32_t n = 0;
    for (uint32_t j = 0; j < n_col; j++)
      a[n++] = (cb_affine_access){
          .base = col[j] + 8 * o, .stride = stride, .site = 1 + j, .size = 8};
    accumulators_and_run(h, m, a, n, n_fix, acc + 8 * o, 0, n_iter);
  }
}

/* 3mm's inner loop, scaled down: a row (A[i][k], one or two accesses a
 * double apart, as the compiler's unrolling makes them) beside columns
 * of B of one stride, and an accumulator kept in memory (E[i][j], stride
 * 0) with its record (`E[i][j] = 0`) before the block; the columns and
 * the accumulator move by a double per outer iteration o, so segments
 * repeat whole for runs of o, and the accumulator reaches a new line
 * every few runs. memo_closed_seg.c's closed form takes the runs where
 * the columns flood the first level; trip counts near its bounds half
 * the time. */
static void row_columns(cb_hierarchy *h, ref_model *m, uint32_t line,
                        int edge) {
  const cb_level *l1 = &h->levels[0];
  const cb_level *l2 = &h->levels[h->n_levels > 1 ? 1 : 0];
  uint64_t sets = l1->set_mask + 1, ways = l1->assoc;
  uint32_t n_col = 1 + (uint32_t)crnd(2), n_row = (uint32_t)crnd(3);
  uint32_t n_fix = (uint32_t)crnd(3);
  int64_t stride = (int64_t)line * (int64_t)(1 + crnd(crnd(2) ? 40 : 3));
  if (crnd(4) == 0)
    stride = -stride;
  uint64_t km = (uint64_t)(stride / (int64_t)line) & (sets - 1);
  uint64_t period = sets / (km ? km & (0 - km) : sets);
  uint64_t n_iter = crnd(2) ? 32 + crnd(300)
                            : period * (ways - 1 + crnd(4)) / n_col + crnd(8);
  if (n_iter == 0)
    n_iter = 1;
  /* the bounds' edges, one column of a line's stride: 1, a last-level
   * set gets one line more than its ways; 2, a first-level set exactly
   * its ways; 3, one more, with a row of doubles two accesses wide, whose
   * lines stay nine iterations (two of the column's lines in the set come
   * while they do); 4, below */
  const uint64_t sets2 = l2->set_mask + 1, ways2 = l2->assoc;
  if (edge) {
    n_col = 1;
    stride = (int64_t)line;
    n_row = edge == 3 ? 2 : 0;
    n_iter = edge == 1 ? sets2 * (ways2 + 1) : sets * (ways + (edge == 3));
  }
  int64_t row_stride = edge == 3 ? 8 : crnd(2) ? 16 : 8;
  if (crnd(5) == 0)
    row_stride = -row_stride;
  uint64_t row = 0x30000000ull + 8 * crnd(64) +
                 (row_stride < 0 ? n_iter * (uint64_t)(-row_stride) : 0);
  uint64_t col = 0x40000000ull + line * crnd(64) +
                 (stride < 0 ? n_iter * (uint64_t)(-stride) : 0);
  uint64_t col2 = col + line * (1 + crnd(2 * sets)) + 8 * crnd(8);
  uint64_t acc = 0x50000000ull + 8 * crnd(64);
  /* none, the accumulator's, one elsewhere, one that moves, or one in
   * the accumulator's last-level set before it (memo_closed_seg.c's
   * allowance does not hold) */
  uint32_t recs = (uint32_t)crnd(5);
  if (edge == 4) { /* a record in the accumulator's last-level set */
    n_col = 1;
    n_fix = 1;
    recs = 4;
    n_iter = 32 + crnd(300);
  }
  uint64_t other = 0x60000000ull + line * crnd(4 * sets);
  bool pair = crnd(3) == 0;
  uint64_t outer = 16 + crnd(48);
  for (uint64_t o = 0; o < outer; o++) {
    cb_access r = {.addr = recs == 1   ? acc + 8 * o
                           : recs == 2 ? other
                           : recs == 3 ? other + 8 * o
                                       : acc + 8 * o + sets2 * line,
                   .site = 0,
                   .size = 8,
                   .is_write = recs == 1};
    if (recs) {
      /* the one elsewhere read and written back, as a scalar in memory */
      cb_access rr[2] = {r, r};
      rr[1].is_write = 1;
      rr[1].site = 7;
      uint32_t nr = recs == 2 ? 2 : 1;
      cb_hierarchy_run(h, rr, nr);
      for (uint32_t i = 0; i < nr; i++)
        ref_access(m, rr[i].addr, 8, rr[i].is_write, rr[i].site, false);
    }
    cb_affine_access a[8];
    uint32_t n = 0;
    for (uint32_t k = 0; k < n_row; k++)
      a[n++] = (cb_affine_access){
          .base = row + 8 * k, .stride = row_stride, .site = 1 + k, .size = 8};
    for (uint32_t k = 0; k < n_col; k++)
      a[n++] = (cb_affine_access){.base = (k ? col2 : col) + 8 * o,
                                  .stride = stride,
                                  .site = 3 + k,
                                  .size = 8};
    if (pair) /* the first column's element stored back */
      a[n++] = (cb_affine_access){.base = col + 8 * o,
                                  .stride = stride,
                                  .site = 6,
                                  .size = 8,
                                  .is_write = 1};
    accumulators_and_run(h, m, a, n, n_fix, acc + 8 * o, 5, n_iter);
  }
}

static uint64_t skipped_total, skipped_pairs, in_parts, parts_counted;
static uint64_t skipped_long, tails_long, by_state_long, cuts_long;
static uint64_t ring_drops, ring_grown, skipped_small_ring;
static uint64_t parts_by_levels[4]; /* counted, by the hierarchy's depth */
static uint64_t parts_wide;         /* counted with a wide level: none */
static uint64_t parts_closed;       /* steady by the closed form */
static uint64_t segments_closed;    /* steady after run 1, whole */
static uint64_t closed_fit, closed_by_ll; /* of which: no first-level miss;
                                             checked by the last level */

static void memo_case(const cb_cache_config *cfg, bool expect_memo,
                      const char *what) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 8, 0, err, sizeof err);
  CHECK(h != NULL);
  if (!h)
    return;
  CHECK(expect_memo == (h->memo != NULL));
  /* the test's blocks are short: every other case runs them part by part
   * all the same */
  if (h->memo && rnd(2))
    h->memo->parts.min_refs = 0;
  /* the nests' segments rarely repeat after a closed form: take it every
   * time all the same */
  if (h->memo)
    h->memo->closed_slack = UINT64_MAX / 4;
  /* the long memo's probes every few segments in half the cases, so
   * that repetition 2 is cut where the repetitions here (64 to 127
   * segments) meet their state early; in the others as in a run */
  if (h->memo && h->memo->lng && h->memo->lng->probe && rnd(2)) {
    h->memo->lng->probe_every = 4 + rnd(28);
    h->memo->lng->probe_acc = 0;
  }
  /* the long memo's ring in 4 to 16 KiB in a third of the cases: it
   * then loses the repetition before (a candidate fails) or would write
   * over owed segments (the candidate is dropped, the owed run); in half
   * of them it may double twice (ring_grow: every segment put before is
   * given up) */
  bool small_ring = h->memo && h->memo->lng && rnd(3) == 0;
  if (small_ring) {
    h->memo->lng->arena_bytes = 4096 + rnd(12289);
    h->memo->lng->arena_max = h->memo->lng->arena_bytes << 2 * rnd(2);
  }
  ref_model m;
  ref_init(&m, cfg, 8);
  uint32_t line = cfg->levels[0].line;
  for (int k = 0; k < 24; k++)
    nest(h, &m, line, 64 * 1024, 8 + (uint32_t)rnd(64));
  /* a lone access settles what is held back */
  cb_hierarchy_access(h, 0x10000040, 8, false, 1);
  ref_access(&m, 0x10000040, 8, false, 1, false);
  for (int k = 0; k < 4; k++)
    nest(h, &m, line, 16 * 1024, 8 + (uint32_t)rnd(40));
  static unsigned cases;
  square_nest(h, &m, line, cases++ & 1); /* not rnd(): the same stream */
  nest(h, &m, line, 16 * 1024, 8 + (uint32_t)rnd(40));
  for (int k = 0; k < 6; k++) {
    column_pairs(h, &m, line, k < 2 ? k + 1 : 0);
    CHECK(lru_state_matches(h, &m));
  }
  for (int k = 0; k < 8; k++) {
    row_columns(h, &m, line, k < 4 ? k + 1 : 0);
    CHECK(lru_state_matches(h, &m));
  }
  int bad = ref_compare(h, &m, false, what);
  if (bad)
    fprintf(stderr, "%s: differs from the model\n", what);
  CHECK(bad == 0);
  if (h->memo) {
    uint64_t did = h->memo->skipped + h->memo->parts.counted +
                   (h->memo->lng ? h->memo->lng->skipped : 0);
    CHECK(did > 0);
    if (did == 0)
      fprintf(stderr, "%s: nothing skipped or counted\n", what);
    skipped_total += h->memo->skipped;
    skipped_pairs += h->memo->skipped_pair;
    in_parts += h->memo->parts.segments;
    skipped_long += h->memo->lng ? h->memo->lng->skipped : 0;
    tails_long += h->memo->lng ? h->memo->lng->tails : 0;
    by_state_long += h->memo->lng ? h->memo->lng->steady_by_state : 0;
    cuts_long += h->memo->lng ? h->memo->lng->cuts : 0;
    ring_drops += h->memo->lng ? h->memo->lng->ring_drops : 0;
    ring_grown += h->memo->lng ? h->memo->lng->ring_grown : 0;
    if (small_ring)
      skipped_small_ring += h->memo->lng->skipped;
    parts_counted += h->memo->parts.counted;
    parts_closed += h->memo->parts.closed;
    segments_closed += h->memo->closed;
    closed_fit += h->memo->closed_fit;
    closed_by_ll += h->memo->closed_by_ll;
    bool wide = false;
    for (unsigned l = 0; l < h->n_levels; l++)
      wide |= h->levels[l].wide != NULL;
    if (wide)
      parts_wide += h->memo->parts.counted;
    else
      parts_by_levels[h->n_levels] += h->memo->parts.counted;
  }
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

/* The long memo's ring about one repetition long: 64 segments of
 * alternately none and three records before a one-access block (40 and
 * 88 bytes in the ring, 4096 a unit), repeated 8 times, through rings of
 * a unit's bytes give or take: segments skipped where the ring holds a
 * repetition and the one compared with, none where it does not, and the
 * counts the model's either way. (A segment put over an owed one, which
 * memo_long_take guards against, is not made here: equal repetitions
 * take equal room, so each is put where the one before was.) */
static void tight_ring(const cb_cache_config *cfg, uint64_t arena) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 8, 0, err, sizeof err);
  CHECK(h && h->memo && h->memo->lng);
  if (!h || !h->memo || !h->memo->lng)
    return;
  h->memo->lng->arena_bytes = h->memo->lng->arena_max = arena;
  ref_model m;
  ref_init(&m, cfg, 8);
  for (int rep = 0; rep < 8; rep++)
    for (uint64_t k = 0; k < 64; k++) {
      for (uint32_t r = 0; k % 2 && r < 3; r++) {
        cb_access x = {
            .addr = 0x900000 + 4096 * r + 64 * k, .site = 2, .size = 8};
        cb_hierarchy_run(h, &x, 1);
        ref_access(&m, x.addr, 8, false, 2, false);
      }
      cb_affine_access a = {
          .base = 0x100000 + 8192 * k, .stride = 64, .site = 1, .size = 8};
      cb_affine_block b = {16, 1, &a};
      cb_hierarchy_run_affine(h, &b);
      expand_into_model(&m, &b);
    }
  CHECK(ref_compare(h, &m, false, "tight ring") == 0);
  ring_drops += h->memo->lng->ring_drops;
  skipped_small_ring += h->memo->lng->skipped;
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

int main(void) {
  char what[160];
  for (int rep = 0; rep < 16; rep++) {
    cb_cache_config one, two, three;
    memo_shapes(&one, &two, &three);
    snprintf(what, sizeof what, "one level, rep %d", rep);
    memo_case(&one, true, what);
    snprintf(what, sizeof what, "two levels, rep %d", rep);
    memo_case(&two, true, what);
    snprintf(what, sizeof what, "three levels, rep %d", rep);
    memo_case(&three, true, what);
    /* a last level of fewer ways than the first: lines stay in the first
     * level after the last one lost them (memo_closed_ll must find run
     * 2's last-level references held) */
    cb_cache_config small_ll = two;
    small_ll.levels[1] = lvl("LL", 8192, 4, 64, CB_POLICY_LRU, true, 2);
    snprintf(what, sizeof what, "two levels, 4-way LL, rep %d", rep);
    memo_case(&small_ll, true, what);
    /* the same without the wide set: parts of two address bits */
    cb_cache_config three_parts = three;
    three_parts.levels[2].assoc = 16;
    snprintf(what, sizeof what, "three levels, 16-way LL, rep %d", rep);
    memo_case(&three_parts, true, what);
    /* where the argument does not hold the memo stays off */
    for (int p = CB_POLICY_FIFO; p <= CB_POLICY_RANDOM; p++) {
      cb_cache_config other = two;
      other.levels[rep % 2].policy = (cb_policy)p;
      snprintf(what, sizeof what, "policy %s, rep %d",
               cb_policy_name((cb_policy)p), rep);
      memo_case(&other, false, what);
    }
    cb_cache_config no_wa = two;
    no_wa.levels[1].write_allocate = false;
    snprintf(what, sizeof what, "no write-allocate, rep %d", rep);
    memo_case(&no_wa, false, what);
  }
  {
    cb_cache_config one, two, three;
    memo_shapes(&one, &two, &three);
    for (uint64_t arena = 4096 - 64; arena <= 4096 + 160; arena += 4)
      tight_ring(&two, arena);
  }
  printf("%llu segments skipped, %llu of them by period 2; %llu run part "
         "by part, %llu parts counted\n",
         (unsigned long long)skipped_total, (unsigned long long)skipped_pairs,
         (unsigned long long)in_parts, (unsigned long long)parts_counted);
  printf("%llu segments skipped by the long memo, %llu breaks resumed from "
         "a repetition's tail\n",
         (unsigned long long)skipped_long, (unsigned long long)tails_long);
  CHECK(skipped_total > 0);
  CHECK(skipped_long > 0);
  CHECK(tails_long > 0);
  printf("%llu repetitions found steady by their state\n",
         (unsigned long long)by_state_long);
  CHECK(by_state_long > 0);
  printf("%llu repetitions 2 cut short at a probe's state\n",
         (unsigned long long)cuts_long);
  CHECK(cuts_long > 0);
  printf("%llu long candidates dropped not to write over owed segments; "
         "%llu segments skipped by the long memo in a small ring\n",
         (unsigned long long)ring_drops,
         (unsigned long long)skipped_small_ring);
  CHECK(skipped_small_ring > 0);
  printf("%llu times a small ring doubled\n", (unsigned long long)ring_grown);
  CHECK(ring_grown > 0);
  CHECK(skipped_pairs > 0);
  CHECK(in_parts > 0);
  for (int l = 1; l <= 3; l++) {
    printf("  %d level(s): %llu parts counted\n", l,
           (unsigned long long)parts_by_levels[l]);
    CHECK(parts_by_levels[l] > 0);
  }
  printf("%llu parts found steady by the closed form\n",
         (unsigned long long)parts_closed);
  CHECK(parts_closed > 0);
  printf("%llu segments found steady after one run by the closed form\n",
         (unsigned long long)segments_closed);
  CHECK(segments_closed > 0);
  printf("  of which %llu within the first level's ways, %llu checked by the "
         "last level's state\n",
         (unsigned long long)closed_fit, (unsigned long long)closed_by_ll);
  CHECK(closed_fit > 0);
  CHECK(closed_by_ll > 0);
  /* parts are off with a wide level (memo_parts_init) */
  CHECK(parts_wide == 0);
  return check_done();
}
