/* The segment memo's closed form (memo.h): a segment run whole for the
 * first time (run 1 of a stretch of equal segments) whose second run is
 * known without running it, so that the segment memo counts the equal
 * segments after it from run 2 on, where it ran and measured run 2.
 * 2mm's, 3mm's and doitgen's inner loops, a row of A beside columns of
 * B and an accumulator the compiler keeps in memory, repeat their lines
 * for four or eight segments: run 2 was a third to a half of what their
 * simulation ran.
 *
 * Why that is exact (two LRU levels that allocate, memo_init, with one
 * line size). The block's accesses are columns (one stride of K whole
 * lines, at least one line), rows (one stride of less than a line, their
 * bases within a line of each other) and fixed (stride 0); no line is
 * referenced by two kinds, or twice by the columns, or by two records
 * unless it is a fixed line; at most `ways` accesses. Run X, the
 * segment, again: a reference hits the first level iff fewer than
 * `ways` other lines of its set were referenced since its line's last
 * reference, which is in this run or the one before, so in run 2:
 * - a column line (referenced once a run) is behind all the others of
 *   its set, D_s - 1 of them: it misses where every set the columns
 *   reach gets more than `ways` column lines (the class bounds of
 *   memo_closed.c);
 * - a row line is referenced in a window of consecutive iterations: its
 *   references after the first hit (fewer than an iteration's accesses
 *   come between), and its first finds behind it every line referenced
 *   outside the window: it misses where its set gets `ways` column lines
 *   or more outside any window, and hits where no column reaches its set
 *   and fewer than `ways` lines (rows, fixed and records, bounded) do;
 * - a fixed line, or a record on one, hits: fewer than `ways` references
 *   (an iteration's, and the records) come between two of its;
 * - any other record's line is referenced once a run, and misses where
 *   columns flood its set.
 * If run 1 had the same first-level outcome, reference by reference
 * (each site's misses are its expected ones: where a site's references
 * cannot swap outcomes, that pins them), the last level sees the same
 * sequence in both runs; each line in it is referenced once a run, so
 * it hits iff its set gets at most `ways` such lines a run: bounded by
 * the columns' class bounds, the rows' share of the set and the records.
 * Only the case where every last-level set stays within its ways is
 * taken: run 2 counts what run 1 counted at the first level and hits the
 * last everywhere, and changes no state (both levels see one sequence
 * again, f_X(f_X(s)) = f_X(s), memo.c). */
#include "hierarchy_internal.h"

#include <string.h>

/* A repeat: a column on an earlier column's lines (a load and the store
 * of the same element), which hits in every run. */
enum { KIND_COLUMN, KIND_ROW, KIND_FIXED, KIND_REPEAT };

/* The block's shape, as the argument needs it. */
typedef struct seg_shape {
  uint32_t n, kind[MEMO_MAX_ACC];
  uint64_t line[MEMO_MAX_ACC]; /* each access's first line */
  int64_t K;                   /* the columns' step in lines */
  int64_t row_stride;          /* bytes */
  uint64_t row_lo, row_hi;     /* the rows' lines, first to last */
  uint32_t n_col, n_row, n_fix;
} seg_shape;

/* Whether column line progression L + t K (t < n_iter) meets the lines
 * [lo, hi]. */
static bool column_meets(uint64_t L, int64_t K, uint64_t n_iter, uint64_t lo,
                         uint64_t hi) {
  int64_t a = (int64_t)(lo - L), b = (int64_t)(hi - L);
  if (K < 0) {
    int64_t t = a;
    a = -b;
    b = -t;
    K = -K;
  }
  /* the first t >= 0 with t K >= a */
  int64_t t = a <= 0 ? 0 : (a + K - 1) / K;
  return (uint64_t)t < n_iter && t * K <= b;
}

