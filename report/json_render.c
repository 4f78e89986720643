/* A JSON report read back (docs/report-json.md), rendered as the text
 * report and SARIF: the same text, line for line, as report/text.c and
 * report/sarif.c write from the results, since the JSON holds the views
 * they print (rows already aggregated and sorted, findings with their
 * sentences). The one thing the JSON does not say is whether the Program
 * had start-up and exit sites when a run stopped before them; it is taken
 * from the other runs of the report. The HTML page is report/json_html.c. */
#include "json_render.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

json_object *cb_jr_get(json_object *o, const char *key) {
  json_object *v = NULL;
  return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *cb_jr_str(json_object *o, const char *key) {
  json_object *v = cb_jr_get(o, key);
  return v && json_object_is_type(v, json_type_string)
             ? json_object_get_string(v)
             : NULL;
}

uint64_t cb_jr_u64(json_object *o, const char *key) {
  json_object *v = cb_jr_get(o, key);
  return v ? json_object_get_uint64(v) : 0;
}

size_t cb_jr_len(json_object *arr) {
  return arr && json_object_is_type(arr, json_type_array)
             ? json_object_array_length(arr)
             : 0;
}

json_object *cb_jr_at(json_object *arr, size_t i) {
  return json_object_array_get_idx(arr, i);
}

unsigned cb_jr_levels(json_object *cache, const char **names, unsigned max) {
  unsigned n = 0;
  json_object *levels = cb_jr_get(cache, "levels");
  if (!levels || !json_object_is_type(levels, json_type_object))
    return 0;
  json_object_object_foreach(levels, key, val) {
    (void)val;
    if (n < max)
      names[n++] = key;
  }
  return n;
}

uint64_t cb_jr_row_misses(json_object *row, const char *level) {
  return cb_jr_u64(cb_jr_get(row, "misses"), level);
}

const char *cb_jr_base(const char *path) {
  if (!path)
    return "?";
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Source files by path, read once each. */
typedef struct src_cache {
  char **paths;
  cb_source *files;
  size_t n;
} src_cache;

static const char *src_line(src_cache *sc, const char *path, uint32_t line) {
  if (!path)
    return "";
  size_t i = 0;
  while (i < sc->n && strcmp(sc->paths[i], path) != 0)
    i++;
  if (i == sc->n) {
    char **p = realloc(sc->paths, (sc->n + 1) * sizeof *p);
    cb_source *f = realloc(sc->files, (sc->n + 1) * sizeof *f);
    if (p)
      sc->paths = p;
    if (f)
      sc->files = f;
    if (!p || !f)
      return "";
    sc->paths[sc->n] = strdup(path);
    cb_source_load_file(&sc->files[sc->n], path);
    sc->n++;
  }
  const char *s = cb_source_line(&sc->files[i], line);
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

static void src_free(src_cache *sc) {
  for (size_t i = 0; i < sc->n; i++) {
    free(sc->paths[i]);
    free(sc->files[i].lines);
    free(sc->files[i].text);
  }
  free(sc->paths);
  free(sc->files);
}

static double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_levels(FILE *out, json_object *c, const char **ln,
                         unsigned nl) {
  fprintf(out, "  %-6s %14s %12s %7s %12s %12s %12s\n", "level", "accesses",
          "misses", "miss%", "compulsory", "capacity", "conflict");
  for (unsigned l = 0; l < nl; l++) {
    json_object *lc = cb_jr_get(cb_jr_get(c, "levels"), ln[l]);
    uint64_t acc = cb_jr_u64(lc, "accesses"), mis = cb_jr_u64(lc, "misses");
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 " %6.2f%%", ln[l], acc, mis,
            pct(mis, acc));
    if (cb_jr_get(lc, "compulsory"))
      fprintf(out, " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
              cb_jr_u64(lc, "compulsory"), cb_jr_u64(lc, "capacity"),
              cb_jr_u64(lc, "conflict"));
    else
      fprintf(out, " %12s %12s %12s\n", "-", "-", "-");
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 "   (reads)\n", "",
            cb_jr_u64(lc, "reads"), cb_jr_u64(lc, "read_misses"));
    fprintf(out, "  %-6s %14" PRIu64 " %12" PRIu64 "   (writes)\n", "",
            cb_jr_u64(lc, "writes"), cb_jr_u64(lc, "write_misses"));
  }
}

/* accesses, then misses per level, of one row (or sum of rows) */
static void print_counts(FILE *out, json_object *row, const char **ln,
                         unsigned nl) {
  fprintf(out, "%12" PRIu64, cb_jr_u64(row, "accesses"));
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, " %10" PRIu64, cb_jr_row_misses(row, ln[l]));
}

