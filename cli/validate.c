/* `cbana validate`: the analysis, checked against real runs.
 *
 * The program is built once as analysed (the frontend keeps the
 * executable, DWARF 4 so valgrind 3.19 reads it), analysed, and run under
 * `env -i valgrind --tool=cachegrind` with the same geometry for every
 * input, with the same argv[0] and working directory, so that the real
 * process has the addresses the analysis assumed (docs/process-model.md).
 * Like is compared with like: the accesses and misses cachegrind
 * attributes to the program's own source files (line 0 included) against
 * cbana's own loads and stores. Exit 1 when an input's own-code accesses
 * or L1D misses differ by more than the tolerance (default: 1% or 20,
 * whichever is larger), or when the program's standard output or exit
 * status differs from the real run's: the model claims the program's
 * exact stream and output, so either gap is a modelling error. The whole
 * process (own code, library calls, ld.so's and libc's start-up and exit)
 * is compared with cachegrind's summary line too, and reported. */
#include "cachegrind.h"
#include "commands.h"
#include "session.h"

#include "cbana/frontend.h"
#include "cbana/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void cb_cmd_validate_usage(void) {
  cb_analyze_args_usage(
      "validate", " [--tolerance PCT]",
      "Runs every input under cachegrind with the same cache and compares "
      "the\nprogram's own accesses and L1D misses, its output and its exit "
      "status;\nexits 1 when a gap exceeds --tolerance percent (default: 1% "
      "or 20,\nwhichever is larger) or the output or exit status "
      "differ.\n");
}

/* Cachegrind simulates LRU, write-allocate, one L1D and one LL. */
static bool cachegrind_can_express(const cb_cache_config *c, char *why,
                                   size_t n) {
  if (c->n_levels < 1 || c->n_levels > 2) {
    snprintf(why, n,
             "cachegrind has one L1D and one LL, this cache %u "
             "levels",
             c->n_levels);
    return false;
  }
  for (unsigned l = 0; l < c->n_levels; l++) {
    const cb_level_config *lc = &c->levels[l];
    if (lc->policy != CB_POLICY_LRU || !lc->write_allocate ||
        lc->assoc == CB_ASSOC_FULL) {
      snprintf(why, n,
               "level %s is not set-associative LRU with "
               "write-allocate, which is all cachegrind simulates",
               lc->name);
      return false;
    }
  }
  return true;
}

static cb_cg_cache cg_geometry(const cb_level_config *lc) {
  cb_cg_cache g = {lc->size, lc->assoc, lc->line};
  return g;
}

typedef struct own_totals {
  uint64_t accesses, l1_misses, ll_misses;
} own_totals;

/* A line of cbana's runtime functions (CB_RUNTIME_DIR): the executable's
 * copies are libgcc's, which cachegrind counts as no source file's. */
static bool runtime_row(const cb_program *p, const cb_row *r) {
  return r->file < p->n_files &&
         !strncmp(p->files[r->file], CB_RUNTIME_DIR, strlen(CB_RUNTIME_DIR));
}

static own_totals cbana_own(const cb_program *p, const cb_cache_result *c) {
  own_totals t = {0, 0, 0};
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, CB_VIEW_LINES, &rows);
  for (size_t i = 0; i < n; i++) {
    if (runtime_row(p, &rows[i]))
      continue;
    t.accesses += rows[i].level[0].accesses;
    t.l1_misses += rows[i].level[0].misses;
    if (c->n_levels > 1)
      t.ll_misses += rows[i].level[c->n_levels - 1].misses;
  }
  free(rows);
  return t;
}

static bool within(uint64_t got, uint64_t want, double tol_pct) {
  double gap = (double)got - (double)want;
  if (gap < 0)
    gap = -gap;
  if (tol_pct >= 0)
    return gap <= tol_pct / 100.0 * (double)want;
  double bound = 0.01 * (double)want;
  return gap <= (bound > 20 ? bound : 20);
}

static double pct_gap(uint64_t got, uint64_t want) {
  return want ? 100.0 * ((double)got - (double)want) / (double)want : 0.0;
}

/* Per line: cbana's lines and cachegrind's rows of the program's own
 * files side by side, a line either one counted, the lines with the most
 * misses first (then the largest gap in accesses), so that a line only
 * one of them counts shows too. */
typedef struct vline {
  uint32_t file, line;
  uint64_t acc, miss, cg_acc, cg_miss;
} vline;

