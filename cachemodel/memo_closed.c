/* The part memo's closed form (memo.h): where a block is column walks
 * that reference each of their lines once and flood the first level,
 * beside accesses that stay on one line (an accumulator the compiler
 * keeps in memory, as covariance's `cov[i][j]`), a part's second run is
 * known without running it, and the part is steady after its first.
 * memo_parts_segment otherwise runs and measures the second run of
 * every part: for covariance and correlation, whose column pairs keep
 * their lines for eight segments, that was every part once in eight
 * segments, and once more for each part a moving store left.
 *
 * Why that is exact (two LRU levels that allocate, memo_init, with one
 * line size). Take a segment whose block's accesses either have one
 * stride S, a whole number K of lines ("columns"), or stride 0
 * ("fixed"); whose columns never meet each other or a fixed line (no
 * line of theirs is referenced twice in the block); with at most `ways`
 * accesses if any is fixed. Take a part that the segment's records do
 * not reach, in which every column reference missed the first level and
 * every fixed one hit, in this run: its reference sequence X is the
 * block's references there. Run X again (the next segments, while they
 * repeat the block and leave the part alone):
 * - a fixed line is referenced again before `ways` other lines were
 *   (fewer than an iteration's accesses come between), so it hits, and
 *   stays away from the second level, as in run 1;
 * - a column reference to line x in first-level set s finds x behind
 *   every other line referenced in s since x's own reference in the run
 *   before: at least D_s - 1 (D_s: the columns' references in s). With
 *   D_s > ways in every set, x is gone: every column reference misses;
 * - the second level so sees in run 2 what it saw in run 1, the column
 *   references in order, and in its set t, x is behind the D_t - 1
 *   others: a hit iff D_t <= ways.
 * From run 2 on each run counts the same and changes nothing (both
 * levels see one sequence again: f_X(f_X(s)) = f_X(s), memo.c).
 *
 * D_s without counting: the lines L_j + t K of column j fall into sets
 * L_j + t K mod n (n sets), which repeat every p = n / gcd(K mod n, n)
 * iterations; two columns share sets iff their L are equal modulo that
 * gcd, and a set of column j's gets floor(n_iter / p) or ceil of its
 * references. The bounds decide covariance's and correlation's column
 * pairs (a last-level set gets 2 or 3 lines of each column, a
 * first-level set 43 or 44); where they straddle the ways, or anything
 * else fails, nothing is claimed and the second run is measured. */
#include "hierarchy_internal.h"

#include <string.h>

/* Each column's references per set at one level, bounded below and
 * above: its class's sums, over the columns sharing its sets (a fixed
 * access's entries are 0). */
static void class_bounds(const cb_affine_block *b, const uint64_t *line,
                         int64_t K, uint64_t sets, uint64_t *lo, uint64_t *hi) {
  uint64_t p = memo_set_period(K, sets), g = sets / p;
  uint64_t q = b->n_iter / p, r = b->n_iter % p;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    lo[j] = hi[j] = 0;
    for (uint32_t i = 0; b->acc[j].stride && i < b->n_acc; i++)
      if (b->acc[i].stride && ((line[i] - line[j]) & (g - 1)) == 0) {
        lo[j] += q;
        hi[j] += q + (r != 0);
      }
  }
}

/* The block's closed form into P->cf by part, for the slots s: false
 * where it does not apply. */
