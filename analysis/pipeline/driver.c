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
 * driver goes back to simulating directly (hashing on the way).
 *
 * Here: the workers, running one input, copying results, the entry point
 * and the statistics. The per-access collector and the fan-out sink are
 * in collector.c, the stream hash in driver_memo.h, the paths (branch
 * outcomes, path classes) in paths.c. */
#include "cbana/analysis.h"

#include "collector.h"
#include "driver_memo.h"
#include "glibc_tunables.h"
#include "libc_build.h"
#include "paths.h"
#include "pipe.h"
#include "process.h"
#include "split.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct driver {
  const cb_program *p;
  cb_glibc_thresholds glibc; /* for every input's engine options */
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
  bool split;              /* and on a third, cut in time (split.h) */
  unsigned sim_threads;    /* split long blocks over this many */
  cb_analysis_stats stats; /* summed by the workers, under lock */
  /* the progress line (opt->progress): the finished inputs' operations
   * and accesses (under lock), each worker's running input's (set by
   * the engine's progress calls), when the analysis started and the line
   * was last drawn (under lock) */
  uint64_t ops_done, acc_done;
  _Atomic uint64_t *live_ops, *live_acc;
  atomic_uint next_worker;
  unsigned jobs; /* workers */
  double t0, drawn_at;
  bool drawn;
} driver;

/* The engine's progress call's context: a worker's slot. */
typedef struct progress_slot {
  driver *d;
  unsigned w;
} progress_slot;

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
    if (s->alloc_sites)
      ok &= !!(t->alloc_sites = dup_mem(
                   s->alloc_sites, s->n_alloc_sites * sizeof *s->alloc_sites));
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

/* What a hierarchy's memos did (cb_affine_stats past the counters),
 * into the --stats sums: the first simulation thread's, and the time
 * split's second's (under d->lock). */
static void add_memo_figures(cb_analysis_stats *st, const cb_affine_stats *as) {
  st->sim_blocks_skipped += as->segments_skipped;
  st->sim_blocks_parts += as->segments_in_parts;
  st->sim_parts_counted += as->parts_counted;
  st->sim_segments_closed += as->segments_closed;
  st->sim_parts_closed += as->parts_closed;
  st->sim_records_skipped += as->records_skipped;
  st->sim_parts_run +=
      as->segments_in_parts * as->parts_each - as->parts_counted;
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
  r->ok = false;
  free(r->error_message);
  free(r->error_file);
  r->error_message = strdup(msg);
  r->error_file = dup_or_null(file);
  r->error_line = line;
}

/* 1234, 12.3k, 1.23M, 123G: three digits at most. */
static const char *count_text(char *buf, size_t n, uint64_t v) {
  static const char unit[] = " kMGTPE";
  double x = (double)v;
  unsigned u = 0;
  while (x >= 9999.5 && u + 1 < sizeof unit - 1) {
    x /= 1000;
    u++;
  }
  if (u == 0)
    snprintf(buf, n, "%llu", (unsigned long long)v);
  else
    snprintf(buf, n, "%.*f%c", x < 9.995 ? 2 : x < 99.95 ? 1 : 0, x, unit[u]);
  return buf;
}

/* Draws the progress line on stderr (a terminal: opt->progress), over
 * the one before; under d->lock. */
static void progress_draw(driver *d) {
  uint64_t ops = d->ops_done, acc = d->acc_done;
  for (unsigned w = 0; w < d->jobs; w++) {
    ops += atomic_load_explicit(&d->live_ops[w], memory_order_relaxed);
    acc += atomic_load_explicit(&d->live_acc[w], memory_order_relaxed);
  }
  double now = wall_s();
  unsigned t = (unsigned)(now - d->t0);
  char a[16], b[16], in[48] = "";
  if (d->n_inputs > 1)
    snprintf(in, sizeof in, "%u/%u inputs, ", atomic_load(&d->done),
             d->n_inputs);
  fprintf(stderr, "\rcbana: %s%s operations, %s accesses, %u:%02u\033[K", in,
          count_text(a, sizeof a, ops), count_text(b, sizeof b, acc), t / 60,
          t % 60);
  d->drawn_at = now;
  d->drawn = true;
}