static int vline_cmp(const void *a, const void *b) {
  const vline *x = a, *y = b;
  uint64_t mx = x->miss > x->cg_miss ? x->miss : x->cg_miss;
  uint64_t my = y->miss > y->cg_miss ? y->miss : y->cg_miss;
  if (mx != my)
    return mx > my ? -1 : 1;
  uint64_t gx = x->acc > x->cg_acc ? x->acc - x->cg_acc : x->cg_acc - x->acc;
  uint64_t gy = y->acc > y->cg_acc ? y->acc - y->cg_acc : y->cg_acc - y->acc;
  if (gx != gy)
    return gx > gy ? -1 : 1;
  uint64_t ax = x->acc > x->cg_acc ? x->acc : x->cg_acc;
  uint64_t ay = y->acc > y->cg_acc ? y->acc : y->cg_acc;
  if (ax != ay)
    return ax > ay ? -1 : 1;
  return x->file != y->file ? (x->file < y->file ? -1 : 1)
                            : (x->line < y->line ? -1 : x->line > y->line);
}

static vline *vline_at(vline **v, size_t *n, size_t *cap, uint32_t file,
                       uint32_t line) {
  for (size_t i = 0; i < *n; i++)
    if ((*v)[i].file == file && (*v)[i].line == line)
      return &(*v)[i];
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    vline *nv = realloc(*v, *cap * sizeof *nv);
    if (!nv)
      return NULL;
    *v = nv;
  }
  vline *r = &(*v)[(*n)++];
  memset(r, 0, sizeof *r);
  r->file = file;
  r->line = line;
  return r;
}

static void print_lines(const cb_program *p, const cb_cache_result *c,
                        const cb_cg_result *cg, unsigned top) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, CB_VIEW_LINES, &rows);
  vline *v = NULL;
  size_t nv = 0, cap = 0;
  for (size_t i = 0; i < n; i++) {
    if (runtime_row(p, &rows[i]) || rows[i].file >= p->n_files)
      continue;
    vline *r = vline_at(&v, &nv, &cap, rows[i].file, rows[i].line);
    if (!r)
      break;
    r->acc += rows[i].level[0].accesses;
    r->miss += rows[i].level[0].misses;
  }
  free(rows);
  for (size_t k = 0; k < cg->nrows; k++) {
    const cb_cg_row *row = &cg->rows[k];
    uint32_t f = 0;
    while (f < p->n_files &&
           !(cb_cg_path_matches(cg->files[row->file], p->files[f], NULL) &&
             strncmp(p->files[f], CB_RUNTIME_DIR, strlen(CB_RUNTIME_DIR))))
      f++;
    if (f == p->n_files)
      continue; /* not the program's own file */
    vline *r = vline_at(&v, &nv, &cap, f, row->line);
    if (!r)
      break;
    r->cg_acc += row->c.v[CB_CG_DR] + row->c.v[CB_CG_DW];
    r->cg_miss += row->c.v[CB_CG_D1MR] + row->c.v[CB_CG_D1MW];
  }
  if (nv)
    qsort(v, nv, sizeof *v, vline_cmp);
  printf("    %-28s %12s %12s %12s %12s\n", "line", "cbana acc", "cg acc",
         "cbana L1D", "cg L1D");
  for (size_t i = 0; i < nv && i < top; i++) {
    if (!v[i].acc && !v[i].cg_acc)
      continue;
    const char *src = p->files[v[i].file];
    const char *base = strrchr(src, '/');
    char where[64];
    snprintf(where, sizeof where, "%s:%u", base ? base + 1 : src, v[i].line);
    printf("    %-28s %12llu %12llu %12llu %12llu\n", where,
           (unsigned long long)v[i].acc, (unsigned long long)v[i].cg_acc,
           (unsigned long long)v[i].miss, (unsigned long long)v[i].cg_miss);
  }
  free(v);
}

/* perf's hardware L1D counters, where the machine has them. In virtual
 * machines perf answers "<not supported>" and still exits 0, so its
 * output is what tells. */
static void report_hardware_counters(void) {
  FILE *f = popen("perf stat -x, -e L1-dcache-load-misses true 2>&1", "r");
  char buf[512] = "";
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  int rc = f ? pclose(f) : -1;
  bool counted = rc == 0 && strstr(buf, "L1-dcache-load-misses") &&
                 !strstr(buf, "<not supported>") &&
                 !strstr(buf, "<not counted>");
  if (!counted)
    printf("hardware counters: not available on this machine (perf stat: "
           "%s); compared with cachegrind only\n",
           rc != 0 ? "missing or failed"
                   : "L1-dcache-load-misses not "
                     "supported");
  else
    printf("hardware counters: perf counts L1-dcache-load-misses here, for "
           "the whole process on this machine's own caches; not compared\n");
}

/* Prints the line of `t` (n bytes) that holds byte `at`, escaped, cut at
 * 60 bytes. */
static void print_line_at(const char *who, const char *t, size_t n, size_t at) {
  size_t from = at < n ? at : n;
  while (from > 0 && t[from - 1] != '\n')
    from--;
  printf("    %-6s '", who);
  for (size_t i = from; i < n && i < from + 60 && t[i] != '\n'; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c >= 32 && c < 127 && c != '\\' && c != '\'')
      putchar(c);
    else
      printf("\\x%02x", c);
  }
  printf("'\n");
}

