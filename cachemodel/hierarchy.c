/* The hierarchy: levels from the core outward, cachegrind's rules for
 * presenting an access to them (cg_sim.c, cachesim_D1_doref and
 * cachesim_ref_is_miss):
 *  - a level is consulted only when the level above missed;
 *  - an access is looked up line by line at a level (all its lines, even
 *    after one missed, since each lookup updates the set), and counts
 *    there as one access, and as one miss if any of its lines missed;
 *  - a missed access is presented whole to the next level.
 * Cachegrind allows at most two lines per access; here an access may span
 * any number, with the same rules. Per-site counters and the miss classes
 * are kept on the way. */
#include "hierarchy_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The first level's fast path: the line referenced last at this level,
 * still cached, is a hit that changes no policy state and is at distance
 * 0 in the shadow. Most accesses of real streams end here, so the batch
 * loop below does it inline, counting the first level's accesses, writes
 * and distance-0 references (n minus the slow ones) in registers: a
 * counter in memory would make every iteration wait for the previous
 * one's store. */
void cb_records_run(cb_hierarchy *h, const cb_access *batch, size_t n) {
  if (records_run_lru2(h, batch, n))
    return;
  cb_level *l1 = &h->levels[0];
  const uint32_t shift = l1->line_shift;
  const uint64_t offset_mask = (1ull << shift) - 1;
  uint64_t writes = 0, slow_before = h->slow_accesses;
  uint64_t last_line = l1->last_line;
  /* 0 when the lean path does not apply: no access fits then */
  const uint64_t lean_mask = h->lean_mask;
  for (const cb_access *a = batch, *end = batch + n; a < end; a++) {
    writes += a->is_write;
    if (a->site < h->n_sites)
      h->sites[(size_t)a->site * h->n_levels].accesses++;
    /* Within one line: its offset plus its size fit (size 0, a byte,
     * always does). */
    if (a->addr >> shift == last_line &&
        (a->addr & offset_mask) + a->size <= offset_mask + 1)
      continue;
    h->slow_accesses++;
    if (h->mru_max && l1_mru_hit(h, a->addr >> shift,
                                 access_end(a->addr, a->size) >> shift)) {
      last_line = l1->last_line;
      continue;
    }
    if (lean_mask && (a->addr & lean_mask) + a->size <= lean_mask + 1)
      access_lean(h, a->addr, a->is_write, a->site);
    else if (h->cg_mask && (a->addr & h->cg_mask) + a->size <= h->cg_mask + 1)
      access_cg_one_line(h, a->addr, a->is_write, a->site, NULL);
    else
      access_levels(h, a->addr, access_end(a->addr, a->size), a->is_write,
                    a->site);
    last_line = l1->last_line;
  }
  l1->accesses += n;
  l1->writes += writes;
  if (l1->shadow)
    cb_shadow_repeat(l1->shadow, n - (h->slow_accesses - slow_before));
}

/* Records between two blocks wait for the second (memo.h); others go
 * to the record memo, or run. */
void cb_hierarchy_run(cb_hierarchy *h, const cb_access *batch, size_t n) {
  if (h->memo) {
    if (memo_hold(h, batch, n))
      return;
    memo_settle_segments(h);
    if (h->memo->rec) {
      rmemo_run(h, h->memo->rec, batch, n);
      return;
    }
  }
  cb_records_run(h, batch, n);
}

/* One access is its outcome with the outcome left unread: one copy of
 * the steps (cb_hierarchy_access_outcome, below). */
void cb_hierarchy_access(cb_hierarchy *h, uint64_t addr, uint32_t size,
                         bool is_write, uint32_t site) {
  uint8_t cls[CB_MAX_LEVELS];
  cb_hierarchy_access_outcome(h, addr, size, is_write, site, cls);
}