static void print_header(FILE *out, const char **ln, unsigned nl,
                         const char *what) {
  fprintf(out, "  %12s", "accesses");
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, " %10s", ln[l]);
  fprintf(out, "  %s\n", what);
}

static void print_account(FILE *out, const char *what, uint64_t acc,
                          const uint64_t *mis, unsigned nl) {
  fprintf(out, "  %-26s %12" PRIu64, what, acc);
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, " %10" PRIu64, mis[l]);
  fputc('\n', out);
}

static void sum_rows(json_object *rows, const char **ln, unsigned nl,
                     uint64_t *acc, uint64_t *mis) {
  *acc = 0;
  memset(mis, 0, CB_RESULT_LEVELS * sizeof *mis);
  for (size_t i = 0; i < cb_jr_len(rows); i++) {
    *acc += cb_jr_u64(cb_jr_at(rows, i), "accesses");
    for (unsigned l = 0; l < nl; l++)
      mis[l] += cb_jr_row_misses(cb_jr_at(rows, i), ln[l]);
  }
}

static void print_part(FILE *out, const char *what, json_object *part,
                       const char **ln, unsigned nl) {
  uint64_t mis[CB_RESULT_LEVELS];
  for (unsigned l = 0; l < nl; l++)
    mis[l] = cb_jr_row_misses(part, ln[l]);
  print_account(out, what, cb_jr_u64(part, "accesses"), mis, nl);
}

static void print_accounts(FILE *out, json_object *run, json_object *c,
                           const char **ln, unsigned nl, bool has_process) {
  json_object *proc = cb_jr_get(c, "process");
  const char *note = cb_jr_str(run, "process_note");
  if (!proc && !has_process && !note)
    return;
  uint64_t acc, mis[CB_RESULT_LEVELS];
  fprintf(out, "\n  %-26s %12s", "of which", "accesses");
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, " %10s", ln[l]);
  fputc('\n', out);
  sum_rows(cb_jr_get(c, "lines"), ln, nl, &acc, mis);
  print_account(out, "own code", acc, mis, nl);
  sum_rows(cb_jr_get(c, "calls"), ln, nl, &acc, mis);
  print_account(out, "library calls", acc, mis, nl);
  if (proc) {
    print_part(out, "process start-up", cb_jr_get(proc, "startup"), ln, nl);
    print_part(out, "process exit", cb_jr_get(proc, "exit"), ln, nl);
  } else {
    fprintf(out, "  process start-up and exit: not modelled (%s)\n",
            note ? note : "the run stopped");
  }
}

static void print_lines(FILE *out, json_object *c, const char **ln, unsigned nl,
                        src_cache *sc, unsigned top) {
  json_object *rows = cb_jr_get(c, "lines");
  fprintf(out, "\n  heaviest lines (misses per level):\n");
  print_header(out, ln, nl, "file:line  function  source");
  for (size_t i = 0; i < cb_jr_len(rows) && i < top; i++) {
    json_object *row = cb_jr_at(rows, i);
    const char *fn = cb_jr_str(row, "function"), *file = cb_jr_str(row, "file");
    uint32_t line = (uint32_t)cb_jr_u64(row, "line");
    fprintf(out, "  ");
    print_counts(out, row, ln, nl);
    fprintf(out, "  %s:%u  %s  %s\n", cb_jr_base(file), line, fn ? fn : "?",
            src_line(sc, file, line));
  }
}

/* Misses then accesses at the first level: text.c's heavier(). */
static bool heavier(json_object *a, json_object *b, const char *l0) {
  uint64_t ma = cb_jr_row_misses(a, l0), mb = cb_jr_row_misses(b, l0);
  if (ma != mb)
    return ma > mb;
  return cb_jr_u64(a, "accesses") > cb_jr_u64(b, "accesses");
}

