/* collector.c: the per-access collector for the report's views (misses
 * per set, working sets: distinct (kind, id, line) triples, strides per
 * site, misses per variable and set), the fan-out sink that feeds every
 * hierarchy and collector, and copying what was collected into a cache
 * result. */
#include <stdlib.h>
#include <string.h>

#include "collector.h"

static uint32_t log2u(uint64_t v) {
  uint32_t k = 0;
  while (v > 1) {
    v >>= 1;
    k++;
  }
  return k;
}

/* The sites' states as at the start of a run: their ids, nothing seen.
 * One more for the accesses of no program site (their misses only). */
static void sites_init(collector *c) {
  const cb_program *p = c->p;
  memset(c->site, 0, (p->n_sites + 1) * sizeof *c->site);
  for (uint32_t k = 0; k <= p->n_sites; k++) {
    site_state *ss = &c->site[k];
    const cb_site *s = k < p->n_sites ? &p->sites[k] : NULL;
    ss->prog = s && !s->is_call;
    ss->wsk = c->site_wsk[k];
    ss->var_set = ss->prog && s->var < p->n_vars ? s->var : CB_NONE;
    ss->pend_row = CB_NONE;
  }
}

/* Each site's (var, type, field) triple, numbered as first met; CB_NONE
 * for a site with none of them (or not the program's). False if memory
 * runs out. */
static bool triples_init(collector *c) {
  const cb_program *p = c->p;
  size_t slots = 16;
  while (slots < 2 * ((size_t)p->n_sites + 1))
    slots *= 2;
  uint32_t *tab = malloc(slots * sizeof *tab); /* triple + 1, 0: empty */
  c->ws_ids = malloc(((size_t)p->n_sites + 1) * sizeof *c->ws_ids);
  c->site_wsk = malloc(((size_t)p->n_sites + 1) * sizeof *c->site_wsk);
  if (!tab || !c->ws_ids || !c->site_wsk) {
    free(tab);
    return false;
  }
  memset(tab, 0, slots * sizeof *tab);
  uint32_t n = 0;
  for (uint32_t k = 0; k <= p->n_sites; k++) {
    const cb_site *s = k < p->n_sites ? &p->sites[k] : NULL;
    c->site_wsk[k] = CB_NONE;
    if (!s || s->is_call ||
        (s->var == CB_NONE && s->type == CB_NONE && s->field == CB_NONE))
      continue;
    uint64_t h = ((uint64_t)s->var * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)s->type * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)s->field * 0x165667B19E3779F9ull);
    size_t i = (size_t)(h >> 32) & (slots - 1);
    for (; tab[i]; i = (i + 1) & (slots - 1)) {
      const uint32_t *t = c->ws_ids[tab[i] - 1];
      if (t[WS_VAR] == s->var && t[WS_TYPE] == s->type &&
          t[WS_FIELD] == s->field)
        break;
    }
    if (!tab[i]) {
      c->ws_ids[n][WS_VAR] = s->var;
      c->ws_ids[n][WS_TYPE] = s->type;
      c->ws_ids[n][WS_FIELD] = s->field;
      tab[i] = ++n;
    }
    c->site_wsk[k] = tab[i] - 1;
  }
  free(tab);
  return true;
}

