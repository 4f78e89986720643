/* ref_cache.h: the brute-force reference cache model of the cachemodel
 * tests, header-only (test_cache_reference.c, test_cache_affine.c,
 * test_cache_split.c), and hier_counter_diffs, which compares two
 * hierarchies.
 *
 * Deliberately naive: a set is an array of ways, each with a valid bit,
 * its line and two timestamps (last use, fill); the victim is found by
 * scanning them. Miss classes come from a move-to-front list of every
 * line ever referenced: a line's position in it is its stack distance,
 * absence means a first reference. */
#ifndef CBANA_TESTS_REF_CACHE_H
#define CBANA_TESTS_REF_CACHE_H

#include "cbana/stream.h"
#include "check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_way {
  bool valid;
  uint64_t line, last_use, filled;
} ref_way;

typedef struct ref_level {
  cb_level_config cfg;
  uint64_t sets, ways, n_lines, line_bytes;
  ref_way *way;        /* sets * ways */
  unsigned char *plru; /* sets * ways node bits, node 1..ways-1 */
  uint64_t rng, clock;
  uint64_t *stack; /* every line seen, most recent first */
  size_t stack_len;
  uint64_t *hist; /* hist[d], d < max distinct */
  uint64_t cold;
  cb_level_stats st;
} ref_level;

typedef struct ref_model {
  unsigned n;
  ref_level lv[CB_MAX_LEVELS];
  uint32_t n_sites;
  cb_site_stats *sites; /* n_sites * n levels */
} ref_model;

#define MAX_LINES 100000

/* One level's configuration, for the tests' geometry lists. */
static cb_level_config lvl(const char *name, uint64_t size, uint32_t assoc,
                           uint32_t line, cb_policy p, bool wa, uint64_t seed) {
  cb_level_config lc = {.size = size,
                        .assoc = assoc,
                        .line = line,
                        .policy = p,
                        .write_allocate = wa,
                        .seed = seed};
  strcpy(lc.name, name);
  return lc;
}

/* The memo tests' LRU hierarchies: one level; two (the cachegrind shape,
 * scaled down); three, with lines growing downward and a wide last level
 * (64 ways). */
static inline void memo_shapes(cb_cache_config *one, cb_cache_config *two,
                               cb_cache_config *three) {
  *one =
      (cb_cache_config){1, {lvl("L1D", 2048, 4, 64, CB_POLICY_LRU, true, 1)}};
  *two = (cb_cache_config){2,
                           {lvl("L1D", 4096, 8, 64, CB_POLICY_LRU, true, 1),
                            lvl("LL", 32768, 16, 64, CB_POLICY_LRU, true, 2)}};
  *three =
      (cb_cache_config){3,
                        {lvl("L1D", 1024, 2, 32, CB_POLICY_LRU, true, 1),
                         lvl("L2", 8192, 8, 64, CB_POLICY_LRU, true, 2),
                         lvl("LL", 65536, 64, 128, CB_POLICY_LRU, true, 3)}};
}

static uint64_t ref_rand(uint64_t *s) {
  return check_rand(s);
}

static void ref_init(ref_model *m, const cb_cache_config *cfg,
                     uint32_t n_sites) {
  memset(m, 0, sizeof *m);
  m->n = cfg->n_levels;
  m->n_sites = n_sites;
  m->sites = calloc((size_t)n_sites * m->n + 1, sizeof *m->sites);
  for (unsigned i = 0; i < m->n; i++) {
    ref_level *l = &m->lv[i];
    l->cfg = cfg->levels[i];
    l->line_bytes = l->cfg.line;
    l->n_lines = l->cfg.size / l->cfg.line;
    l->ways = l->cfg.assoc ? l->cfg.assoc : l->n_lines;
    l->sets = l->n_lines / l->ways;
    l->way = calloc(l->n_lines, sizeof *l->way);
    l->plru = calloc(l->n_lines, 1);
    l->rng = l->cfg.seed;
    l->stack = calloc(MAX_LINES, sizeof *l->stack);
    l->hist = calloc(MAX_LINES, sizeof *l->hist);
  }
}

