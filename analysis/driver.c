/* The analysis driver: inputs x caches -> results, in parallel.
 *
 * Each worker thread owns one hierarchy per cache configuration and
 * reuses it (reset between inputs), so the simulator's memory is
 * allocated once per thread. Inputs are taken from a shared counter, and
 * each result lands in its input's slot, so the report's order is the
 * inputs' order whatever the scheduling. */
#include "cbana/analysis.h"
#include "cbana/cfg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
} fanout;

static void fanout_batch(void *ctx, const cb_access *batch, size_t n) {
  fanout *f = ctx;
  for (unsigned i = 0; i < f->n; i++) {
    collector *c = &f->c[i];
    if (!c->on) {
      cb_hierarchy_run(c->h, batch, n);
      continue;
    }
    for (size_t k = 0; k < n; k++)
      collect_one(c, &batch[k]);
  }
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

  for (unsigned c = 0; c < d->n_caches; c++) {
    cb_hierarchy_reset(h[c]);
    collector_reset(&col[c]);
  }
  fanout f = {col, d->n_caches};
  cb_access_sink sink = {fanout_batch, &f};
  cb_run_outcome o;
  memset(&o, 0, sizeof o);
  cb_engine_run(d->p, &run_in, &d->opt->engine, &sink, &o);
  free(argv);
  free(stdin_data);

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

  r->caches = calloc(d->n_caches, sizeof *r->caches);
  if (!r->caches) {
    fail_run(r, "out of memory", NULL, 0);
    return;
  }
  r->n_caches = d->n_caches;
  for (unsigned c = 0; c < d->n_caches; c++)
    if (!collect_cache(d, h[c], &d->caches[c], &r->caches[c]) ||
        !collect_extras(&col[c], &r->caches[c]))
      fail_run(r, "out of memory", NULL, 0);
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
  if (jobs > n_inputs)
    jobs = n_inputs ? n_inputs : 1;
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