/* cb_hierarchy_access_outcome past the first level's fast path. */
static __attribute__((noinline)) unsigned
access_outcome_slow(cb_hierarchy *h, uint64_t addr, uint64_t end, uint32_t size,
                    bool is_write, uint32_t site, uint8_t cls[CB_MAX_LEVELS]) {
  if (size > UINT16_MAX)
    return access_levels_body(h, addr, end, is_write, site, cls);
  h->slow_accesses++;
  if (h->cg_mask && (addr & h->cg_mask) + size <= h->cg_mask + 1)
    return access_cg_one_line(h, addr, is_write, site, cls);
  if (!(h->lean_mask && (addr & h->lean_mask) + size <= h->lean_mask + 1))
    return access_levels_body(h, addr, end, is_write, site, cls);
  /* access_lean counts no classes (there are none then): a missed level
   * counted one miss */
  uint64_t misses[CB_MAX_LEVELS];
  for (unsigned l = 0; l < h->n_levels; l++)
    misses[l] = h->levels[l].misses;
  access_lean(h, addr, is_write, site);
  unsigned n = 0;
  for (; n < h->n_levels && h->levels[n].misses != misses[n]; n++)
    cls[n] = CB_MISS_CLASSES;
  return n;
}

/* cb_hierarchy_access_outcome with nothing held by the memo. */
static inline __attribute__((always_inline)) unsigned
access_outcome(cb_hierarchy *h, uint64_t addr, uint32_t size, bool is_write,
               uint32_t site, uint8_t cls[CB_MAX_LEVELS]) {
  /* cb_records_run's steps for one record (and cb_hierarchy_access's for
   * a larger one, where the fast path never applies): counted at the
   * first level, then the fast path, then the levels. */
  cb_level *l1 = &h->levels[0];
  l1->accesses++;
  l1->writes += is_write;
  if (site < h->n_sites)
    h->sites[(size_t)site * h->n_levels].accesses++;
  uint64_t end = access_end(addr, size);
  if (addr >> l1->line_shift == l1->last_line &&
      end >> l1->line_shift == l1->last_line) {
    if (l1->shadow)
      cb_shadow_repeat(l1->shadow, 1);
    return 0;
  }
  if (h->mru_max &&
      l1_mru_hit(h, addr >> l1->line_shift, end >> l1->line_shift)) {
    h->slow_accesses++;
    return 0;
  }
  return access_outcome_slow(h, addr, end, size, is_write, site, cls);
}

static __attribute__((noinline)) unsigned
access_outcome_settle(cb_hierarchy *h, uint64_t addr, uint32_t size,
                      bool is_write, uint32_t site,
                      uint8_t cls[CB_MAX_LEVELS]) {
  memo_settle(h);
  return access_outcome(h, addr, size, is_write, site, cls);
}

/* A lone access is called often (the collector's every access): the
 * fast path calls nothing, so that it saves no registers. */
unsigned cb_hierarchy_access_outcome(cb_hierarchy *h, uint64_t addr,
                                     uint32_t size, bool is_write,
                                     uint32_t site,
                                     uint8_t cls[CB_MAX_LEVELS]) {
  if (h->memo)
    return access_outcome_settle(h, addr, size, is_write, site, cls);
  return access_outcome(h, addr, size, is_write, site, cls);
}

/* access_outcome's steps for a batch, its first level's counters and
 * distance-0 references in registers (cb_records_run's reason). */