static void ref_free(ref_model *m) {
  for (unsigned i = 0; i < m->n; i++) {
    free(m->lv[i].way);
    free(m->lv[i].plru);
    free(m->lv[i].stack);
    free(m->lv[i].hist);
  }
  free(m->sites);
}

/* Tree-PLRU by halving the range of ways: at each node, the accessed
 * half is pointed away from (bit 1 = the upper half). */
static void ref_plru_use(unsigned char *bits, uint64_t ways, uint64_t w) {
  uint64_t lo = 0, hi = ways, node = 1;
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    if (w < mid) {
      bits[node] = 1;
      node = 2 * node;
      hi = mid;
    } else {
      bits[node] = 0;
      node = 2 * node + 1;
      lo = mid;
    }
  }
}

static uint64_t ref_plru_victim(const unsigned char *bits, uint64_t ways) {
  uint64_t lo = 0, hi = ways, node = 1;
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    if (bits[node]) {
      node = 2 * node + 1;
      lo = mid;
    } else {
      node = 2 * node;
      hi = mid;
    }
  }
  return lo;
}

/* The stack distance of a reference, -1 if first; moves it to front. */
static long ref_stack_ref(ref_level *l, uint64_t line) {
  size_t p = 0;
  while (p < l->stack_len && l->stack[p] != line)
    p++;
  long d = p < l->stack_len ? (long)p : -1;
  if (p == l->stack_len)
    l->stack_len++;
  memmove(l->stack + 1, l->stack, p * sizeof *l->stack);
  l->stack[0] = line;
  if (d < 0)
    l->cold++;
  else
    l->hist[d]++;
  return d;
}

/* One line at one level: true on a hit. */
static bool ref_line(ref_level *l, uint64_t line, bool is_write) {
  ref_way *set = &l->way[(line % l->sets) * l->ways];
  unsigned char *bits = &l->plru[(line % l->sets) * l->ways];
  l->clock++;
  for (uint64_t w = 0; w < l->ways; w++)
    if (set[w].valid && set[w].line == line) {
      set[w].last_use = l->clock;
      ref_plru_use(bits, l->ways, w);
      return true;
    }
  if (is_write && !l->cfg.write_allocate)
    return false;
  uint64_t v = l->ways;
  for (uint64_t w = 0; w < l->ways && v == l->ways; w++)
    if (!set[w].valid)
      v = w;
  if (v == l->ways) {
    v = 0;
    switch (l->cfg.policy) {
    case CB_POLICY_LRU:
      for (uint64_t w = 1; w < l->ways; w++)
        if (set[w].last_use < set[v].last_use)
          v = w;
      break;
    case CB_POLICY_FIFO:
      for (uint64_t w = 1; w < l->ways; w++)
        if (set[w].filled < set[v].filled)
          v = w;
      break;
    case CB_POLICY_MRU:
      for (uint64_t w = 1; w < l->ways; w++)
        if (set[w].last_use > set[v].last_use)
          v = w;
      break;
    case CB_POLICY_PLRU:
      v = ref_plru_victim(bits, l->ways);
      break;
    case CB_POLICY_RANDOM:
      v = ref_rand(&l->rng) % l->ways;
      break;
    }
  }
  set[v] = (ref_way){true, line, l->clock, l->clock};
  ref_plru_use(bits, l->ways, v);
  return false;
}

