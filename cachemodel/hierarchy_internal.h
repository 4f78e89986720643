/* The hierarchy's state and its per-access paths, shared by the batch
 * loop (hierarchy.c) and the affine-block loop (affine.c) so that both
 * run exactly the same steps for an access. Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_HIERARCHY_INTERNAL_H
#define CBANA_CACHEMODEL_HIERARCHY_INTERNAL_H

#include "cbana/stream.h"
#include "level.h"

#include "memo.h"
#include <limits.h>

typedef struct par_pool par_pool; /* parallel.c */

struct cb_hierarchy {
  unsigned n_levels;
  uint32_t n_sites;
  cb_site_stats *sites; /* n_sites * n_levels, site-major */
  bool classify;
  uint64_t slow_accesses; /* accesses that missed the fast path */
  /* Which accelerations apply (accel.c, accel_choose, has each one's
   * predicate and fallback). The smallest line's offset mask when
   * access_lean applies, else 0. */
  uint64_t lean_mask;
  /* The smallest line's offset mask when access_cg_one_line applies,
   * else 0. */
  uint64_t cg_mask;
  /* The deepest distance + 1 at which l1_mru_hit takes a reference
   * (min(SD_MRU, the first level's ways)) when it applies, else 0. */
  uint32_t mru_max;
  cb_affine_stats affine; /* affine.c's counters */
  seg_memo *memo;         /* memo.c, or NULL where it does not apply */
  par_pool *pool;         /* parallel.c: threads that split blocks, or NULL */
  cb_level levels[CB_MAX_LEVELS];
  cb_shadow shadows[CB_MAX_LEVELS];
  /* accel.c's other choices, after the fields the hot loops read */
  bool lru2;         /* records_lru2.c's paths */
  bool lru2_cg_ways; /* and their copies with 8 and 16 ways constant */
  bool avx512;       /* and with AVX-512 set updates */
  bool way0;         /* affine_loop.h's way-0 hits */
  bool memo_applies; /* memo.c's segment memos */
};

/* The unmemoized paths: a record batch (hierarchy.c) and an affine
 * block (affine.c) run as they are. */
void cb_records_run(cb_hierarchy *h, const cb_access *batch, size_t n);
/* The accelerations' predicates (accel.c): sets h's choices, once its
 * levels are made; whether parallel.c may split h's blocks by set. */
void accel_choose(cb_hierarchy *h);
bool accel_split_applies(const cb_hierarchy *h);
/* cb_records_run where h->lru2 (records_lru2.c); access_lean for such a
 * hierarchy, out of line (affine.c's iterations call it). */
void records_run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n);
void access_lean_lru2(cb_hierarchy *h, uint64_t addr, bool is_write,
                      uint32_t site);
void cb_affine_run(cb_hierarchy *h, const cb_affine_block *b);
/* The memo's entries (memo.c): holds a batch back as part of the current
 * segment (false when it does not fit: settle, then run it); takes a
 * block, runs or counts its segment. */
bool memo_hold(cb_hierarchy *h, const cb_access *batch, size_t n);
void memo_block(cb_hierarchy *h, const cb_affine_block *b);

/* What affine.c's iteration loop did, for the counters. */
typedef struct affine_run {
  uint64_t slow, warped, warps;
} affine_run;

/* A partition of the lines by the bits every level's set index holds
 * (parallel.c): x = address bits [shift, shift + popcount(mask)); bit i
 * of the part is the parity of x's bits at positions i, i + n_bits,
 * i + 2 n_bits, ... (lanes[i]). A column walk's lines form an arithmetic
 * progression that takes every value of x's upper bits, the lowest few
 * fixed by the stride; parities of interleaved bits split such a set
 * evenly (a multiplicative hash split PolyBench's columns 56 : 44). */
#define PAR_MAX_BITS 6
typedef struct par_key {
  uint32_t shift, n_bits;
  uint64_t mask;
  uint64_t lanes[PAR_MAX_BITS];
} par_key;

