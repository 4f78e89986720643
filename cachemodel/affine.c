/* Affine blocks through the hierarchy (stream.h, cb_hierarchy_run_affine):
 * the per-iteration loop (affine_loop.h's run_iterations, in its copies
 * here and, with AVX-512 set updates, in lru2_avx512.c), warping, and
 * the expansion into records for the consumers that need every access.
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
 * Under LRU, iteration t need not have hit. If the first level fills on
 * every miss and has at least as many ways as S has line references,
 * every line of S is cached after S whatever hit or missed: at each point
 * of S, the lines of S referenced so far in a set are that set's most
 * recent ones, never more than its ways, so none of them is the victim
 * of a miss. An iteration t+1 with the same S then hits everywhere, and
 * f_S(f_S(x)) = f_S(x) as above: the iterations after t are skipped as
 * if t had hit. gemm's vectorised row walk enters a new line of B (a
 * miss) one iteration in two, and the all-hit iteration this saved was
 * run before each warp. FIFO, MRU and PLRU may evict a line of S during
 * S (a FIFO hit does not refresh its line), so they still need t to hit.
 * With classification the shadow's D(S) below holds after any iteration
 * that referenced S, hit or not.
 *
 * With classification (CB_CLASSIFY) the first level also feeds its fully
 * associative LRU shadow (shadow.h) every line reference, hits
 * included, and the skipped iterations must add their stack distances to
 * its histogram. They repeat: after an iteration that referenced the
 * sequence S, the top of the shadow's LRU stack holds S's distinct lines
 * in the order of their last reference in S (each was referenced in it;
 * every other line is below them, in its old order). So in the next
 * iteration with the same S, a reference to line x at position i of S has
 * as distance the distinct lines referenced since x's previous reference,
 * which lies either earlier in the same S or in the previous S: a
 * function of S alone, D(S). And that iteration leaves the stack's order
 * as it found it (the same lines on top in the same order; the times
 * differ only by a shift, and distances depend only on their order). The
 * warped iterations each follow an iteration with S (the first follows
 * iteration t, which defined S), so each adds D(S) once: m times D(S)
 * in all. D(S) is computed on a move-to-front list of S's lines: S once
 * to put them on top, S again to read the distances (lines below S's
 * never come up). All-hit iterations classify nothing and consult no
 * lower level, so the lower levels' shadows are untouched. An S of more
 * than SHADOW_MAX_REFS line references is not warped. With sampled
 * distances (shadow.h), the fully associative LRU cache of C lines is
 * left as it is (the same lines on top, in the same order), and a
 * reference to a sampled line adds its distance among the sampled lines
 * of S above it: again a function of S alone. */
#include "affine_loop.h"

#include <string.h>

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
  memo_settle((cb_hierarchy *)h);
  *out = h->affine;
  out->segments_skipped =
      h->memo ? h->memo->skipped + (h->memo->lng ? h->memo->lng->skipped : 0)
              : 0;
  out->segments_in_parts = h->memo ? h->memo->parts.segments : 0;
  out->parts_counted = h->memo ? h->memo->parts.counted : 0;
  out->parts_each = h->memo ? h->memo->parts.n_parts : 0;
  out->segments_closed = h->memo ? h->memo->closed : 0;
  out->parts_closed = h->memo ? h->memo->parts.closed : 0;
  out->records_skipped = h->memo ? rmemo_skipped(h->memo->rec) : 0;
}

static void run_expanded(cb_hierarchy *h, const cb_affine_block *b) {
  cb_access buf[EXPAND_BATCH];
  uint64_t pos = 0;
  size_t n;
  while ((n = cb_affine_expand(b, &pos, buf, EXPAND_BATCH)) > 0)
    cb_records_run(h, buf, n);
}

