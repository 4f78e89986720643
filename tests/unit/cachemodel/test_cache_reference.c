/* The cache model against a brute-force reference written here, on random
 * traces (straddling accesses, writes, sites), for every policy, several
 * geometries (direct-mapped and fully associative included) and
 * hierarchies, write-allocate on and off, comparing every counter: per
 * level, per site, the miss classes and the stack-distance histograms.
 *
 * The reference is deliberately naive: a set is an array of ways, each
 * with a valid bit, its line and two timestamps (last use, fill); the
 * victim is found by scanning them. Miss classes come from a move-to-
 * front list of every line ever referenced: a line's position in it is
 * its stack distance, absence means a first reference. */
#include "cbana/stream.h"
#include "check.h"

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

static uint64_t ref_rand(uint64_t *s) { /* splitmix64, as published */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
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

/* ---- Random traces --------------------------------------------------------
 */

static uint64_t rnd_state = 42;
static uint64_t rnd(uint64_t n) {
  return ref_rand(&rnd_state) % n;
}

/* A mix of uniform references in a region a few times the cache, strided
 * walks and re-references of recent addresses, with sizes that straddle
 * lines, 30% writes, and sites including none and out-of-range ones. */
static void make_trace(cb_access *t, size_t n, uint64_t region) {
  uint64_t base = 0x7f0000000000ull, walk = 0, stride = 8;
  static const uint16_t sizes[] = {1, 2, 4, 8, 8, 8, 16, 3, 12, 64, 100};
  for (size_t i = 0; i < n; i++) {
    uint64_t addr;
    switch (rnd(4)) {
    case 0:
      addr = base + rnd(region);
      break;
    case 1:
      walk = (walk + stride) % region;
      addr = base + walk;
      if (rnd(64) == 0)
        stride = 1u << rnd(9);
      break;
    default:
      addr = i ? t[i - 1 - rnd(i < 16 ? i : 16)].addr + rnd(24) : base;
      break;
    }
    if (rnd(500) == 0)
      addr = UINT64_MAX - rnd(40); /* the top of the address space */
    uint32_t site = (uint32_t)rnd(7);
    t[i] = (cb_access){.addr = addr,
                       .site = site == 5   ? CB_SITE_NONE
                               : site == 6 ? 1000
                                           : site,
                       .size = sizes[rnd(sizeof sizes / sizeof sizes[0])],
                       .is_write = rnd(10) < 3};
  }
}

/* Long runs of accesses inside one line (the hierarchy's repeat fast
 * path and its lean miss path, hierarchy.c), each run starting at a new
 * line: uniform, the next line, or one of the last few lines. A few
 * accesses straddle the line's end (the general path). */
static void make_runs(cb_access *t, size_t n, uint64_t region, uint32_t line) {
  uint64_t base = 0x7f0000000000ull, cur = base, recent[8] = {base};
  size_t i = 0;
  while (i < n) {
    switch (rnd(3)) {
    case 0:
      cur = base + rnd(region) / line * line;
      break;
    case 1:
      cur += line;
      break;
    default:
      cur = recent[rnd(8)];
      break;
    }
    recent[rnd(8)] = cur;
    size_t run = 1 + rnd(rnd(4) ? 40 : 400);
    bool w = rnd(3) == 0;
    for (size_t k = 0; k < run && i < n; k++, i++) {
      uint16_t size = (uint16_t)(1u << rnd(4));
      uint64_t off = rnd(line) & ~(uint64_t)(size - 1);
      if (rnd(50) == 0)
        off = line - 1; /* straddles into the next line */
      uint32_t site = (uint32_t)rnd(6);
      t[i] = (cb_access){.addr = cur + off,
                         .site = site == 5 ? 1000 : site,
                         .size = size,
                         .is_write = w || rnd(8) == 0};
    }
  }
}

static int compare(const cb_hierarchy *h, const ref_model *m, bool classify,
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

/* Runs a trace through both, half by batches and half one at a time. */
static void run_both(const cb_cache_config *cfg, const cb_access *t, size_t n,
                     unsigned flags, const char *what) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 5, flags, err, sizeof err);
  if (!h) {
    fprintf(stderr, "%s: %s\n", what, err);
    CHECK(h != NULL);
    return;
  }
  bool classify = flags & CB_CLASSIFY;
  ref_model m;
  ref_init(&m, cfg, 5);
  for (size_t i = 0; i < n; i++)
    ref_access(&m, t[i].addr, t[i].size, t[i].is_write, t[i].site, classify);
  cb_hierarchy_run(h, t, n / 2);
  for (size_t i = n / 2; i < n; i++)
    cb_hierarchy_access(h, t[i].addr, t[i].size, t[i].is_write, t[i].site);
  CHECK(compare(h, &m, classify, what) == 0);
  /* A reset starts the same run again, random policies included. */
  cb_hierarchy_reset(h);
  cb_hierarchy_run(h, t, n);
  CHECK(compare(h, &m, classify, what) == 0);
  cb_hierarchy_destroy(h);
  ref_free(&m);
}

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