/* The engine's progress call (engine.h), every CB_ENGINE_CHECK_OPS
 * operations: the line is drawn from a second into the analysis, four
 * times a second at most. */
static void on_progress(void *ctx, uint64_t ops, uint64_t accesses) {
  progress_slot *ps = ctx;
  driver *d = ps->d;
  atomic_store_explicit(&d->live_ops[ps->w], ops, memory_order_relaxed);
  atomic_store_explicit(&d->live_acc[ps->w], accesses, memory_order_relaxed);
  double now = wall_s();
  if (now - d->t0 < 1 || pthread_mutex_trylock(&d->lock) != 0)
    return;
  if (now - d->drawn_at >= 0.25)
    progress_draw(d);
  pthread_mutex_unlock(&d->lock);
}

/* Runs one input through the engine and every hierarchy. */
static void run_one(driver *d, unsigned i, cb_hierarchy **h, collector *col,
                    progress_slot *slot) {
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
  /* interrupted (engine.h: interrupt): the inputs not yet begun are not */
  if (d->opt->engine.interrupt && atomic_load(d->opt->engine.interrupt)) {
    fail_run(r, "not run: the analysis was interrupted before this input", NULL,
             0);
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
  double t0 = drv_thread_cpu_s();
  double path_s = 0;

  /* Hash first (no cache model) when inputs are many and their streams
   * have been repeating; every 8th input probes anyway. Without the probe,
   * parallel jobs could switch hashing off for good: while the first
   * input of each path is still being simulated, the others of its path
   * miss (its stream is not in the memo yet), and Table V's br_path3 ran
   * all 1000 inputs through the caches with 2 jobs (0 shared; with 1 job,
   * 5 simulated). */
  bool hash_first = false;
  if (d->opt->memoize && d->n_inputs > 1) {
    pthread_mutex_lock(&d->lock);
    hash_first =
        d->n_memo > 0 && (d->memo_misses <= 2 * d->memo_hits + 2 || i % 8 == 0);
    pthread_mutex_unlock(&d->lock);
  }
  /* With the views on, allocations travel the access stream as markers
   * (alloc_track.h), through whichever sink the run has. */
  cb_engine_options eo = d->opt->engine;
  if (!eo.glibc.movsb)
    eo.glibc = d->glibc;
  /* ld.so's and libc's start-up and exit, from the probes (process.h) */
  cb_process_state ps;
  bool replay = false;
  if (d->opt->no_process) {
    memset(&ps, 0, sizeof ps);
    pthread_mutex_init(&ps.lock, NULL);
    snprintf(ps.why, sizeof ps.why, "not asked for (--no-process)");
  } else if (eo.stack_top) {
    memset(&ps, 0, sizeof ps);
    pthread_mutex_init(&ps.lock, NULL);
    snprintf(ps.why, sizeof ps.why,
             "the stack is placed by hand (--stack-top)");
  } else {
    replay = cb_process_prepare(&ps, d->p, d->opt->cache_dir, run_in.argc,
                                run_in.argv, eo.cwd);
  }
  if (replay)
    eo.process = &ps.replay;
  /* --timeout: wall clock from the input's start, its reruns included */
  if (eo.timeout_s > 0)
    eo.deadline = wall_s() + eo.timeout_s;
  if (slot)
    eo.progress.fn = on_progress, eo.progress.ctx = slot;
  if (hash_first) {
    stream_hash sh = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0};
    cb_access_sink hs = {drv_hash_only_batch, &sh, drv_hash_only_affine, NULL};
    if (d->opt->classify)
      eo.alloc = (cb_alloc_sink){cb_alloc_to_stream, &hs};
    cb_engine_run(d->p, &run_in, &eo, &hs, &o);
    path_s = drv_thread_cpu_s() - t0;
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
  double t1 = drv_thread_cpu_s();
  if (twin < 0) {
    for (unsigned c = 0; c < d->n_caches; c++) {
      cb_hierarchy_reset(h[c]);
      drv_collector_reset(&col[c]);
    }
    f.sh = (stream_hash){0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0};
    cb_access_sink sink = {drv_fanout_batch, &f, drv_fanout_affine, NULL};
    cb_split *split = NULL;
    /* cb_split_start says whether the caches allow it */
    const cb_cache_config **cfg =
        d->split ? malloc(d->n_caches * sizeof *cfg) : NULL;
    if (cfg) {
      for (unsigned c = 0; c < d->n_caches; c++)
        cfg[c] = &d->caches[c].config;
      cb_access_sink tap = {drv_fanout_tap_batch, &f, drv_fanout_tap_affine,
                            NULL};
      split = cb_split_start(h, cfg, d->n_caches, d->p->n_sites, &tap,
                             d->opt->split_epoch);
      free(cfg);
    }
    cb_pipe *pipe = d->pipeline && !split ? cb_pipe_start(&sink) : NULL;
    /* piped, the consumer thread's CPU time is the simulation's (the
     * stream's hashing for twins included): no clock read per call */
    f.timed = d->opt->stats != NULL && !pipe && !split;
    if (pipe)
      sink = (cb_access_sink){cb_pipe_push, pipe, cb_pipe_push_affine,
                              cb_pipe_area};
    if (split)
      sink = (cb_access_sink){cb_split_push, split, cb_split_push_affine,
                              cb_split_area};
    if (d->opt->classify)
      eo.alloc = (cb_alloc_sink){cb_alloc_to_stream, &sink};
    cb_engine_run(d->p, &run_in, &eo, &sink, &o);
    if (pipe) {
      double cpu = cb_pipe_finish(pipe);
      f.sim_s += d->opt->stats ? cpu : 0;
      piped = true;
    }
    if (split) {
      cb_split_stats ss;
      cb_affine_stats *own = calloc(d->n_caches, sizeof *own);
      double cpu = cb_split_finish(split, &ss, own);
      f.sim_s += d->opt->stats ? cpu : 0;
      piped = true;
      pthread_mutex_lock(&d->lock);
      d->stats.split_epochs += ss.epochs;
      d->stats.split_handovers += ss.handovers;
      d->stats.split_abandoned += ss.abandoned;
      d->stats.split_rerun += ss.rerun;
      d->stats.split_idle_s += ss.idle_s;
      for (unsigned c = 0; own && c < d->n_caches; c++)
        add_memo_figures(&d->stats, &own[c]);
      pthread_mutex_unlock(&d->lock);
      free(own);
    }
    simulated = true;
  }
  double t2 = drv_thread_cpu_s();
  r->process_modelled = replay && o.status == CB_RUN_OK;
  if (!replay)
    r->process_note = strdup(ps.why);
  cb_process_release(&ps);
  free(argv);
  free(stdin_data);

  if (d->opt->stats) {
    pthread_mutex_lock(&d->lock);
    d->stats.path_s += path_s;
    d->stats.sim_s += f.sim_s;
    /* piped: the simulation ran on its own thread */
    /* f.sim_s is read off the monotonic clock (collector.h): the
     * difference may dip below zero by a few microseconds */
    double stream_s = (t2 - t1) - (piped ? 0 : f.sim_s);
    d->stats.stream_s += stream_s > 0 ? stream_s : 0;
    d->stats.ops += o.ops;
    d->stats.tpl_loops += o.tpl_loops;
    d->stats.tpl_iters += o.tpl_iters;
    d->stats.tpl_accesses += o.tpl_accesses;
    d->stats.tpl_native_iters += o.tpl_native_iters;
    d->stats.kernel_ops += o.kernel_ops;
    d->stats.kernel_engine_calls += o.kernel_engine_calls;
    for (unsigned k = 0; k < CB_OP_COUNT; k++)
      d->stats.kernel_left[k] += o.kernel_left[k];
    d->stats.accesses += f.sh.n;
    d->stats.simulated += simulated;
    d->stats.shared += !simulated;
    pthread_mutex_unlock(&d->lock);
  }

  r->operations = o.ops;
  r->path_hash = o.path_signature;
  r->branch_counts = o.branch_counts; /* the run's own, even for a twin */
  o.branch_counts = NULL;
  r->output = NULL;
  r->output_len = 0;
  if (o.out && (r->output = malloc(o.out_len + 1))) {
    memcpy(r->output, o.out, o.out_len);
    r->output[o.out_len] = 0;
    r->output_len = o.out_len;
  }
  r->errors = o.err ? strdup(o.err) : NULL;
  r->files = o.files;
  r->n_files = o.n_files;
  o.files = NULL;
  o.n_files = 0;
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
        !drv_collect_extras(&col[c], &r->caches[c])) {
      fail_run(r, "out of memory", NULL, 0);
      ok = false;
    }
  if (ok && d->opt->memoize && d->n_inputs > 1)
    memo_add(d, &f.sh, i);
  if (d->opt->stats) {
    pthread_mutex_lock(&d->lock);
    for (unsigned c = 0; c < d->n_caches; c++) {
      cb_affine_stats as;
      cb_hierarchy_affine_stats(h[c], &as);
      d->stats.sim_blocks += as.blocks;
      add_memo_figures(&d->stats, &as);
      d->stats.sim_blocks_split += as.split_blocks;
    }
    pthread_mutex_unlock(&d->lock);
  }
}