/* "malloc@list.c:12 (3 blocks, 48 bytes)", as cb_report_data_name. */
void cb_jr_heap_name(json_object *row, char *buf, size_t n) {
  uint64_t blocks = cb_jr_u64(row, "blocks");
  const char *name = cb_jr_str(row, "name");
  snprintf(buf, n, "%s (%" PRIu64 " block%s, %" PRIu64 " bytes)",
           name ? name : "?", blocks, blocks == 1 ? "" : "s",
           cb_jr_u64(row, "bytes"));
}

static void print_variables(FILE *out, json_object *c, const char **ln,
                            unsigned nl, unsigned top) {
  json_object *all = cb_jr_get(c, "variables");
  size_t total = cb_jr_len(all);
  json_object **vars = calloc(total + 1, sizeof *vars);
  json_object **heap = calloc(total + 1, sizeof *heap);
  size_t n = 0, nh = 0;
  for (size_t i = 0; vars && heap && i < total; i++) {
    json_object *v = cb_jr_at(all, i);
    const char *kind = cb_jr_str(v, "kind");
    if (kind && strcmp(kind, "heap") == 0)
      heap[nh++] = v;
    else
      vars[n++] = v;
  }
  if (n + nh > 0) {
    fprintf(out, "\n  heaviest variables:\n");
    print_header(out, ln, nl, "variable  type");
    size_t i = 0, k = 0;
    for (unsigned shown = 0; shown < top && (i < n || k < nh); shown++) {
      fprintf(out, "  ");
      if (k < nh && (i == n || heavier(heap[k], vars[i], ln[0]))) {
        char name[320];
        print_counts(out, heap[k], ln, nl);
        cb_jr_heap_name(heap[k++], name, sizeof name);
        fprintf(out, "  %s  heap\n", name);
        continue;
      }
      json_object *v = vars[i++];
      const char *name = cb_jr_str(v, "name"), *kind = cb_jr_str(v, "kind"),
                 *fn = cb_jr_str(v, "function"), *type = cb_jr_str(v, "type");
      print_counts(out, v, ln, nl);
      fprintf(out, "  %s", name ? name : "?");
      if (kind && strcmp(kind, "global") != 0 && fn)
        fprintf(out, " (in %s)", fn);
      if (type)
        fprintf(out, "  %s", type);
      fputc('\n', out);
    }
  }
  free(vars);
  free(heap);
}

static void print_data(FILE *out, json_object *rows, const char *l0,
                       const char *title, unsigned top) {
  if (!cb_jr_len(rows))
    return;
  fprintf(out, "\n  %s:\n", title);
  fprintf(out, "  %12s %10s %10s %10s %10s %12s  %s\n", "accesses", l0,
          "compuls.", "capacity", "conflict", "lines", "name");
  for (size_t i = 0; i < cb_jr_len(rows) && i < top; i++) {
    json_object *row = cb_jr_at(rows, i);
    json_object *k = cb_jr_get(cb_jr_get(row, "classes"), l0);
    const char *name = cb_jr_str(row, "name") ? cb_jr_str(row, "name") : "?";
    fprintf(out, "  %12" PRIu64 " %10" PRIu64, cb_jr_u64(row, "accesses"),
            cb_jr_row_misses(row, l0));
    if (k)
      fprintf(out, " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64,
              cb_jr_u64(k, "compulsory"), cb_jr_u64(k, "capacity"),
              cb_jr_u64(k, "conflict"), cb_jr_u64(row, "working_set_lines"));
    else
      fprintf(out, " %10s %10s %10s %12s", "-", "-", "-", "-");
    fprintf(out, "  %s\n", name);
  }
}

static void print_calls(FILE *out, json_object *c, const char **ln, unsigned nl,
                        unsigned top) {
  json_object *rows = cb_jr_get(c, "calls");
  if (!cb_jr_len(rows))
    return;
  fprintf(out, "\n  library traffic (not counted above):\n");
  print_header(out, ln, nl, "callee  called from");
  for (size_t i = 0; i < cb_jr_len(rows) && i < top; i++) {
    json_object *row = cb_jr_at(rows, i);
    const char *callee = cb_jr_str(row, "callee");
    fprintf(out, "  ");
    print_counts(out, row, ln, nl);
    fprintf(out, "  %s  %s:%u\n", callee ? callee : "?",
            cb_jr_base(cb_jr_str(row, "file")),
            (unsigned)cb_jr_u64(row, "line"));
  }
}

