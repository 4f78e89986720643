/* The shared body of analyze, validate and check: configuration errors,
 * unreadable inputs files and compile errors stop everything (exit 2); a
 * malformed inputs line only stops its own input. */
#include "session.h"
#include "cache_dir.h"

#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "cbana/report.h"

#include <ctype.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* --stats: one line naming the `most` largest of counts[0..n) (label,
 * then "name count" pairs, largest first); nothing when all are 0. */
static void print_top(const char *label, const uint64_t *counts, uint32_t n,
                      unsigned most,
                      const char *(*name)(const void *, uint32_t),
                      const void *ctx) {
  bool *shown = calloc(n + 1, sizeof *shown);
  unsigned k = 0;
  for (; shown && k < most; k++) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
      if (!shown[i] && counts[i] &&
          (best == UINT32_MAX || counts[i] > counts[best]))
        best = i;
    if (best == UINT32_MAX)
      break;
    shown[best] = true;
    fprintf(stderr, "%s%s %llu", k ? ", " : label, name(ctx, best),
            (unsigned long long)counts[best]);
  }
  if (k)
    fputc('\n', stderr);
  free(shown);
}

static const char *opcode_name(const void *ctx, uint32_t i) {
  (void)ctx;
  return cb_opcode_name((cb_opcode)i);
}

static const char *function_name(const void *ctx, uint32_t i) {
  return ((const cb_program *)ctx)->functions[i].name;
}

/* --stats: the ops the native kernels left to the interpreter most often
 * (the engine counts them per opcode), and the functions whose blocks the
 * interpreter ran most outside the kernels (program.h's kernel_interp). */
