/* The batch loop (cb_records_run) for the commonest hierarchy, with
 * nothing but the steps it needs: two LRU levels (cachegrind's D1 and
 * LL), no classification, no wide sets. The steps are access_lean's and
 * cb_records_run's, in the same order, so the counts are theirs; what
 * differs is where the state lives. There, every level field is read
 * again for every access: the counters are uint64_t fields of cb_level,
 * as are the set words the policy shifts, so the compiler must assume
 * each store to a set may have changed the level's geometry. Here the
 * geometry and the level counters are locals for the whole batch,
 * written back at its end, and each level's policy is inlined with its
 * associativity a constant where it is cachegrind's (8 and 16 ways).
 * load_loop's random gathers at 10^8 accesses, nearly all missing both
 * levels: 15.7 -> 11.6 ns an access; sim_bench's record rows 4 % to 37 %
 * faster (bench/results/fast_notes.md, session 13). Affine blocks'
 * iterations (affine.c) take the same steps for one access out of line
 * (access_lean_lru2). test_cache_reference holds both to the brute-force
 * model. */
#include "hierarchy_internal.h"

/* The level state a batch keeps in locals. */
typedef struct lvl_regs {
  uint64_t *tags;
  uint64_t set_mask, last_line;
  uint32_t shift;
  bool write_allocate;
  uint64_t accesses, writes, misses, write_misses;
} lvl_regs;

static inline lvl_regs regs_of(const cb_level *lv) {
  return (lvl_regs){.tags = lv->tags,
                    .set_mask = lv->set_mask,
                    .last_line = lv->last_line,
                    .shift = lv->line_shift,
                    .write_allocate = lv->write_allocate};
}

/* The counters added to the level's, the last line its. */
static inline void regs_store(lvl_regs *r, cb_level *lv) {
  lv->last_line = r->last_line;
  lv->accesses += r->accesses;
  lv->writes += r->writes;
  lv->misses += r->misses;
  lv->write_misses += r->write_misses;
  *r = regs_of(lv);
}

/* A miss at level k (its site's counters ss[k], ss NULL: none). */
static inline __attribute__((always_inline)) void
regs_miss(lvl_regs *r, bool is_write, cb_site_stats *ss, int k) {
  r->misses++;
  r->write_misses += is_write;
  if (ss)
    ss[k].misses++;
}

/* cb_level_ref and access_lean's last-line rule, for an LRU level. */
static inline __attribute__((always_inline)) bool
regs_ref(lvl_regs *r, uint32_t assoc, uint64_t line, bool is_write) {
  uint64_t *set = r->tags + (line & r->set_mask) * assoc;
  bool fill = !is_write || r->write_allocate;
  bool hit = lru_touch(set, assoc, line, fill);
  r->last_line = hit || !is_write || r->write_allocate ? line : NO_LINE;
  return hit;
}

static inline __attribute__((always_inline)) void
run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n, uint32_t a1,
         uint32_t a2) {
  cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  lvl_regs r1 = regs_of(l1), r2 = regs_of(l2);
  const uint64_t offset_mask = (1ull << r1.shift) - 1;
  const uint64_t lean_mask = h->lean_mask;
  const uint32_t n_sites = h->n_sites;
  cb_site_stats *const sites = h->sites;
  uint64_t slow = 0, writes = 0;
  const cb_access *a = batch, *const end = batch + n;
  for (;; a++) {
    /* the fast path, in a loop of its own: what it keeps live is all
     * the register allocator must hold there */
    cb_site_stats *ss = NULL;
    for (;; a++) {
      if (a == end)
        goto done;
      writes += a->is_write;
      ss = NULL;
      if (a->site < n_sites) {
        ss = &sites[(size_t)a->site * 2];
        ss->accesses++;
      }
      if (a->addr >> r1.shift != r1.last_line ||
          (a->addr & offset_mask) + a->size > offset_mask + 1)
        break;
    }
    const uint64_t addr = a->addr;
    const bool w = a->is_write;
    slow++;
    if ((addr & lean_mask) + a->size > lean_mask + 1) {
      /* lines apart at some level: the general path, on the levels'
       * own fields */
      regs_store(&r1, l1);
      regs_store(&r2, l2);
      access_levels(h, addr, access_end(addr, a->size), w, a->site);
      r1.last_line = l1->last_line;
      r2.last_line = l2->last_line;
      continue;
    }
    /* access_lean, unrolled over the two levels */
    if (regs_ref(&r1, a1, addr >> r1.shift, w))
      continue;
    regs_miss(&r1, w, ss, 0);
    r2.accesses++;
    r2.writes += w;
    if (ss)
      ss[1].accesses++;
    if (addr >> r2.shift == r2.last_line)
      continue;
    if (regs_ref(&r2, a2, addr >> r2.shift, w))
      continue;
    regs_miss(&r2, w, ss, 1);
  }
done:
  r1.accesses += n;
  r1.writes += writes;
  regs_store(&r1, l1);
  regs_store(&r2, l2);
  h->slow_accesses += slow;
}

bool lru2_applies(const cb_hierarchy *h) {
  if (h->n_levels != 2 || !h->lean_mask)
    return false;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  return l1->policy == CB_POLICY_LRU && l2->policy == CB_POLICY_LRU &&
         !l1->wide && !l2->wide && !l1->shadow && !l2->shadow;
}