static inline uint32_t par_part(const par_key *k, uint64_t addr) {
  uint64_t x = (addr >> k->shift) & k->mask;
  if (k->n_bits == 1)
    return (uint32_t)__builtin_parityll(x);
  uint32_t part = 0;
  for (uint32_t i = 0; i < k->n_bits; i++)
    part |= (uint32_t)__builtin_parityll(x & k->lanes[i]) << i;
  return part;
}

/* affine.c: the iterations of an aligned block (every access inside one
 * line at every level), only the accesses of partition `part`, on a
 * view of the hierarchy (parallel.c). The first level's access counters
 * are the caller's. */
void affine_run_part(cb_hierarchy *v, const cb_affine_block *b,
                     const par_key *key, uint32_t part, bool can_warp,
                     affine_run *out);
/* parallel.c: runs an aligned block split over the pool's threads, the
 * caller's included, and adds the parts' counters to h's; false (nothing
 * done) without a pool or for a short block. */
bool par_run_affine(cb_hierarchy *h, const cb_affine_block *b, bool can_warp,
                    affine_run *out);
/* Stops the pool's threads and frees it (nothing without one). */
void par_stop(cb_hierarchy *h);

/* One line reference at a level: cb_level_ref, or with `lru_assoc` a
 * constant (the caller's copy for a level known to be LRU without wide
 * sets, that many ways) lru_touch with the bound a constant. */
static inline __attribute__((always_inline)) bool
level_ref_line(cb_level *lv, uint64_t line, bool is_write, uint32_t lru_assoc) {
  if (!lru_assoc)
    return cb_level_ref(lv, line, is_write);
  return lru_touch(lv->tags + (line & lv->set_mask) * lru_assoc, lru_assoc,
                   line, !is_write || lv->write_allocate);
}

/* One line's lookup at a level with its shadow (the full copies of the
 * rule below): whether it hit; *cls: the worst class of the missed lines
 * (the lowest enum value). `cold`: what the level above knew of the
 * line's first reference (shadow.h). */
static inline __attribute__((always_inline)) bool
full_ref(cb_level *lv, uint64_t line, bool is_write, uint32_t lru_assoc,
         unsigned cold, unsigned *cls) {
  bool hit = level_ref_line(lv, line, is_write, lru_assoc);
  if (lv->shadow) {
    unsigned c = cb_shadow_ref(lv->shadow, line, hit, cold);
    if (!hit && c < *cls)
      *cls = c;
  }
  return hit;
}

/* A miss at level k of n_levels (lines first .. last there), counted
 * with its class `cls`, into `out` when asked; *cold: what the next
 * level knows of the line. */
static inline __attribute__((always_inline)) void
full_miss(cb_hierarchy *h, unsigned k, unsigned n_levels, cb_site_stats *ss,
          uint64_t first, uint64_t last, bool is_write, uint8_t *out,
          unsigned *cold, unsigned cls) {
  cb_level *lv = &h->levels[k];
  /* A level below with the same lines sees a line first exactly when
   * this one does: this one's first reference to it missed and was
   * presented there, and it is presented only what this one saw. */
  *cold =
      first != last || k + 1 == n_levels || lv[1].line_shift != lv->line_shift
          ? SHADOW_COLD_UNKNOWN
      : cls == CB_MISS_COMPULSORY ? SHADOW_COLD_YES
                                  : SHADOW_COLD_NO;
  lv->misses++;
  lv->write_misses += is_write;
  if (ss)
    ss[k].misses++;
  if (h->classify) {
    lv->miss_class[cls]++;
    if (ss)
      ss[k].miss_class[cls]++;
  }
  if (out)
    out[k] = (uint8_t)(h->classify ? cls : CB_MISS_CLASSES);
}

