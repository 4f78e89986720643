/* The text report, for people: per input, the totals of every level in
 * the shape of cachegrind's summary, then the heaviest source lines (with
 * the line's text), variables, and library calls. */
#include "cbana/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *source_line(const cb_source *sf, uint32_t line) {
  const char *s = cb_source_line(sf, line);
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

static double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_levels(FILE *out, const cb_cache_result *c) {
  fprintf(out, "  %-6s %14s %12s %7s %12s %12s %12s\n", "level", "accesses",
          "misses", "miss%", "compulsory", "capacity", "conflict");
  for (unsigned l = 0; l < c->n_levels; l++) {
    const cb_level_counts *lc = &c->levels[l];
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 " %6.2f%%",
            c->level_names[l], lc->accesses, lc->misses,
            pct(lc->misses, lc->accesses));
    if (c->classified)
      fprintf(out, " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
              lc->compulsory, lc->capacity, lc->conflict);
    else
      fprintf(out, " %12s %12s %12s\n", "-", "-", "-");
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 "   (reads)\n", "",
            lc->reads, lc->read_misses);
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 "   (writes)\n", "",
            lc->writes, lc->write_misses);
  }
}

static void sum_view(const cb_program *p, const cb_cache_result *c,
                     cb_view view, cb_site_counts *sum) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, view, &rows);
  memset(sum, 0, CB_RESULT_LEVELS * sizeof *sum);
  for (size_t i = 0; i < n; i++)
    for (unsigned l = 0; l < c->n_levels && l < CB_RESULT_LEVELS; l++) {
      sum[l].accesses += rows[i].level[l].accesses;
      sum[l].misses += rows[i].level[l].misses;
    }
  free(rows);
}

static void print_account(FILE *out, const cb_cache_result *c, const char *what,
                          const cb_site_counts *k) {
  fprintf(out, "  %-26s %12" PRIu64, what, k[0].accesses);
  for (unsigned l = 0; l < c->n_levels; l++)
    fprintf(out, " %10" PRIu64, k[l].misses);
  fputc('\n', out);
}

/* Where the totals come from: the program's own code, its library calls
 * and the process's start-up and exit (ld.so and libc before main and
 * after it), which the views below leave out. */
static void print_accounts(FILE *out, const cb_program *p,
                           const cb_run_result *run, const cb_cache_result *c) {
  cb_site_counts own[CB_RESULT_LEVELS], lib[CB_RESULT_LEVELS],
      st[CB_RESULT_LEVELS], ex[CB_RESULT_LEVELS];
  bool has = cb_report_process(p, c, st, ex);
  if (!has && !run->process_note)
    return;
  sum_view(p, c, CB_VIEW_LINES, own);
  sum_view(p, c, CB_VIEW_CALLS, lib);
  fprintf(out, "\n  %-26s %12s", "of which", "accesses");
  for (unsigned l = 0; l < c->n_levels; l++)
    fprintf(out, " %10s", c->level_names[l]);
  fputc('\n', out);
  print_account(out, c, "own code", own);
  print_account(out, c, "library calls", lib);
  if (run->process_modelled) {
    print_account(out, c, "process start-up", st);
    print_account(out, c, "process exit", ex);
  } else {
    fprintf(out, "  process start-up and exit: not modelled (%s)\n",
            run->process_note ? run->process_note : "the run stopped");
  }
}

static void print_row_counts(FILE *out, const cb_cache_result *c,
                             const cb_row *row) {
  fprintf(out, "%12" PRIu64, row->level[0].accesses);
  for (unsigned l = 0; l < c->n_levels; l++)
    fprintf(out, " %10" PRIu64, row->level[l].misses);
}

static void print_row_header(FILE *out, const cb_cache_result *c,
                             const char *what) {
  fprintf(out, "  %12s", "accesses");
  for (unsigned l = 0; l < c->n_levels; l++)
    fprintf(out, " %10s", c->level_names[l]);
  fprintf(out, "  %s\n", what);
}