/* Whether access a, right after p in the iteration, is in every
 * iteration inside the one first-level line (L = 2^shift bytes) that p
 * references: then a takes run_iterations' last-line fast path every
 * time, which changes nothing but the counters the caller adds for the
 * whole block. With the same stride and d = a - p, p's first byte at
 * line offset o puts a's at o + d, and both accesses must end inside
 * the line, for every offset o takes: o_0 + k gcd(stride mod L, L)
 * (mod L) once L / gcd iterations came, fewer before. p must leave its
 * line as the last one, which a write does unless its miss does not
 * allocate. */
static bool in_line_of_prev(const cb_affine_access *p,
                            const cb_affine_access *a, uint64_t n_iter,
                            uint32_t shift, bool write_allocate) {
  if (a->stride != p->stride || (p->is_write && !write_allocate))
    return false;
  const int64_t L = (int64_t)1 << shift;
  const int64_t d = (int64_t)(a->base - p->base);
  const int64_t sp = p->size ? p->size : 1, sa = a->size ? a->size : 1;
  if (d >= L || d <= -L || sp > L || sa > L)
    return false;
  const uint64_t mask = (uint64_t)L - 1, r = (uint64_t)p->stride & mask;
  /* g = gcd(r, L): the offsets are o_0 + k g (mod L) once all came */
  const uint64_t g = r ? r & (0 - r) : (uint64_t)L;
  uint64_t o = p->base & mask;
  if (n_iter >= (uint64_t)L / g) {
    const int64_t lo = (int64_t)(o % g), hi = lo + L - (int64_t)g;
    return hi + sp <= L && lo + d >= 0 && hi + d + sa <= L;
  }
  for (uint64_t t = 0; t < n_iter; t++, o = (o + r) & mask)
    if ((int64_t)o + sp > L || (int64_t)o + d < 0 || (int64_t)o + d + sa > L)
      return false;
  return true;
}

/* Block b without the accesses that always take the last-line fast
 * path (in_line_of_prev), into *out with its accesses in acc: gemm's
 * row walk, vectorised and unrolled by two at -O2, loads B[k][j..j+1]
 * and B[k][j+2..j+3] in one line, and so C twice and stores C twice: 6
 * accesses an iteration of which 4 never leave the line before them.
 * Not with classification, whose shadow sees every reference (its
 * warps add every reference's stack distance). False: none dropped. */
static bool without_repeats(const cb_hierarchy *h, const cb_affine_block *b,
                            cb_affine_access *acc, cb_affine_block *out) {
  const cb_level *l1 = &h->levels[0];
  if (h->classify || b->n_acc < 2)
    return false;
  uint32_t n = 1;
  acc[0] = b->acc[0];
  for (uint32_t j = 1; j < b->n_acc; j++)
    if (!in_line_of_prev(&b->acc[j - 1], &b->acc[j], b->n_iter, l1->line_shift,
                         l1->write_allocate))
      acc[n++] = b->acc[j];
  if (n == b->n_acc)
    return false;
  *out = (cb_affine_block){b->n_iter, n, acc};
  return true;
}

void cb_hierarchy_run_affine(cb_hierarchy *h, const cb_affine_block *b) {
  if (h->memo)
    memo_block(h, b);
  else
    cb_affine_run(h, b);
}