/* The access presented to level k (the plain copies count the same). */
static inline __attribute__((always_inline)) void
level_pass(cb_level *lv, cb_site_stats *ss, unsigned k, bool is_write) {
  lv->accesses++;
  lv->writes += is_write;
  if (ss)
    ss[k].accesses++;
}

/* The full copies of access_rule.h: on the levels' fields, with the
 * shadows, classes and outcomes (`out`: the class of each missed
 * level's miss, CB_MISS_CLASSES without classification); ss: the site's
 * counters or NULL; assoc0, assoc1: the first two levels' ways as
 * level_ref_line takes them (0: any level, any policy). rule_full runs
 * over the levels; rule_full2, for two levels, is unrolled. */
#define RULE_PARAMS                                                            \
  cb_hierarchy *h, cb_site_stats *ss, uint8_t *out, unsigned *cold,            \
      uint32_t assoc0, uint32_t assoc1
#define RULE_ARGS h, ss, out, cold, assoc0, assoc1
#define RULE_LEVEL_LOCALS unsigned cls = CB_MISS_CONFLICT;
#define RULE_SHIFT(k) (h->levels[k].line_shift)
#define RULE_REF(k, line)                                                      \
  full_ref(&h->levels[k], line, is_write, (k) ? assoc1 : assoc0, *cold, &cls)
#define RULE_REPEATS 1
#define RULE_LAST(k) (h->levels[k].last_line)
#define RULE_ALLOCATES(k) (h->levels[k].write_allocate)
#define RULE_MISS(k, first, last)                                              \
  full_miss(h, k, n_levels, ss, first, last, is_write, out, cold, cls)
#define RULE_PASS(k) level_pass(&h->levels[k], ss, k, is_write)
#define RULE_REPEAT(k)                                                         \
  do {                                                                         \
    if (h->levels[k].shadow)                                                   \
      cb_shadow_repeat(h->levels[k].shadow, 1);                                \
  } while (0)
#define RULE_NAME rule_full
#define RULE_UNROLLED 0
#define RULE_KEEP
#include "access_rule.h"
#undef RULE_KEEP
#define RULE_NAME rule_full2
#define RULE_UNROLLED 1
#include "access_rule.h"

/* The lean copy: no classification, no wide sets, an access inside one
 * line at every level (the caller's check: h->lean_mask), on the levels'
 * fields and the site's counters. */
static inline __attribute__((always_inline)) void
lean_miss(cb_level *lv, cb_site_stats *ss, unsigned k, bool is_write) {
  lv->misses++;
  lv->write_misses += is_write;
  if (ss)
    ss[k].misses++;
}
#define RULE_PARAMS cb_hierarchy *h, cb_site_stats *ss
#define RULE_ARGS h, ss
#define RULE_SHIFT(k) (h->levels[k].line_shift)
#define RULE_REF(k, line) cb_level_ref(&h->levels[k], line, is_write)
#define RULE_REPEATS 1
#define RULE_LAST(k) (h->levels[k].last_line)
#define RULE_ALLOCATES(k) (h->levels[k].write_allocate)
#define RULE_MISS(k, first, last) lean_miss(&h->levels[k], ss, k, is_write)
#define RULE_PASS(k) level_pass(&h->levels[k], ss, k, is_write)
#define RULE_REPEAT(k) ((void)0)
#define RULE_NAME rule_lean
#define RULE_UNROLLED 0
#include "access_rule.h"

static inline cb_site_stats *site_stats(cb_hierarchy *h, uint32_t site) {
  return site < h->n_sites ? &h->sites[(size_t)site * h->n_levels] : NULL;
}

/* An access that missed the first level's fast path, from the first
 * level down; the first level's access counters are the caller's.
 * Returns how many levels missed (the first ones); with `out`, the
 * class of each such level's miss there (CB_MISS_CLASSES without
 * classification). */
