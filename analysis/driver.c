/* The analysis driver: inputs x caches -> results, in parallel.
 *
 * Each worker thread owns one hierarchy per cache configuration and
 * reuses it (reset between inputs), so the simulator's memory is
 * allocated once per thread. Inputs are taken from a shared counter, and
 * each result lands in its input's slot, so the report's order is the
 * inputs' order whatever the scheduling.
 *
 * Memoization: two inputs whose access streams are identical (the same
 * accesses, sizes, sites and directions in the same order) get the same
 * counters from every cache, whatever else differs (their output, exit
 * code, operations). The stream is hashed on its way (two independent
 * 64-bit hashes and its length); an input whose stream matches one
 * already simulated gets a copy of that input's cache results and is not
 * simulated. With many inputs the engine first runs with a sink that
 * only hashes (cheap: no cache model), and re-runs with the caches only
 * when the stream is new; when streams turn out mostly distinct, the
 * driver goes back to simulating directly (hashing on the way). */
#include "cbana/analysis.h"
#include "cbana/cfg.h"

#include "pipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct stream_hash {
  uint64_t h1, h2, n;
} stream_hash;

static inline uint64_t rotl64(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

static inline void hash_batch(stream_hash *sh, const cb_access *b, size_t n) {
  uint64_t h1 = sh->h1, h2 = sh->h2;
  for (size_t i = 0; i < n; i++) {
    uint64_t w0 = b[i].addr;
    uint64_t w1 = (uint64_t)b[i].site | (uint64_t)b[i].size << 32 |
                  (uint64_t)b[i].is_write << 48;
    h1 = (rotl64(h1, 5) ^ w0) * 0x9E3779B97F4A7C15ull;
    h1 = (rotl64(h1, 5) ^ w1) * 0x9E3779B97F4A7C15ull;
    h2 = (rotl64(h2, 23) + w0) * 0xD6E8FEB86659FD93ull;
    h2 = (rotl64(h2, 23) + w1) * 0xD6E8FEB86659FD93ull;
  }
  sh->h1 = h1;
  sh->h2 = h2;
  sh->n += n;
}

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One stream already simulated: whose results to copy. */
typedef struct memo_entry {
  stream_hash key;
  unsigned run; /* index into out->runs, results complete */
} memo_entry;

typedef struct driver {
  const cb_program *p;
  const cb_analysis_input *inputs;
  unsigned n_inputs;
  const cb_analysis_cache *caches;
  unsigned n_caches;
  const cb_analysis_options *opt;
  cb_results *out;
  atomic_uint next;
  atomic_uint done;
  char err[256]; /* the first setup failure of any worker */
  pthread_mutex_t lock;
  /* memoization, under lock */
  memo_entry *memo;
  unsigned n_memo, cap_memo;
  unsigned memo_hits, memo_misses; /* of hash-first runs */
  bool pipeline;           /* cores to spare: simulate on a second thread */
  cb_analysis_stats stats; /* summed by the workers, under lock */
} driver;

/* Distinct (kind, id, line) triples: the working sets. Open addressing,
 * grown at half full. */
typedef struct ws_entry {
  uint64_t line;
  uint32_t tag; /* kind << 30 | id, +1 so that 0 is empty */
  uint32_t pad;
} ws_entry;

typedef struct ws_set {
  ws_entry *v;
  size_t cap, n; /* cap is a power of two */
} ws_set;

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* True when the triple was new. */
static bool ws_insert(ws_set *s, uint32_t tag, uint64_t line) {
  if ((s->n + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 4096;
    ws_entry *v = calloc(cap, sizeof *v);
    if (!v)
      return false;
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i].tag) {
        size_t k =
            mix64(s->v[i].line ^ ((uint64_t)s->v[i].tag << 40)) & (cap - 1);
        while (v[k].tag)
          k = (k + 1) & (cap - 1);
        v[k] = s->v[i];
      }
    free(s->v);
    s->v = v;
    s->cap = cap;
  }
  size_t k = mix64(line ^ ((uint64_t)tag << 40)) & (s->cap - 1);
  while (s->v[k].tag) {
    if (s->v[k].tag == tag && s->v[k].line == line)
      return false;
    k = (k + 1) & (s->cap - 1);
  }
  s->v[k].tag = tag;
  s->v[k].line = line;
  s->n++;
  return true;
}

enum { WS_VAR, WS_TYPE, WS_FIELD };

/* Beside one hierarchy: what the views need beyond per-site counters
 * (misses per set, working sets, misses per variable and set). */
