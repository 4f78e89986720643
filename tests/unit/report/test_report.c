/* Aggregation of site counters into lines, functions, variables and calls,
 * and the JSON report built from them, on a small hand-made Program. */
#include "check.h"

#include "cbana/report.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Sites: 0,1 on line 10 of f (var a), 2 on line 12 of g (var b),
 * 3 a memset call on line 12, 4 on line 10 but never executed. */
static const char *files[] = {"prog.c"};
static cb_src_func funcs[] = {{"f", 0, 9}, {"g", 0, 11}};
static cb_var vars[] = {{"a", CB_VAR_GLOBAL, CB_NONE, CB_NONE, 0, 1},
                        {"b", CB_VAR_LOCAL, 1, CB_NONE, 0, 11}};
static cb_site sites[] = {
    {0, 10, 3, 0, 0, CB_NONE, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
    {0, 10, 9, 0, 0, CB_NONE, CB_NONE, 8, 1, 0, NULL, 0, 0, 0},
    {0, 12, 3, 1, 1, CB_NONE, CB_NONE, 4, 0, 0, NULL, 0, 0, 0},
    {0, 12, 5, 1, CB_NONE, CB_NONE, CB_NONE, 0, 0, 1, "memset", 0, 0, 0},
    {0, 10, 1, 0, 0, CB_NONE, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
};

/* accesses, misses, compulsory, capacity, conflict; two levels */
static cb_site_counts counts[5 * 2] = {
    {100, 10, 5, 3, 2}, {10, 4, 4, 0, 0}, /* site 0 */
    {50, 20, 20, 0, 0}, {20, 1, 1, 0, 0}, /* site 1 */
    {30, 3, 1, 1, 1},   {3, 3, 3, 0, 0},  /* site 2 */
    {64, 8, 8, 0, 0},   {8, 8, 8, 0, 0},  /* site 3 */
    {0, 0, 0, 0, 0},    {0, 0, 0, 0, 0},  /* site 4 */
};

static cb_program make_program(void) {
  cb_program p;
  memset(&p, 0, sizeof p);
  p.files = files;
  p.n_files = 1;
  p.src_funcs = funcs;
  p.n_src_funcs = 2;
  p.vars = vars;
  p.n_vars = 2;
  p.sites = sites;
  p.n_sites = 5;
  return p;
}

static cb_cache_result make_cache(void) {
  cb_cache_result c;
  memset(&c, 0, sizeof c);
  c.name = "test";
  c.n_levels = 2;
  c.level_names[0] = "L1D";
  c.level_names[1] = "LL";
  c.classified = true;
  c.sites = counts;
  c.n_sites = 5;
  return c;
}

static void test_lines(void) {
  cb_program p = make_program();
  cb_cache_result c = make_cache();
  cb_row *rows;
  size_t n = cb_report_aggregate(&p, &c, CB_VIEW_LINES, &rows);
  CHECK_EQ_U64(n, 2); /* line 10 (sites 0,1; site 4 unexecuted), line 12 */
  CHECK_EQ_U64(rows[0].line, 10); /* most L1 misses first */
  CHECK_EQ_U64(rows[0].level[0].accesses, 150);
  CHECK_EQ_U64(rows[0].level[0].misses, 30);
  CHECK_EQ_U64(rows[0].level[0].compulsory, 25);
  CHECK_EQ_U64(rows[0].level[1].misses, 5);
  CHECK_EQ_U64(rows[1].line, 12);
  CHECK_EQ_U64(rows[1].level[0].misses, 3); /* the call is not own code */
  free(rows);
}

static void test_calls_functions_variables(void) {
  cb_program p = make_program();
  cb_cache_result c = make_cache();
  cb_row *rows;
  size_t n = cb_report_aggregate(&p, &c, CB_VIEW_CALLS, &rows);
  CHECK_EQ_U64(n, 1);
  CHECK(n == 1 && strcmp(rows[0].callee, "memset") == 0);
  CHECK_EQ_U64(rows[0].level[0].misses, 8);
  free(rows);
  n = cb_report_aggregate(&p, &c, CB_VIEW_FUNCTIONS, &rows);
  CHECK_EQ_U64(n, 2);
  CHECK_EQ_U64(rows[0].func, 0);
  CHECK_EQ_U64(rows[0].level[1].misses, 5);
  free(rows);
  n = cb_report_aggregate(&p, &c, CB_VIEW_VARIABLES, &rows);
  CHECK_EQ_U64(n, 2);
  CHECK_EQ_U64(rows[0].var, 0);
  CHECK_EQ_U64(rows[0].level[0].accesses, 150);
  CHECK_EQ_U64(rows[1].var, 1);
  free(rows);
}

static void test_json(void) {
  cb_program p = make_program();
  cb_cache_result c = make_cache();
  c.levels[0].accesses = 244;
  c.levels[0].misses = 41;
  char *args[] = {"7", "x y"};
  cb_run_result run;
  memset(&run, 0, sizeof run);
  run.index = 1;
  run.ok = true;
  run.args = args;
  run.n_args = 2;
  run.exited = true;
  run.exit_code = 3;
  run.path_class = 1;
  run.caches = &c;
  run.n_caches = 1;
  cb_results r = {&p, &run, 1, 1, NULL};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(cb_report_json(f, &r, NULL) == 0);
  fclose(f);
  json_object *root = json_tokener_parse(buf);
  CHECK(root != NULL);
  json_object *run0 =
      json_object_array_get_idx(json_object_object_get(root, "runs"), 0);
  json_object *in = json_object_object_get(run0, "input");
  CHECK_EQ_U64(json_object_get_int(json_object_object_get(in, "index")), 1);
  CHECK(strcmp(json_object_get_string(json_object_array_get_idx(
                   json_object_object_get(in, "args"), 1)),
               "x y") == 0);
  CHECK(json_object_object_get(in, "stdin") == NULL);
  CHECK_EQ_U64(json_object_get_int(json_object_object_get(run0, "exit_code")),
               3);
  CHECK(strcmp(json_object_get_string(json_object_object_get(run0, "path")),
               "P1") == 0);
  json_object *cache =
      json_object_array_get_idx(json_object_object_get(run0, "caches"), 0);
  json_object *l1 =
      json_object_object_get(json_object_object_get(cache, "levels"), "L1D");
  CHECK_EQ_U64(json_object_get_uint64(json_object_object_get(l1, "misses")),
               41);
  json_object *lines = json_object_object_get(cache, "lines");
  CHECK_EQ_U64(json_object_array_length(lines), 2);
  json_object *line0 = json_object_array_get_idx(lines, 0);
  CHECK_EQ_U64(json_object_get_uint64(json_object_object_get(
                   json_object_object_get(line0, "misses"), "LL")),
               5);
  CHECK(
      strcmp(json_object_get_string(json_object_object_get(line0, "function")),
             "f") == 0);
  json_object *calls = json_object_object_get(cache, "calls");
  CHECK_EQ_U64(json_object_array_length(calls), 1);
  json_object_put(root);
  free(buf);
}

static char *cachegrind_text(cb_results *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cb_report_options ro = {10, 0, NULL, 1, 1, "./prog", NULL};
  CHECK(cb_report_cachegrind(f, r, &ro) == 0);
  fclose(f);
  return buf;
}

/* cachegrind's out-file format: own sites as reads or writes per line,
 * the memset call and what no site holds under the unsplit events. */
static void test_cachegrind(void) {
  cb_program p = make_program();
  cb_cache_result c = make_cache();
  c.levels[0].accesses = 250; /* 6 of no site */
  c.levels[0].misses = 43;    /* 2 of no site */
  c.levels[1].misses = 16;
  c.geometry[0] = (cb_level_geometry){32768, 8, 64, 64};
  c.geometry[1] = (cb_level_geometry){1048576, 16, 64, 1024};
  char *args[] = {"7", "x y"};
  cb_run_result run;
  memset(&run, 0, sizeof run);
  run.index = 1;
  run.ok = true;
  run.args = args;
  run.n_args = 2;
  run.caches = &c;
  run.n_caches = 1;
  cb_results r = {&p, &run, 1, 1, NULL};
  char *text = cachegrind_text(&r);
  const char *want =
      "desc: D1 cache:         32768 B, 64 B, 8-way associative\n"
      "desc: LL cache:         1048576 B, 64 B, 16-way associative\n"
      "desc: Generated by:     cbana (predicted, not measured), cache "
      "configuration test\n"
      "cmd: ./prog 7 x y\n"
      "events: Dr D1mr DLmr Dw D1mw DLmw Drw D1mrw DLmrw\n"
      "fl=???\n"
      "fn=???\n"
      "0 0 0 0 0 0 0 6 2 0\n"
      "fn=memset\n"
      "0 0 0 0 0 0 0 64 8 8\n"
      "fl=prog.c\n"
      "fn=f\n"
      "10 100 10 4 50 20 1 0 0 0\n"
      "fn=g\n"
      "12 30 3 3 0 0 0 0 0 0\n"
      "summary: 130 13 7 50 20 1 70 10 8\n";
  CHECK(strcmp(text, want) == 0);
  if (strcmp(text, want) != 0)
    fprintf(stderr, "%s", text);
  free(text);

  /* a level between the first and the last: its own name */
  cb_cache_result c3;
  memset(&c3, 0, sizeof c3);
  c3.name = "three";
  c3.n_levels = 3;
  c3.level_names[0] = "L1D";
  c3.level_names[1] = "L2";
  c3.level_names[2] = "L3";
  c3.levels[0].accesses = 5;
  c3.levels[0].misses = 2;
  c3.levels[1].misses = 1;
  run.caches = &c3;
  text = cachegrind_text(&r);
  CHECK(strstr(text, "events: Dr D1mr L2mr DLmr Dw D1mw L2mw DLmw Drw D1mrw "
                     "L2mrw DLmrw\n") != NULL);
  CHECK(strstr(text, "desc: L2 cache:") != NULL);
  CHECK(strstr(text, "summary: 0 0 0 0 0 0 0 0 5 2 1 0\n") != NULL);
  free(text);
  cb_report_options ro = {10, 0, NULL, 2, 1, NULL, NULL};
  CHECK(cb_report_cachegrind(stdout, &r, &ro) == -1); /* no input 2 */
}

int main(void) {
  test_lines();
  test_calls_functions_variables();
  test_json();
  test_cachegrind();
  return check_done();
}
