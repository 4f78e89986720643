/* report.h: turning results (results.h) into what people and programs
 * read. report/ owns the views: the aggregation of site counters into
 * source lines, functions, variables and library calls; the text report
 * (the heaviest lines and variables with their source text); and the JSON
 * report whose schema docs/report-json.md documents. It knows the Program
 * only through program.h and never runs anything.
 */
#ifndef CBANA_REPORT_H
#define CBANA_REPORT_H

#include <stdio.h>

#include "cbana/results.h"

/* One row of an aggregated view: a line, function, variable or call. */
typedef struct cb_row {
  uint32_t file, line; /* program->files; line 0: no line */
  uint32_t func;       /* program->src_funcs, or CB_NONE */
  uint32_t var;        /* program->vars, or CB_NONE */
  const char *callee;  /* library calls: the function called */
  cb_site_counts level[CB_RESULT_LEVELS];
} cb_row;

typedef enum cb_view {
  CB_VIEW_LINES,     /* the program's own loads and stores, per line */
  CB_VIEW_FUNCTIONS, /* own loads and stores, per source function */
  CB_VIEW_VARIABLES, /* own loads and stores, per variable accessed */
  CB_VIEW_CALLS      /* library traffic, per callee and calling line */
} cb_view;

/* Aggregates the sites of one cache result into rows of a view, sorted by
 * misses at the first level (most first), then by position. Returns the
 * number of rows; *rows is malloc'ed (free it). */
size_t cb_report_aggregate(const cb_program *p, const cb_cache_result *c,
                           cb_view view, cb_row **rows);

/* The process's start-up and exit traffic in a cache result (program.h,
 * cb_process_info: the Program's two is_process sites), per level; false,
 * and zeros, when the Program has no such sites. The calls view leaves
 * them out: own code + library calls + these = the whole process. */
bool cb_report_process(const cb_program *p, const cb_cache_result *c,
                       cb_site_counts startup[CB_RESULT_LEVELS],
                       cb_site_counts exit_counts[CB_RESULT_LEVELS]);

/* ---- The data view (report/dataview.c) ------------------------------ */

typedef enum cb_data_kind {
  CB_DATA_VARIABLE, /* id: program->vars */
  CB_DATA_TYPE,     /* id: program->types, the accessed element's type */
  CB_DATA_FIELD,    /* id: program->fields; owner: the struct's type */
  CB_DATA_ALLOC     /* heap blocks by allocation site: id: program->sites
                       (the call); alloc: the cache result's row */
} cb_data_kind;

typedef struct cb_data_row {
  cb_data_kind kind;
  uint32_t id;
  uint32_t owner;    /* fields: program->types of the struct, or CB_NONE */
  uint64_t lines;    /* working set: distinct first-level lines touched
                        (0 when the results hold no working sets) */
  uint32_t hot_file; /* the line with most first-level misses */
  uint32_t hot_line;
  cb_site_counts level[CB_RESULT_LEVELS];
  /* CB_DATA_ALLOC: the site's blocks and sizes (points into the cache
   * result, valid while it is); NULL for the other kinds. */
  const cb_alloc_site *alloc;
} cb_data_row;

/* Own accesses per variable, type or field, with working sets; sorted as
 * cb_report_aggregate sorts. Returns the number of rows; *rows malloc'ed. */
size_t cb_report_data(const cb_program *p, const cb_cache_result *c,
                      cb_data_kind kind, cb_data_row **rows);

/* The name of a data row: "grid", "double", "struct particle.x",
 * "malloc@list.c:12 (3 blocks, 48 bytes)". */
void cb_report_data_name(const cb_program *p, const cb_data_row *row, char *buf,
                         size_t n);
/* An allocation site's stable name, "malloc@list.c:12" (the callee at
 * the call's file base name and line), as reports and `cbana diff` key
 * heap blocks. */
void cb_report_alloc_name(const cb_program *p, const cb_alloc_site *a,
                          char *buf, size_t n);

/* ---- Findings and advice (report/advice.c) ------------------------- */

typedef enum cb_finding_kind {
  CB_FINDING_CONFLICT, /* a variable's conflict misses at a level */
  CB_FINDING_CAPACITY, /* a variable's capacity misses at a level */
  CB_FINDING_HOT_LINE  /* a source line with many misses */
} cb_finding_kind;

#define CB_FINDING_SHARERS 4

typedef struct cb_finding {
  cb_finding_kind kind;
  unsigned level;
  uint32_t var;              /* program->vars, CB_NONE for a hot line */
  uint32_t file, line, func; /* the line (for a variable: its hottest) */
  uint64_t misses;           /* of the variable or line at the level */
  uint64_t class_misses;     /* of the finding's class */
  uint64_t accesses;         /* at the first level */
  /* conflict: the sets holding 90% of the variable's conflict misses, of
   * how many, and the other variables missing in those sets */
  uint32_t sets_used, n_sets;
  uint32_t first_set; /* the set with most of them */
  uint32_t sharers[CB_FINDING_SHARERS];
  unsigned n_sharers;
  /* capacity: working set against the level's capacity, in lines */
  uint64_t working_set, capacity;
  int64_t stride;     /* the hot line's dominant stride in bytes (0: none) */
  bool in_struct;     /* the variable holds structs */
  const char *action; /* "pad", "align", "interchange", "tile", "split",
                         or NULL when the cause is not clear */
  char message[384];  /* one sentence: what was found */
  char advice[384];   /* one sentence of advice, "" when none */
} cb_finding;