static void print_kernel_fallbacks(const cb_analysis_stats *st,
                                   const cb_program *p) {
  print_top("  kernels left before: ", st->kernel_left, CB_OP_COUNT, 8,
            opcode_name, NULL);
  if (p->kernel_interp)
    print_top("  interpreted outside kernels (ops, by function): ",
              p->kernel_interp, p->n_functions, 6, function_name, p);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of this process or of the children waited for (clang). */
static double cpu_s(int who) {
  struct rusage ru;
  getrusage(who, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static bool add_flag(cb_cache_flags *f, const char *name, const char *value,
                     const char *command) {
  if (!value)
    return true;
  char arg[256], err[CB_ERR_MAX];
  snprintf(arg, sizeof arg, "--%s=%s", name, value);
  if (cb_cache_flag_parse(f, arg, err, sizeof err) == 1)
    return true;
  fprintf(stderr, "cbana %s: %s\n", command, err);
  return false;
}

static int open_caches(cb_session *s, const char *command) {
  const cb_analyze_args *a = s->args;
  cb_cache_flags flags;
  memset(&flags, 0, sizeof flags);
  if (!add_flag(&flags, "D1", a->flag_d1, command) ||
      !add_flag(&flags, "L2", a->flag_l2, command) ||
      !add_flag(&flags, "LL", a->flag_ll, command))
    return 2;
  bool any_flag = a->flag_d1 || a->flag_l2 || a->flag_ll;
  unsigned n = a->n_caches ? a->n_caches : 1;
  for (unsigned i = 0; i < n; i++) {
    const char *arg = a->n_caches ? a->caches[i] : NULL;
    char err[CB_ERR_MAX];
    if (!cb_cache_config_resolve(arg, &flags, &s->caches[i].config, err,
                                 sizeof err)) {
      fprintf(stderr, "cbana %s: %s\n", command, err);
      return 2;
    }
    s->caches[i].name = arg ? arg : any_flag ? "flags" : "cachegrind";
  }
  s->n_caches = n;
  return 0;
}

/* The line number in "FILE:LINE: message", where FILE is known. */
static unsigned error_line(const char *msg, const char *file) {
  size_t n = strlen(file);
  unsigned line = 0;
  if (strncmp(msg, file, n) == 0 && msg[n] == ':')
    line = (unsigned)strtoul(msg + n + 1, NULL, 10);
  return line;
}

static int cmp_input_line(const void *x, const void *y) {
  const cb_analysis_input *a = x, *b = y;
  return a->line < b->line ? -1 : a->line > b->line;
}

static int open_inputs(cb_session *s, const char *command) {
  const cb_analyze_args *a = s->args;
  if (a->inputs_file) {
    if (access(a->inputs_file, R_OK) != 0) {
      fprintf(stderr, "cbana %s: %s: cannot read the inputs file\n", command,
              a->inputs_file);
      return 2;
    }
    cb_inputs_parse_file(a->inputs_file, &s->parsed);
    size_t n = s->parsed.n + s->parsed.n_errors;
    s->inputs = calloc(n ? n : 1, sizeof *s->inputs);
    if (!s->inputs)
      return 2;
    for (size_t i = 0; i < s->parsed.n; i++) {
      cb_input_set *set = &s->parsed.sets[i];
      cb_analysis_input *in = &s->inputs[s->n_inputs++];
      in->args = set->args;
      in->n_args = (unsigned)set->argc;
      in->stdin_path = set->stdin_path;
      in->line = set->line;
      in->error_file = a->inputs_file;
    }
    for (size_t i = 0; i < s->parsed.n_errors; i++) {
      const char *msg = s->parsed.errors[i];
      cb_analysis_input *in = &s->inputs[s->n_inputs++];
      in->error = msg;
      in->error_file = a->inputs_file;
      in->line = error_line(msg, a->inputs_file);
    }
    qsort(s->inputs, s->n_inputs, sizeof *s->inputs, cmp_input_line);
    s->total_inputs = s->n_inputs;
    s->index = calloc(s->n_inputs ? s->n_inputs : 1, sizeof *s->index);
    if (!s->index)
      return 2;
    /* --shard K/N keeps the inputs of index K, K + N, K + 2N...: a slice
     * that depends only on the file, whichever machine runs it. */
    unsigned kept = 0;
    for (unsigned i = 0; i < s->n_inputs; i++)
      if (!a->shards || i % a->shards == a->shard - 1) {
        s->index[kept] = i + 1;
        s->inputs[kept++] = s->inputs[i];
      }
    s->n_inputs = kept;
    for (unsigned i = 0; i < s->n_inputs; i++)
      if (s->inputs[i].error)
        fprintf(stderr, "cbana %s: %s\n", command, s->inputs[i].error);
    return 0;
  }
  s->inputs = calloc(1, sizeof *s->inputs);
  if (!s->inputs)
    return 2;
  s->n_inputs = 1;
  if (a->inline_args) {
    char err[256];
    int n = cb_inputs_split(a->inline_args, &s->inline_words, &s->inline_stdin,
                            err, sizeof err);
    if (n < 0) {
      fprintf(stderr, "cbana %s: --args: %s\n", command, err);
      return 2;
    }
    s->n_inline_words = n;
    s->inputs[0].args = s->inline_words;
    s->inputs[0].n_args = (unsigned)n;
    s->inputs[0].stdin_path = s->inline_stdin;
  }
  return 0;
}

/* "./NAME" for NAME.c, the first source: how a user starts the program. */
static char *default_argv0(const char *source) {
  const char *base = strrchr(source, '/');
  base = base ? base + 1 : source;
  size_t n = strlen(base);
  if (n > 2 && strcmp(base + n - 2, ".c") == 0)
    n -= 2;
  char *s = malloc(n + 3);
  if (s)
    snprintf(s, n + 3, "./%.*s", (int)n, base);
  return s;
}

int cb_session_open(cb_session *s, const cb_analyze_args *a,
                    const char *command) {
  int rc;
  if ((rc = open_caches(s, command)) || (rc = open_inputs(s, command)))
    return rc;
  s->argv0 = a->argv0 ? strdup(a->argv0) : default_argv0(a->sources[0]);
  cb_frontend_options fo;
  memset(&fo, 0, sizeof fo);
  fo.sources = (const char *const *)a->sources;
  fo.n_sources = a->n_sources;
  fo.cflags = a->cflags;
  fo.compdb_dir = a->compdb_dir;
  /* validate keeps the executable (it runs it under cachegrind), and
   * its Program reads it (layout, GOT); analyze keeps none, so nothing
   * can execute the program. */
  fo.exe_out = s->exe_out;
  fo.object_bases = cb_engine_object_bases;
  /* the reference interpreter runs no kernels */
  fo.no_kernels = s->args->no_kernels || s->args->exact_engine;
  fo.eager_kernels = s->args->wait_kernels;
  fo.cache_dir = cb_cli_cache_dir();
  fo.no_reuse = s->args->no_reuse;
  size_t err_size = 1 << 16;
  char *err = malloc(err_size);
  if (!err)
    return 2;
  err[0] = '\0';
  double t0 = now_s(), c0 = cpu_s(RUSAGE_CHILDREN), l0 = cpu_s(RUSAGE_SELF);
  cb_fe_status fst = cb_frontend_load(&fo, &s->program, err, err_size);
  s->stats.compile_s = cpu_s(RUSAGE_CHILDREN) - c0;
  s->stats.lowering_s = cpu_s(RUSAGE_SELF) - l0;
  s->stats.frontend_wall_s = now_s() - t0;
  s->stats.units = (uint32_t)a->n_sources;
  s->stats.units_reused = s->program ? s->program->units_reused : 0;
  if (fst != CB_FE_OK) {
    fprintf(stderr, "%s%s", err,
            err[0] && err[strlen(err) - 1] != '\n' ? "\n" : "");
    fprintf(stderr, "cbana %s: the program could not be loaded\n", command);
    free(err);
    return 2;
  }
  free(err);
  const cb_program *p = s->program;
  if (p->n_unmodelled) {
    /* the program links, so each is a real library function: an input
     * that calls one stops there (cb_eng's message names it) */
    fprintf(stderr,
            "cbana %s: warning: the program references C library "
            "function%s that cbana does not model (an input that calls one "
            "stops there):",
            command, p->n_unmodelled > 1 ? "s" : "");
    for (uint32_t i = 0; i < p->n_unmodelled; i++)
      fprintf(stderr, "%s %s", i ? "," : "", p->unmodelled[i]);
    fputc('\n', stderr);
  }
  if (p->n_unpaired) {
    /* counted as the Program splits them: cachegrind may count otherwise */
    fprintf(stderr,
            "cbana %s: warning: the machine code's loads and stores of "
            "%u source line%s could not be paired with the program's; "
            "their accesses are counted as the IR has them and may differ "
            "from the real run's:",
            command, p->n_unpaired, p->n_unpaired > 1 ? "s" : "");
    for (uint32_t i = 0; i < p->n_unpaired && i < 20; i++)
      fprintf(stderr, " %s", p->unpaired[i]);
    if (p->n_unpaired > 20)
      fprintf(stderr, " (and %u more)", p->n_unpaired - 20);
    fputc('\n', stderr);
  }
  return 0;
}

/* The signal that interrupted the analysis (engine.h: interrupt), 0
 * while none did: set by the handler, read by the engine's workers. */
static atomic_int interrupted;

static void on_interrupt(int sig) {
  atomic_store(&interrupted, sig);
}

/* While the inputs run, SIGINT (Ctrl-C) stops them, and the report is
 * still written; the handler is reset by its first call, so a second
 * Ctrl-C kills at once. A SIGINT ignored when cbana started (a
 * background job of a shell) stays ignored. Returns whether it was set;
 * *old is what to put back. */
static bool catch_interrupt(struct sigaction *old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  atomic_store(&interrupted, 0);
  return sigaction(SIGINT, NULL, old) == 0 && old->sa_handler != SIG_IGN &&
         sigaction(SIGINT, &sa, NULL) == 0;
}

int cb_session_analyze(cb_session *s, cb_results *r, const char *command) {
  const cb_analyze_args *a = s->args;
  cb_analysis_options opt;
  memset(&opt, 0, sizeof opt);
  cb_engine_options_default(&opt.engine);
  if (a->budget)
    opt.engine.budget = a->budget;
  if (a->stack_top)
    opt.engine.stack_top = a->stack_top;
  opt.engine.timeout_s = a->timeout;
  opt.engine.interrupt = &interrupted;
  opt.classify = !a->no_classify;
  opt.exact_mrc = a->exact_mrc;
  opt.jobs = a->jobs;
  opt.sim_threads = a->sim_threads;
  opt.split = !a->no_split;
  opt.split_epoch = a->split_epoch;
  opt.argv0 = s->argv0;
  opt.progress = !a->quiet && isatty(STDERR_FILENO);
  opt.engine.mode = a->exact_engine ? CB_ENGINE_EXACT : CB_ENGINE_FAST;
  opt.memoize = !a->exact_engine && !a->no_memo;
  opt.no_process = a->no_process;
  opt.cache_dir = cb_cli_cache_dir();
  opt.stats = &s->stats;
  char err[256];
  struct sigaction old_int;
  bool caught = catch_interrupt(&old_int);
  int rc = cb_analysis_run(s->program, s->inputs, s->n_inputs, s->caches,
                           s->n_caches, &opt, r, err, sizeof err);
  if (caught)
    sigaction(SIGINT, &old_int, NULL);
  s->interrupted = atomic_load(&interrupted);
  if (rc < 0) {
    fprintf(stderr, "cbana %s: %s\n", command, err);
    return 2;
  }
  /* A run's index is its input's place in the whole inputs file, also
   * in a shard. */
  for (unsigned i = 0; s->index && i < r->n_runs && i < s->n_inputs; i++)
    r->runs[i].index = s->index[i];
  if (a->stats) {
    cb_program_wait_kernels(s->program);
    s->stats.kernels = s->program->n_kernels;
    s->stats.kernel_compile_s = s->program->kernel_compile_s;
    s->stats.kernel_ops_compiled = s->program->kernel_ops_compiled;
    s->stats.kernel_ops_whole = s->program->kernel_ops_whole;
    s->stats.kernel_recompiles = s->program->kernel_recompiles;
    s->stats.kernel_tier_ups = s->program->kernel_tier_ups;
    cb_analysis_stats_print(stderr, &s->stats);
    print_kernel_fallbacks(&s->stats, s->program);
  }
  if (r->library_note && !a->quiet)
    fprintf(stderr, "cbana %s: note: %s\n", command, r->library_note);
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *run = &r->runs[i];
    if (run->ok || s->inputs[i].error)
      continue; /* malformed inputs lines were reported while parsing */
    char where[512] = "";
    if (run->error_file)
      snprintf(where, sizeof where, "%s:%u: ", run->error_file,
               run->error_line);
    fprintf(stderr, "cbana %s: input %u stopped: %s%s\n", command, run->index,
            where, run->error_message ? run->error_message : "");
  }
  return rc ? 3 : 0;
}

/* A cache configuration's name as part of a file name: its base name,
 * without characters a shell would want quoted. */
static void cache_suffix(const char *name, char *buf, size_t n) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t k = 0;
  for (; *base && k + 1 < n; base++)
    buf[k++] =
        (isalnum((unsigned char)*base) || strchr("._-+", *base)) ? *base : '_';
  buf[k] = 0;
}

/* cachegrind's format holds one input and one cache: one file each, -o
 * FILE itself when there is only one, else FILE.INDEX (the input's index
 * in the inputs file) and, with several caches, FILE.INDEX.CACHE. */
static int report_cachegrind(const cb_session *s, const cb_results *r,
                             const char *command) {
  const cb_analyze_args *a = s->args;
  unsigned n_caches = r->n_runs ? r->runs[0].n_caches : 0;
  bool one = r->n_runs == 1 && n_caches == 1;
  if (!one && !a->output) {
    fprintf(stderr,
            "cbana %s: --format cachegrind writes a file per input and "
            "cache: give -o FILE (FILE.INDEX[.CACHE] are written)\n",
            command);
    return 2;
  }
  for (unsigned i = 0; i < r->n_runs; i++)
    for (unsigned k = 0; k < r->runs[i].n_caches; k++) {
      char path[4096], suffix[256] = "";
      if (n_caches > 1) {
        suffix[0] = '.';
        cache_suffix(r->runs[i].caches[k].name, suffix + 1, sizeof suffix - 1);
      }
      if (one)
        snprintf(path, sizeof path, "%s", a->output ? a->output : "-");
      else
        snprintf(path, sizeof path, "%s.%u%s", a->output, r->runs[i].index,
                 suffix);
      FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
      if (!out) {
        fprintf(stderr, "cbana %s: %s: cannot write the report\n", command,
                path);
        return 2;
      }
      cb_report_options ro = {a->top, 0,        NULL, r->runs[i].index,
                              k + 1,  s->argv0, NULL};
      int rc = cb_report_write(out, r, &ro, "cachegrind");
      if (out != stdout && fclose(out) != 0)
        rc = -1;
      if (rc) {
        fprintf(stderr, "cbana %s: %s: writing the report failed\n", command,
                path);
        return 2;
      }
    }
  return 0;
}

int cb_session_report(const cb_session *s, const cb_results *r,
                      const char *command) {
  const cb_analyze_args *a = s->args;
  if (strcmp(a->format, "cachegrind") == 0)
    return report_cachegrind(s, r, command);
  FILE *out = stdout;
  if (a->output && !(out = fopen(a->output, "w"))) {
    fprintf(stderr, "cbana %s: %s: cannot write the report\n", command,
            a->output);
    return 2;
  }
  cb_report_batch batch = {(const char *const *)a->sources,
                           a->n_sources,
                           a->compdb_dir ? NULL : a->cflags,
                           a->compdb_dir,
                           s->argv0,
                           a->inputs_file,
                           s->total_inputs,
                           a->shard,
                           a->shards};
  cb_report_options ro = {a->top, 0, NULL, 0, 0, s->argv0, &batch};
  int rc = cb_report_write(out, r, &ro, a->format);
  if (out != stdout && fclose(out) != 0)
    rc = -1;
  if (rc) {
    fprintf(stderr, "cbana %s: writing the report failed\n", command);
    return 2;
  }
  return 0;
}

void cb_session_close(cb_session *s) {
  if (s->program)
    cb_program_free(s->program);
  cb_inputs_free(&s->parsed);
  for (int i = 0; i < s->n_inline_words; i++)
    free(s->inline_words[i]);
  free(s->inline_words);
  free(s->inline_stdin);
  free(s->inputs);
  free(s->index);
  free(s->argv0);
  memset(s, 0, sizeof *s);
}