typedef struct collector {
  cb_hierarchy *h;
  const cb_program *p;
  bool on; /* classification on: collect */
  unsigned nl;
  uint32_t shift[CB_RESULT_LEVELS];
  uint64_t mask[CB_RESULT_LEVELS];
  uint32_t sets[CB_RESULT_LEVELS];
  uint64_t *set_misses[CB_RESULT_LEVELS], *set_conflicts[CB_RESULT_LEVELS];
  uint64_t prev_misses[CB_RESULT_LEVELS], prev_conflicts[CB_RESULT_LEVELS];
  ws_set ws;
  uint64_t *lines[3];  /* per var, type, field */
  uint64_t *last_line; /* per site: the line of its latest access + 1 */
  uint64_t *last_addr; /* per site */
  int64_t *last_delta, *stride;
  uint64_t *stride_runs;
  uint64_t *var_set; /* n_vars * sets[0] * 2: misses, conflicts */
} collector;

static uint32_t log2u(uint64_t v) {
  uint32_t k = 0;
  while (v > 1) {
    v >>= 1;
    k++;
  }
  return k;
}

static bool collector_init(collector *c, cb_hierarchy *h, const cb_program *p) {
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
  uint32_t n[3] = {p->n_vars, p->n_types, p->n_fields};
  for (int k = 0; k < 3; k++)
    if (!(c->lines[k] = calloc(n[k] + 1, sizeof(uint64_t))))
      return false;
  c->last_line = calloc(p->n_sites + 1, sizeof *c->last_line);
  c->last_addr = calloc(p->n_sites + 1, sizeof *c->last_addr);
  c->last_delta = calloc(p->n_sites + 1, sizeof *c->last_delta);
  c->stride = calloc(p->n_sites + 1, sizeof *c->stride);
  c->stride_runs = calloc(p->n_sites + 1, sizeof *c->stride_runs);
  if (!c->last_addr || !c->last_delta || !c->stride || !c->stride_runs)
    return false;
  if ((uint64_t)p->n_vars * c->sets[0] <= (1u << 22))
    c->var_set =
        calloc((size_t)p->n_vars * c->sets[0] * 2 + 1, sizeof *c->var_set);
  return c->last_line && c->var_set;
}

static void collector_reset(collector *c) {
  if (!c->on)
    return;
  for (unsigned l = 0; l < c->nl; l++) {
    memset(c->set_misses[l], 0, c->sets[l] * sizeof(uint64_t));
    memset(c->set_conflicts[l], 0, c->sets[l] * sizeof(uint64_t));
    c->prev_misses[l] = c->prev_conflicts[l] = 0;
  }
  uint32_t n[3] = {c->p->n_vars, c->p->n_types, c->p->n_fields};
  for (int k = 0; k < 3; k++)
    memset(c->lines[k], 0, n[k] * sizeof(uint64_t));
  memset(c->last_line, 0, c->p->n_sites * sizeof *c->last_line);
  memset(c->last_addr, 0, c->p->n_sites * sizeof *c->last_addr);
  memset(c->last_delta, 0, c->p->n_sites * sizeof *c->last_delta);
  memset(c->stride, 0, c->p->n_sites * sizeof *c->stride);
  memset(c->stride_runs, 0, c->p->n_sites * sizeof *c->stride_runs);
  memset(c->var_set, 0,
         (size_t)c->p->n_vars * c->sets[0] * 2 * sizeof *c->var_set);
  if (c->ws.v)
    memset(c->ws.v, 0, c->ws.cap * sizeof *c->ws.v);
  c->ws.n = 0;
}

static void collector_free(collector *c) {
  for (unsigned l = 0; l < c->nl; l++) {
    free(c->set_misses[l]);
    free(c->set_conflicts[l]);
  }
  for (int k = 0; k < 3; k++)
    free(c->lines[k]);
  free(c->last_line);
  free(c->last_addr);
  free(c->last_delta);
  free(c->stride);
  free(c->stride_runs);
  free(c->var_set);
  free(c->ws.v);
}

static void touch(collector *c, unsigned kind, uint32_t id, uint64_t line) {
  if (id != CB_NONE && ws_insert(&c->ws, ((uint32_t)kind << 30 | id) + 1, line))
    c->lines[kind][id]++;
}