/* The significant findings of one cache result, most misses first:
 * variables with at least 2% of a level's misses of a class that makes
 * at least 20% of their own, and lines with at least 5% of a level's
 * misses. Returns the count; *out malloc'ed. */
size_t cb_report_findings(const cb_program *p, const cb_cache_result *c,
                          cb_finding **out);

const char *cb_finding_rule(const cb_finding *f); /* "conflict-misses"... */

/* ---- Sources (report/source.c) -------------------------------------- */

typedef struct cb_source {
  char *text;
  char **lines; /* lines[i] is line i+1, without its newline */
  uint32_t n_lines;
} cb_source;

/* Reads every file of the program (missing files have no lines). */
cb_source *cb_sources_load(const cb_program *p);
void cb_sources_free(const cb_program *p, cb_source *src);
/* One file by path (a missing file has no lines); free its text and
 * lines. */
void cb_source_load_file(cb_source *sf, const char *path);
/* Line `line` (1-based) or "" */
const char *cb_source_line(const cb_source *sf, uint32_t line);

/* ---- Whole reports -------------------------------------------------- */

/* How the results were made, for reports that are joined later (`cbana
 * merge`): the JSON report writes it as "program" and "shard". */
typedef struct cb_report_batch {
  const char *const *sources; /* the C files, as given */
  unsigned n_sources;
  const char *cflags;     /* --cflags, NULL with -p */
  const char *compdb_dir; /* -p DIR, or NULL */
  const char *argv0;      /* the program's path as the real run gets it */
  const char *inputs;     /* the inputs file, NULL without one */
  unsigned total_inputs;  /* inputs in that file, all shards */
  unsigned shard, shards; /* --shard K/N; 0/0: all inputs */
} cb_report_batch;

typedef struct cb_report_options {
  unsigned top;      /* rows per table in the text report */
  unsigned level;    /* annotate/sarif: the level to rank by (0: first) */
  const char *title; /* html: the page's title (NULL: the first file) */
  unsigned input;    /* annotate, cachegrind: the input shown, by its 1-based
                        index (0: the first) */
  unsigned cache;    /* cachegrind: the 1-based cache shown (0: the first) */
  const char *argv0; /* cachegrind: the program as its "cmd:" line names it */
  const cb_report_batch *batch; /* json: how the results were made, or NULL */
} cb_report_options;

/* Write the whole report. They return 0, or -1 when writing failed. */
int cb_report_text(FILE *out, const cb_results *r,
                   const cb_report_options *opt);
int cb_report_json(FILE *out, const cb_results *r,
                   const cb_report_options *opt);
/* The annotated source, like cg_annotate: every line of every file with
 * its accesses, misses per level and classes, and the variables it
 * touches; first input and cache (report/annotate.c). */
int cb_report_annotate(FILE *out, const cb_results *r,
                       const cb_report_options *opt);
/* One self-contained HTML page (report/html.c). */
int cb_report_html(FILE *out, const cb_results *r,
                   const cb_report_options *opt);
/* cachegrind's out-file format for one input and one cache (opt->input,
 * opt->cache), which cg_annotate, cg_diff and cg_merge read
 * (report/cachegrind.c); -1 also when there is no such input or cache. */
int cb_report_cachegrind(FILE *out, const cb_results *r,
                         const cb_report_options *opt);
/* SARIF 2.1.0: one result per finding of every input (report/sarif.c). */
int cb_report_sarif(FILE *out, const cb_results *r,
                    const cb_report_options *opt);
/* The program-state graph: branch points, path classes, their inputs
 * and misses (report/paths.c): text, JSON, Graphviz DOT. */
int cb_report_paths_text(FILE *out, const cb_results *r,
                         const cb_report_options *opt);
int cb_report_paths_json(FILE *out, const cb_results *r,
                         const cb_report_options *opt);
int cb_report_paths_dot(FILE *out, const cb_results *r,
                        const cb_report_options *opt);

/* The report formats by name: text, json, annotate, html, sarif,
 * cachegrind, and the state graph's paths-text, paths-json, dot.
 * NULL-terminated. */
extern const char *const cb_report_formats[];
/* Writes the report in the named format; -1 on a write failure or an
 * unknown format. */
int cb_report_write(FILE *out, const cb_results *r,
                    const cb_report_options *opt, const char *format);

/* ---- Rendering a JSON report read back (report/json_render.c) ------- */

struct json_object;
/* A JSON report (docs/report-json.md: one of `analyze --format json`, or
 * several joined by `cbana merge`) rendered as "text", "sarif" or "html".
 * Text and SARIF are those `analyze` writes for the same results; the
 * HTML page holds the report's tables (the views that need the Program,
 * as the state graph, are not in the JSON). -1 on a write failure or an
 * unknown format. */
int cb_report_render_json(FILE *out, struct json_object *doc,
                          const cb_report_options *opt, const char *format);
extern const char *const cb_report_json_formats[];
/* doc as every JSON document of cbana is written (indented, spaced,
 * slashes unescaped) and a newline; -1 on a write failure. */
int cb_report_json_put(FILE *out, struct json_object *doc);

/* Misses a fully associative LRU cache of `lines` lines would take at a
 * level, from the distance histogram (UINT64_MAX when there is none). */
uint64_t cb_report_fa_misses(const cb_cache_result *c, unsigned level,
                             uint64_t lines);

#endif