void cb_hierarchy_run_outcomes(cb_hierarchy *h, const cb_access *batch,
                               size_t n, uint8_t *missed,
                               uint8_t (*cls)[CB_MAX_LEVELS]) {
  if (h->memo) {
    for (size_t k = 0; k < n; k++)
      missed[k] = (uint8_t)cb_hierarchy_access_outcome(
          h, batch[k].addr, batch[k].size, batch[k].is_write, batch[k].site,
          cls[k]);
    return;
  }
  cb_level *l1 = &h->levels[0];
  const uint32_t shift = l1->line_shift;
  const uint32_t mru_max = h->mru_max;
  uint64_t writes = 0, repeats = 0;
  for (size_t k = 0; k < n; k++) {
    const cb_access *a = &batch[k];
    writes += a->is_write;
    if (a->site < h->n_sites)
      h->sites[(size_t)a->site * h->n_levels].accesses++;
    const uint64_t end = access_end(a->addr, a->size);
    const uint64_t first = a->addr >> shift, last = end >> shift;
    missed[k] = 0;
    if (first == l1->last_line && last == first) {
      repeats++;
      continue;
    }
    if (mru_max && l1_mru_hit(h, first, last)) {
      h->slow_accesses++;
      continue;
    }
    missed[k] = (uint8_t)access_outcome_slow(h, a->addr, end, a->size,
                                             a->is_write, a->site, cls[k]);
  }
  l1->accesses += n;
  l1->writes += writes;
  if (l1->shadow)
    cb_shadow_repeat(l1->shadow, repeats);
}

static void set_err(char *err, size_t n, const char *msg, const char *name) {
  if (err && n)
    snprintf(err, n, "%s%s%s", name ? name : "", name ? ": " : "", msg);
}

cb_hierarchy *cb_hierarchy_create(const cb_cache_config *cfg, uint32_t n_sites,
                                  unsigned flags, char *err, size_t n) {
  if (cfg->n_levels == 0 || cfg->n_levels > CB_MAX_LEVELS) {
    set_err(err, n, "a hierarchy needs 1 to 8 levels", NULL);
    return NULL;
  }
  for (unsigned i = 0; i < cfg->n_levels; i++) {
    char why[CB_ERR_MAX];
    if (!cb_level_config_check(&cfg->levels[i], why, sizeof why)) {
      set_err(err, n, why, cfg->levels[i].name);
      return NULL;
    }
  }
  cb_hierarchy *h = calloc(1, sizeof *h);
  if (!h)
    goto oom;
  h->classify = flags & CB_CLASSIFY;
  h->n_sites = n_sites;
  if (n_sites) {
    h->sites = calloc((size_t)n_sites * cfg->n_levels, sizeof *h->sites);
    if (!h->sites)
      goto oom;
  }
  for (unsigned i = 0; i < cfg->n_levels; i++) {
    cb_shadow *shadow = NULL;
    if (h->classify) {
      shadow = &h->shadows[i];
      if (!cb_shadow_init(shadow, cfg->levels[i].size / cfg->levels[i].line,
                          flags & CB_EXACT_MRC))
        goto oom;
    }
    if (!cb_level_init(&h->levels[i], &cfg->levels[i], shadow)) {
      if (shadow)
        cb_shadow_free(shadow);
      goto oom;
    }
    h->n_levels = i + 1;
  }
  h->memo = calloc(1, sizeof *h->memo); /* lng NULL for memo_init */
  if (!h->memo)
    goto oom;
  h->lean_mask = h->classify ? 0 : UINT64_MAX;
  for (unsigned i = 0; i < h->n_levels; i++) {
    uint64_t m = (1ull << h->levels[i].line_shift) - 1;
    if (h->levels[i].wide)
      h->lean_mask = 0;
    else if (m < h->lean_mask)
      h->lean_mask = m;
  }
  h->mru_max = mru_max_of(h);
  if (h->classify && cg_shape(h)) {
    uint32_t shift = h->levels[0].line_shift < h->levels[1].line_shift
                         ? h->levels[0].line_shift
                         : h->levels[1].line_shift;
    h->cg_mask = (1ull << shift) - 1;
  }
  if (!memo_init(h->memo, h)) {
    free(h->memo);
    h->memo = NULL;
  } else {
    if (!memo_long_create(h)) {
      memo_long_free(h->memo->lng); /* a run without it: only slower */
      h->memo->lng = NULL;
    }
    h->memo->rec = rmemo_create(h);
  }
  return h;
oom:
  set_err(err, n, "out of memory for the cache model", NULL);
  cb_hierarchy_destroy(h);
  return NULL;
}