bool drv_collector_init(collector *c, cb_hierarchy *h, const cb_program *p) {
  memset(c, 0, sizeof *c);
  c->h = h;
  c->p = p;
  c->on = cb_hierarchy_classifies(h);
  if (!c->on)
    return true;
  c->nl = cb_hierarchy_n_levels(h);
  if (c->nl > CB_RESULT_LEVELS)
    c->nl = CB_RESULT_LEVELS;
  for (unsigned l = 0; l < c->nl; l++) {
    const cb_level_config *lc = cb_hierarchy_level_config(h, l);
    uint64_t sets = lc->assoc == CB_ASSOC_FULL
                        ? 1
                        : lc->size / ((uint64_t)lc->assoc * lc->line);
    c->sets[l] = sets ? (uint32_t)sets : 1;
    c->mask[l] = c->sets[l] - 1;
    c->shift[l] = log2u(lc->line);
    c->set_misses[l] = calloc(c->sets[l], sizeof(uint64_t));
    c->set_conflicts[l] = calloc(c->sets[l], sizeof(uint64_t));
    if (!c->set_misses[l] || !c->set_conflicts[l])
      return false;
  }
  c->site = calloc(p->n_sites + 1, sizeof *c->site);
  if (!c->site || !triples_init(c))
    return false;
  sites_init(c);
  if ((uint64_t)p->n_vars * c->sets[0] <= (1u << 22))
    c->var_set =
        calloc((size_t)p->n_vars * c->sets[0] * 2 + 1, sizeof *c->var_set);
  c->alloc = cb_alloc_track_new(p, c->nl, c->shift[0]);
  return c->var_set && c->alloc;
}

void drv_collector_reset(collector *c) {
  if (!c->on)
    return;
  for (unsigned l = 0; l < c->nl; l++) {
    memset(c->set_misses[l], 0, c->sets[l] * sizeof(uint64_t));
    memset(c->set_conflicts[l], 0, c->sets[l] * sizeof(uint64_t));
  }
  sites_init(c);
  memset(c->var_set, 0,
         (size_t)c->p->n_vars * c->sets[0] * 2 * sizeof *c->var_set);
  lineset_clear(&c->ws);
  cb_alloc_track_reset(c->alloc);
}

void drv_collector_free(collector *c) {
  for (unsigned l = 0; l < c->nl; l++) {
    free(c->set_misses[l]);
    free(c->set_conflicts[l]);
  }
  free(c->ws_ids);
  free(c->site_wsk);
  free(c->site);
  free(c->var_set);
  lineset_free(&c->ws);
  cb_alloc_track_free(c->alloc);
}

/* A program site's access at addr: its stride state (the stride seen
 * twice in a row, and how often in the current run). */
static inline void stride_step(site_state *ss, uint64_t addr) {
  int64_t delta = (int64_t)(addr - ss->last_addr);
  if (ss->last_addr && delta == ss->last_delta) {
    if (ss->stride != delta) {
      ss->stride = delta;
      ss->stride_runs = 0;
    }
    ss->stride_runs++;
  }
  ss->last_delta = delta;
  ss->last_addr = addr;
}

/* An access's misses at its first nl levels: per set, and per variable
 * and set at the first. */
static void count_misses(collector *c, const site_state *ss, uint64_t addr,
                         unsigned nl, const uint8_t *cls) {
  for (unsigned l = 0; l < nl; l++) {
    uint64_t set = (addr >> c->shift[l]) & c->mask[l];
    uint64_t conflict = cls[l] == CB_MISS_CONFLICT;
    c->set_misses[l][set]++;
    c->set_conflicts[l][set] += conflict;
    if (l == 0 && ss->var_set != CB_NONE) {
      uint64_t *vs = &c->var_set[((size_t)ss->var_set * c->sets[0] + set) * 2];
      vs[0]++;
      vs[1] += conflict;
    }
  }
}

/* A site's access that starts a new last line: its lines in the working
 * set of its triple (at most 64, as before for each view). */
static void touch_lines(collector *c, const site_state *ss, uint64_t first,
                        uint64_t last) {
  if (ss->wsk == CB_NONE)
    return;
  for (uint64_t line = first; line <= last && line - first < 64; line++)
    if (lineset_add(&c->ws, ss->wsk, line) < 0)
      abort(); /* a working set without the line would be wrong */
}