static bool block_shape(const cb_hierarchy *h, const cb_affine_block *b,
                        seg_shape *sh) {
  const uint32_t ls = h->levels[0].line_shift;
  const uint64_t line_bytes = 1ull << ls;
  memset(sh, 0, sizeof *sh);
  sh->n = b->n_acc;
  uint64_t row_base_lo = UINT64_MAX, row_base_hi = 0, row_size = 1;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    uint64_t z = a->size ? a->size : 1;
    if ((a->base >> ls) != ((a->base + z - 1) >> ls))
      return false; /* every reference inside one line */
    uint64_t mag =
        a->stride < 0 ? 0 - (uint64_t)a->stride : (uint64_t)a->stride;
    sh->line[j] = a->base >> ls;
    if (mag == 0) {
      sh->kind[j] = KIND_FIXED;
      sh->n_fix++;
    } else if (mag < line_bytes) {
      if (sh->n_row && a->stride != sh->row_stride)
        return false;
      sh->kind[j] = KIND_ROW;
      sh->row_stride = a->stride;
      sh->n_row++;
      row_base_lo = a->base < row_base_lo ? a->base : row_base_lo;
      row_base_hi = a->base > row_base_hi ? a->base : row_base_hi;
      row_size = z > row_size ? z : row_size;
    } else {
      if ((mag & (line_bytes - 1)) != 0)
        return false;
      int64_t K = a->stride / (int64_t)line_bytes;
      if (sh->n_col && K != sh->K)
        return false;
      bool repeat = false;
      for (uint32_t i = 0; i < j; i++)
        repeat |= sh->kind[i] == KIND_COLUMN && sh->line[i] == sh->line[j];
      if (repeat) {
        sh->kind[j] = KIND_REPEAT;
        continue;
      }
      sh->kind[j] = KIND_COLUMN;
      sh->K = K;
      sh->n_col++;
    }
  }
  if (sh->n_col == 0)
    return false;
  if (sh->n_row) {
    if (row_base_hi - row_base_lo >= line_bytes)
      return false;
    uint64_t span =
        (b->n_iter - 1) *
        (uint64_t)(sh->row_stride < 0 ? -sh->row_stride : sh->row_stride);
    uint64_t first = sh->row_stride > 0 ? row_base_lo : row_base_lo - span;
    uint64_t last =
        (sh->row_stride > 0 ? row_base_hi + span : row_base_hi) + row_size - 1;
    sh->row_lo = first >> ls;
    sh->row_hi = last >> ls;
  }
  /* no line of two kinds, nor twice a column's */
  for (uint32_t j = 0; j < b->n_acc; j++)
    for (uint32_t i = 0; i < j; i++) {
      uint32_t ki = sh->kind[i], kj = sh->kind[j];
      if (ki == KIND_REPEAT || kj == KIND_REPEAT)
        continue; /* its column's */
      if (ki == KIND_COLUMN && kj == KIND_COLUMN) {
        int64_t d = (int64_t)(sh->line[j] - sh->line[i]);
        if (d % sh->K == 0 && d / sh->K < (int64_t)b->n_iter &&
            d / sh->K > -(int64_t)b->n_iter)
          return false;
      } else if (ki == KIND_COLUMN || kj == KIND_COLUMN) {
        uint32_t c = ki == KIND_COLUMN ? i : j, o = c == i ? j : i;
        uint64_t lo = sh->kind[o] == KIND_ROW ? sh->row_lo : sh->line[o];
        uint64_t hi = sh->kind[o] == KIND_ROW ? sh->row_hi : sh->line[o];
        if (column_meets(sh->line[c], sh->K, b->n_iter, lo, hi))
          return false;
      } else if (ki != kj) { /* a row and a fixed line */
        uint64_t f = ki == KIND_FIXED ? sh->line[i] : sh->line[j];
        if (f >= sh->row_lo && f <= sh->row_hi)
          return false;
      }
    }
  return true;
}

/* The records' distinct lines in the first-level set of line x. */
static uint64_t records_in_set(const seg_memo *m, uint32_t ls,
                               uint64_t set_mask, uint64_t x) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    uint64_t line = m->pend[i].addr >> ls;
    bool seen = false;
    for (uint32_t k = 0; k < i; k++)
      seen |= m->pend[k].addr >> ls == line;
    n += !seen && ((line ^ x) & set_mask) == 0;
  }
  return n;
}

/* The columns' references per set at one level for the class of sets of
 * line x (0 if they do not reach it): lower and upper bounds. */