static void collect_one(collector *c, const cb_access *a) {
  cb_hierarchy_access(c->h, a->addr, a->size, a->is_write, a->site);
  const cb_site *s = a->site < c->p->n_sites ? &c->p->sites[a->site] : NULL;
  for (unsigned l = 0; l < c->nl; l++) {
    cb_level_stats st;
    cb_hierarchy_level_stats(c->h, l, &st);
    if (st.misses == c->prev_misses[l])
      break;
    uint64_t set = (a->addr >> c->shift[l]) & c->mask[l];
    uint64_t conflict = st.miss_class[CB_MISS_CONFLICT] - c->prev_conflicts[l];
    c->set_misses[l][set]++;
    c->set_conflicts[l][set] += conflict;
    c->prev_misses[l] = st.misses;
    c->prev_conflicts[l] = st.miss_class[CB_MISS_CONFLICT];
    if (l == 0 && s && !s->is_call && s->var < c->p->n_vars) {
      uint64_t *vs = &c->var_set[((size_t)s->var * c->sets[0] + set) * 2];
      vs[0]++;
      vs[1] += conflict;
    }
  }
  if (!s || s->is_call)
    return;
  int64_t delta = (int64_t)(a->addr - c->last_addr[a->site]);
  if (c->last_addr[a->site] && delta == c->last_delta[a->site]) {
    if (c->stride[a->site] != delta) {
      c->stride[a->site] = delta;
      c->stride_runs[a->site] = 0;
    }
    c->stride_runs[a->site]++;
  }
  c->last_delta[a->site] = delta;
  c->last_addr[a->site] = a->addr;
  uint64_t first = a->addr >> c->shift[0];
  uint64_t last = (a->addr + (a->size ? a->size - 1 : 0)) >> c->shift[0];
  if (c->last_line[a->site] == last + 1)
    return;
  c->last_line[a->site] = last + 1;
  for (uint64_t line = first; line <= last && line - first < 64; line++) {
    touch(c, WS_VAR, s->var, line);
    touch(c, WS_TYPE, s->type, line);
    touch(c, WS_FIELD, s->field, line);
  }
}

typedef struct fanout {
  collector *c;
  unsigned n;
  stream_hash sh;
  bool hash; /* memoizing: hash the stream on its way */
  bool timed;
  double sim_s;
} fanout;

static void fanout_batch(void *ctx, const cb_access *batch, size_t n) {
  fanout *f = ctx;
  if (f->hash)
    hash_batch(&f->sh, batch, n);
  else
    f->sh.n += n;
  double t0 = f->timed ? thread_cpu_s() : 0;
  for (unsigned i = 0; i < f->n; i++) {
    collector *c = &f->c[i];
    if (!c->on) {
      cb_hierarchy_run(c->h, batch, n);
      continue;
    }
    for (size_t k = 0; k < n; k++)
      collect_one(c, &batch[k]);
  }
  if (f->timed)
    f->sim_s += thread_cpu_s() - t0;
}
static void hash_only_batch(void *ctx, const cb_access *batch, size_t n) {
  hash_batch(ctx, batch, n);
}

static bool same_stream(const stream_hash *a, const stream_hash *b) {
  return a->h1 == b->h1 && a->h2 == b->h2 && a->n == b->n;
}

/* The run whose stream is sh, or -1; under d->lock. */
static int memo_find(const driver *d, const stream_hash *sh) {
  for (unsigned k = 0; k < d->n_memo; k++)
    if (same_stream(&d->memo[k].key, sh))
      return (int)d->memo[k].run;
  return -1;
}

static void memo_add(driver *d, const stream_hash *sh, unsigned run) {
  pthread_mutex_lock(&d->lock);
  if (memo_find(d, sh) < 0) {
    if (d->n_memo == d->cap_memo) {
      unsigned cap = d->cap_memo ? 2 * d->cap_memo : 16;
      memo_entry *m = realloc(d->memo, cap * sizeof *m);
      if (m) {
        d->memo = m;
        d->cap_memo = cap;
      }
    }
    if (d->n_memo < d->cap_memo)
      d->memo[d->n_memo++] = (memo_entry){*sh, run};
  }
  pthread_mutex_unlock(&d->lock);
}

static uint64_t *dup_u64(const uint64_t *v, size_t n) {
  uint64_t *d = malloc((n ? n : 1) * sizeof *d);
  if (d && n)
    memcpy(d, v, n * sizeof *d);
  return d;
}

/* Copies what the collector gathered into a cache result. */
static bool collect_extras(const collector *col, cb_cache_result *c) {
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
    }
    c->set_misses[l] = dup_u64(col->set_misses[l], col->sets[l]);
    c->set_conflicts[l] = dup_u64(col->set_conflicts[l], col->sets[l]);
    if (!c->distance_hist[l] || !c->set_misses[l] || !c->set_conflicts[l])
      return false;
  }
  c->var_lines = dup_u64(col->lines[WS_VAR], p->n_vars);
  c->type_lines = dup_u64(col->lines[WS_TYPE], p->n_types);
  c->field_lines = dup_u64(col->lines[WS_FIELD], p->n_fields);
  if (!c->var_lines || !c->type_lines || !c->field_lines)
    return false;
  c->site_stride = malloc((p->n_sites + 1) * sizeof *c->site_stride);
  c->site_stride_runs = dup_u64(col->stride_runs, p->n_sites);
  if (!c->site_stride || !c->site_stride_runs)
    return false;
  memcpy(c->site_stride, col->stride, p->n_sites * sizeof *c->site_stride);
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