/* The union of the triples' lines, chunk by chunk (collector.h). */
bool drv_collector_ws_lines(const collector *c, uint64_t *out[3]) {
  const uint32_t lim[3] = {c->p->n_vars, c->p->n_types, c->p->n_fields};
  lineset u = {0};
  bool ok = true;
  for (size_t i = 0; i < c->ws.cap && ok; i++) {
    const ls_slot *e = &c->ws.table[i];
    if (!e->tag1)
      continue;
    const uint32_t *ids = c->ws_ids[e->tag1 - 1];
    const uint64_t *b = c->ws.bits[e->idx];
    for (unsigned k = 0; k < 3 && ok; k++) {
      if (ids[k] == CB_NONE || ids[k] >= lim[k])
        continue;
      uint64_t *ub = lineset_chunk(&u, (uint32_t)k << 30 | ids[k], e->chunk);
      if (!(ok = ub != NULL))
        break;
      for (unsigned w = 0; w < LS_CHUNK_LINES / 64; w++) {
        out[k][ids[k]] += (uint64_t)__builtin_popcountll(b[w] & ~ub[w]);
        ub[w] |= b[w];
      }
    }
  }
  lineset_free(&u);
  return ok;
}

/* One access's views, given what it did in the hierarchy: `missed`
 * levels, cls[l] the class at level l (cb_hierarchy_access_outcome). */
static inline __attribute__((always_inline)) void
collect_views(collector *c, uint64_t addr, uint32_t size, uint32_t site,
              unsigned missed, const uint8_t *cls) {
  site_state *ss = &c->site[site < c->p->n_sites ? site : c->p->n_sites];
  unsigned nl = missed < c->nl ? missed : c->nl;
  if (nl)
    count_misses(c, ss, addr, nl, cls);
  if (!ss->prog)
    return;
  uint64_t first = addr >> c->shift[0];
  uint64_t last = (addr + (size ? size - 1 : 0)) >> c->shift[0];
  /* A program access to a live heap block counts for its allocation
   * site: one access at the first level, and at each level it misses one
   * miss of one class and one access of the next (cachegrind's rule, as
   * the cache model counts a site). */
  uint32_t row = cb_alloc_track_find_at(c->alloc, addr, &ss->hint);
  if (row != CB_NONE) {
    /* The first-level access is counted for the site while it stays in
     * one row, and added to the row when it moves on (or at the end,
     * drv_collect_extras): nearly every access of a program of heap
     * objects would otherwise add to its row's counter, and the accesses
     * that follow one another in a row wait for each other's addition
     * (a memory round trip each; 20% of fannkuch's collection). */
    if (row != ss->pend_row) {
      if (ss->pend)
        cb_alloc_track_count_hits(c->alloc, ss->pend_row, ss->pend);
      ss->pend_row = row;
      ss->pend = 0;
    }
    ss->pend++;
    cb_alloc_track_count_rest(c->alloc, row, site, first, last, nl, cls);
  }
  stride_step(ss, addr);
  if (ss->last_line == last + 1)
    return;
  ss->last_line = last + 1;
  touch_lines(c, ss, first, last);
}

/* One access through the hierarchy and every view; returns the levels
 * it missed (cb_hierarchy_access_outcome). */
static unsigned collect_one(collector *c, uint64_t addr, uint32_t size,
                            bool is_write, uint32_t site) {
  uint8_t cls[CB_MAX_LEVELS];
  unsigned missed =
      cb_hierarchy_access_outcome(c->h, addr, size, is_write, site, cls);
  collect_views(c, addr, size, site, missed, cls);
  return missed;
}

/* A batch through the hierarchy (cb_hierarchy_run_outcomes, a chunk at
 * a time), then through the views, access by access in order. */
static void collect_batch(collector *c, const cb_access *batch, size_t n) {
  enum { CHUNK = 256 };
  uint8_t missed[CHUNK], cls[CHUNK][CB_MAX_LEVELS];
  for (size_t k0 = 0; k0 < n; k0 += CHUNK) {
    size_t m = n - k0 < CHUNK ? n - k0 : CHUNK;
    const cb_access *b = batch + k0;
    cb_hierarchy_run_outcomes(c->h, b, m, missed, cls);
    for (size_t k = 0; k < m; k++)
      collect_views(c, b[k].addr, b[k].size, b[k].site, missed[k], cls[k]);
  }
}