void cb_hierarchy_destroy(cb_hierarchy *h) {
  if (!h)
    return;
  par_stop(h);
  for (unsigned i = 0; i < h->n_levels; i++) {
    cb_level_free(&h->levels[i]);
    if (h->classify)
      cb_shadow_free(&h->shadows[i]);
  }
  if (h->memo) {
    memo_long_free(h->memo->lng);
    rmemo_free(h->memo->rec);
    free(h->memo->ll_refs);
    free(h->memo->ll_mark);
  }
  free(h->memo);
  free(h->sites);
  free(h);
}

void cb_hierarchy_reset(cb_hierarchy *h) {
  for (unsigned i = 0; i < h->n_levels; i++) {
    cb_level_reset(&h->levels[i]);
    if (h->classify)
      cb_shadow_reset(&h->shadows[i]);
  }
  if (h->sites)
    memset(h->sites, 0, (size_t)h->n_sites * h->n_levels * sizeof *h->sites);
  memset(&h->affine, 0, sizeof h->affine);
  if (h->memo)
    memo_init(h->memo, h);
}

unsigned cb_hierarchy_n_levels(const cb_hierarchy *h) {
  return h->n_levels;
}

const cb_level_config *cb_hierarchy_level_config(const cb_hierarchy *h,
                                                 unsigned level) {
  return level < h->n_levels ? &h->levels[level].cfg : NULL;
}

bool cb_hierarchy_classifies(const cb_hierarchy *h) {
  return h->classify;
}

void cb_hierarchy_level_stats(const cb_hierarchy *h, unsigned level,
                              cb_level_stats *out) {
  memset(out, 0, sizeof *out);
  if (level >= h->n_levels)
    return;
  /* records held back count once run (the object is not const) */
  memo_settle((cb_hierarchy *)h);
  const cb_level *lv = &h->levels[level];
  out->accesses = lv->accesses;
  out->writes = lv->writes;
  out->reads = lv->accesses - lv->writes;
  out->misses = lv->misses;
  out->write_misses = lv->write_misses;
  out->read_misses = lv->misses - lv->write_misses;
  memcpy(out->miss_class, lv->miss_class, sizeof out->miss_class);
}

const cb_site_stats *cb_hierarchy_site_stats(const cb_hierarchy *h,
                                             uint32_t site, unsigned level) {
  if (site >= h->n_sites || level >= h->n_levels)
    return NULL;
  memo_settle((cb_hierarchy *)h);
  return &h->sites[(size_t)site * h->n_levels + level];
}

bool cb_hierarchy_distance_histogram(const cb_hierarchy *h, unsigned level,
                                     const uint64_t **hist, size_t *len,
                                     uint64_t *cold) {
  if (!h->classify || level >= h->n_levels)
    return false;
  /* built on request (the object is not const) */
  memo_settle((cb_hierarchy *)h);
  cb_shadow_histogram((cb_shadow *)&h->shadows[level], hist, len, cold);
  return true;
}

uint32_t cb_hierarchy_distance_scale_log2(const cb_hierarchy *h,
                                          unsigned level) {
  if (!h->classify || level >= h->n_levels)
    return 0;
  return cb_shadow_scale_log2(&h->shadows[level]);
}

uint64_t cb_hierarchy_fa_lru_misses(const cb_hierarchy *h, unsigned level,
                                    uint64_t lines) {
  const uint64_t *hist;
  size_t len;
  uint64_t m;
  if (!cb_hierarchy_distance_histogram(h, level, &hist, &len, &m))
    return UINT64_MAX;
  for (size_t d = lines; d < len; d++)
    m += hist[d];
  return m;
}

uint64_t cb_hierarchy_line_refs(const cb_hierarchy *h, unsigned level) {
  const uint64_t *hist;
  size_t len;
  uint64_t r;
  if (!cb_hierarchy_distance_histogram(h, level, &hist, &len, &r))
    return 0;
  for (size_t d = 0; d < len; d++)
    r += hist[d];
  return r;
}
