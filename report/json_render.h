/* What report/'s renderers of JSON reports share (report/json_render.c,
 * json_html.c, sarif.c): reading fields of a JSON report
 * (docs/report-json.md), and SARIF's skeleton. Internal to report/. */
#ifndef CBANA_REPORT_JSON_RENDER_H
#define CBANA_REPORT_JSON_RENDER_H

#include "cbana/report.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

json_object *cb_jr_get(json_object *o, const char *key); /* NULL when absent */
const char *cb_jr_str(json_object *o,
                      const char *key);              /* NULL unless a string */
uint64_t cb_jr_u64(json_object *o, const char *key); /* 0 when absent */
size_t cb_jr_len(json_object *arr);                  /* 0 unless an array */
json_object *cb_jr_at(json_object *arr, size_t i);
/* A cache's level names in order; returns how many (at most max). */
unsigned cb_jr_levels(json_object *cache, const char **names, unsigned max);
/* A row's misses at a level. */
uint64_t cb_jr_row_misses(json_object *row, const char *level);
/* A path's last component ("?" for NULL). */
const char *cb_jr_base(const char *path);
/* "malloc@f.c:12 (3 blocks, 48 bytes)" of a heap row. */
void cb_jr_heap_name(json_object *row, char *buf, size_t n);
bool cb_jr_has_process(json_object *doc, json_object *run);
/* The sources of a run's (or path class's) program in a joined report of
 * several programs, in buf; NULL when the report is of one program. */
const char *cb_jr_program_name(json_object *doc, json_object *run, char *buf,
                               size_t n);

int cb_jr_sarif(FILE *out, json_object *doc);
int cb_jr_html(FILE *out, json_object *doc, const cb_report_options *opt);

/* SARIF (report/sarif.c): the document with the rules and an empty
 * results array (*results); one result at a source line (the caller adds
 * "properties"); writing and freeing the document. */
json_object *cb_sarif_begin(json_object **results);
json_object *cb_sarif_result(const char *rule, const char *text,
                             const char *uri, unsigned line);
int cb_sarif_end(FILE *out, json_object *root);

#endif