void drv_fanout_batch(void *ctx, const cb_access *batch, size_t n) {
  fanout *f = ctx;
  if (cb_alloc_is_mark(batch, n)) {
    /* An allocation event, in order with the accesses (alloc_track.h);
     * hashed so that twins also allocate alike. */
    if (f->hash)
      hash_batch(&f->sh, batch, n);
    cb_alloc_event ev;
    cb_alloc_decode(batch, &ev);
    for (unsigned i = 0; i < f->n; i++)
      if (f->c[i].on)
        cb_alloc_track_event(f->c[i].alloc, &ev);
    return;
  }
  if (f->hash)
    hash_batch(&f->sh, batch, n);
  else
    f->sh.n += n;
  double t0 = f->timed ? drv_sim_clock_s() : 0;
  for (unsigned i = 0; i < f->n; i++) {
    collector *c = &f->c[i];
    if (!c->on) {
      cb_hierarchy_run(c->h, batch, n);
      continue;
    }
    collect_batch(c, batch, n);
  }
  if (f->timed)
    f->sim_s += drv_sim_clock_s() - t0;
}
void drv_hash_only_batch(void *ctx, const cb_access *batch, size_t n) {
  hash_batch(ctx, batch, n);
}

/* Whether iterations t and u of b reference the same first-level lines,
 * access by access (first and last byte). */
static bool same_lines(const cb_affine_block *b, uint64_t t, uint64_t u,
                       uint32_t shift) {
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    uint64_t p = a->base + t * (uint64_t)a->stride;
    uint64_t q = a->base + u * (uint64_t)a->stride;
    uint64_t size = a->size ? a->size - 1u : 0;
    if (p + size < p || q + size < q || p >> shift != q >> shift ||
        (p + size) >> shift != (q + size) >> shift)
      return false;
  }
  return true;
}

/* Per site the accesses of iterations t .. t+m-1 go to the same heap
 * block's row (or to none): rows[j] for access j. False if not. */
static bool uniform_rows(collector *c, const cb_affine_block *b, uint64_t t,
                         uint64_t m, uint32_t *rows) {
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    const cb_site *s = a->site < c->p->n_sites ? &c->p->sites[a->site] : NULL;
    rows[j] = CB_NONE;
    if (!s || s->is_call)
      continue;
    uint64_t p = a->base + t * (uint64_t)a->stride;
    uint64_t q = a->base + (t + m - 1) * (uint64_t)a->stride;
    bool uniform;
    rows[j] = cb_alloc_track_find_range(c->alloc, p < q ? p : q, p < q ? q : p,
                                        &uniform);
    if (!uniform)
      return false;
  }
  return true;
}

/* A block through a collector, exactly as its expansion, access by
 * access, but warping where the views allow (the cache model's side:
 * stream.h, cb_hierarchy_affine_skip). Say iteration t-1 hit at the first
 * level on every access and referenced the same lines as t-2, and the
 * iterations t .. t+m-1 reference them too (the span). Those iterations
 * miss nowhere: the per-set and per-variable misses and the allocation
 * rows' misses and hottest line do not change. The working sets (per
 * site, and per allocation row) only add lines when an access's last line
 * differs from the site's (row's) previous one; after t-1 the sites'
 * (rows') last lines are those of S's last access of each, as they were
 * before t-1 (t-2 had the same lines), so every iteration with S makes
 * the same checks as t-1, which already added whatever they add: nothing
 * changes. This needs every site's accesses of t-2 .. t+m-1 to fall in
 * one allocation row (or none; uniform_rows), which then counts one
 * first-level access per access. The strides per site: in closed form for
 * a site met once per iteration, else stepped access by access. */
