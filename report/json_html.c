/* A JSON report read back as one self-contained HTML page (no script, no
 * network): per input and cache, the totals of every level, the heaviest
 * lines, variables and library calls, and the findings with their
 * advice; then the path classes and the sources shaded by misses. It
 * shows what the JSON holds, so a report joined by `cbana merge` renders
 * like any other; the views of report/html.c that need more (the state
 * graph, the curves per input) are not there. */
#include "html_page.h"
#include "json_render.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void head_row(FILE *out, const char **ln, unsigned nl,
                     const char *what) {
  fputs("<tr><th>accesses</th>", out);
  for (unsigned l = 0; l < nl; l++) {
    fputs("<th>", out);
    cb_html_esc(out, ln[l]);
    fputs(" misses</th>", out);
  }
  fprintf(out, "<th>%s</th></tr>\n", what);
}

static void count_cells(FILE *out, json_object *row, const char **ln,
                        unsigned nl) {
  fprintf(out, "<td class=n>%" PRIu64 "</td>", cb_jr_u64(row, "accesses"));
  for (unsigned l = 0; l < nl; l++)
    fprintf(out, "<td class=n>%" PRIu64 "</td>", cb_jr_row_misses(row, ln[l]));
}

/* One table of rows: name(row) from the keys given. */
static void table(FILE *out, json_object *rows, const char **ln, unsigned nl,
                  const char *title, const char *what, unsigned top,
                  bool is_line) {
  if (!cb_jr_len(rows))
    return;
  fprintf(out, "<h3>%s</h3><table>\n", title);
  head_row(out, ln, nl, what);
  for (size_t i = 0; i < cb_jr_len(rows) && i < top; i++) {
    json_object *row = cb_jr_at(rows, i);
    fputs("<tr>", out);
    count_cells(out, row, ln, nl);
    fputs("<td>", out);
    const char *kind = cb_jr_str(row, "kind");
    if (is_line) {
      if (cb_jr_str(row, "callee")) {
        cb_html_esc(out, cb_jr_str(row, "callee"));
        fputs(" from ", out);
      }
      cb_html_esc(out, cb_jr_base(cb_jr_str(row, "file")));
      fprintf(out, ":%" PRIu64 " ", cb_jr_u64(row, "line"));
      cb_html_esc(out, cb_jr_str(row, "function"));
    } else if (kind && strcmp(kind, "heap") == 0) {
      char name[320];
      cb_jr_heap_name(row, name, sizeof name);
      cb_html_esc(out, name);
      fputs(" (heap)", out);
    } else {
      cb_html_esc(out, cb_jr_str(row, "name") ? cb_jr_str(row, "name") : "?");
      if (kind && strcmp(kind, "global") != 0 && cb_jr_str(row, "function")) {
        fputs(" (in ", out);
        cb_html_esc(out, cb_jr_str(row, "function"));
        fputs(")", out);
      }
      if (cb_jr_str(row, "type")) {
        fputs(" ", out);
        cb_html_esc(out, cb_jr_str(row, "type"));
      }
    }
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
}

static void levels_table(FILE *out, json_object *c, const char **ln,
                         unsigned nl) {
  fputs("<table><tr><th>level</th><th>accesses</th><th>misses</th>"
        "<th>read misses</th><th>write misses</th><th>compulsory</th>"
        "<th>capacity</th><th>conflict</th></tr>\n",
        out);
  for (unsigned l = 0; l < nl; l++) {
    json_object *lc = cb_jr_get(cb_jr_get(c, "levels"), ln[l]);
    fputs("<tr><td>", out);
    cb_html_esc(out, ln[l]);
    fprintf(out,
            "</td><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64
            "</td><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64 "</td>",
            cb_jr_u64(lc, "accesses"), cb_jr_u64(lc, "misses"),
            cb_jr_u64(lc, "read_misses"), cb_jr_u64(lc, "write_misses"));
    static const char *const cls[] = {"compulsory", "capacity", "conflict"};
    for (unsigned k = 0; k < 3; k++)
      if (cb_jr_get(lc, cls[k]))
        fprintf(out, "<td class=n>%" PRIu64 "</td>", cb_jr_u64(lc, cls[k]));
      else
        fputs("<td class=n>-</td>", out);
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

static void findings(FILE *out, json_object *c) {
  json_object *f = cb_jr_get(c, "findings");
  if (!cb_jr_len(f))
    return;
  fputs("<h3>findings</h3><ul>\n", out);
  for (size_t i = 0; i < cb_jr_len(f); i++) {
    json_object *x = cb_jr_at(f, i);
    fputs("<li>[", out);
    cb_html_esc(out, cb_jr_str(x, "rule"));
    fputs("] ", out);
    cb_html_esc(out, cb_jr_str(x, "message"));
    fputs(".", out);
    if (cb_jr_str(x, "advice")) {
      fputs(" <span class=advice>", out);
      cb_html_esc(out, cb_jr_str(x, "advice"));
      fputs("</span>", out);
    }
    fputs("</li>\n", out);
  }
  fputs("</ul>\n", out);
}

/* Each source file with its lines shaded by first-level misses (of the
 * first input and cache), as report/html.c shows them. */
static void heat_source(FILE *out, json_object *doc) {
  json_object *files = cb_jr_get(doc, "files");
  json_object *run = cb_jr_at(cb_jr_get(doc, "runs"), 0);
  json_object *c = cb_jr_at(cb_jr_get(run, "caches"), 0);
  const char *ln[CB_RESULT_LEVELS];
  if (!c || !cb_jr_levels(c, ln, CB_RESULT_LEVELS))
    return;
  json_object *rows = cb_jr_get(c, "lines");
  bool heading = false;
  for (size_t f = 0; f < cb_jr_len(files); f++) {
    const char *path = json_object_get_string(cb_jr_at(files, f));
    cb_source src;
    cb_source_load_file(&src, path);
    uint64_t *miss = calloc(src.n_lines + 1, sizeof *miss);
    uint64_t *acc = calloc(src.n_lines + 1, sizeof *acc);
    uint64_t max = 0;
    for (size_t i = 0; miss && acc && i < cb_jr_len(rows); i++) {
      json_object *row = cb_jr_at(rows, i);
      uint64_t line = cb_jr_u64(row, "line");
      const char *file = cb_jr_str(row, "file");
      if (!file || strcmp(file, path) != 0 || !line || line > src.n_lines)
        continue;
      miss[line] += cb_jr_row_misses(row, ln[0]);
      acc[line] += cb_jr_u64(row, "accesses");
      if (miss[line] > max)
        max = miss[line];
    }
    if (miss && acc && src.n_lines) {
      if (!heading)
        fputs("<h2>sources (first input and cache)</h2>\n", out);
      heading = true;
      fputs("<h3>", out);
      cb_html_esc(out, path);
      fputs("</h3>\n<pre class=src>", out);
      for (uint32_t l = 1; l <= src.n_lines; l++) {
        double heat = max ? (double)miss[l] / (double)max : 0.0;
        fprintf(out,
                "<span class=l style=\"background:rgba(220,40,40,%.2f)\">"
                "<b>%u</b><i>",
                heat * 0.8, l);
        if (acc[l])
          fprintf(out, "%" PRIu64, miss[l]);
        fputs("</i>", out);
        cb_html_esc(out, cb_source_line(&src, l));
        fputs("</span>", out);
      }
      fputs("</pre>\n", out);
    }
    free(miss);
    free(acc);
    free(src.lines);
    free(src.text);
  }
}

int cb_jr_html(FILE *out, json_object *doc, const cb_report_options *opt) {
  unsigned top = opt && opt->top ? opt->top : 10;
  json_object *files = cb_jr_get(doc, "files");
  const char *title = opt && opt->title ? opt->title
                      : cb_jr_len(files)
                          ? json_object_get_string(cb_jr_at(files, 0))
                          : "cbana";
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cbana: ",
        out);
  cb_html_esc(out, title);
  fprintf(out,
          "</title><style>%s</style></head><body>\n<h1>cbana: ", cb_html_style);
  cb_html_esc(out, title);
  fputs("</h1>\n", out);
  json_object *runs = cb_jr_get(doc, "runs");
  for (size_t i = 0; i < cb_jr_len(runs); i++) {
    json_object *run = cb_jr_at(runs, i);
    json_object *in = cb_jr_get(run, "input");
    char prog[1024];
    fputs("<h2>", out);
    if (cb_jr_program_name(doc, run, prog, sizeof prog)) {
      cb_html_esc(out, prog);
      fputs(", ", out);
    }
    fprintf(out, "input %" PRIu64 ":", cb_jr_u64(in, "index"));
    json_object *args = cb_jr_get(in, "args");
    for (size_t a = 0; a < cb_jr_len(args); a++) {
      fputc(' ', out);
      cb_html_esc(out, json_object_get_string(cb_jr_at(args, a)));
    }
    if (cb_jr_str(in, "stdin")) {
      fputs(" &lt; ", out);
      cb_html_esc(out, cb_jr_str(in, "stdin"));
    }
    fputs(" [", out);
    cb_html_esc(out, cb_jr_str(run, "path"));
    fputs(", ", out);
    cb_html_esc(out, cb_jr_str(run, "status"));
    fputs("]</h2>\n", out);
    if (cb_jr_get(run, "error")) {
      fputs("<p>stopped: ", out);
      cb_html_esc(out, cb_jr_str(cb_jr_get(run, "error"), "message"));
      fputs("</p>\n", out);
    }
    json_object *caches = cb_jr_get(run, "caches");
    for (size_t k = 0; k < cb_jr_len(caches); k++) {
      json_object *c = cb_jr_at(caches, k);
      const char *ln[CB_RESULT_LEVELS];
      unsigned nl = cb_jr_levels(c, ln, CB_RESULT_LEVELS);
      fputs("<h3>cache ", out);
      cb_html_esc(out, cb_jr_str(c, "name"));
      fputs("</h3>\n", out);
      levels_table(out, c, ln, nl);
      table(out, cb_jr_get(c, "lines"), ln, nl, "heaviest lines",
            "file:line function", top, true);
      table(out, cb_jr_get(c, "variables"), ln, nl, "variables", "variable",
            top, false);
      table(out, cb_jr_get(c, "calls"), ln, nl, "library traffic",
            "callee from file:line function", top, true);
      findings(out, c);
    }
  }
  json_object *paths = cb_jr_get(doc, "paths");
  if (cb_jr_len(paths)) {
    fputs("<h2>path classes</h2><table><tr><th>path</th><th>inputs</th>"
          "</tr>\n",
          out);
    for (size_t k = 0; k < cb_jr_len(paths); k++) {
      json_object *pc = cb_jr_at(paths, k);
      fputs("<tr><td>", out);
      cb_html_esc(out, cb_jr_str(pc, "path"));
      fputs("</td><td>", out);
      json_object *ins = cb_jr_get(pc, "inputs");
      for (size_t i = 0; i < cb_jr_len(ins); i++)
        fprintf(out, "%s%" PRIu64, i ? " " : "",
                json_object_get_uint64(cb_jr_at(ins, i)));
      fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
  }
  heat_source(out, doc);
  fputs("</body></html>\n", out);
  return ferror(out) ? -1 : 0;
}