void cb_affine_run(cb_hierarchy *h, const cb_affine_block *b) {
  h->affine.blocks++;
  if (b->n_iter == 0 || b->n_acc == 0)
    return;
  h->affine.iterations += b->n_iter;
  if (b->n_acc > AFFINE_MAX_INLINE) {
    run_expanded(h, b);
    return;
  }
  cb_level *l1 = &h->levels[0];
  const uint64_t offset_mask = (1ull << l1->line_shift) - 1;
  /* The first level's access counters do not depend on hits. Warping
   * needs some chance of staying in a line: a stride of a line or more
   * leaves it on every step. */
  bool can_warp = true;
  uint64_t writes = 0, max_span = UINT64_MAX;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    writes += a->is_write;
    if (a->site < h->n_sites)
      h->sites[(size_t)a->site * h->n_levels].accesses += b->n_iter;
    uint64_t mag =
        a->stride < 0 ? 0 - (uint64_t)a->stride : (uint64_t)a->stride;
    if (mag > offset_mask)
      can_warp = false;
    else if (mag && (offset_mask + 1) / mag < max_span)
      max_span = (offset_mask + 1) / mag;
  }
  /* With classification, a block whose spans are all too short for
   * run_iterations' threshold skips the checks altogether. Without, a
   * span of at most 2 skips at most one iteration, which the checks after
   * every all-hit iteration cost more than (callgrind on sim_bench's
   * gemm: 10 instructions an access, for no warp). */
  if (max_span < UINT64_MAX &&
      (h->classify ? max_span * b->n_acc < SHADOW_MIN_WARP : max_span <= 2))
    can_warp = false;
  /* The counters above are the whole block's; the loop needs only the
   * accesses that can leave the last line. */
  const cb_affine_block *whole = b;
  cb_affine_access kept[AFFINE_MAX_INLINE];
  cb_affine_block reduced;
  if (without_repeats(h, b, kept, &reduced))
    b = &reduced;
  /* Every access inside one line of the smallest size at every level, on
   * every iteration (a power-of-two size, base and stride multiples of
   * it): the loop needs no straddle checks, and the lean path applies. */
  bool aligned = h->lean_mask != 0;
  for (uint32_t j = 0; j < b->n_acc && aligned; j++) {
    const cb_affine_access *a = &b->acc[j];
    uint64_t z = a->size ? a->size : 1;
    aligned = (z & (z - 1)) == 0 && z <= h->lean_mask + 1 &&
              (a->base & (z - 1)) == 0 && ((uint64_t)a->stride & (z - 1)) == 0;
  }
  affine_run r;
  /* Constant arguments: a copy of the loop for each. */
#define RUN_N(N)                                                               \
  do {                                                                         \
    if (inl && can_warp && aligned)                                            \
      run_iterations(h, b, N, true, true, true, 8, 16, 0, NULL, 0, &r);        \
    else if (inl && aligned)                                                   \
      run_iterations(h, b, N, false, true, true, 8, 16, 0, NULL, 0, &r);       \
    else if (inl && can_warp)                                                  \
      run_iterations(h, b, N, true, false, true, 8, 16, 0, NULL, 0, &r);       \
    else if (inl)                                                              \
      run_iterations(h, b, N, false, false, true, 8, 16, 0, NULL, 0, &r);      \
    else if (can_warp && aligned)                                              \
      run_iterations(h, b, N, true, true, false, 0, 0, 0, NULL, 0, &r);        \
    else if (can_warp)                                                         \
      run_iterations(h, b, N, true, false, false, 0, 0, 0, NULL, 0, &r);       \
    else if (aligned)                                                          \
      run_iterations(h, b, N, false, true, false, 0, 0, 0, NULL, 0, &r);       \
    else                                                                       \
      run_iterations(h, b, N, false, false, false, 0, 0, 0, NULL, 0, &r);      \
  } while (0)
  if (aligned && h->pool && par_run_affine(h, b, can_warp, &r))
    goto count;
  /* cachegrind's shape (two LRU levels of 8 and 16 ways): the levels'
   * state in locals (run_iterations); with its lines too, the AVX-512
   * copy where the host has it (lru2_regs.h) */
  const bool inl = h->lru2_cg_ways;
  if (h->avx512) {
    affine_run_inl_avx512(h, b, can_warp, aligned, &r);
    goto count;
  }
  AFFINE_BY_N_ACC(b->n_acc, RUN_N);
#undef RUN_N
count:;
  b = whole;
  uint64_t total = b->n_iter * b->n_acc;
  l1->accesses += total;
  l1->writes += b->n_iter * writes;
  h->slow_accesses += r.slow;
  /* The fast-path hits of the iterations run (distance 0 in the shadow);
   * shadow_warp counted the warped ones. */
  if (l1->shadow)
    cb_shadow_repeat(l1->shadow, total - r.slow - r.warped * b->n_acc);
  h->affine.warped_iterations += r.warped;
  h->affine.warps += r.warps;
}