static bool closed_form(cb_hierarchy *h, const cb_affine_block *b,
                        memo_slots *s) {
  memo_parts *P = &h->memo->parts;
  const uint32_t n = b->n_acc;
  const uint64_t n_iter = b->n_iter;
  if (!P->enabled || h->n_levels != 2 || n == 0 || n_iter * n < P->min_refs)
    return false;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  const uint32_t ls = l1->line_shift;
  int64_t S = 0;
  bool fixed = false, column;
  for (uint32_t j = 0; j < n; j++) {
    int64_t t = b->acc[j].stride;
    if (t == 0)
      fixed = true;
    else if (S == 0)
      S = t;
    else if (t != S)
      return false;
  }
  if (l2->line_shift != ls || S == 0 ||
      ((uint64_t)S & ((1ull << ls) - 1)) != 0 || (fixed && n > l1->assoc) ||
      !memo_segment_slots(h, b, s, &column))
    return false;
  const int64_t K = P->cf_k = S / ((int64_t)1 << ls);
  uint64_t line[MEMO_MAX_ACC];
  P->cf_fixed = 0;
  for (uint32_t j = 0; j < n; j++) {
    line[j] = b->acc[j].base >> ls;
    P->cf_line[j] = b->acc[j].stride ? line[j] : UINT64_MAX;
    if (!b->acc[j].stride)
      P->cf_fixed |= 1ull << memo_part_of(P, b->acc[j].base);
    for (uint32_t i = 0; i < j; i++) {
      if (!b->acc[i].stride && !b->acc[j].stride)
        continue; /* fixed lines may be one */
      /* L_i + t K and L_j + t' K meet iff L_j - L_i = (t - t') K, |t -
       * t'| < n_iter; a fixed line (t = 0 for it) is met within that too */
      int64_t d = (int64_t)(line[j] - line[i]);
      if (d % K == 0 && d / K < (int64_t)n_iter && d / K > -(int64_t)n_iter)
        return false;
    }
  }
  uint64_t lo[MEMO_MAX_ACC], hi[MEMO_MAX_ACC];
  class_bounds(b, line, K, l1->set_mask + 1, lo, hi);
  for (uint32_t j = 0; j < n; j++)
    if (b->acc[j].stride && lo[j] <= l1->assoc)
      return false; /* some first-level set may keep a line to run 2 */
  bool miss2[MEMO_MAX_ACC];
  class_bounds(b, line, K, l2->set_mask + 1, lo, hi);
  for (uint32_t j = 0; j < n; j++) {
    miss2[j] = lo[j] > l2->assoc;
    if (!miss2[j] && hi[j] > l2->assoc)
      return false;
  }
  /* Each column's references by part: its second-level sets' first
   * iterations t < p, each standing for q or q + 1 of them. */
  const size_t n_counters = s->n * 3;
  for (uint32_t p = 0; p < P->n_parts; p++)
    memset(P->cf[p], 0, n_counters * sizeof P->cf[0][0]);
  const uint64_t sets2 = l2->set_mask + 1;
  const uint64_t period = memo_set_period(K, sets2);
  const uint64_t q = n_iter / period, r = n_iter % period;
  const uint32_t pshift = P->shift - ls;
  const uint64_t pmask = P->n_parts - 1;
  for (uint32_t j = 0; j < n; j++) {
    uint64_t x = line[j];
    const size_t o = s->acc_slot[j] * 3;
    if (!b->acc[j].stride) {
      P->cf[(x >> pshift) & pmask][o] += n_iter; /* hits */
      continue;
    }
    for (uint64_t t = 0; t < period && t < n_iter; t++, x += (uint64_t)K) {
      uint64_t c = q + (t < r), *k = P->cf[(x >> pshift) & pmask] + o;
      k[0] += c;
      k[1] += c;
      k[2] += miss2[j] ? c : 0;
    }
  }
  return true;
}

/* The parts n records reach. */
static uint64_t record_parts(const memo_parts *P, const cb_access *rec,
                             uint32_t n) {
  uint64_t parts = 0;
  for (uint32_t i = 0; i < n; i++)
    parts |= 1ull << memo_part_of(P, rec[i].addr);
  return parts;
}

/* The parts of records on a line of the block's columns: a column
 * reference there may hit the first level (the record brought its line),
 * and the last level then sees the record's reference in its place. */
static uint64_t column_record_parts(const cb_hierarchy *h,
                                    const cb_affine_block *b) {
  const seg_memo *m = h->memo;
  const memo_parts *P = &m->parts;
  const uint32_t ls = h->levels[0].line_shift;
  uint64_t parts = 0;
  for (uint32_t i = 0; i < m->n_pend; i++) {
    uint64_t x = m->pend[i].addr >> ls;
    for (uint32_t j = 0; j < b->n_acc; j++) {
      if (P->cf_line[j] == UINT64_MAX)
        continue;
      int64_t d = (int64_t)(x - P->cf_line[j]);
      if (d % P->cf_k == 0 && d / P->cf_k >= 0 &&
          (uint64_t)(d / P->cf_k) < b->n_iter)
        parts |= 1ull << memo_part_of(P, m->pend[i].addr);
    }
  }
  return parts;
}