static void *dup_mem(const void *v, size_t n) {
  void *d = malloc(n ? n : 1);
  if (d && n)
    memcpy(d, v, n);
  return d;
}

/* Deep copy of a twin's cache results: every counter and array that
 * results.h holds, so that the report cannot tell them apart. */
static bool copy_caches(const cb_program *p, cb_run_result *r,
                        const cb_run_result *twin) {
  r->caches = calloc(twin->n_caches ? twin->n_caches : 1, sizeof *r->caches);
  if (!r->caches)
    return false;
  r->n_caches = twin->n_caches;
  bool ok = true;
  for (unsigned c = 0; c < twin->n_caches; c++) {
    const cb_cache_result *s = &twin->caches[c];
    cb_cache_result *t = &r->caches[c];
    *t = *s;
    t->name = strdup(s->name);
    for (unsigned l = 0; l < s->n_levels; l++) {
      t->level_names[l] = strdup(s->level_names[l]);
      if (s->distance_hist[l])
        ok &=
            !!(t->distance_hist[l] = dup_mem(
                   s->distance_hist[l], s->distance_len[l] * sizeof(uint64_t)));
      size_t sets = s->geometry[l].sets;
      if (s->set_misses[l])
        ok &= !!(t->set_misses[l] =
                     dup_mem(s->set_misses[l], sets * sizeof(uint64_t)));
      if (s->set_conflicts[l])
        ok &= !!(t->set_conflicts[l] =
                     dup_mem(s->set_conflicts[l], sets * sizeof(uint64_t)));
    }
    t->sites = dup_mem(s->sites, ((size_t)s->n_sites * s->n_levels + 1) *
                                     sizeof *s->sites);
    ok &= t->sites != NULL;
    if (s->var_lines)
      ok &= !!(t->var_lines =
                   dup_mem(s->var_lines, p->n_vars * sizeof(uint64_t)));
    if (s->type_lines)
      ok &= !!(t->type_lines =
                   dup_mem(s->type_lines, p->n_types * sizeof(uint64_t)));
    if (s->field_lines)
      ok &= !!(t->field_lines =
                   dup_mem(s->field_lines, p->n_fields * sizeof(uint64_t)));
    if (s->site_stride)
      ok &= !!(t->site_stride =
                   dup_mem(s->site_stride, p->n_sites * sizeof(int64_t)));
    if (s->site_stride_runs)
      ok &= !!(t->site_stride_runs =
                   dup_mem(s->site_stride_runs, p->n_sites * sizeof(uint64_t)));
    if (s->var_sets)
      ok &= !!(t->var_sets =
                   dup_mem(s->var_sets, s->n_var_sets * sizeof *s->var_sets));
  }
  return ok;
}

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

/* Reads a whole file; NULL with a message in err when it cannot. */
static unsigned char *read_file(const char *path, size_t *len, char *err,
                                size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: cannot read standard input file", path);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      unsigned char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf)
    snprintf(err, err_size, "%s: out of memory reading it", path);
  *len = n;
  return buf;
}

static void copy_level(cb_level_counts *dst, const cb_level_stats *s) {
  dst->accesses = s->accesses;
  dst->reads = s->reads;
  dst->writes = s->writes;
  dst->misses = s->misses;
  dst->read_misses = s->read_misses;
  dst->write_misses = s->write_misses;
  dst->compulsory = s->miss_class[CB_MISS_COMPULSORY];
  dst->capacity = s->miss_class[CB_MISS_CAPACITY];
  dst->conflict = s->miss_class[CB_MISS_CONFLICT];
}

/* Copies a hierarchy's counters into a cache result. */
static bool collect_cache(const driver *d, cb_hierarchy *h,
                          const cb_analysis_cache *cfg, cb_cache_result *c) {
  unsigned nl = cb_hierarchy_n_levels(h);
  if (nl > CB_RESULT_LEVELS)
    nl = CB_RESULT_LEVELS;
  c->name = strdup(cfg->name);
  c->n_levels = nl;
  c->classified = cb_hierarchy_classifies(h);
  for (unsigned l = 0; l < nl; l++) {
    const cb_level_config *lc = &cfg->config.levels[l];
    cb_level_geometry *g = &c->geometry[l];
    g->size = lc->size;
    g->assoc = lc->assoc;
    g->line = lc->line;
    uint64_t sets = lc->assoc == CB_ASSOC_FULL
                        ? 1
                        : lc->size / ((uint64_t)lc->assoc * lc->line);
    g->sets = sets ? (uint32_t)sets : 1;
    c->level_names[l] = strdup(cfg->config.levels[l].name);
    cb_level_stats s;
    cb_hierarchy_level_stats(h, l, &s);
    copy_level(&c->levels[l], &s);
  }
  c->n_sites = d->p->n_sites;
  c->sites = calloc((size_t)c->n_sites * nl + 1, sizeof *c->sites);
  if (!c->sites)
    return false;
  for (uint32_t s = 0; s < c->n_sites; s++)
    for (unsigned l = 0; l < nl; l++) {
      const cb_site_stats *ss = cb_hierarchy_site_stats(h, s, l);
      cb_site_counts *dst = &c->sites[(size_t)s * nl + l];
      if (!ss)
        continue;
      dst->accesses = ss->accesses;
      dst->misses = ss->misses;
      dst->compulsory = ss->miss_class[CB_MISS_COMPULSORY];
      dst->capacity = ss->miss_class[CB_MISS_CAPACITY];
      dst->conflict = ss->miss_class[CB_MISS_CONFLICT];
    }
  return true;
}