void affine_run_part(cb_hierarchy *v, const cb_affine_block *b,
                     const par_key *key, uint32_t part, bool can_warp,
                     affine_run *out) {
  /* The common sizes get their own copy, as in cb_affine_run. */
#define RUN_PART(N)                                                            \
  do {                                                                         \
    if (can_warp)                                                              \
      run_iterations(v, b, N, true, true, false, 0, 0, 0, key, part, out);     \
    else                                                                       \
      run_iterations(v, b, N, false, true, false, 0, 0, 0, key, part, out);    \
  } while (0)
  switch (b->n_acc) {
  case 2:
    RUN_PART(2);
    break;
  case 3:
    RUN_PART(3);
    break;
  case 4:
    RUN_PART(4);
    break;
  default:
    RUN_PART(b->n_acc);
    break;
  }
#undef RUN_PART
}

/* The line sequence of iteration t - 1 (first and last byte of each
 * access) into p and end; false if an end is clamped. */
static bool iteration_bytes(const cb_affine_block *b, uint64_t t, uint64_t *p,
                            uint64_t *end) {
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    p[j] = a->base + (t - 1) * (uint64_t)a->stride;
    end[j] = p[j] + a->size - (a->size != 0);
    if (end[j] < p[j])
      return false;
  }
  return true;
}

uint64_t cb_hierarchy_affine_span(const cb_hierarchy *h,
                                  const cb_affine_block *b, uint64_t t) {
  const cb_level *l1 = &h->levels[0];
  const uint64_t offset_mask = (1ull << l1->line_shift) - 1;
  uint64_t p[AFFINE_MAX_INLINE], end[AFFINE_MAX_INLINE];
  if (t == 0 || t >= b->n_iter || b->n_acc == 0 ||
      b->n_acc > AFFINE_MAX_INLINE || !iteration_bytes(b, t, p, end))
    return 0;
  /* The same rule as run_iterations' warp span. */
  uint64_t m = b->n_iter - t, refs = 0;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    refs += (end[j] >> l1->line_shift) - (p[j] >> l1->line_shift) + 1;
    uint64_t mag =
        a->stride < 0 ? 0 - (uint64_t)a->stride : (uint64_t)a->stride;
    if (mag > offset_mask)
      return 0;
    if (mag == 0)
      continue;
    uint64_t off_a = p[j] & offset_mask, off_e = end[j] & offset_mask;
    uint64_t room = a->stride > 0
                        ? offset_mask - (off_a > off_e ? off_a : off_e)
                        : (off_a < off_e ? off_a : off_e);
    int lg = (mag & (mag - 1)) == 0 ? __builtin_ctzll(mag) : -1;
    uint64_t k = steps_in_room((uint32_t)room, (uint32_t)mag, lg);
    if (k < m)
      m = k;
  }
  if (l1->shadow && refs > SHADOW_MAX_REFS)
    return 0;
  return m;
}

bool cb_hierarchy_affine_skip(cb_hierarchy *h, const cb_affine_block *b,
                              uint64_t t, uint64_t m) {
  memo_settle(h);
  if (m == 0 || m > cb_hierarchy_affine_span(h, b, t))
    return m == 0;
  cb_level *l1 = &h->levels[0];
  uint64_t p[AFFINE_MAX_INLINE], end[AFFINE_MAX_INLINE];
  iteration_bytes(b, t, p, end);
  /* The span checked the shadow's limit: this adds m times D(S). */
  if (l1->shadow)
    shadow_warp(l1->shadow, l1->line_shift, p, end, b->n_acc, m);
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    l1->accesses += m;
    l1->writes += m * a->is_write;
    if (a->site < h->n_sites)
      h->sites[(size_t)a->site * h->n_levels].accesses += m;
  }
  h->affine.warped_iterations += m;
  h->affine.warps++;
  return true;
}
