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
#include "cbana/stream.h"
#include "level.h"

#include <stdio.h>
#include <stdlib.h>

struct cb_hierarchy {
  unsigned n_levels;
  uint32_t n_sites;
  cb_site_stats *sites; /* n_sites * n_levels, site-major */
  bool classify;
  uint64_t slow_accesses; /* accesses that missed the fast path */
  /* The smallest line's offset mask when access_lean applies (no
   * classification, no wide sets), else 0. */
  uint64_t lean_mask;
  cb_level levels[CB_MAX_LEVELS];
  cb_stackdist shadows[CB_MAX_LEVELS];
};

/* The shadow's verdict on a line the level missed. */
static inline unsigned classify_line(const cb_level *lv, uint64_t distance) {
  if (distance == SD_COLD)
    return CB_MISS_COMPULSORY;
  return distance >= lv->n_lines ? CB_MISS_CAPACITY : CB_MISS_CONFLICT;
}

/* All lines of an access at one level: true if any missed; *cls is the
 * worst class of the missed lines (the lowest enum value). */
static inline bool level_ref_lines(cb_level *lv, uint64_t first, uint64_t last,
                                   bool is_write, unsigned *cls) {
  bool missed = false, hit;
  uint64_t line = first;
  for (;;) {
    hit = cb_level_ref(lv, line, is_write);
    missed |= !hit;
    if (lv->shadow) {
      uint64_t d = cb_stackdist_ref(lv->shadow, line);
      if (!hit) {
        unsigned c = classify_line(lv, d);
        if (c < *cls)
          *cls = c;
      }
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

/* An access that missed the first level's fast path, from the first
 * level down; the first level's access counters are the caller's. */
static void __attribute__((noinline))
access_levels(cb_hierarchy *h, uint64_t addr, uint64_t end, bool is_write,
              uint32_t site) {
  cb_site_stats *ss =
      site < h->n_sites ? &h->sites[(size_t)site * h->n_levels] : NULL;
  const bool classify = h->classify;
  cb_level *lv = h->levels, *const lv_end = h->levels + h->n_levels;
  for (;; lv++, ss = ss ? ss + 1 : NULL) {
    uint64_t first = addr >> lv->line_shift, last = end >> lv->line_shift;
    unsigned cls = CB_MISS_CONFLICT;
    if (!level_ref_lines(lv, first, last, is_write, &cls))
      return;
    lv->misses++;
    lv->write_misses += is_write;
    if (ss)
      ss->misses++;
    if (classify) {
      lv->miss_class[cls]++;
      if (ss)
        ss->miss_class[cls]++;
    }
    if (lv + 1 == lv_end)
      return;
    /* Presented to the next level, with the first level's fast path. */
    lv[1].accesses++;
    lv[1].writes += is_write;
    if (ss)
      ss[1].accesses++;
    if (addr >> lv[1].line_shift == lv[1].last_line &&
        end >> lv[1].line_shift == lv[1].last_line) {
      if (lv[1].shadow)
        lv[1].shadow->hist[0]++;
      return;
    }
  }
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

/* The last byte of an access, clamped at the top of the address space. */
static inline uint64_t access_end(uint64_t addr, uint64_t size) {
  uint64_t end = addr + size - (size != 0);
  return end < addr ? UINT64_MAX : end;
}

/* The first level's fast path: the line referenced last at this level,
 * still cached, is a hit that changes no policy state and is at distance
 * 0 in the shadow. Most accesses of real streams end here, so the batch
 * loop below does it inline, counting the first level's accesses, writes
 * and distance-0 references (n minus the slow ones) in registers: a
 * counter in memory would make every iteration wait for the previous
 * one's store. */
void cb_hierarchy_run(cb_hierarchy *h, const cb_access *batch, size_t n) {
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
    if (lean_mask && (a->addr & lean_mask) + a->size <= lean_mask + 1)
      access_lean(h, a->addr, a->is_write, a->site);
    else
      access_levels(h, a->addr, access_end(a->addr, a->size), a->is_write,
                    a->site);
    last_line = l1->last_line;
  }
  l1->accesses += n;
  l1->writes += writes;
  if (l1->shadow)
    l1->shadow->hist[0] += n - (h->slow_accesses - slow_before);
}

void cb_hierarchy_access(cb_hierarchy *h, uint64_t addr, uint32_t size,
                         bool is_write, uint32_t site) {
  cb_access a = {.addr = addr, .site = site, .is_write = is_write};
  if (size <= UINT16_MAX) {
    a.size = (uint16_t)size;
    cb_hierarchy_run(h, &a, 1);
    return;
  }
  /* Too big for a batch entry: the same steps, without the fast path. */
  cb_level *l1 = &h->levels[0];
  l1->accesses++;
  l1->writes += is_write;
  if (site < h->n_sites)
    h->sites[(size_t)site * h->n_levels].accesses++;
  access_levels(h, addr, access_end(addr, size), is_write, site);
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
    cb_stackdist *shadow = NULL;
    if (h->classify) {
      shadow = &h->shadows[i];
      if (!cb_stackdist_init(shadow, 1u << 16))
        goto oom;
    }
    if (!cb_level_init(&h->levels[i], &cfg->levels[i], shadow)) {
      if (shadow)
        cb_stackdist_free(shadow);
      goto oom;
    }
    h->n_levels = i + 1;
  }
  h->lean_mask = h->classify ? 0 : UINT64_MAX;
  for (unsigned i = 0; i < h->n_levels; i++) {
    uint64_t m = (1ull << h->levels[i].line_shift) - 1;
    if (h->levels[i].wide)
      h->lean_mask = 0;
    else if (m < h->lean_mask)
      h->lean_mask = m;
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
  for (unsigned i = 0; i < h->n_levels; i++) {
    cb_level_free(&h->levels[i]);
    if (h->classify)
      cb_stackdist_free(&h->shadows[i]);
  }
  free(h->sites);
  free(h);
}

void cb_hierarchy_reset(cb_hierarchy *h) {
  for (unsigned i = 0; i < h->n_levels; i++) {
    cb_level_reset(&h->levels[i]);
    if (h->classify)
      cb_stackdist_reset(&h->shadows[i]);
  }
  if (h->sites)
    memset(h->sites, 0, (size_t)h->n_sites * h->n_levels * sizeof *h->sites);
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
  return &h->sites[(size_t)site * h->n_levels + level];
}

bool cb_hierarchy_distance_histogram(const cb_hierarchy *h, unsigned level,
                                     const uint64_t **hist, size_t *len,
                                     uint64_t *cold) {
  if (!h->classify || level >= h->n_levels)
    return false;
  const cb_stackdist *sd = &h->shadows[level];
  *hist = sd->hist;
  *len = sd->hist_len;
  *cold = sd->cold;
  return true;
}

uint64_t cb_hierarchy_fa_lru_misses(const cb_hierarchy *h, unsigned level,
                                    uint64_t lines) {
  if (!h->classify || level >= h->n_levels)
    return UINT64_MAX;
  return cb_stackdist_fa_misses(&h->shadows[level], lines);
}

uint64_t cb_hierarchy_line_refs(const cb_hierarchy *h, unsigned level) {
  if (!h->classify || level >= h->n_levels)
    return 0;
  return cb_stackdist_refs(&h->shadows[level]);
}