static void fail_run(cb_run_result *r, const char *msg, const char *file,
                     unsigned line) {
  /* Reports put the location in front; drop the engine's own copy. */
  char where[512];
  if (file) {
    int n = snprintf(where, sizeof where, "%s:%u: ", file, line);
    if (n > 0 && (size_t)n < sizeof where && strncmp(msg, where, n) == 0)
      msg += n;
  }
  r->ok = false;
  free(r->error_message);
  free(r->error_file);
  r->error_message = strdup(msg);
  r->error_file = dup_or_null(file);
  r->error_line = line;
}

/* Runs one input through the engine and every hierarchy. */
static void run_one(driver *d, unsigned i, cb_hierarchy **h, collector *col) {
  const cb_analysis_input *in = &d->inputs[i];
  cb_run_result *r = &d->out->runs[i];
  r->index = i + 1;
  r->n_args = in->n_args;
  r->args = calloc(in->n_args + 1, sizeof *r->args);
  for (unsigned k = 0; r->args && k < in->n_args; k++)
    r->args[k] = strdup(in->args[k]);
  r->stdin_path = dup_or_null(in->stdin_path);
  r->inputs_line = in->line;
  r->ok = true;
  if (in->error) {
    fail_run(r, in->error, in->error_file, in->line);
    return;
  }

  char err[512];
  size_t stdin_len = 0;
  unsigned char *stdin_data = NULL;
  if (in->stdin_path) {
    stdin_data = read_file(in->stdin_path, &stdin_len, err, sizeof err);
    if (!stdin_data) {
      fail_run(r, err, in->error_file, in->line);
      return;
    }
  }

  const char **argv = calloc(in->n_args + 2, sizeof *argv);
  if (!argv) {
    free(stdin_data);
    fail_run(r, "out of memory", NULL, 0);
    return;
  }
  argv[0] = d->opt->argv0;
  for (unsigned k = 0; k < in->n_args; k++)
    argv[k + 1] = in->args[k];
  cb_run_input run_in = {(int)in->n_args + 1, argv, stdin_data, stdin_len};

  cb_run_outcome o;
  memset(&o, 0, sizeof o);
  fanout f;
  memset(&f, 0, sizeof f);
  f.c = col;
  f.n = d->n_caches;
  f.timed = d->opt->stats != NULL;
  f.hash = d->opt->memoize && d->n_inputs > 1;
  int twin = -1;
  bool simulated = false, piped = false;
  double t0 = thread_cpu_s();
  double path_s = 0;

  /* Hash first (no cache model) when inputs are many and their streams
   * have been repeating. */
  bool hash_first = false;
  if (d->opt->memoize && d->n_inputs > 1) {
    pthread_mutex_lock(&d->lock);
    hash_first = d->n_memo > 0 && d->memo_misses <= 2 * d->memo_hits + 2;
    pthread_mutex_unlock(&d->lock);
  }
  if (hash_first) {
    stream_hash sh = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0};
    cb_access_sink hs = {hash_only_batch, &sh};
    cb_engine_run(d->p, &run_in, &d->opt->engine, &hs, &o);
    path_s = thread_cpu_s() - t0;
    pthread_mutex_lock(&d->lock);
    twin = memo_find(d, &sh);
    if (twin >= 0)
      d->memo_hits++;
    else
      d->memo_misses++;
    pthread_mutex_unlock(&d->lock);
    if (twin < 0) {
      cb_run_outcome_free(&o);
      memset(&o, 0, sizeof o);
    }
    f.sh = sh; /* the twin's key (or this stream's, simulated below) */
  }
  double t1 = thread_cpu_s();
  if (twin < 0) {
    for (unsigned c = 0; c < d->n_caches; c++) {
      cb_hierarchy_reset(h[c]);
      collector_reset(&col[c]);
    }
    f.sh = (stream_hash){0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0};
    cb_access_sink sink = {fanout_batch, &f};
    cb_pipe *pipe = d->pipeline ? cb_pipe_start(fanout_batch, &f) : NULL;
    if (pipe)
      sink = (cb_access_sink){cb_pipe_push, pipe};
    cb_engine_run(d->p, &run_in, &d->opt->engine, &sink, &o);
    if (pipe) {
      cb_pipe_finish(pipe);
      piped = true;
    }
    simulated = true;
  }
  double t2 = thread_cpu_s();
  free(argv);
  free(stdin_data);

  if (d->opt->stats) {
    pthread_mutex_lock(&d->lock);
    d->stats.path_s += path_s;
    d->stats.sim_s += f.sim_s;
    /* piped: the simulation ran on its own thread */
    d->stats.stream_s += (t2 - t1) - (piped ? 0 : f.sim_s);
    d->stats.ops += o.ops;
    d->stats.accesses += f.sh.n;
    d->stats.simulated += simulated;
    d->stats.shared += !simulated;
    pthread_mutex_unlock(&d->lock);
  }

  r->operations = o.ops;
  r->path_hash = o.path_signature;
  r->output = o.out ? strdup(o.out) : NULL;
  if (o.status == CB_RUN_OK) {
    r->exited = true;
    r->exit_code = o.exit_code;
  } else {
    fail_run(r, o.message, o.file, o.line);
  }
  cb_run_outcome_free(&o);

  if (twin >= 0) {
    /* The twin's results were published complete, under the lock. */
    pthread_mutex_lock(&d->lock);
    bool ok = copy_caches(d->p, r, &d->out->runs[twin]);
    pthread_mutex_unlock(&d->lock);
    if (!ok)
      fail_run(r, "out of memory", NULL, 0);
    return;
  }
  r->caches = calloc(d->n_caches, sizeof *r->caches);
  if (!r->caches) {
    fail_run(r, "out of memory", NULL, 0);
    return;
  }
  r->n_caches = d->n_caches;
  bool ok = true;
  for (unsigned c = 0; c < d->n_caches; c++)
    if (!collect_cache(d, h[c], &d->caches[c], &r->caches[c]) ||
        !collect_extras(&col[c], &r->caches[c])) {
      fail_run(r, "out of memory", NULL, 0);
      ok = false;
    }
  if (ok && d->opt->memoize && d->n_inputs > 1)
    memo_add(d, &f.sh, i);
}