static void collect_block(collector *c, const cb_affine_block *b) {
  cb_access one;
  uint32_t rows[16];
  const uint32_t shift = c->shift[0];
  uint64_t pos = 0;
  if (b->n_acc > 16) {
    while (cb_affine_expand(b, &pos, &one, 1) > 0)
      collect_one(c, one.addr, one.size, one.is_write, one.site);
    return;
  }
  /* Sites of the program met once per iteration: their strides in
   * closed form over a warp (below). */
  bool once[16];
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    once[j] = a->site < c->p->n_sites && c->site[a->site].prog;
    for (uint32_t i = 0; i < b->n_acc; i++)
      if (i != j && b->acc[i].site == a->site)
        once[j] = false;
  }
  for (uint64_t t = 0; t < b->n_iter;) {
    bool all_hit = true;
    for (uint32_t j = 0; j < b->n_acc; j++) {
      const cb_affine_access *a = &b->acc[j];
      all_hit &= collect_one(c, a->base + t * (uint64_t)a->stride, a->size,
                             a->is_write, a->site) == 0;
    }
    bool same = t > 0 && same_lines(b, t - 1, t, shift);
    t++;
    if (!all_hit || !same)
      continue;
    uint64_t m = cb_hierarchy_affine_span(c->h, b, t);
    if (m == 0 || !uniform_rows(c, b, t - 2, m + 2, rows) ||
        !cb_hierarchy_affine_skip(c->h, b, t, m))
      continue;
    for (uint32_t j = 0; j < b->n_acc; j++)
      if (rows[j] != CB_NONE)
        cb_alloc_track_count_hits(c->alloc, rows[j], m);
    bool closed[16], stepped = false;
    for (uint32_t j = 0; j < b->n_acc; j++) {
      const cb_affine_access *a = &b->acc[j];
      uint64_t p = a->base + (t - 1) * (uint64_t)a->stride;
      closed[j] = once[j] && p >> shift != 0;
      if (!closed[j]) {
        stepped |= a->site < c->p->n_sites && c->site[a->site].prog;
        continue;
      }
      /* The site's delta was the stride at t-1 (its previous access was
       * at t-2) and stays so: each step continues the run. Its addresses
       * lie in p's line, not line 0: never 0 (stride_step's "no previous
       * access"). */
      site_state *ss = &c->site[a->site];
      if (ss->stride != a->stride) {
        ss->stride = a->stride;
        ss->stride_runs = 0;
      }
      ss->stride_runs += m;
      ss->last_delta = a->stride;
      ss->last_addr = p + m * (uint64_t)a->stride;
    }
    /* The other sites in order, iteration by iteration. */
    for (uint64_t k = t; k < t + m && stepped; k++)
      for (uint32_t j = 0; j < b->n_acc; j++) {
        const cb_affine_access *a = &b->acc[j];
        if (!closed[j] && a->site < c->p->n_sites && c->site[a->site].prog)
          stride_step(&c->site[a->site], a->base + k * (uint64_t)a->stride);
      }
    t += m;
  }
}

void drv_fanout_affine(void *ctx, const cb_affine_block *b) {
  fanout *f = ctx;
  if (b->n_iter == 0 || b->n_acc == 0)
    return;
  if (f->hash)
    hash_block(&f->sh, b);
  else
    f->sh.n += b->n_iter * b->n_acc;
  double t0 = f->timed ? drv_sim_clock_s() : 0;
  for (unsigned i = 0; i < f->n; i++) {
    collector *c = &f->c[i];
    if (!c->on) {
      cb_hierarchy_run_affine(c->h, b);
      continue;
    }
    collect_block(c, b);
  }
  if (f->timed)
    f->sim_s += drv_sim_clock_s() - t0;
}

void drv_hash_only_affine(void *ctx, const cb_affine_block *b) {
  hash_block(ctx, b);
}

