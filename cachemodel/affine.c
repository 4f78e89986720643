/* Affine blocks through the hierarchy (stream.h, cb_hierarchy_run_affine):
 * the per-iteration loop, warping, and the expansion into records for the
 * consumers that need every access.
 *
 * The loop runs the accesses of each iteration with the same steps as
 * cb_hierarchy_run (the first level's repeat fast path inline, the shared
 * paths of hierarchy_internal.h otherwise); the first level's access,
 * write and per-site access counters do not depend on hits or misses, so
 * they are added once for the whole block.
 *
 * Warping. Say iteration t hit at the first level on every access (no
 * lower level was consulted). Let S be its sequence of line references.
 * Every line of S was present when referenced and hits evict nothing, so
 * all of S is still cached after it; an iteration t+1 that references the
 * same sequence S (per access, its first and last byte's lines unchanged:
 * an access's lines are the range between them) hits everywhere too. And
 * it leaves the first level as iteration t did, i.e. f_S(f_S(x)) = f_S(x)
 * for the state change f_S of an all-hit S, per policy:
 *  - LRU: a hit moves the line to the front of its set's order. After S,
 *    each set holds S's lines in front, ordered by their last reference
 *    in S, then the others in their old order. Applying S again puts the
 *    same lines in the same order in front; the rest is untouched.
 *  - MRU: hits reorder exactly like LRU (only the victim differs): same.
 *  - FIFO and random: a hit changes nothing (FIFO orders by fill; random
 *    draws a number only to evict).
 *  - Tree-PLRU: a hit on way w sets every node on w's path to point away
 *    from w, and lines never move on a hit. After S, each node on some
 *    path of S holds the value set by S's last access through it, the
 *    others are untouched, whatever the state before: S again changes no
 *    bit.
 *  - Wide sets (wideset.c) keep the same abstract state per policy (order
 *    lists, the same PLRU bits and generator), so the same holds.
 *  - The first level's last_line (the repeat fast path) is S's last line
 *    after both.
 * The lower levels are not consulted by all-hit iterations. So every such
 * following iteration changes only the first level's counters (accesses,
 * writes, per-site accesses), which the loop adds for the whole block
 * anyway: they are skipped at once. How many follow is computed from the
 * strides (warp_span). The tests check the result counter for counter
 * against the expansion and a brute-force model, for every policy.
 *
 * With classification (CB_CLASSIFY) nothing is skipped: the shadow's
 * distances for iteration t+1 need not equal t's (t's first references
 * may go back to a different iteration t-1), and its state (reference
 * times) changes on every iteration. The loop is the same, without warps;
 * the fully associative shadow and the histograms stay exact because
 * every access is simulated. */
#include "hierarchy_internal.h"

#include <string.h>

/* Blocks of more accesses per iteration are run by expansion. */
#define AFFINE_MAX_INLINE 16
#define EXPAND_BATCH 1024

size_t cb_affine_expand(const cb_affine_block *b, uint64_t *pos, cb_access *out,
                        size_t cap) {
  if (b->n_acc == 0)
    return 0;
  uint64_t total = b->n_iter * b->n_acc;
  uint64_t k = *pos;
  size_t n = 0;
  uint64_t t = k / b->n_acc;
  uint32_t j = (uint32_t)(k % b->n_acc);
  while (n < cap && k < total) {
    const cb_affine_access *a = &b->acc[j];
    out[n++] = (cb_access){.addr = a->base + t * (uint64_t)a->stride,
                           .site = a->site,
                           .size = a->size,
                           .is_write = a->is_write};
    k++;
    if (++j == b->n_acc) {
      j = 0;
      t++;
    }
  }
  *pos = k;
  return n;
}

void cb_hierarchy_affine_stats(const cb_hierarchy *h, cb_affine_stats *out) {
  *out = h->affine;
}

static void run_expanded(cb_hierarchy *h, const cb_affine_block *b) {
  cb_access buf[EXPAND_BATCH];
  uint64_t pos = 0;
  size_t n;
  while ((n = cb_affine_expand(b, &pos, buf, EXPAND_BATCH)) > 0)
    cb_hierarchy_run(h, buf, n);
}

/* Steps of `stride` that a byte at p can take without leaving its line
 * (line_mask: line size - 1); UINT64_MAX for stride 0. */
static inline uint64_t steps_in_line(uint64_t p, uint64_t stride_u,
                                     uint64_t line_mask) {
  int64_t stride = (int64_t)stride_u;
  if (stride > 0)
    return (line_mask - (p & line_mask)) / stride_u;
  if (stride < 0)
    return (p & line_mask) / (0 - stride_u);
  return UINT64_MAX;
}

