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
  /* The smallest line's offset mask when access_lean applies (no
   * classification, no wide sets), else 0. */
  uint64_t lean_mask;
  /* The smallest line's offset mask when access_cg_one_line applies
   * (classification, cachegrind's two LRU levels), else 0. */
  uint64_t cg_mask;
  /* The deepest distance + 1 at which l1_mru_hit takes a reference
   * (min(SD_MRU, the first level's ways)) when it applies, else 0. */
  uint32_t mru_max;
  cb_affine_stats affine; /* affine.c's counters */
  seg_memo *memo;         /* memo.c, or NULL where it does not apply */
  par_pool *pool;         /* parallel.c: threads that split blocks, or NULL */
  cb_level levels[CB_MAX_LEVELS];
  cb_shadow shadows[CB_MAX_LEVELS];
};

/* The unmemoized paths: a record batch (hierarchy.c) and an affine
 * block (affine.c) run as they are. */
void cb_records_run(cb_hierarchy *h, const cb_access *batch, size_t n);
/* cb_records_run for two LRU levels without classification or wide
 * sets (records_lru2.c); false, having done nothing, for any other. */
bool records_run_lru2(cb_hierarchy *h, const cb_access *batch, size_t n);
/* Whether records_lru2.c's paths apply; access_lean for such a
 * hierarchy, out of line (affine.c's iterations call it). */
bool lru2_applies(const cb_hierarchy *h);
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

/* All lines of an access at one level: true if any missed; *cls is the
 * worst class of the missed lines (the lowest enum value). `cold`: what
 * the level above knew of the line's first reference (shadow.h).
 * lru_assoc: as level_ref_line. */
static inline __attribute__((always_inline)) bool
level_ref_lines(cb_level *lv, uint64_t first, uint64_t last, bool is_write,
                unsigned *cls, unsigned cold, uint32_t lru_assoc) {
  bool missed = false, hit;
  uint64_t line = first;
  for (;;) {
    hit = level_ref_line(lv, line, is_write, lru_assoc);
    missed |= !hit;
    if (lv->shadow) {
      unsigned c = cb_shadow_ref(lv->shadow, line, hit, cold);
      if (!hit && c < *cls)
        *cls = c;
    }
    if (line == last)
      break;
    line++;
  }
  /* The repeat fast path may trust last_line only while it is cached: a
   * write miss without allocation leaves it out. */
  lv->last_line = hit || !is_write || lv->write_allocate ? last : NO_LINE;
  return missed;
}

/* level_visit's answer when the access goes on to the next level. */
#define VISIT_NEXT UINT_MAX

/* An access presented to level lv (its access counters already counted):
 * looks its lines up, counts a miss and its class, and presents it to
 * the next level. Returns how many levels missed when the access stops
 * here or at the next level's repeat fast path, else VISIT_NEXT.
 * `one_line` (a constant): the caller knows the access lies inside one
 * line at this level (first == last); lru_assoc as level_ref_line. */
static inline __attribute__((always_inline)) unsigned
level_visit(cb_hierarchy *h, cb_level *lv, cb_site_stats *ss, uint64_t addr,
            uint64_t end, bool is_write, uint8_t *out, unsigned *cold,
            bool one_line, uint32_t lru_assoc) {
  cb_level *const lv_end = h->levels + h->n_levels;
  uint64_t first = addr >> lv->line_shift,
           last = one_line ? first : end >> lv->line_shift;
  unsigned cls = CB_MISS_CONFLICT;
  if (!level_ref_lines(lv, first, last, is_write, &cls, *cold, lru_assoc))
    return (unsigned)(lv - h->levels);
  /* A level below with the same lines sees a line first exactly when
   * this one does: this one's first reference to it missed and was
   * presented there, and it is presented only what this one saw. */
  *cold =
      first != last || lv + 1 == lv_end || lv[1].line_shift != lv->line_shift
          ? SHADOW_COLD_UNKNOWN
      : cls == CB_MISS_COMPULSORY ? SHADOW_COLD_YES
                                  : SHADOW_COLD_NO;
  lv->misses++;
  lv->write_misses += is_write;
  if (ss)
    ss->misses++;
  if (h->classify) {
    lv->miss_class[cls]++;
    if (ss)
      ss->miss_class[cls]++;
  }
  if (out)
    out[lv - h->levels] = (uint8_t)(h->classify ? cls : CB_MISS_CLASSES);
  if (lv + 1 == lv_end)
    return h->n_levels;
  /* Presented to the next level, with the first level's fast path. */
  lv[1].accesses++;
  lv[1].writes += is_write;
  if (ss)
    ss[1].accesses++;
  if (addr >> lv[1].line_shift == lv[1].last_line &&
      (one_line || end >> lv[1].line_shift == lv[1].last_line)) {
    if (lv[1].shadow)
      cb_shadow_repeat(lv[1].shadow, 1);
    return (unsigned)(lv + 1 - h->levels);
  }
  return VISIT_NEXT;
}