void drv_fanout_tap_batch(void *ctx, const cb_access *batch, size_t n) {
  fanout *f = ctx;
  if (f->hash)
    hash_batch(&f->sh, batch, n);
  else
    f->sh.n += n;
}

void drv_fanout_tap_affine(void *ctx, const cb_affine_block *b) {
  fanout *f = ctx;
  if (f->hash)
    hash_block(&f->sh, b);
  else
    f->sh.n += b->n_iter * b->n_acc;
}

static uint64_t *dup_u64(const uint64_t *v, size_t n) {
  uint64_t *d = malloc((n ? n : 1) * sizeof *d);
  if (d && n)
    memcpy(d, v, n * sizeof *d);
  return d;
}

/* Copies what the collector gathered into a cache result. */
bool drv_collect_extras(const collector *col, cb_cache_result *c) {
  if (!col->on)
    return true;
  const cb_program *p = col->p;
  for (unsigned l = 0; l < c->n_levels; l++) {
    const uint64_t *hist;
    size_t len;
    uint64_t cold;
    if (cb_hierarchy_distance_histogram(col->h, l, &hist, &len, &cold)) {
      c->distance_hist[l] = dup_u64(hist, len);
      c->distance_len[l] = len;
      c->distance_cold[l] = cold;
      c->distance_scale_log2[l] = cb_hierarchy_distance_scale_log2(col->h, l);
    }
    c->set_misses[l] = dup_u64(col->set_misses[l], col->sets[l]);
    c->set_conflicts[l] = dup_u64(col->set_conflicts[l], col->sets[l]);
    if (!c->distance_hist[l] || !c->set_misses[l] || !c->set_conflicts[l])
      return false;
  }
  c->var_lines = calloc(p->n_vars ? p->n_vars : 1, sizeof(uint64_t));
  c->type_lines = calloc(p->n_types ? p->n_types : 1, sizeof(uint64_t));
  c->field_lines = calloc(p->n_fields ? p->n_fields : 1, sizeof(uint64_t));
  uint64_t *ws_out[3] = {c->var_lines, c->type_lines, c->field_lines};
  if (!c->var_lines || !c->type_lines || !c->field_lines ||
      !drv_collector_ws_lines(col, ws_out))
    return false;
  c->site_stride = malloc((p->n_sites + 1) * sizeof *c->site_stride);
  c->site_stride_runs = malloc((p->n_sites + 1) * sizeof *c->site_stride_runs);
  if (!c->site_stride || !c->site_stride_runs ||
      !cb_alloc_track_export(col->alloc, &c->alloc_sites, &c->n_alloc_sites))
    return false;
  /* the sites' accesses not yet added to their rows (collect_views) */
  for (uint32_t k = 0; k <= p->n_sites; k++)
    if (col->site[k].pend && col->site[k].pend_row < c->n_alloc_sites)
      c->alloc_sites[col->site[k].pend_row].level[0].accesses +=
          col->site[k].pend;
  for (uint32_t k = 0; k < p->n_sites; k++) {
    c->site_stride[k] = col->site[k].stride;
    c->site_stride_runs[k] = col->site[k].stride_runs;
  }
  size_t n = 0, total = (size_t)p->n_vars * col->sets[0];
  for (size_t k = 0; k < total; k++)
    n += col->var_set[k * 2] != 0;
  c->var_sets = calloc(n ? n : 1, sizeof *c->var_sets);
  if (!c->var_sets)
    return false;
  for (size_t k = 0; k < total; k++)
    if (col->var_set[k * 2]) {
      cb_var_set *vs = &c->var_sets[c->n_var_sets++];
      vs->var = (uint32_t)(k / col->sets[0]);
      vs->set = (uint32_t)(k % col->sets[0]);
      vs->misses = col->var_set[k * 2];
      vs->conflict = col->var_set[k * 2 + 1];
    }
  return true;
}