static void *worker(void *arg) {
  driver *d = arg;
  cb_hierarchy **h = calloc(d->n_caches, sizeof *h);
  collector *col = calloc(d->n_caches, sizeof *col);
  unsigned flags = d->opt->classify ? CB_CLASSIFY : 0;
  if (d->opt->classify && d->opt->exact_mrc)
    flags |= CB_EXACT_MRC;
  char err[256] = "";
  bool ok = h && col;
  for (unsigned c = 0; ok && c < d->n_caches; c++) {
    h[c] = cb_hierarchy_create(&d->caches[c].config, d->p->n_sites, flags, err,
                               sizeof err);
    ok = h[c] != NULL && drv_collector_init(&col[c], h[c], d->p);
    /* --sim-threads: long blocks split by set over threads
     * (cachemodel/parallel.c). */
    if (ok && d->sim_threads > 1) {
      unsigned n = cb_hierarchy_set_threads(h[c], d->sim_threads);
      pthread_mutex_lock(&d->lock);
      if (n > d->stats.sim_threads)
        d->stats.sim_threads = n;
      pthread_mutex_unlock(&d->lock);
    }
  }
  if (!ok) {
    pthread_mutex_lock(&d->lock);
    if (!d->err[0])
      snprintf(d->err, sizeof d->err, "cache: %.200s",
               err[0] ? err : "out of memory");
    pthread_mutex_unlock(&d->lock);
  }
  unsigned i;
  progress_slot ps = {d, atomic_fetch_add(&d->next_worker, 1)};
  bool progress =
      d->opt->progress && d->live_ops && d->live_acc && ps.w < d->jobs;
  while (ok && (i = atomic_fetch_add(&d->next, 1)) < d->n_inputs) {
    run_one(d, i, h, col, progress ? &ps : NULL);
    atomic_fetch_add(&d->done, 1);
    if (progress) {
      const cb_run_result *r = &d->out->runs[i];
      pthread_mutex_lock(&d->lock);
      d->ops_done += r->operations;
      if (r->n_caches && r->caches)
        d->acc_done += r->caches[0].levels[0].accesses;
      atomic_store(&d->live_ops[ps.w], 0);
      atomic_store(&d->live_acc[ps.w], 0);
      if (d->n_inputs > 1 || d->drawn)
        progress_draw(d);
      pthread_mutex_unlock(&d->lock);
    }
  }
  for (unsigned c = 0; h && col && c < d->n_caches; c++) {
    drv_collector_free(&col[c]);
    if (h[c])
      cb_hierarchy_destroy(h[c]);
  }
  free(h);
  free(col);
  return NULL;
}