static void print_findings(FILE *out, json_object *c) {
  json_object *f = cb_jr_get(c, "findings");
  size_t shown = 0;
  for (size_t i = 0; i < cb_jr_len(f); i++) {
    json_object *x = cb_jr_at(f, i);
    const char *rule = cb_jr_str(x, "rule");
    if (rule && strcmp(rule, "hot-line") == 0)
      continue;
    if (!shown++)
      fprintf(out, "\n  findings:\n");
    fprintf(out, "  - [%s] %s.\n", rule ? rule : "finding",
            cb_jr_str(x, "message") ? cb_jr_str(x, "message") : "");
    if (cb_jr_str(x, "advice"))
      fprintf(out, "    advice (%s): %s\n",
              cb_jr_str(x, "action") ? cb_jr_str(x, "action") : "(null)",
              cb_jr_str(x, "advice"));
  }
}

static void print_input(FILE *out, json_object *run) {
  json_object *in = cb_jr_get(run, "input");
  fprintf(out, "input %u:", (unsigned)cb_jr_u64(in, "index"));
  json_object *args = cb_jr_get(in, "args");
  for (size_t i = 0; i < cb_jr_len(args); i++)
    fprintf(out, " %s", json_object_get_string(cb_jr_at(args, i)));
  if (cb_jr_str(in, "stdin"))
    fprintf(out, " < %s", cb_jr_str(in, "stdin"));
  const char *status = cb_jr_str(run, "status");
  if (status && strcmp(status, "ok") == 0)
    fprintf(out, "  [path %s, exit %d]\n",
            cb_jr_str(run, "path") ? cb_jr_str(run, "path") : "P?",
            cb_jr_get(run, "exit_code")
                ? json_object_get_int(cb_jr_get(run, "exit_code"))
                : 0);
  else
    fprintf(out, "  [stopped]\n");
  json_object *files = cb_jr_get(run, "files_written");
  for (size_t i = 0; i < cb_jr_len(files); i++) {
    json_object *f = cb_jr_at(files, i);
    const char *path = cb_jr_str(f, "path");
    if (json_object_get_boolean(cb_jr_get(f, "removed")))
      fprintf(out,
              "  wrote %s: %" PRIu64 " bytes, then removed it (not on "
              "disk)\n",
              path ? path : "(null)", cb_jr_u64(f, "written"));
    else
      fprintf(out,
              "  wrote %s: %" PRIu64 " bytes written, %" PRIu64
              " at the end (not on disk)\n",
              path ? path : "(null)", cb_jr_u64(f, "written"),
              cb_jr_u64(f, "bytes"));
  }
}

/* A joined report of several programs (`cbana merge`): "prog.c b.c"
 * of the run's program, NULL in a report of one. */
const char *cb_jr_program_name(json_object *doc, json_object *run, char *buf,
                               size_t n) {
  json_object *progs = cb_jr_get(doc, "programs");
  uint64_t k = cb_jr_u64(run, "program");
  if (!progs || k < 1 || k > cb_jr_len(progs))
    return NULL;
  json_object *src = cb_jr_get(cb_jr_at(progs, k - 1), "sources");
  buf[0] = 0;
  for (size_t i = 0; i < cb_jr_len(src); i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", i ? " " : "",
             json_object_get_string(cb_jr_at(src, i)));
  }
  return buf;
}

/* Does the run's program have start-up and exit sites? The report's
 * "program" says (of a joined report of several, "programs"); a report
 * without, when some run has their counts. */
bool cb_jr_has_process(json_object *doc, json_object *run) {
  json_object *prog = cb_jr_get(doc, "program");
  uint64_t k = cb_jr_u64(run, "program");
  json_object *progs = cb_jr_get(doc, "programs");
  if (progs && k >= 1 && k <= cb_jr_len(progs))
    prog = cb_jr_at(progs, k - 1);
  json_object *has = cb_jr_get(prog, "process_sites");
  if (has)
    return json_object_get_boolean(has);
  json_object *runs = cb_jr_get(doc, "runs");
  for (size_t i = 0; i < cb_jr_len(runs); i++) {
    json_object *caches = cb_jr_get(cb_jr_at(runs, i), "caches");
    for (size_t k = 0; k < cb_jr_len(caches); k++)
      if (cb_jr_get(cb_jr_at(caches, k), "process"))
        return true;
  }
  return false;
}