static inline __attribute__((always_inline)) unsigned
access_levels_body(cb_hierarchy *h, uint64_t addr, uint64_t end, bool is_write,
                   uint32_t site, uint8_t *out) {
  unsigned cold = SHADOW_COLD_UNKNOWN;
  return rule_full(h, site_stats(h, site), out, &cold, 0, 0, h->n_levels, addr,
                   end, is_write, false);
}

/* access_levels_body for a hierarchy of two LRU levels without wide sets
 * of assoc0 and assoc1 ways (constants: the caller's copy) and an access
 * inside one line at both: the same steps, unrolled, with the loops'
 * bounds known. */
static inline __attribute__((always_inline)) unsigned
access_lru2_one_line(cb_hierarchy *h, uint64_t addr, bool is_write,
                     uint32_t site, uint8_t *out, uint32_t assoc0,
                     uint32_t assoc1) {
  unsigned cold = SHADOW_COLD_UNKNOWN;
  return rule_full2(h, site_stats(h, site), out, &cold, assoc0, assoc1, 2, addr,
                    addr, is_write, true);
}

static void __attribute__((noinline, unused))
access_levels(cb_hierarchy *h, uint64_t addr, uint64_t end, bool is_write,
              uint32_t site) {
  access_levels_body(h, addr, end, is_write, site, NULL);
}

/* access_levels for the common case, in fewer instructions: no
 * classification, no wide sets, and an access inside one line at every
 * level (h->lean_mask, from the smallest line). Returns how many levels
 * missed. */
static inline __attribute__((always_inline)) unsigned
access_lean(cb_hierarchy *h, uint64_t addr, bool is_write, uint32_t site) {
  return rule_lean(h, site_stats(h, site), h->n_levels, addr, addr, is_write,
                   true);
}

/* access_lru2_one_line's copy for cachegrind's ways (h->cg_mask). */
static inline __attribute__((always_inline)) unsigned
access_cg_one_line(cb_hierarchy *h, uint64_t addr, bool is_write, uint32_t site,
                   uint8_t *out) {
  return access_lru2_one_line(h, addr, is_write, site, out, 8, 16);
}

/* The first level's second fast path, for an access inside one line
 * (first .. last: its line at the first level) that is not the line
 * referenced last: that line's distance d in the first level's fully
 * associative LRU stack, when its shadow's move-to-front list has it
 * (exact distances only: a sampled shadow's list holds the sample).
 * The level's references are the shadow's, so at most d lines of its
 * set came since the line's last reference, which filled it (LRU fills
 * on every miss here): with d below the ways it hits (the inclusion
 * property, Mattson et al. 1970), no lower level is consulted
 * (cachegrind's rule) and nothing is classified. What a reference
 * changes then is the set's order (lru_touch, usually one compare: the
 * line is in front), the list's (cb_stackdist_mru_hit, which counts
 * distance d) and last_line; the counters of accesses are the caller's.
 * False, having done nothing, when it does not apply. */
static inline __attribute__((always_inline)) bool
l1_mru_hit(cb_hierarchy *h, uint64_t first, uint64_t last) {
  cb_level *l1 = &h->levels[0];
  if (first != last || l1->shadow->sampled || l1->shadow->sd.bypass)
    return false;
  cb_stackdist *sd = &l1->shadow->sd;
  uint32_t d = cb_stackdist_mru_find(sd, first);
  if (!d || d >= h->mru_max)
    return false;
  uint64_t *set = l1->tags + (first & l1->set_mask) * l1->assoc;
  if (l1->assoc == 8)
    lru_touch(set, 8, first, true);
  else
    lru_touch(set, l1->assoc, first, true);
  cb_stackdist_mru_hit(sd, first, d);
  l1->last_line = first;
  return true;
}

/* The last byte of an access, clamped at the top of the address space. */
static inline uint64_t access_end(uint64_t addr, uint64_t size) {
  uint64_t end = addr + size - (size != 0);
  return end < addr ? UINT64_MAX : end;
}

#endif