int main(void) {
  enum { N = 12000 };
  cb_access *t = malloc(N * sizeof *t);
  /* size, assoc, line: direct-mapped, set-associative, fully assoc. */
  static const uint32_t geo[][3] = {
      {256, 1, 16},
      {512, 2, 32},
      {256, 4, 16},
      {128, 0, 16},
      {1024, 8, 64},
      {64, 0, 64},
      {2048, 16, 32},
      {512, 0, 8},
      /* wide sets (wideset.c): fully associative, and 4 sets of 64 */
      {2048, 0, 16},
      {4096, 64, 16},
  };
  char what[128];
  for (int g = 0; g < (int)(sizeof geo / sizeof geo[0]); g++)
    for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++)
      for (int wa = 0; wa < 2; wa++) {
        make_trace(t, N, 4 * (uint64_t)geo[g][0]);
        /* One level, and the same above a bigger L2 of another policy. */
        cb_cache_config one = {1,
                               {lvl("L1D", geo[g][0], geo[g][1], geo[g][2],
                                    (cb_policy)p, wa, (uint64_t)g * 11 + 3)}};
        snprintf(what, sizeof what, "geometry %d policy %s wa %d", g,
                 cb_policy_name((cb_policy)p), wa);
        run_both(&one, t, N, CB_CLASSIFY, what);
        run_both(&one, t, N, 0, what);
        cb_cache_config two = one;
        two.n_levels = 2;
        two.levels[1] = lvl("L2", 4 * (uint64_t)geo[g][0], 4, 64,
                            (cb_policy)((p + 1 + g) % 5), !wa, 99);
        strcat(what, " +L2");
        run_both(&two, t, N, CB_CLASSIFY, what);
        run_both(&two, t, N, 0, what);
      }
  /* Same-line runs through cachegrind-like hierarchies (8- and 16-way,
   * the geometries lru_touch unrolls), a 4-way L1 with 32-byte lines
   * above 64-byte ones, and a fully associative (wide) last level. */
  static const uint32_t runs_geo[][6] = {
      {1024, 8, 64, 8192, 16, 64},
      {512, 4, 32, 4096, 8, 64},
      {2048, 16, 64, 8192, 0, 64},
  };
  for (int g = 0; g < 3; g++)
    for (int p = CB_POLICY_LRU; p <= CB_POLICY_RANDOM; p++)
      for (int wa = 0; wa < 2; wa++) {
        const uint32_t *q = runs_geo[g];
        make_runs(t, N, 8 * (uint64_t)q[3], q[2]);
        cb_cache_config two = {
            2,
            {lvl("L1D", q[0], q[1], q[2], (cb_policy)p, wa, 7),
             lvl("LL", q[3], q[4], q[5], (cb_policy)((p + g) % 5), true, 8)}};
        snprintf(what, sizeof what, "runs %d policy %s wa %d", g,
                 cb_policy_name((cb_policy)p), wa);
        run_both(&two, t, N, 0, what);
        run_both(&two, t, N, CB_CLASSIFY, what);
      }
  /* Three levels with mixed lines and policies, on a bigger region. */
  for (int k = 0; k < 10; k++) {
    make_trace(t, N, 16384);
    cb_cache_config three = {
        3,
        {lvl("L1D", 512, 2, 16, (cb_policy)(k % 5), k & 1, (uint64_t)k),
         lvl("L2", 2048, 4, 32, (cb_policy)((k + 2) % 5), true, 5),
         lvl("L3", 8192, 0, 64, (cb_policy)((k + 4) % 5), k & 2, 6)}};
    snprintf(what, sizeof what, "three levels %d", k);
    run_both(&three, t, N, CB_CLASSIFY, what);
    run_both(&three, t, N, 0, what);
  }
  free(t);
  return check_done();
}
