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

typedef struct cb_report_options {
  unsigned top; /* rows per table in the text report */
} cb_report_options;

/* Write the whole report. They return 0, or -1 when writing failed. */
int cb_report_text(FILE *out, const cb_results *r,
                   const cb_report_options *opt);
int cb_report_json(FILE *out, const cb_results *r,
                   const cb_report_options *opt);

#endif
