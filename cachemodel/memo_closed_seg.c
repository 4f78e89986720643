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
 * Where every last-level set stays within its ways, run 2 counts what
 * run 1 counted at the first level and hits the last everywhere, and
 * changes no state (both levels see one sequence again, f_X(f_X(s)) =
 * f_X(s), memo.c). Where that check cannot be made (a site whose
 * references could swap outcomes: doitgen's row crosses sets its column
 * floods and sets it never reaches) or fails, the last level's state
 * after run 1 decides instead (memo_closed_ll), and run 2's change to it
 * is made when run 2 comes. And where no first-level set gets more lines
 * than its ways, run 2 hits the first level everywhere
 * (fits_first_level). */
#include "hierarchy_internal.h"

#include <stdlib.h>
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
      /* inside one line on every iteration, not only the first: a
       * power-of-two size that divides the base and the stride */
      if ((z & (z - 1)) != 0 || (a->base & (z - 1)) != 0 ||
          (mag & (z - 1)) != 0)
        return false;
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

/* The steps of mag bytes (lg: log2 of mag, or -1) that cover a bytes,
 * rounded up: a shift for the common strides. */
static inline uint64_t steps_up(uint64_t a, uint64_t mag, int lg) {
  return lg >= 0 ? (a + mag - 1) >> lg : (a + mag - 1) / mag;
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

/* The columns whose sets (every g-th, g = sets / period) include line
 * x's. */
static uint32_t columns_in_class(const seg_shape *sh, uint64_t g, uint64_t x) {
  uint32_t n = 0;
  for (uint32_t j = 0; j < sh->n; j++)
    n += sh->kind[j] == KIND_COLUMN && ((sh->line[j] - x) & (g - 1)) == 0;
  return n;
}

/* The columns' references per set at one level for the class of sets of
 * line x (0 if they do not reach it): lower and upper bounds. */
static void column_bounds(const seg_shape *sh, uint64_t n_iter, uint64_t sets,
                          uint64_t x, uint64_t *lo, uint64_t *hi,
                          uint32_t *n_in) {
  uint64_t p = memo_set_period(sh->K, sets);
  uint64_t q = n_iter / p, r = n_iter % p;
  *n_in = columns_in_class(sh, sets / p, x);
  *lo = *n_in * q;
  *hi = *n_in * (q + (r != 0));
}

/* What run 2's first-level outcomes are, per site of run 1's list: the
 * misses expected, and whether references expected to miss or to hit
 * (that could have done otherwise in run 1) are among its. A site with
 * both is not checked by its count (two could swap outcomes). */
typedef struct expectation {
  uint64_t misses[MEMO_MAX_SITES], write_misses[MEMO_MAX_SITES];
  uint8_t kinds[MEMO_MAX_SITES]; /* bit 0: a miss expected, bit 1: a hit */
} expectation;

/* A row line's first reference in run 2 that misses: iteration t,
 * access j, line x (the last level's check builds run 2's sequence of
 * last-level references from them, memo_closed_ll). */
typedef struct row_miss {
  uint64_t t, x;
  uint32_t j;
} row_miss;
#define MAX_ROW_MISSES 512

/* The entry of `site` in run 1's list, or -1. */
static int site_entry(const memo_delta *run1, uint32_t site) {
  for (uint32_t k = 0; k < run1->n_sites; k++)
    if (run1->site[k] == site)
      return (int)k;
  return -1;
}

/* n references of `site` (writes or not) expected to miss (or, with
 * miss false, to hit); false if the site has no counters. */
static bool expect(const memo_delta *run1, expectation *e, uint32_t site,
                   bool is_write, bool miss, uint64_t n) {
  int k = site_entry(run1, site);
  if (k < 0)
    return false;
  e->misses[k] += miss ? n : 0;
  e->write_misses[k] += miss && is_write ? n : 0;
  e->kinds[k] |= miss ? 1 : 2;
  return true;
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

/* Whether no first-level set gets more lines in a run than its ways:
 * syrk's columns, shorter than the sets times the ways for its first
 * rows. Then every reference of run 2 hits the first level (fewer than
 * `ways` other lines of its set come between two references of a line),
 * the last level sees none, and run 1 left the model at the fixed point
 * (the first level's f_X(f_X(s)) = f_X(s), memo_closed_ll). Bounds per
 * set: the columns' class bounds, the rows' lines in a set, every fixed
 * line and record. */
static bool fits_first_level(const cb_hierarchy *h, const cb_affine_block *b,
                             const seg_shape *sh) {
  const cb_level *l1 = &h->levels[0];
  const uint64_t sets1 = l1->set_mask + 1;
  const uint64_t others =
      (sh->n_row ? (sh->row_hi - sh->row_lo + sets1) / sets1 : 0) + sh->n_fix +
      h->memo->n_pend;
  if (others > l1->assoc)
    return false;
  for (uint32_t j = 0; j < sh->n; j++) {
    if (sh->kind[j] != KIND_COLUMN)
      continue;
    uint64_t lo, hi;
    uint32_t n_in;
    column_bounds(sh, b->n_iter, sets1, sh->line[j], &lo, &hi, &n_in);
    if (hi + others > l1->assoc)
      return false;
  }
  return true;
}

/* d becomes run 2's from the expectation alone: each site's first-level
 * misses those expected, the last level's accesses those misses, every
 * one a hit; the first level's accesses and writes stay run 1's. */
static void closed_counts(memo_delta *d, const expectation *e) {
  uint64_t misses = 0, write_misses = 0;
  for (uint32_t k = 0; k < d->n_sites; k++) {
    d->site_misses[k][0] = e->misses[k];
    d->site_accesses[k][1] = e->misses[k];
    d->site_misses[k][1] = 0;
    misses += e->misses[k];
    write_misses += e->write_misses[k];
  }
  d->misses[0] = d->accesses[1] = misses;
  d->write_misses[0] = d->writes[1] = write_misses;
  d->misses[1] = d->write_misses[1] = 0;
}

/* The most last-level references of run 2 the check below takes, and
 * the flag of a set out of run 2's order in its mark (m->ll_mark). */
#define LL_REFS_MAX (1u << 16)
#define LL_UNORDERED (1ull << 31)

/* Run 2's last-level references, in order, into m->ll_refs: the records
 * that miss (bit i of rec_misses), then iteration by iteration, access
 * by access, the columns' lines and the row lines' first references
 * that miss (rows, sorted here by iteration and access). False if they
 * are more than LL_REFS_MAX or memory runs out. */
static bool run2_refs(seg_memo *m, const cb_affine_block *b,
                      const seg_shape *sh, uint32_t ls, uint64_t rec_misses,
                      row_miss *rows, uint32_t n_rows, uint32_t *n_out) {
  if (b->n_iter > LL_REFS_MAX || (uint64_t)__builtin_popcountll(rec_misses) +
                                         b->n_iter * sh->n_col + n_rows >
                                     LL_REFS_MAX)
    return false;
  if (!m->ll_refs && !(m->ll_refs = malloc(LL_REFS_MAX * sizeof *m->ll_refs)))
    return false;
  for (uint32_t i = 1; i < n_rows; i++) /* nearly sorted: by line */
    for (uint32_t k = i;
         k > 0 && (rows[k].t < rows[k - 1].t ||
                   (rows[k].t == rows[k - 1].t && rows[k].j < rows[k - 1].j));
         k--) {
      row_miss x = rows[k];
      rows[k] = rows[k - 1];
      rows[k - 1] = x;
    }
  uint64_t *out = m->ll_refs;
  uint32_t n = 0, r = 0, n_col = 0;
  uint64_t col[MEMO_MAX_ACC]; /* the columns' lines, in access order */
  for (uint32_t j = 0; j < sh->n; j++)
    if (sh->kind[j] == KIND_COLUMN)
      col[n_col++] = sh->line[j];
  for (uint32_t i = 0; i < m->n_pend; i++)
    if (rec_misses >> i & 1)
      out[n++] = m->pend[i].addr >> ls;
  const uint64_t K = (uint64_t)sh->K;
  for (uint64_t t = 0; t < b->n_iter; t++) {
    if (r < n_rows && rows[r].t == t) {
      /* a row line's first reference among the columns' */
      for (uint32_t j = 0; j < sh->n; j++) {
        if (sh->kind[j] == KIND_COLUMN)
          out[n++] = sh->line[j] + t * K;
        else if (r < n_rows && rows[r].t == t && rows[r].j == j)
          out[n++] = rows[r++].x;
      }
      continue;
    }
    for (uint32_t c = 0; c < n_col; c++)
      out[n++] = col[c] + t * K;
  }
  *n_out = n;
  return r == n_rows;
}

/* The check of run 1 by the last level's state, where its first-level
 * outcomes may not have been run 2's: doitgen's row of A crosses sets
 * its column of C4 floods and sets it never reaches, and each new
 * column of C4 floods others than the one before, so that run 1 missed
 * where run 2 hits and hit where run 2 misses, at one site. Run 2 is
 * known all the same. The first level's state after run 1 is already
 * its fixed point (under LRU with allocation every reference takes its
 * line to the front whether it hit or not, so X run from any state
 * leaves X's lines in front in the order of their last reference and
 * the others behind as they were: f_X(f_X(s)) = f_X(s)), and its
 * outcomes in run 2 are the expected ones. The last level sees S, the
 * misses of run 2 in order: if it holds every line of S when run 2
 * starts, every reference of S hits (a hit evicts nothing), and it ends
 * as f_S(ll), each line of S moved to the front of its set in turn. That
 * is ll itself where each set's lines of S are its first ways already,
 * in the order of their last reference; else f_S is made in those sets
 * only, when run 2 comes (the next segment, skipped as equal: until then
 * the model must stay run 1's). Run 2 leaves the model in the state run 3
 * starts from and leaves again. */
static bool memo_closed_ll(cb_hierarchy *h, const cb_affine_block *b,
                           const seg_shape *sh, uint64_t rec_misses,
                           row_miss *rows, uint32_t n_rows) {
  seg_memo *m = h->memo;
  cb_level *l2 = &h->levels[1];
  if (l2->wide)
    return false;
  uint32_t n;
  if (!run2_refs(m, b, sh, h->levels[0].line_shift, rec_misses, rows, n_rows,
                 &n))
    return false;
  if (!m->ll_mark &&
      !(m->ll_mark = calloc(l2->set_mask + 1, sizeof *m->ll_mark)))
    return false;
  if (++m->ll_gen == 0) {
    memset(m->ll_mark, 0, (l2->set_mask + 1) * sizeof *m->ll_mark);
    m->ll_gen = 1;
  }
  const uint64_t gen = (uint64_t)m->ll_gen << 32, out_of_order = LL_UNORDERED;
  const uint32_t ways = l2->assoc;
  bool reorder = false;
  /* from the last reference back: the k-th line of a set met is the
   * k-th most recent there, in way k if the order is run 2's already */
  for (uint32_t i = n; i-- > 0;) {
    const uint64_t x = m->ll_refs[i], s = x & l2->set_mask;
    const uint64_t mark = m->ll_mark[s] >> 32 == m->ll_gen ? m->ll_mark[s] : 0;
    const uint32_t k = (uint32_t)mark & (out_of_order - 1);
    uint64_t flag = mark & out_of_order;
    const uint64_t *set = l2->tags + s * ways;
    if (k >= ways)
      return false;
    if (set[k] != x) {
      bool held = false;
      for (uint32_t w = 0; w < ways; w++)
        held |= set[w] == x;
      if (!held)
        return false;
      flag = out_of_order;
      reorder = true;
    }
    m->ll_mark[s] = gen | flag | (k + 1);
  }
  /* run 2's change, made when it comes: the first equal segment the
   * memo skips (memo_closed_run2) */
  m->ll_n = n;
  m->ll_reorder = reorder;
  m->ll_owed = true;
  return true;
}

void memo_closed_run2(cb_hierarchy *h) {
  seg_memo *m = h->memo;
  cb_level *l2 = &h->levels[1];
  for (uint32_t i = 0; m->ll_reorder && i < m->ll_n; i++) {
    const uint64_t x = m->ll_refs[i], s = x & l2->set_mask;
    if (m->ll_mark[s] & LL_UNORDERED)
      lru_touch(l2->tags + s * l2->assoc, l2->assoc, x, true);
  }
  if (m->ll_n)
    l2->last_line = m->ll_refs[m->ll_n - 1];
}

bool memo_closed_segment(cb_hierarchy *h, const cb_affine_block *b,
                         memo_delta *d) {
  const memo_delta *run1 = d;
  seg_memo *m = h->memo;
  m->ll_owed = false; /* memo_closed_ll's to set */
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  const uint32_t ls = l1->line_shift;
  const uint64_t sets1 = l1->set_mask + 1, sets2 = l2->set_mask + 1;
  const uint64_t n_iter = b->n_iter;
  seg_shape sh;
  if (!block_shape(h, b, &sh))
    return false;
  expectation e;
  memset(&e, 0, sizeof e);
  if (fits_first_level(h, b, &sh)) {
    closed_counts(d, &e); /* nothing expected to miss */
    m->closed_fit++;
    return true;
  }
  /* Run 2's first-level outcomes. Where the last level's bounds below
   * fail, the check of run 1 goes by the last level's state instead
   * (ll_bounded false), which needs the records and row lines that miss
   * (rec_misses, rows). */
  bool ll_bounded = true;
  uint64_t rec_misses = 0; /* bit i: record i misses */
  row_miss rows[MAX_ROW_MISSES];
  uint32_t n_rows = 0;
  bool rows_kept = true; /* rows[] holds every row line that misses */
  /* columns: every set they reach gets more than `ways` of their lines */
  for (uint32_t j = 0; j < sh.n; j++) {
    if (sh.kind[j] != KIND_COLUMN)
      continue;
    uint64_t lo, hi;
    uint32_t n_in;
    column_bounds(&sh, n_iter, sets1, sh.line[j], &lo, &hi, &n_in);
    if (lo <= l1->assoc ||
        !expect(run1, &e, b->acc[j].site, b->acc[j].is_write, true, n_iter))
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
      if (!expect(run1, &e, x->site, x->is_write, false, 1))
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
          !expect(run1, &e, x->site, x->is_write, false, 1))
        return false;
      continue;
    }
    if (lo <= l1->assoc || !expect(run1, &e, x->site, x->is_write, true, 1))
      return false;
    rec_miss++;
    rec_misses |= 1ull << i;
  }
  /* fixed lines hit: an iteration's other references and the records in
   * their set come between */
  for (uint32_t j = 0; j < sh.n; j++)
    if (sh.kind[j] == KIND_FIXED &&
        sh.n - 1 + records_in_set(m, ls, l1->set_mask, sh.line[j]) >= l1->assoc)
      return false;
  for (uint32_t j = 0; j < sh.n; j++)
    if (sh.kind[j] == KIND_FIXED &&
        !expect(run1, &e, b->acc[j].site, b->acc[j].is_write, false, n_iter))
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
    /* column_bounds' terms, the same for every line of the row (the
     * loop took a tenth of 2mm's closed forms in divisions) */
    const uint64_t p1 = memo_set_period(sh.K, sets1), g1 = sets1 / p1;
    const uint64_t q1 = n_iter / p1, margin = (window + p1 - 1) / p1;
    const int lg = (mag & (mag - 1)) == 0 ? __builtin_ctzll(mag) : -1;
    for (uint64_t x = sh.row_lo; x <= sh.row_hi; x++) {
      const uint32_t n_in = columns_in_class(&sh, g1, x);
      const uint64_t lo = n_in * q1;
      bool miss;
      if (n_in == 0) {
        if (row_lines_per_set1 + sh.n_fix + m->n_pend >= l1->assoc)
          return false;
        miss = false; /* too few lines in its set to push it out */
      } else if (lo >= l1->assoc + n_in * margin) {
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
          t = base >= x0 ? 0 : steps_up(x0 - base, mag, lg);
          if (base + t * mag > x1)
            continue;
        } else {
          if (base < x0)
            continue;
          t = base <= x1 ? 0 : steps_up(base - x1, mag, lg);
          if (base - t * mag < x0)
            continue;
        }
        if (t < n_iter && t < best_t) {
          best_t = t;
          best = j;
        }
      }
      if (best_t == UINT64_MAX ||
          !expect(run1, &e, b->acc[best].site, b->acc[best].is_write, miss, 1))
        return false;
      if (miss && n_rows < MAX_ROW_MISSES)
        rows[n_rows++] = (row_miss){best_t, x, best};
      else if (miss)
        rows_kept = false;
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
    ll_bounded &= hi + row_lines_per_set2 + rec_miss <= l2->assoc;
  }
  ll_bounded &= row_lines_per_set2 + rec_miss <= l2->assoc;
  /* run 1 made the first-level outcomes run 2 will, site by site: every
   * reference had its site listed (expect), and a site whose count pins
   * its references' outcomes missed as expected, or, where a fixed line's
   * first reference may have missed once, by as many more */
  bool run1_same = ll_bounded;
  uint64_t allow[MEMO_MAX_SITES] = {0};
  uint8_t dir[MEMO_MAX_SITES] = {0};
  if (run1_same)
    fixed_allowances(h, b, &sh, run1, allow, dir);
  for (uint32_t k = 0; run1_same && k < run1->n_sites; k++) {
    uint64_t got = run1->site_misses[k][0];
    if (e.kinds[k] == 3 || got < e.misses[k] ||
        got - e.misses[k] > ((e.kinds[k] & 1) || dir[k] == 3 ? 0 : allow[k]))
      run1_same = false;
  }
  if (!run1_same) {
    /* Run 1 may have had other first-level outcomes: then run 2 is
     * known where the last level holds each of its references already,
     * and its order is made run 2's (memo_closed_ll). */
    if (!rows_kept || !memo_closed_ll(h, b, &sh, rec_misses, rows, n_rows))
      return false;
    closed_counts(d, &e);
    m->closed_by_ll++;
    return true;
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