static int render_text(FILE *out, json_object *doc,
                       const cb_report_options *opt) {
  unsigned top = opt && opt->top ? opt->top : 10;
  src_cache sc = {NULL, NULL, 0};
  json_object *runs = cb_jr_get(doc, "runs");
  if (cb_jr_str(doc, "library_note"))
    fprintf(out, "note: %s\n\n", cb_jr_str(doc, "library_note"));
  for (size_t i = 0; i < cb_jr_len(runs); i++) {
    json_object *run = cb_jr_at(runs, i);
    bool ok =
        cb_jr_str(run, "status") && strcmp(cb_jr_str(run, "status"), "ok") == 0;
    if (i)
      fputc('\n', out);
    char prog[1024];
    if (cb_jr_program_name(doc, run, prog, sizeof prog))
      fprintf(out, "program %s\n", prog);
    print_input(out, run);
    if (!ok) {
      json_object *e = cb_jr_get(run, "error");
      fprintf(out, "  error: %s:%u: %s\n",
              cb_jr_str(e, "file") ? cb_jr_str(e, "file") : "?",
              (unsigned)cb_jr_u64(e, "line"),
              cb_jr_str(e, "message") ? cb_jr_str(e, "message") : "stopped");
    }
    json_object *caches = cb_jr_get(run, "caches");
    for (size_t k = 0; k < cb_jr_len(caches); k++) {
      json_object *c = cb_jr_at(caches, k);
      const char *ln[CB_RESULT_LEVELS];
      unsigned nl = cb_jr_levels(c, ln, CB_RESULT_LEVELS);
      const char *cname = cb_jr_str(c, "name");
      fprintf(out, "cache %s%s\n", cname ? cname : "?",
              ok ? "" : " (up to where it stopped)");
      print_levels(out, c, ln, nl);
      print_accounts(out, run, c, ln, nl, cb_jr_has_process(doc, run));
      print_lines(out, c, ln, nl, &sc, top);
      print_variables(out, c, ln, nl, top);
      json_object *data = cb_jr_get(c, "data");
      if (data && nl) {
        print_data(out, cb_jr_get(data, "variables"), ln[0],
                   "data view: variables (lines: working set, distinct "
                   "lines touched)",
                   top);
        print_data(out, cb_jr_get(data, "types"), ln[0],
                   "data view: element types", top);
        print_data(out, cb_jr_get(data, "fields"), ln[0],
                   "data view: struct fields", top);
        print_data(out, cb_jr_get(data, "alloc_sites"), ln[0],
                   "data view: heap blocks by allocation site", top);
      }
      if (nl)
        print_calls(out, c, ln, nl, top);
      print_findings(out, c);
    }
  }
  json_object *paths = cb_jr_get(doc, "paths");
  if (cb_jr_len(paths) > 1) {
    fprintf(out, "\npath classes:\n");
    for (size_t k = 0; k < cb_jr_len(paths); k++) {
      json_object *pc = cb_jr_at(paths, k);
      fprintf(out, "  %s: inputs", cb_jr_str(pc, "path"));
      json_object *in = cb_jr_get(pc, "inputs");
      for (size_t i = 0; i < cb_jr_len(in); i++)
        fprintf(out, " %u", (unsigned)json_object_get_uint64(cb_jr_at(in, i)));
      char prog[1024];
      if (cb_jr_program_name(doc, pc, prog, sizeof prog))
        fprintf(out, " of %s", prog);
      fputc('\n', out);
    }
  }
  src_free(&sc);
  return ferror(out) ? -1 : 0;
}

const char *const cb_report_json_formats[] = {"text", "html", "sarif", NULL};

int cb_report_render_json(FILE *out, json_object *doc,
                          const cb_report_options *opt, const char *format) {
  if (strcmp(format, "text") == 0)
    return render_text(out, doc, opt);
  if (strcmp(format, "sarif") == 0)
    return cb_jr_sarif(out, doc);
  if (strcmp(format, "html") == 0)
    return cb_jr_html(out, doc, opt);
  return -1;
}