static void print_lines(FILE *out, const cb_program *p,
                        const cb_cache_result *c, const cb_source *src,
                        unsigned top) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, CB_VIEW_LINES, &rows);
  fprintf(out, "\n  heaviest lines (misses per level):\n");
  print_row_header(out, c, "file:line  function  source");
  for (size_t i = 0; i < n && i < top; i++) {
    const cb_row *row = &rows[i];
    fprintf(out, "  ");
    print_row_counts(out, c, row);
    const char *fn =
        row->func < p->n_src_funcs ? p->src_funcs[row->func].name : "?";
    const char *file = row->file < p->n_files ? p->files[row->file] : "?";
    const char *base = strrchr(file, '/');
    fprintf(out, "  %s:%u  %s  %s\n", base ? base + 1 : file, row->line, fn,
            row->file < p->n_files ? source_line(&src[row->file], row->line)
                                   : "");
  }
  free(rows);
}

/* Does a (of misses m, accesses x) come before b in a heaviest list? */
static bool heavier(const cb_site_counts *a, const cb_site_counts *b) {
  if (a->misses != b->misses)
    return a->misses > b->misses;
  return a->accesses > b->accesses;
}

/* Variables and heap blocks (by allocation site) in one list, heaviest
 * first: both are what the program's data is. */
static void print_variables(FILE *out, const cb_program *p,
                            const cb_cache_result *c, unsigned top) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, CB_VIEW_VARIABLES, &rows);
  cb_data_row *heap;
  size_t nh = cb_report_data(p, c, CB_DATA_ALLOC, &heap);
  if (n + nh == 0) {
    free(rows);
    free(heap);
    return;
  }
  fprintf(out, "\n  heaviest variables:\n");
  print_row_header(out, c, "variable  type");
  size_t i = 0, k = 0;
  for (unsigned shown = 0; shown < top && (i < n || k < nh); shown++) {
    fprintf(out, "  ");
    if (k < nh && (i == n || heavier(&heap[k].level[0], &rows[i].level[0]))) {
      cb_row r;
      memset(&r, 0, sizeof r);
      memcpy(r.level, heap[k].level, sizeof r.level);
      print_row_counts(out, c, &r);
      char name[256];
      cb_report_data_name(p, &heap[k++], name, sizeof name);
      fprintf(out, "  %s  heap\n", name);
      continue;
    }
    const cb_var *v = &p->vars[rows[i].var];
    print_row_counts(out, c, &rows[i++]);
    fprintf(out, "  %s", v->name ? v->name : "?");
    if (v->kind != CB_VAR_GLOBAL && v->src_func < p->n_src_funcs)
      fprintf(out, " (in %s)", p->src_funcs[v->src_func].name);
    if (v->type < p->n_types)
      fprintf(out, "  %s", p->types[v->type].name);
    fputc('\n', out);
  }
  free(rows);
  free(heap);
}

static void print_data(FILE *out, const cb_program *p, const cb_cache_result *c,
                       cb_data_kind kind, const char *title, unsigned top) {
  cb_data_row *rows;
  size_t n = cb_report_data(p, c, kind, &rows);
  if (n > 0) {
    fprintf(out, "\n  %s:\n", title);
    fprintf(out, "  %12s %10s %10s %10s %10s %12s  %s\n", "accesses",
            c->level_names[0], "compuls.", "capacity", "conflict", "lines",
            "name");
    for (size_t i = 0; i < n && i < top; i++) {
      const cb_site_counts *l0 = &rows[i].level[0];
      char name[256];
      cb_report_data_name(p, &rows[i], name, sizeof name);
      fprintf(out, "  %12" PRIu64 " %10" PRIu64, l0->accesses, l0->misses);
      if (c->classified)
        fprintf(out, " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64,
                l0->compulsory, l0->capacity, l0->conflict, rows[i].lines);
      else
        fprintf(out, " %10s %10s %10s %12s", "-", "-", "-", "-");
      fprintf(out, "  %s\n", name);
    }
  }
  free(rows);
}

static void print_findings(FILE *out, const cb_program *p,
                           const cb_cache_result *c) {
  cb_finding *f;
  size_t n = cb_report_findings(p, c, &f);
  size_t shown = 0;
  for (size_t i = 0; i < n; i++) {
    if (f[i].kind == CB_FINDING_HOT_LINE)
      continue;
    if (!shown++)
      fprintf(out, "\n  findings:\n");
    fprintf(out, "  - [%s] %s.\n", cb_finding_rule(&f[i]), f[i].message);
    if (f[i].advice[0])
      fprintf(out, "    advice (%s): %s\n", f[i].action, f[i].advice);
  }
  free(f);
}