/* Part p steady from its run just made, counting the closed form's n
 * counters from now on. */
static void closed_take(memo_parts *P, uint32_t p, size_t n) {
  memo_part *q = &P->part[p];
  for (size_t k = 0; k < n; k++) {
    P->sum[k] += P->cf[p][k] - q->delta[k];
    q->delta[k] = P->cf[p][k];
  }
  P->len[p] = 2;
  P->len_one &= ~(1ull << p);
  P->steady |= 1ull << p;
  P->closed++;
}

void memo_parts_site_misses(const cb_hierarchy *h, const cb_affine_block *b,
                            uint64_t *misses) {
  for (uint32_t j = 0; j < b->n_acc; j++) {
    uint32_t site = b->acc[j].site;
    misses[j] = site < h->n_sites ? h->sites[(size_t)site * h->n_levels].misses
                                  : UINT64_MAX;
  }
}

/* Whether every column reference of the block missed the first level and
 * every fixed one hit: each site's misses since `before` (per access,
 * memo_parts_site_misses) are its columns' references, and no site has
 * both kinds. */
static bool columns_missed(const cb_hierarchy *h, const cb_affine_block *b,
                           const uint64_t *before) {
  for (uint32_t j = 0; j < b->n_acc; j++) {
    uint32_t site = b->acc[j].site;
    if (before[j] == UINT64_MAX)
      return false;
    uint64_t want = 0;
    for (uint32_t i = 0; i < b->n_acc; i++)
      if (b->acc[i].site == site) {
        if ((b->acc[i].stride != 0) != (b->acc[j].stride != 0))
          return false;
        want += b->acc[i].stride ? b->n_iter : 0;
      }
    if (h->sites[(size_t)site * h->n_levels].misses - before[j] != want)
      return false;
  }
  return true;
}

void memo_parts_closed(cb_hierarchy *h, const cb_affine_block *b,
                       const uint64_t *before) {
  memo_parts *P = &h->memo->parts;
  P->cf_pending = P->valid;
  P->cf_missed = columns_missed(h, b, before);
}

void memo_parts_closed_start(cb_hierarchy *h, const memo_seg *prev,
                             const cb_affine_block *b) {
  memo_parts *P = &h->memo->parts;
  if (!P->cf_pending)
    return;
  P->cf_pending = false;
  memo_slots s;
  P->cf_valid = closed_form(h, b, &s);
  P->cf_est = 0;
  if (!P->cf_valid || !P->cf_missed)
    return;
  /* what the segment run whole would have found */
  P->cf_est = memo_parts_mask(P);
  for (uint64_t w = ~record_parts(P, prev->rec, prev->n_rec) & P->cf_est; w;
       w &= w - 1)
    closed_take(P, (uint32_t)__builtin_ctzll(w), s.n * 3);
}

void memo_parts_closed_ran(cb_hierarchy *h, const memo_slots *s,
                           const cb_affine_block *b, uint64_t run) {
  /* Every segment run in parts repeats the block, whose columns flood
   * the first level: in it every column reference missed (its line's
   * last reference was the block before, D_s - 1 >= ways lines ago)
   * unless a record of the segment brought its line, and every fixed one
   * in a part without records hit (its line's last reference was at that
   * block's end). So the parts that ran without records ran as "run 1";
   * and from here on the second level of every part but those has seen
   * its records' misses and then the columns, as the closed form needs. */
  memo_parts *P = &h->memo->parts;
  const seg_memo *m = h->memo;
  P->cf_est = memo_parts_mask(P) & ~column_record_parts(h, b);
  for (uint64_t w = run & ~record_parts(P, m->pend, m->n_pend); w; w &= w - 1)
    closed_take(P, (uint32_t)__builtin_ctzll(w), s->n * 3);
}

void memo_parts_closed_count(cb_hierarchy *h, const memo_slots *s) {
  memo_parts *P = &h->memo->parts;
  const seg_memo *m = h->memo;
  uint64_t take = P->cf_est & ~P->cf_fixed & ~P->steady &
                  ~record_parts(P, m->pend, m->n_pend) & memo_parts_mask(P);
  for (; take; take &= take - 1)
    closed_take(P, (uint32_t)__builtin_ctzll(take), s->n * 3);
}