bool records_run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n) {
  if (!lru2_applies(h))
    return false;
  const cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  if (l1->assoc == 8 && l2->assoc == 16)
    run_lru2(h, batch, n, 8, 16);
  else
    run_lru2(h, batch, n, l1->assoc, l2->assoc);
  return true;
}

/* The iterations of an affine block that cannot warp (some access takes
 * a line or more a step: a column walk), every access inside one line at
 * both levels: run_lru2's steps on addresses made here instead of read
 * from a batch, the state in locals for the whole block. Through
 * affine.c's loop, which calls access_lean_lru2 for each access past the
 * first level's fast path and so reads the geometry and writes the
 * counters back every time, a column walk ran at 106 M accesses/s
 * against 126 as records (sim_bench). The first level's access and write
 * counters and the sites' accesses there are cb_affine_run's (added for
 * the whole block); the rest is counted here, as access_lean would. */
static inline __attribute__((always_inline)) uint64_t
column_lru2(cb_hierarchy *h, const cb_affine_block *b, const uint32_t n,
            uint32_t a1, uint32_t a2) {
  cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  lvl_regs r1 = regs_of(l1), r2 = regs_of(l2);
  uint64_t addr[MEMO_MAX_ACC], stride[MEMO_MAX_ACC];
  bool is_write[MEMO_MAX_ACC];
  cb_site_stats *ss[MEMO_MAX_ACC];
#pragma GCC unroll 8
  for (uint32_t j = 0; j < n; j++) {
    const cb_affine_access *x = &b->acc[j];
    addr[j] = x->base;
    stride[j] = (uint64_t)x->stride;
    is_write[j] = x->is_write;
    ss[j] = x->site < h->n_sites ? &h->sites[(size_t)x->site * 2] : NULL;
  }
  uint64_t slow = 0;
  for (uint64_t t = 0; t < b->n_iter; t++) {
#pragma GCC unroll 8
    for (uint32_t j = 0; j < n; j++) {
      const uint64_t a = addr[j];
      addr[j] = a + stride[j];
      if (a >> r1.shift == r1.last_line)
        continue;
      slow++;
      const bool w = is_write[j];
      if (regs_ref(&r1, a1, a >> r1.shift, w))
        continue;
      regs_miss(&r1, w, ss[j], 0);
      r2.accesses++;
      r2.writes += w;
      if (ss[j])
        ss[j][1].accesses++;
      if (a >> r2.shift == r2.last_line)
        continue;
      if (regs_ref(&r2, a2, a >> r2.shift, w))
        continue;
      regs_miss(&r2, w, ss[j], 1);
    }
  }
  regs_store(&r1, l1);
  regs_store(&r2, l2);
  return slow;
}

bool affine_run_lru2(cb_hierarchy *h, const cb_affine_block *b,
                     uint64_t *slow) {
  if (!lru2_applies(h) || b->n_acc > MEMO_MAX_ACC)
    return false;
  const uint32_t a1 = h->levels[0].assoc, a2 = h->levels[1].assoc;
  /* cachegrind's ways constant, and the commonest sizes */
  if (a1 == 8 && a2 == 16) {
    switch (b->n_acc) {
    case 1:
      *slow = column_lru2(h, b, 1, 8, 16);
      return true;
    case 2:
      *slow = column_lru2(h, b, 2, 8, 16);
      return true;
    case 3:
      *slow = column_lru2(h, b, 3, 8, 16);
      return true;
    default:
      *slow = column_lru2(h, b, b->n_acc, 8, 16);
      return true;
    }
  }
  *slow = column_lru2(h, b, b->n_acc, a1, a2);
  return true;
}

/* One access past the first level's fast path (access_lean's steps),
 * the geometry read once into locals. The same steps as run_lru2's slow
 * path, but counting straight into the levels, and only on a miss:
 * sharing run_lru2's step and writing its local counters back on every
 * call cost affine blocks 8 to 10 % (sim_bench column walk 106 -> 93
 * M/s, gemm 423 -> 389). */
static inline __attribute__((always_inline)) void
lean_lru2(cb_hierarchy *h, uint64_t addr, bool w, uint32_t site, uint32_t a1,
          uint32_t a2) {
  cb_level *l1 = &h->levels[0], *l2 = &h->levels[1];
  lvl_regs r1 = regs_of(l1), r2 = regs_of(l2);
  cb_site_stats *ss = site < h->n_sites ? &h->sites[(size_t)site * 2] : NULL;
  bool hit = regs_ref(&r1, a1, addr >> r1.shift, w);
  l1->last_line = r1.last_line;
  if (hit)
    return;
  l1->misses++;
  l1->write_misses += w;
  if (ss)
    ss[0].misses++;
  l2->accesses++;
  l2->writes += w;
  if (ss)
    ss[1].accesses++;
  if (addr >> r2.shift == r2.last_line)
    return;
  hit = regs_ref(&r2, a2, addr >> r2.shift, w);
  l2->last_line = r2.last_line;
  if (hit)
    return;
  l2->misses++;
  l2->write_misses += w;
  if (ss)
    ss[1].misses++;
}

void access_lean_lru2(cb_hierarchy *h, uint64_t addr, bool is_write,
                      uint32_t site) {
  if (h->levels[0].assoc == 8 && h->levels[1].assoc == 16)
    lean_lru2(h, addr, is_write, site, 8, 16);
  else
    lean_lru2(h, addr, is_write, site, h->levels[0].assoc, h->levels[1].assoc);
}