static void *worker(void *arg) {
  driver *d = arg;
  cb_hierarchy **h = calloc(d->n_caches, sizeof *h);
  collector *col = calloc(d->n_caches, sizeof *col);
  unsigned flags = d->opt->classify ? CB_CLASSIFY : 0;
  char err[256] = "";
  bool ok = h && col;
  for (unsigned c = 0; ok && c < d->n_caches; c++) {
    h[c] = cb_hierarchy_create(&d->caches[c].config, d->p->n_sites, flags, err,
                               sizeof err);
    ok = h[c] != NULL && collector_init(&col[c], h[c], d->p);
  }
  if (!ok) {
    pthread_mutex_lock(&d->lock);
    if (!d->err[0])
      snprintf(d->err, sizeof d->err, "cache: %.200s",
               err[0] ? err : "out of memory");
    pthread_mutex_unlock(&d->lock);
  }
  unsigned i;
  while (ok && (i = atomic_fetch_add(&d->next, 1)) < d->n_inputs) {
    run_one(d, i, h, col);
    unsigned done = atomic_fetch_add(&d->done, 1) + 1;
    if (d->opt->progress) {
      pthread_mutex_lock(&d->lock);
      fprintf(stderr, "\rcbana: %u/%u inputs", done, d->n_inputs);
      if (done == d->n_inputs)
        fputc('\n', stderr);
      pthread_mutex_unlock(&d->lock);
    }
  }
  for (unsigned c = 0; h && col && c < d->n_caches; c++) {
    collector_free(&col[c]);
    if (h[c])
      cb_hierarchy_destroy(h[c]);
  }
  free(h);
  free(col);
  return NULL;
}

/* Per site: the function and block of the operation that makes it. */
static void site_blocks(const cb_program *p, uint32_t *site_func,
                        uint32_t *site_block) {
  for (uint32_t s = 0; s < p->n_sites; s++)
    site_func[s] = site_block[s] = CB_NONE;
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &p->blocks[fn->first_block + b];
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &p->ops[bl->first_op + o];
        uint32_t site = CB_NONE;
        if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE)
          site = op->aux;
        else if (op->code == CB_OP_CALL && op->aux + 2 < p->n_extra)
          site = (uint32_t)p->extra[op->aux + 2];
        if (site < p->n_sites && site_func[site] == CB_NONE) {
          site_func[site] = f;
          site_block[site] = b;
        }
      }
    }
  }
}

/* Did the run execute this site (any access at the first level)? */
static bool site_ran(const cb_run_result *r, uint32_t s) {
  if (!r->n_caches || s >= r->caches[0].n_sites)
    return false;
  const cb_cache_result *c = &r->caches[0];
  return c->sites[(size_t)s * c->n_levels].accesses != 0;
}