/* An access that missed the first level's fast path, from the first
 * level down; the first level's access counters are the caller's.
 * Returns how many levels missed (the first ones); with `out`, the
 * class of each such level's miss there (CB_MISS_CLASSES without
 * classification). */
static inline __attribute__((always_inline)) unsigned
access_levels_body(cb_hierarchy *h, uint64_t addr, uint64_t end, bool is_write,
                   uint32_t site, uint8_t *out) {
  cb_site_stats *ss =
      site < h->n_sites ? &h->sites[(size_t)site * h->n_levels] : NULL;
  unsigned cold = SHADOW_COLD_UNKNOWN;
  for (cb_level *lv = h->levels;; lv++, ss = ss ? ss + 1 : NULL) {
    unsigned r =
        level_visit(h, lv, ss, addr, end, is_write, out, &cold, false, 0);
    if (r != VISIT_NEXT)
      return r;
  }
}

/* access_levels_body for a hierarchy of two LRU levels without wide sets
 * of assoc0 and assoc1 ways (constants: the caller's copy) and an access
 * inside one line at both: the same steps, unrolled, with the loops'
 * bounds known. */
static inline __attribute__((always_inline)) unsigned
access_lru2_one_line(cb_hierarchy *h, uint64_t addr, bool is_write,
                     uint32_t site, uint8_t *out, uint32_t assoc0,
                     uint32_t assoc1) {
  cb_site_stats *ss =
      site < h->n_sites ? &h->sites[(size_t)site * h->n_levels] : NULL;
  unsigned cold = SHADOW_COLD_UNKNOWN;
  unsigned r = level_visit(h, &h->levels[0], ss, addr, addr, is_write, out,
                           &cold, true, assoc0);
  if (r != VISIT_NEXT)
    return r;
  return level_visit(h, &h->levels[1], ss ? ss + 1 : NULL, addr, addr, is_write,
                     out, &cold, true, assoc1);
}

static void __attribute__((noinline, unused))
access_levels(cb_hierarchy *h, uint64_t addr, uint64_t end, bool is_write,
              uint32_t site) {
  access_levels_body(h, addr, end, is_write, site, NULL);
}

/* access_levels for the common case, in fewer instructions: no
 * classification, no wide sets, and an access inside one line at every
 * level (h->lean_mask, from the smallest line). The same steps as
 * access_levels with first == last. */
static inline __attribute__((always_inline)) void
access_lean(cb_hierarchy *h, uint64_t addr, bool is_write, uint32_t site) {
  cb_site_stats *ss =
      site < h->n_sites ? &h->sites[(size_t)site * h->n_levels] : NULL;
  cb_level *lv = h->levels, *const lv_end = h->levels + h->n_levels;
  for (;;) {
    uint64_t line = addr >> lv->line_shift;
    bool hit = cb_level_ref(lv, line, is_write);
    lv->last_line = hit || !is_write || lv->write_allocate ? line : NO_LINE;
    if (hit)
      return;
    lv->misses++;
    lv->write_misses += is_write;
    if (ss)
      ss++->misses++;
    if (++lv == lv_end)
      return;
    lv->accesses++;
    lv->writes += is_write;
    if (ss)
      ss->accesses++;
    if (addr >> lv->line_shift == lv->last_line)
      return;
  }
}

/* Whether access_cg_one_line applies to h's levels: two LRU levels of
 * 8 and 16 ways without wide sets (cachegrind's default geometry, and
 * the model's: presets.c). */
static inline bool cg_shape(const cb_hierarchy *h) {
  return h->n_levels == 2 && h->levels[0].policy == CB_POLICY_LRU &&
         h->levels[1].policy == CB_POLICY_LRU && !h->levels[0].wide &&
         !h->levels[1].wide && h->levels[0].assoc == 8 &&
         h->levels[1].assoc == 16;
}

/* access_lru2_one_line's copy for cg_shape. */
static inline __attribute__((always_inline)) unsigned
access_cg_one_line(cb_hierarchy *h, uint64_t addr, bool is_write, uint32_t site,
                   uint8_t *out) {
  return access_lru2_one_line(h, addr, is_write, site, out, 8, 16);
}

/* Whether l1_mru_hit may apply to h (its mru_max): classification (the
 * first level's shadow), and a first level that is LRU without wide sets
 * and fills on every miss. */
static inline uint32_t mru_max_of(const cb_hierarchy *h) {
  const cb_level *l1 = &h->levels[0];
  if (!h->classify || l1->policy != CB_POLICY_LRU || l1->wide ||
      !l1->write_allocate)
    return 0;
  return l1->assoc < SD_MRU ? l1->assoc : SD_MRU;
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