/* The iterations after one at addresses addr[] that reference the same
 * lines, access by access: the fewest steps any access's first or last
 * byte can take inside its line. An access that reaches the top of the
 * address space (its end clamped) is not followed: 0. */
static inline uint64_t warp_span(const uint64_t *addr, const uint64_t *stride,
                                 const uint16_t *size, uint32_t n,
                                 uint64_t line_mask) {
  uint64_t m = UINT64_MAX;
  for (uint32_t j = 0; j < n; j++) {
    uint64_t end = addr[j] + size[j] - (size[j] != 0);
    if (end < addr[j])
      return 0;
    uint64_t a = steps_in_line(addr[j], stride[j], line_mask);
    uint64_t e = steps_in_line(end, stride[j], line_mask);
    if (a < m)
      m = a;
    if (e < m)
      m = e;
  }
  return m;
}

void cb_hierarchy_run_affine(cb_hierarchy *h, const cb_affine_block *b) {
  h->affine.blocks++;
  if (b->n_iter == 0 || b->n_acc == 0)
    return;
  h->affine.iterations += b->n_iter;
  if (b->n_acc > AFFINE_MAX_INLINE) {
    run_expanded(h, b);
    return;
  }
  const uint32_t n = b->n_acc;
  uint64_t addr[AFFINE_MAX_INLINE], stride[AFFINE_MAX_INLINE];
  uint16_t size[AFFINE_MAX_INLINE];
  bool is_write[AFFINE_MAX_INLINE];
  uint32_t site[AFFINE_MAX_INLINE];
  cb_level *l1 = &h->levels[0];
  const uint32_t shift = l1->line_shift;
  const uint64_t offset_mask = (1ull << shift) - 1;
  /* Warping needs no classification and some chance of staying in a
   * line: a stride of a line or more leaves it on every step. */
  bool can_warp = !h->classify;
  uint64_t writes = 0;
  for (uint32_t j = 0; j < n; j++) {
    const cb_affine_access *a = &b->acc[j];
    addr[j] = a->base;
    stride[j] = (uint64_t)a->stride;
    size[j] = a->size;
    is_write[j] = a->is_write;
    site[j] = a->site;
    writes += a->is_write;
    if (a->site < h->n_sites)
      h->sites[(size_t)a->site * h->n_levels].accesses += b->n_iter;
    uint64_t mag = a->stride < 0 ? 0 - stride[j] : stride[j];
    if (mag > offset_mask)
      can_warp = false;
  }
  uint64_t last_line = l1->last_line;
  uint64_t slow = 0, warped = 0, warps = 0;
  const uint64_t n_iter = b->n_iter;
  for (uint64_t t = 0; t < n_iter;) {
    const uint64_t misses_before = l1->misses;
    for (uint32_t j = 0; j < n; j++) {
      uint64_t a = addr[j];
      addr[j] = a + stride[j];
      /* Within the last line: cb_hierarchy_run's fast path. */
      if (a >> shift == last_line &&
          (a & offset_mask) + size[j] <= offset_mask + 1)
        continue;
      slow++;
      if (h->lean_mask && (a & h->lean_mask) + size[j] <= h->lean_mask + 1)
        access_lean(h, a, is_write[j], site[j]);
      else
        access_levels(h, a, access_end(a, size[j]), is_write[j], site[j]);
      last_line = l1->last_line;
    }
    t++;
    if (!can_warp || l1->misses != misses_before || t == n_iter)
      continue;
    /* Iteration t-1 hit everywhere: its addresses are addr - stride. */
    uint64_t prev[AFFINE_MAX_INLINE];
    for (uint32_t j = 0; j < n; j++)
      prev[j] = addr[j] - stride[j];
    uint64_t m = warp_span(prev, stride, size, n, offset_mask);
    if (m > n_iter - t)
      m = n_iter - t;
    if (m == 0)
      continue;
    for (uint32_t j = 0; j < n; j++)
      addr[j] += m * stride[j];
    t += m;
    warped += m;
    warps++;
  }
  uint64_t total = n_iter * n;
  l1->accesses += total;
  l1->writes += n_iter * writes;
  h->slow_accesses += slow;
  /* Only without warps (classification) is every fast-path hit run. */
  if (l1->shadow)
    l1->shadow->hist[0] += total - slow;
  h->affine.warped_iterations += warped;
  h->affine.warps += warps;
}