/* cb_branch_seen bits of every run, from which of its sites ran. A side
 * whose first block has the branch's block as its only predecessor is
 * taken when a site in a block it dominates ran; it was not taken when a
 * site in that first block itself did not run. */
static void derive_branches(const cb_program *p, cb_results *out) {
  if (!p->n_branches || !out->n_runs)
    return;
  uint32_t *site_func = malloc(sizeof(uint32_t) * (p->n_sites + 1));
  uint32_t *site_block = malloc(sizeof(uint32_t) * (p->n_sites + 1));
  cb_cfg_info *cfg = cb_cfg_analyze(p);
  for (unsigned i = 0; i < out->n_runs; i++)
    out->runs[i].branches = calloc(p->n_branches, 1);
  if (!site_func || !site_block || !cfg)
    goto done;
  site_blocks(p, site_func, site_block);
  for (uint32_t b = 0; b < p->n_branches; b++) {
    const cb_branch *br = &p->branches[b];
    if (br->func >= p->n_functions || br->func >= cfg->n_funcs)
      continue;
    const cb_function *fn = &p->functions[br->func];
    const cb_func_cfg *fc = &cfg->funcs[br->func];
    if (br->block >= fn->n_blocks)
      continue;
    const cb_block *bl = &p->blocks[fn->first_block + br->block];
    if (bl->n_succ != 2)
      continue;
    uint32_t succ[2] = {p->succs[bl->first_succ], p->succs[bl->first_succ + 1]};
    bool own[2];
    /* A side is the branch's own when its first block is entered only
     * through it (other predecessors are back edges from inside). */
    for (int k = 0; k < 2; k++) {
      const cb_block *sb = &p->blocks[fn->first_block + succ[k]];
      own[k] = succ[0] != succ[1] && succ[k] != br->block;
      for (uint32_t q = 0; own[k] && q < sb->n_pred; q++) {
        uint32_t pred = p->preds[sb->first_pred + q];
        own[k] = pred == br->block || cb_cfg_dominates(fc, succ[k], pred);
      }
    }
    for (unsigned i = 0; i < out->n_runs; i++) {
      cb_run_result *r = &out->runs[i];
      if (!r->branches)
        continue;
      uint8_t seen = 0;
      bool first_site[2] = {false, false}, first_ran[2] = {false, false};
      for (uint32_t s = 0; s < p->n_sites; s++) {
        if (site_func[s] != br->func)
          continue;
        bool ran = site_ran(r, s);
        if (site_block[s] == br->block && ran)
          seen |= CB_BRANCH_REACHED;
        for (int k = 0; k < 2; k++) {
          if (!own[k])
            continue;
          if (site_block[s] == succ[k]) {
            first_site[k] = true;
            first_ran[k] |= ran;
          }
          if (ran && cb_cfg_dominates(fc, succ[k], site_block[s]))
            seen |= k == 0 ? CB_BRANCH_TRUE : CB_BRANCH_FALSE;
        }
      }
      for (int k = 0; k < 2; k++)
        if (first_site[k] && !first_ran[k])
          seen |= k == 0 ? CB_BRANCH_NOT_TRUE : CB_BRANCH_NOT_FALSE;
      if (seen & (CB_BRANCH_TRUE | CB_BRANCH_FALSE))
        seen |= CB_BRANCH_REACHED;
      /* Reached with one side excluded: the other side was taken. */
      if ((seen & CB_BRANCH_REACHED) && (seen & CB_BRANCH_NOT_TRUE))
        seen |= CB_BRANCH_FALSE;
      if ((seen & CB_BRANCH_REACHED) && (seen & CB_BRANCH_NOT_FALSE))
        seen |= CB_BRANCH_TRUE;
      r->branches[b] = seen;
    }
  }
done:
  if (cfg)
    cb_cfg_free(cfg);
  free(site_func);
  free(site_block);
}

/* Path classes numbered by first appearance in input order. */
static void assign_path_classes(cb_results *r) {
  unsigned n = 0;
  for (unsigned i = 0; i < r->n_runs; i++) {
    cb_run_result *run = &r->runs[i];
    run->path_class = 0;
    for (unsigned j = 0; j < i && !run->path_class; j++)
      if (r->runs[j].path_hash == run->path_hash && r->runs[j].path_class)
        run->path_class = r->runs[j].path_class;
    if (!run->path_class)
      run->path_class = ++n;
  }
  r->n_path_classes = n;
}