static void column_bounds(const seg_shape *sh, uint64_t n_iter, uint64_t sets,
                          uint64_t x, uint64_t *lo, uint64_t *hi,
                          uint32_t *n_in) {
  uint64_t p = memo_set_period(sh->K, sets), g = sets / p;
  uint64_t q = n_iter / p, r = n_iter % p;
  *lo = *hi = 0;
  *n_in = 0;
  for (uint32_t j = 0; j < sh->n; j++)
    if (sh->kind[j] == KIND_COLUMN && ((sh->line[j] - x) & (g - 1)) == 0) {
      *lo += q;
      *hi += q + (r != 0);
      (*n_in)++;
    }
}

/* What run 2's first-level outcomes are, per site of run 1's list: the
 * misses expected, and whether references expected to miss or to hit
 * (that could have done otherwise in run 1) are among its. A site with
 * both is not checked by its count (two could swap outcomes). */
typedef struct expectation {
  uint64_t misses[MEMO_MAX_SITES];
  uint8_t kinds[MEMO_MAX_SITES]; /* bit 0: a miss expected, bit 1: a hit */
} expectation;

/* The entry of `site` in run 1's list, or -1. */
static int site_entry(const memo_delta *run1, uint32_t site) {
  for (uint32_t k = 0; k < run1->n_sites; k++)
    if (run1->site[k] == site)
      return (int)k;
  return -1;
}

/* n references of `site` expected to miss (or, with miss false, to
 * hit); false if the site has no counters to check against. */
static bool expect(const memo_delta *run1, expectation *e, uint32_t site,
                   bool miss, uint64_t n) {
  int k = site_entry(run1, site);
  if (k < 0)
    return false;
  e->misses[k] += miss ? n : 0;
  e->kinds[k] |= miss ? 1 : 2;
  return e->kinds[k] != 3; /* no use going on */
}

/* A fixed line's first reference of the segment may have missed in run 1
 * (the line new to the cache: 3mm's accumulator moves to a new line every
 * eight segments, its column every four). Run 1's last level then saw it,
 * and run 2's does not. That changes neither run 2's outcomes (the line
 * is not referenced there) nor the state after it, if no reference of
 * run 1 before it reached the line's last-level set: there, run 2's lines
 * move in front of it, where run 1 left them behind it already. Each
 * such first reference may be one miss more than expected, at its site
 * (allow; dir: bit 0 a read, bit 1 a write). */
static void fixed_allowances(const cb_hierarchy *h, const cb_affine_block *b,
                             const seg_shape *sh, const memo_delta *run1,
                             uint64_t *allow, uint8_t *dir) {
  const seg_memo *m = h->memo;
  const uint32_t ls = h->levels[0].line_shift;
  const uint64_t set2 = h->levels[1].set_mask;
  for (uint32_t j = 0; j < sh->n; j++) {
    if (sh->kind[j] != KIND_FIXED)
      continue;
    uint64_t f = sh->line[j];
    bool first = true; /* the first fixed access on f */
    for (uint32_t i = 0; i < j; i++)
      first &= !(sh->kind[i] == KIND_FIXED && sh->line[i] == f);
    if (!first)
      continue;
    uint32_t site = b->acc[j].site, before = m->n_pend;
    bool is_write = b->acc[j].is_write, clear = true;
    for (uint32_t i = 0; i < m->n_pend; i++)
      if (m->pend[i].addr >> ls == f) {
        site = m->pend[i].site;
        is_write = m->pend[i].is_write;
        before = i;
        break;
      }
    for (uint32_t i = 0; i < before; i++)
      clear &= ((m->pend[i].addr >> ls) & set2) != (f & set2);
    for (uint32_t i = 0; before == m->n_pend && i < j; i++)
      clear &= ((b->acc[i].base >> ls) & set2) != (f & set2);
    int k = site_entry(run1, site);
    if (clear && k >= 0) {
      allow[k]++;
      dir[k] |= is_write ? 2 : 1;
    }
  }
}