static void ref_access(ref_model *m, uint64_t addr, uint64_t size,
                       bool is_write, uint32_t site, bool classify) {
  uint64_t end = addr + (size ? size - 1 : 0);
  if (end < addr)
    end = UINT64_MAX;
  for (unsigned i = 0; i < m->n; i++) {
    ref_level *l = &m->lv[i];
    cb_site_stats *ss =
        site < m->n_sites ? &m->sites[(size_t)site * m->n + i] : NULL;
    l->st.accesses++;
    if (is_write)
      l->st.writes++;
    else
      l->st.reads++;
    if (ss)
      ss->accesses++;
    bool missed = false;
    int worst = CB_MISS_CONFLICT;
    for (uint64_t line = addr / l->line_bytes;; line++) {
      bool hit = ref_line(l, line, is_write);
      long d = classify ? ref_stack_ref(l, line) : 0;
      if (!hit) {
        missed = true;
        int c = d < 0                       ? CB_MISS_COMPULSORY
                : (uint64_t)d >= l->n_lines ? CB_MISS_CAPACITY
                                            : CB_MISS_CONFLICT;
        if (c < worst)
          worst = c;
      }
      if (line == end / l->line_bytes)
        break;
    }
    if (!missed)
      return;
    l->st.misses++;
    if (is_write)
      l->st.write_misses++;
    else
      l->st.read_misses++;
    if (ss)
      ss->misses++;
    if (classify) {
      l->st.miss_class[worst]++;
      if (ss)
        ss->miss_class[worst]++;
    }
  }
}

/* Every counter of h against the model; the number of differences
 * (each printed). */
/* How many of the level and site counters (sites 0 .. n_sites - 1) of
 * two hierarchies of one configuration differ. */
static inline int hier_counter_diffs(const cb_hierarchy *a,
                                     const cb_hierarchy *b, uint32_t n_sites) {
  int bad = 0;
  for (unsigned l = 0; l < cb_hierarchy_n_levels(a); l++) {
    cb_level_stats sa, sb;
    cb_hierarchy_level_stats(a, l, &sa);
    cb_hierarchy_level_stats(b, l, &sb);
    bad += memcmp(&sa, &sb, sizeof sa) != 0;
    for (uint32_t s = 0; s < n_sites; s++)
      bad +=
          memcmp(cb_hierarchy_site_stats(a, s, l),
                 cb_hierarchy_site_stats(b, s, l), sizeof(cb_site_stats)) != 0;
  }
  return bad;
}

static int ref_compare(const cb_hierarchy *h, const ref_model *m, bool classify,
                       const char *what) {
  int bad = 0;
  for (unsigned i = 0; i < m->n; i++) {
    cb_level_stats s;
    cb_hierarchy_level_stats(h, i, &s);
    const cb_level_stats *r = &m->lv[i].st;
    bad += memcmp(&s, r, sizeof s) != 0;
    if (memcmp(&s, r, sizeof s) != 0)
      fprintf(stderr,
              "%s level %u: acc %lu/%lu miss %lu/%lu wmiss %lu/%lu "
              "class %lu %lu %lu / %lu %lu %lu\n",
              what, i, (unsigned long)s.accesses, (unsigned long)r->accesses,
              (unsigned long)s.misses, (unsigned long)r->misses,
              (unsigned long)s.write_misses, (unsigned long)r->write_misses,
              (unsigned long)s.miss_class[0], (unsigned long)s.miss_class[1],
              (unsigned long)s.miss_class[2], (unsigned long)r->miss_class[0],
              (unsigned long)r->miss_class[1], (unsigned long)r->miss_class[2]);
    for (uint32_t site = 0; site < m->n_sites; site++) {
      const cb_site_stats *hs = cb_hierarchy_site_stats(h, site, i);
      if (memcmp(hs, &m->sites[site * m->n + i], sizeof *hs) != 0) {
        bad++;
        fprintf(stderr, "%s level %u site %u differs\n", what, i, site);
      }
    }
    if (!classify)
      continue;
    const uint64_t *hist;
    size_t len;
    uint64_t cold;
    CHECK(cb_hierarchy_distance_histogram(h, i, &hist, &len, &cold));
    bool same = cold == m->lv[i].cold;
    for (size_t d = 0; d < MAX_LINES; d++)
      same &= (d < len ? hist[d] : 0) == m->lv[i].hist[d];
    if (!same) {
      bad++;
      fprintf(stderr, "%s level %u: histogram differs\n", what, i);
    }
  }
  return bad;
}

#endif