int cb_analysis_run(const cb_program *p, const cb_analysis_input *inputs,
                    unsigned n_inputs, const cb_analysis_cache *caches,
                    unsigned n_caches, const cb_analysis_options *opt,
                    cb_results *out, char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  out->program = p;
  out->runs = calloc(n_inputs ? n_inputs : 1, sizeof *out->runs);
  if (!out->runs) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  out->n_runs = n_inputs;

  driver d;
  memset(&d, 0, sizeof d);
  d.p = p;
  d.inputs = inputs;
  d.n_inputs = n_inputs;
  d.caches = caches;
  d.n_caches = n_caches;
  d.opt = opt;
  d.out = out;
  atomic_init(&d.next, 0);
  atomic_init(&d.done, 0);
  pthread_mutex_init(&d.lock, NULL);

  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned jobs = opt->jobs ? opt->jobs : (cores > 0 ? (unsigned)cores : 1);
  if (jobs > n_inputs) {
    /* a core left per input: stream generation and simulation overlap */
    d.pipeline = opt->engine.mode == CB_ENGINE_FAST && jobs >= 2 * n_inputs;
    jobs = n_inputs ? n_inputs : 1;
  }
  double w0 = wall_s();
  pthread_t *threads = calloc(jobs, sizeof *threads);

  unsigned started = 0;
  for (unsigned t = 1; threads && t < jobs; t++)
    if (pthread_create(&threads[started], NULL, worker, &d) == 0)
      started++;
  worker(&d); /* this thread works too */
  for (unsigned t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
  free(threads);
  pthread_mutex_destroy(&d.lock);
  free(d.memo);
  if (opt->stats) {
    cb_analysis_stats *st = opt->stats;
    st->path_s = d.stats.path_s;
    st->stream_s = d.stats.stream_s;
    st->sim_s = d.stats.sim_s;
    st->ops = d.stats.ops;
    st->accesses = d.stats.accesses;
    st->simulated = d.stats.simulated;
    st->shared = d.stats.shared;
    st->inputs = n_inputs;
    st->jobs = jobs;
    st->analysis_wall_s = wall_s() - w0;
  }

  if (d.err[0]) {
    snprintf(err, err_size, "%s", d.err);
    return -1;
  }

  assign_path_classes(out);
  derive_branches(p, out);
  for (unsigned i = 0; i < n_inputs; i++)
    if (!out->runs[i].ok)
      return 1;
  return 0;
}

void cb_results_free(cb_results *r) {
  for (unsigned i = 0; i < r->n_runs; i++) {
    cb_run_result *run = &r->runs[i];
    for (unsigned k = 0; k < run->n_args; k++)
      free(run->args ? run->args[k] : NULL);
    free(run->args);
    free(run->stdin_path);
    free(run->error_message);
    free(run->error_file);
    free(run->output);
    for (unsigned c = 0; c < run->n_caches; c++) {
      cb_cache_result *cr = &run->caches[c];
      free(cr->name);
      for (unsigned l = 0; l < cr->n_levels; l++)
        free(cr->level_names[l]);
      free(cr->sites);
      for (unsigned l = 0; l < CB_RESULT_LEVELS; l++) {
        free(cr->distance_hist[l]);
        free(cr->set_misses[l]);
        free(cr->set_conflicts[l]);
      }
      free(cr->var_lines);
      free(cr->type_lines);
      free(cr->field_lines);
      free(cr->var_sets);
      free(cr->site_stride);
      free(cr->site_stride_runs);
    }
    free(run->caches);
    free(run->branches);
  }
  free(r->runs);
  memset(r, 0, sizeof *r);
}

void cb_analysis_stats_print(FILE *f, const cb_analysis_stats *s) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double an = s->path_s + s->stream_s + s->sim_s;
  fprintf(f, "cbana stats:\n");
  fprintf(f, "  compile          %8.3f s cpu (clang)\n", s->compile_s);
  fprintf(f,
          "  lowering         %8.3f s cpu (frontend wall, with compile: "
          "%.3f s)\n",
          s->lowering_s, s->frontend_wall_s);
  fprintf(f, "  path selection   %8.3f s cpu (stream-hash passes)\n",
          s->path_s);
  fprintf(f, "  stream gen.      %8.3f s cpu (engine)\n", s->stream_s);
  fprintf(f, "  cache simulation %8.3f s cpu\n", s->sim_s);
  fprintf(f, "  analysis         %8.3f s wall (%.3f s cpu on %u jobs)\n",
          s->analysis_wall_s, an, s->jobs);
  fprintf(f, "  inputs %u: %u simulated, %u shared a twin's identical stream\n",
          s->inputs, s->simulated, s->shared);
  fprintf(f, "  operations %llu, accesses %llu", (unsigned long long)s->ops,
          (unsigned long long)s->accesses);
  if (s->stream_s + s->path_s > 0)
    fprintf(f, " (%.1f M ops/s)",
            1e-6 * (double)s->ops / (s->stream_s + s->path_s));
  fprintf(f, "\n  peak RSS %ld KiB\n", ru.ru_maxrss);
}
