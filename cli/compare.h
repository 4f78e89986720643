/* Comparing JSON reports (docs/report-json.md): what `cbana check` and
 * `cbana diff` share. Reports are matched input by input (same arguments
 * and standard input), cache by cache (same name); rows by key (a line's
 * file:line, a function's name, a variable's name and function). */
#ifndef CBANA_CLI_COMPARE_H
#define CBANA_CLI_COMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Reads and checks a JSON report; on error prints "cbana COMMAND: PATH:
 * why" and returns NULL. `what` names the file's role ("baseline"). */
json_object *cb_report_load(const char *path, const char *what,
                            const char *command);
/* The same from text held in memory (the current analysis). */
json_object *cb_report_parse(const char *text, const char *path,
                             const char *command);

/* The run of `report` with the same input as `run`, or NULL. */
json_object *cb_report_match_run(json_object *report, json_object *run);
/* The cache of that name in a run, or NULL. */
json_object *cb_report_cache(json_object *run, const char *name);
/* "64 0 < in.txt": a run's input as a user wrote it (static buffer). */
const char *cb_report_input_text(json_object *run);
/* A level's counter, or -1 when absent. */
int64_t cb_report_level(json_object *cache, const char *level,
                        const char *field);

/* One row that changed. */
typedef struct cb_row_delta {
  char key[320];
  char file[256];
  unsigned line;
  int64_t before, after;
} cb_row_delta;

/* The rows of `table` ("lines", "functions", "variables") whose misses at
 * `level` differ between caches a and b (either may be NULL), sorted by
 * increase (largest first). Returns the count; *out malloc'ed. */
size_t cb_report_row_deltas(json_object *a, json_object *b, const char *table,
                            const char *level, cb_row_delta **out);

#endif