/* The program's standard output under cachegrind (valgrind writes its
 * own messages elsewhere) against the one the analysis computed, byte for
 * byte; prints the first line where they differ. */
static bool same_output(const char *path, const char *ours, size_t n) {
  FILE *f = fopen(path, "rb");
  char *real = NULL;
  size_t rn = 0, cap = 0;
  if (f) {
    for (;;) {
      if (rn == cap) {
        cap = cap ? 2 * cap : 4096;
        char *g = realloc(real, cap);
        if (!g)
          break;
        real = g;
      }
      size_t got = fread(real + rn, 1, cap - rn, f);
      if (got == 0)
        break;
      rn += got;
    }
    fclose(f);
  }
  if (!f || !real) {
    printf("  output: the real run's is unreadable  DIFFERS\n");
    free(real);
    return false;
  }
  size_t at = 0;
  while (at < n && at < rn && ours[at] == real[at])
    at++;
  bool same = at == n && at == rn;
  if (same) {
    printf("  output: %zu bytes, identical to the real run's\n", n);
  } else {
    printf("  output: %zu bytes, the real run's %zu; they differ from byte "
           "%zu  DIFFERS\n",
           n, rn, at);
    print_line_at("cbana", ours, n, at);
    print_line_at("real", real, rn, at);
  }
  free(real);
  return same;
}

/* Valgrind runs x87 arithmetic in 64-bit precision (its manual, section
 * "Limitations": "x87 ... 64 bits"), so a program computing in long double
 * can print other digits under cachegrind than it does natively, where
 * the analysis' values are the native ones. */
static bool uses_x87(const cb_program *p) {
  for (uint32_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].ty == CB_TY_F80 || p->ops[i].ty2 == CB_TY_F80)
      return true;
  return false;
}