static void print_calls(FILE *out, const cb_program *p,
                        const cb_cache_result *c, unsigned top) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, CB_VIEW_CALLS, &rows);
  if (n > 0) {
    fprintf(out, "\n  library traffic (not counted above):\n");
    print_row_header(out, c, "callee  called from");
    for (size_t i = 0; i < n && i < top; i++) {
      const char *file =
          rows[i].file < p->n_files ? p->files[rows[i].file] : "?";
      const char *base = strrchr(file, '/');
      fprintf(out, "  ");
      print_row_counts(out, c, &rows[i]);
      fprintf(out, "  %s  %s:%u\n", rows[i].callee ? rows[i].callee : "?",
              base ? base + 1 : file, rows[i].line);
    }
  }
  free(rows);
}

static void print_input(FILE *out, const cb_run_result *r) {
  fprintf(out, "input %u:", r->index);
  for (unsigned i = 0; i < r->n_args; i++)
    fprintf(out, " %s", r->args[i]);
  if (r->stdin_path)
    fprintf(out, " < %s", r->stdin_path);
  if (r->ok)
    fprintf(out, "  [path P%u, exit %d]\n", r->path_class, r->exit_code);
  else
    fprintf(out, "  [stopped]\n");
  /* the files it wrote: in cbana's memory only, never on disk */
  for (unsigned i = 0; i < r->n_files; i++) {
    const cb_file_out *f = &r->files[i];
    if (f->removed)
      fprintf(out, "  wrote %s: %llu bytes, then removed it (not on disk)\n",
              f->path, (unsigned long long)f->writes);
    else
      fprintf(out,
              "  wrote %s: %llu bytes written, %llu at the end (not on "
              "disk)\n",
              f->path, (unsigned long long)f->writes,
              (unsigned long long)f->bytes);
  }
}

int cb_report_text(FILE *out, const cb_results *r,
                   const cb_report_options *opt) {
  const cb_program *p = r->program;
  unsigned top = opt && opt->top ? opt->top : 10;
  cb_source *src = cb_sources_load(p);
  if (!src)
    return -1;
  if (r->library_note)
    fprintf(out, "note: %s\n\n", r->library_note);
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *run = &r->runs[i];
    if (i)
      fputc('\n', out);
    print_input(out, run);
    if (!run->ok)
      fprintf(out, "  error: %s:%u: %s\n",
              run->error_file ? run->error_file : "?", run->error_line,
              run->error_message ? run->error_message : "stopped");
    for (unsigned k = 0; k < run->n_caches; k++) {
      const cb_cache_result *c = &run->caches[k];
      fprintf(out, "cache %s%s\n", c->name,
              run->ok ? "" : " (up to where it stopped)");
      print_levels(out, c);
      print_accounts(out, p, run, c);
      print_lines(out, p, c, src, top);
      print_variables(out, p, c, top);
      if (c->classified) {
        print_data(out, p, c, CB_DATA_VARIABLE,
                   "data view: variables (lines: working set, distinct "
                   "lines touched)",
                   top);
        print_data(out, p, c, CB_DATA_TYPE, "data view: element types", top);
        print_data(out, p, c, CB_DATA_FIELD, "data view: struct fields", top);
        print_data(out, p, c, CB_DATA_ALLOC,
                   "data view: heap blocks by allocation site", top);
      }
      print_calls(out, p, c, top);
      print_findings(out, p, c);
    }
  }
  if (r->n_path_classes > 1) {
    fprintf(out, "\npath classes:\n");
    for (unsigned k = 1; k <= r->n_path_classes; k++) {
      fprintf(out, "  P%u: inputs", k);
      for (unsigned i = 0; i < r->n_runs; i++)
        if (r->runs[i].path_class == k)
          fprintf(out, " %u", r->runs[i].index);
      fputc('\n', out);
    }
  }
  cb_sources_free(p, src);
  return ferror(out) ? -1 : 0;
}