int cb_analysis_run(const cb_program *p, const cb_analysis_input *inputs,
                    unsigned n_inputs, const cb_analysis_cache *caches,
                    unsigned n_caches, const cb_analysis_options *opt,
                    cb_results *out, char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  out->program = p;
  out->library_note = cb_library_build_note(p);
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
  /* glibc's memcpy/memset thresholds under valgrind on this machine:
   * measured once per machine (glibc_tunables.h) */
  cb_glibc_thresholds_load(&d.glibc, opt->cache_dir);
  atomic_init(&d.next, 0);
  atomic_init(&d.done, 0);
  pthread_mutex_init(&d.lock, NULL);

  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned jobs = opt->jobs ? opt->jobs : (cores > 0 ? (unsigned)cores : 1);
  /* Splitting blocks by set (--sim-threads) is off unless asked for: on
   * this project's 2-vCPU machines it ran 1.2 to 1.4 times faster in
   * most runs and no faster, at twice the CPU, in some
   * (bench/results/fast_notes.md). */
  d.sim_threads = opt->sim_threads;
  unsigned sim_cores = d.sim_threads > 1 ? d.sim_threads : 1;
  if (jobs > n_inputs) {
    /* Cores left per input: stream generation and simulation overlap,
     * if the simulation's threads keep a core each besides the engine's
     * (one core short, a split ran no faster than unsplit in 6 of 15
     * runs of cholesky and correlation, LARGE; without the pipeline, in
     * 1 of 9). */
    d.pipeline = opt->engine.mode == CB_ENGINE_FAST &&
                 jobs >= (1 + sim_cores) * n_inputs;
    /* The time split's second simulation thread shares the engine's
     * core: the engine is a fifth to a third of the simulation's CPU on
     * the long runs it is for (bench/results/fast_notes.md). */
    d.split = d.pipeline && opt->split && !opt->classify && sim_cores == 1;
    jobs = n_inputs ? n_inputs : 1;
  }
  double w0 = wall_s();
  d.t0 = w0;
  d.jobs = jobs;
  atomic_init(&d.next_worker, 0);
  if (opt->progress) {
    d.live_ops = calloc(jobs, sizeof *d.live_ops);
    d.live_acc = calloc(jobs, sizeof *d.live_acc);
  }
  pthread_t *threads = calloc(jobs, sizeof *threads);

  unsigned started = 0;
  for (unsigned t = 1; threads && t < jobs; t++)
    if (pthread_create(&threads[started], NULL, worker, &d) == 0)
      started++;
  worker(&d); /* this thread works too */
  for (unsigned t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
  free(threads);
  if (d.drawn) {
    progress_draw(&d); /* the totals */
    fputc('\n', stderr);
  }
  free(d.live_ops);
  free(d.live_acc);
  pthread_mutex_destroy(&d.lock);
  free(d.memo);
  if (opt->stats) {
    cb_analysis_stats *st = opt->stats;
    st->path_s = d.stats.path_s;
    st->stream_s = d.stats.stream_s;
    st->sim_s = d.stats.sim_s;
    st->ops = d.stats.ops;
    st->tpl_loops = d.stats.tpl_loops;
    st->tpl_iters = d.stats.tpl_iters;
    st->tpl_accesses = d.stats.tpl_accesses;
    st->tpl_native_iters = d.stats.tpl_native_iters;
    st->kernel_ops = d.stats.kernel_ops;
    st->kernel_engine_calls = d.stats.kernel_engine_calls;
    memcpy(st->kernel_left, d.stats.kernel_left, sizeof st->kernel_left);
    st->sim_blocks = d.stats.sim_blocks;
    st->sim_blocks_skipped = d.stats.sim_blocks_skipped;
    st->sim_blocks_split = d.stats.sim_blocks_split;
    st->sim_blocks_parts = d.stats.sim_blocks_parts;
    st->sim_parts_counted = d.stats.sim_parts_counted;
    st->sim_parts_run = d.stats.sim_parts_run;
    st->sim_segments_closed = d.stats.sim_segments_closed;
    st->sim_parts_closed = d.stats.sim_parts_closed;
    st->sim_records_skipped = d.stats.sim_records_skipped;
    st->sim_threads = d.stats.sim_threads;
    st->split_epochs = d.stats.split_epochs;
    st->split_handovers = d.stats.split_handovers;
    st->split_abandoned = d.stats.split_abandoned;
    st->split_idle_s = d.stats.split_idle_s;
    st->split_rerun = d.stats.split_rerun;
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

  drv_assign_path_classes(out);
  drv_derive_branches(p, out);
  for (unsigned i = 0; i < n_inputs; i++)
    if (!out->runs[i].ok)
      return 1;
  return 0;
}