static int validate_inputs(cb_session *s, const cb_results *r, const char *exe,
                           const cb_cache_config *cfg) {
  const cb_analyze_args *a = s->args;
  int status = 0;
  char out_path[4096];
  snprintf(out_path, sizeof out_path, "%s.stdout", exe);
  cb_cg_request req;
  memset(&req, 0, sizeof req);
  req.program = exe;
  req.d1 = cg_geometry(&cfg->levels[0]);
  if (cfg->n_levels == 2)
    req.ll = cg_geometry(&cfg->levels[1]);
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *run = &r->runs[i];
    printf("\ninput %u:", run->index);
    for (unsigned k = 0; k < run->n_args; k++)
      printf(" %s", run->args[k]);
    printf("\n");
    if (!run->ok) {
      printf("  not compared: the analysis stopped (%s)\n",
             run->error_message ? run->error_message : "?");
      status = 1;
      continue;
    }
    const char **args = calloc(run->n_args + 1, sizeof *args);
    for (unsigned k = 0; args && k < run->n_args; k++)
      args[k] = run->args[k];
    req.args = args;
    req.stdin_path = run->stdin_path;
    req.stdout_path = out_path;
    cb_cg_result cg;
    char err[512];
    int rc = cb_cg_run(&req, &cg, err, sizeof err);
    free(args);
    if (rc != 0) {
      printf("  cachegrind failed: %s\n", err);
      cb_cg_result_free(&cg);
      status = 1;
      continue;
    }
    cb_cg_counts own;
    cb_cg_sum_files(&cg, (const char *const *)s->program->files,
                    s->program->n_files, NULL, &own);
    own_totals ours = cbana_own(s->program, &run->caches[0]);
    uint64_t cg_acc = own.v[CB_CG_DR] + own.v[CB_CG_DW];
    uint64_t cg_l1 = own.v[CB_CG_D1MR] + own.v[CB_CG_D1MW];
    uint64_t cg_ll = own.v[CB_CG_DLMR] + own.v[CB_CG_DLMW];
    bool ok = within(ours.l1_misses, cg_l1, a->tolerance);
    bool acc_ok = within(ours.accesses, cg_acc, a->tolerance);
    printf("  %-22s %14s %14s %9s\n", "own code", "cbana", "cachegrind", "gap");
    printf("  %-22s %14llu %14llu %+8.2f%%  %s\n", "accesses",
           (unsigned long long)ours.accesses, (unsigned long long)cg_acc,
           pct_gap(ours.accesses, cg_acc), acc_ok ? "ok" : "OUT OF TOLERANCE");
    printf("  %-22s %14llu %14llu %+8.2f%%  %s\n", "L1D misses",
           (unsigned long long)ours.l1_misses, (unsigned long long)cg_l1,
           pct_gap(ours.l1_misses, cg_l1), ok ? "ok" : "OUT OF TOLERANCE");
    if (cfg->n_levels == 2)
      printf("  %-22s %14llu %14llu %+8.2f%%\n", "LL misses",
             (unsigned long long)ours.ll_misses, (unsigned long long)cg_ll,
             pct_gap(ours.ll_misses, cg_ll));
    /* The whole process, as cachegrind's summary line counts it: own
     * code, library calls and the process's start-up and exit (reported;
     * the gate stays on own code, the library models being partial) */
    if (cg.has_summary) {
      const cb_level_counts *l1 = &run->caches[0].levels[0];
      uint64_t cg_wacc = cg.summary.v[CB_CG_DR] + cg.summary.v[CB_CG_DW];
      uint64_t cg_wl1 = cg.summary.v[CB_CG_D1MR] + cg.summary.v[CB_CG_D1MW];
      printf("  %-22s %14s %14s %9s\n",
             run->process_modelled ? "whole process" : "whole (no start-up)",
             "cbana", "cachegrind", "gap");
      printf("  %-22s %14llu %14llu %+8.2f%%\n", "accesses",
             (unsigned long long)l1->accesses, (unsigned long long)cg_wacc,
             pct_gap(l1->accesses, cg_wacc));
      printf("  %-22s %14llu %14llu %+8.2f%%  %s\n", "L1D misses",
             (unsigned long long)l1->misses, (unsigned long long)cg_wl1,
             pct_gap(l1->misses, cg_wl1),
             within(l1->misses, cg_wl1, a->tolerance) ? "within tolerance"
                                                      : "outside tolerance");
      if (cfg->n_levels == 2) {
        const cb_level_counts *ll = &run->caches[0].levels[1];
        uint64_t cg_wll = cg.summary.v[CB_CG_DLMR] + cg.summary.v[CB_CG_DLMW];
        printf("  %-22s %14llu %14llu %+8.2f%%\n", "LL misses",
               (unsigned long long)ll->misses, (unsigned long long)cg_wll,
               pct_gap(ll->misses, cg_wll));
      }
    }
    bool same_exit = cg.exited == run->exited &&
                     (!cg.exited || cg.exit_code == run->exit_code);
    if (!same_exit)
      printf("  exit status: cbana %s %d, real %s %d  DIFFERS\n",
             run->exited ? "exit" : "no exit", run->exit_code,
             cg.exited ? "exit" : "signal",
             cg.exited ? cg.exit_code : cg.term_signal);
    bool same_out = same_output(out_path, run->output, run->output_len);
    if (!same_out && uses_x87(s->program)) {
      printf("    (not counted: the program computes in long double, which "
             "valgrind runs in\n    64-bit precision, so its output under "
             "cachegrind is not the native one)\n");
      same_out = true;
    }
    print_lines(s->program, &run->caches[0], &cg, a->top);
    if (!ok || !acc_ok || !same_exit || !same_out)
      status = 1;
    cb_cg_result_free(&cg);
  }
  unlink(out_path);
  return status;
}

int cb_cmd_validate_run(int argc, char **argv) {
  cb_analyze_args a;
  if (!cb_analyze_args_parse(argc, argv, &a, "validate"))
    return 2;
  char dir[] = "/tmp/cbana-validate-XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cbana validate: cannot make a temporary directory\n");
    cb_analyze_args_free(&a);
    return 2;
  }
  char exe[sizeof dir + 8];
  snprintf(exe, sizeof exe, "%s/prog", dir);
  cb_session s;
  memset(&s, 0, sizeof s);
  s.args = &a;
  s.exe_out = exe;
  /* argv[0] of both runs is the kept executable's path. */
  if (!a.argv0)
    a.argv0 = exe;
  int rc = cb_session_open(&s, &a, "validate");
  if (rc == 0) {
    char why[256];
    const cb_cache_config *cfg = &s.caches[0].config;
    if (!cachegrind_can_express(cfg, why, sizeof why)) {
      fprintf(stderr, "cbana validate: cannot compare: %s\n", why);
      rc = 2;
    } else {
      cb_results r;
      rc = cb_session_analyze(&s, &r, "validate");
      if (rc != 2 && s.interrupted) {
        fprintf(stderr, "cbana validate: interrupted: nothing compared\n");
        cb_results_free(&r);
      } else if (rc != 2) {
        printf("validate: %s against cachegrind, cache %s\n", a.sources[0],
               s.caches[0].name);
        report_hardware_counters();
        rc = validate_inputs(&s, &r, exe, cfg);
        printf("\n%s\n", rc ? "validate: some input is out of tolerance, "
                              "or its output or exit status differs"
                            : "validate: every input within tolerance, "
                              "with the real run's output and exit status");
        cb_results_free(&r);
      }
    }
  }
  cb_session_close(&s);
  unlink(exe);
  rmdir(dir);
  cb_analyze_args_free(&a);
  return rc;
}