bool memo_closed_possible(const cb_hierarchy *h, const cb_affine_block *b) {
  if (h->n_levels != 2 || b->n_iter == 0 ||
      h->levels[1].line_shift != h->levels[0].line_shift ||
      b->n_acc > h->levels[0].assoc)
    return false;
  /* a column: a stride of whole lines (block_shape, on the run, says the
   * rest) */
  const uint64_t line_mask = (1ull << h->levels[0].line_shift) - 1;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    int64_t t = b->acc[j].stride;
    uint64_t mag = t < 0 ? 0 - (uint64_t)t : (uint64_t)t;
    if (mag > line_mask && (mag & line_mask) == 0)
      return true;
  }
  return false;
}

bool memo_closed_segment(const cb_hierarchy *h, const cb_affine_block *b,
                         memo_delta *d) {
  const memo_delta *run1 = d;
  const seg_memo *m = h->memo;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  const uint32_t ls = l1->line_shift;
  const uint64_t sets1 = l1->set_mask + 1, sets2 = l2->set_mask + 1;
  const uint64_t n_iter = b->n_iter;
  seg_shape sh;
  if (!block_shape(h, b, &sh))
    return false;
  expectation e;
  memset(&e, 0, sizeof e);
  /* columns: every set they reach gets more than `ways` of their lines */
  for (uint32_t j = 0; j < sh.n; j++) {
    if (sh.kind[j] != KIND_COLUMN)
      continue;
    uint64_t lo, hi;
    uint32_t n_in;
    column_bounds(&sh, n_iter, sets1, sh.line[j], &lo, &hi, &n_in);
    if (lo <= l1->assoc || !expect(run1, &e, b->acc[j].site, true, n_iter))
      return false;
  }
  /* the records: on a fixed line, or on one an earlier record took (a
   * hit: fewer than `ways` references come between), or on a line of a
   * set the columns flood (a miss), or of one they do not reach */
  const uint64_t rows_in_set1 =
      sh.n_row ? (sh.row_hi - sh.row_lo + sets1) / sets1 : 0;
  uint64_t rec_miss = 0;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i];
    uint64_t line = x->addr >> ls;
    if (line != (x->addr + (x->size ? x->size : 1) - 1) >> ls)
      return false;
    bool on_fixed = false;
    for (uint32_t j = 0; j < sh.n; j++)
      on_fixed |= sh.kind[j] == KIND_FIXED && sh.line[j] == line;
    if (on_fixed) {
      if (!expect(run1, &e, x->site, false, 1))
        return false;
      continue;
    }
    uint32_t again = UINT32_MAX; /* a record before it on its line */
    for (uint32_t k = 0; k < i; k++)
      again = m->pend[k].addr >> ls == line ? k : again;
    if (again != UINT32_MAX) {
      if (i - again - 1 >= l1->assoc)
        return false;
      continue; /* a hit: fewer than `ways` references came between */
    }
    for (uint32_t j = 0; j < sh.n; j++)
      if (sh.kind[j] == KIND_COLUMN &&
          column_meets(sh.line[j], sh.K, n_iter, line, line))
        return false;
    if (sh.n_row && line >= sh.row_lo && line <= sh.row_hi)
      return false;
    uint64_t lo, hi;
    uint32_t n_in;
    column_bounds(&sh, n_iter, sets1, line, &lo, &hi, &n_in);
    if (n_in == 0) {
      /* a set no column reaches: a hit if few lines go there (the
       * stack's slots, a scalar) */
      if (rows_in_set1 + sh.n_fix + records_in_set(m, ls, l1->set_mask, line) >=
              l1->assoc ||
          !expect(run1, &e, x->site, false, 1))
        return false;
      continue;
    }
    if (lo <= l1->assoc || !expect(run1, &e, x->site, true, 1))
      return false;
    rec_miss++;
  }
  /* fixed lines hit: an iteration's other references and the records in
   * their set come between */
  for (uint32_t j = 0; j < sh.n; j++)
    if (sh.kind[j] == KIND_FIXED &&
        sh.n - 1 + records_in_set(m, ls, l1->set_mask, sh.line[j]) >= l1->assoc)
      return false;
  for (uint32_t j = 0; j < sh.n; j++)
    if (sh.kind[j] == KIND_FIXED &&
        !expect(run1, &e, b->acc[j].site, false, n_iter))
      return false;
  /* rows: each line's first reference, by the access that makes it */
  uint64_t row_lines_per_set1 = 0, row_lines_per_set2 = 0;
  if (sh.n_row) {
    const uint64_t mag =
        (uint64_t)(sh.row_stride < 0 ? -sh.row_stride : sh.row_stride);
    const uint64_t n_lines = sh.row_hi - sh.row_lo + 1;
    row_lines_per_set1 = rows_in_set1;
    row_lines_per_set2 = (n_lines + sets2 - 1) / sets2;
    /* a window: the iterations touching one line, all rows together */
    const uint64_t window = ((2ull << ls) / mag) + 2;
    for (uint64_t x = sh.row_lo; x <= sh.row_hi; x++) {
      uint64_t lo, hi;
      uint32_t n_in;
      column_bounds(&sh, n_iter, sets1, x, &lo, &hi, &n_in);
      uint64_t p1 = memo_set_period(sh.K, sets1);
      bool miss;
      if (n_in == 0) {
        if (row_lines_per_set1 + sh.n_fix + m->n_pend >= l1->assoc)
          return false;
        miss = false; /* too few lines in its set to push it out */
      } else if (lo >= l1->assoc + n_in * ((window + p1 - 1) / p1)) {
        miss = true;
      } else {
        return false;
      }
      /* the first reference to x: the earliest iteration, then the
       * first access in the iteration (the others hit in every run) */
      uint64_t best_t = UINT64_MAX;
      uint32_t best = 0;
      for (uint32_t j = 0; j < sh.n; j++) {
        if (sh.kind[j] != KIND_ROW)
          continue;
        uint64_t base = b->acc[j].base, t;
        uint64_t x0 = x << ls, x1 = x0 + (1ull << ls) - 1;
        if (sh.row_stride > 0) {
          if (base > x1)
            continue;
          t = base >= x0 ? 0 : (x0 - base + mag - 1) / mag;
          if (base + t * mag > x1)
            continue;
        } else {
          if (base < x0)
            continue;
          t = base <= x1 ? 0 : (base - x1 + mag - 1) / mag;
          if (base - t * mag < x0)
            continue;
        }
        if (t < n_iter && t < best_t) {
          best_t = t;
          best = j;
        }
      }
      if (best_t == UINT64_MAX || !expect(run1, &e, b->acc[best].site, miss, 1))
        return false;
    }
  }
  /* the last level: every set within its ways (columns, rows, records
   * that miss) */
  for (uint32_t j = 0; j < sh.n; j++) {
    if (sh.kind[j] != KIND_COLUMN)
      continue;
    uint64_t lo, hi;
    uint32_t n_in;
    column_bounds(&sh, n_iter, sets2, sh.line[j], &lo, &hi, &n_in);
    if (hi + row_lines_per_set2 + rec_miss > l2->assoc)
      return false;
  }
  if (row_lines_per_set2 + rec_miss > l2->assoc)
    return false;
  /* run 1 made the first-level outcomes run 2 will, site by site: every
   * reference had its site listed (expect), and a site whose count pins
   * its references' outcomes missed as expected, or, where a fixed line's
   * first reference may have missed once, by as many more */
  uint64_t allow[MEMO_MAX_SITES] = {0};
  uint8_t dir[MEMO_MAX_SITES] = {0};
  fixed_allowances(h, b, &sh, run1, allow, dir);
  for (uint32_t k = 0; k < run1->n_sites; k++) {
    uint64_t got = run1->site_misses[k][0];
    if (e.kinds[k] == 3 || got < e.misses[k] ||
        got - e.misses[k] > ((e.kinds[k] & 1) || dir[k] == 3 ? 0 : allow[k]))
      return false;
  }
  /* d becomes run 2's: the first level's misses those expected, the last
   * level's accesses those misses, every one a hit */
  for (uint32_t k = 0; k < d->n_sites; k++) {
    uint64_t more = d->site_misses[k][0] - e.misses[k];
    d->site_misses[k][0] -= more;
    d->site_accesses[k][1] -= more;
    d->site_misses[k][1] = 0;
    d->misses[0] -= more;
    d->accesses[1] -= more;
    if (dir[k] == 2) {
      d->write_misses[0] -= more;
      d->writes[1] -= more;
    }
  }
  d->misses[1] = d->write_misses[1] = 0;
  return true;
}
