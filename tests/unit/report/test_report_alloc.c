/* Heap blocks by allocation site and exact branch counts in the reports
 * (JSON, text, HTML, paths), on a small hand-made Program and results. */
#include "check.h"

#include "cbana/report.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Sites: 0 a load on line 10 of f (var a), 1 the malloc call on line 11
 * of f, 2 the calloc call on line 14 of g. */
static const char *files[] = {"/src/prog.c"};
static cb_src_func funcs[] = {{"f", 0, 9}, {"g", 0, 13}};
static cb_var vars[] = {{"a", CB_VAR_LOCAL, 0, CB_NONE, 0, 9}};
static cb_site sites[] = {
    {0, 10, 3, 0, 0, CB_NONE, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
    {0, 11, 5, 0, CB_NONE, CB_NONE, CB_NONE, 0, 0, 1, "malloc", 0, 0, 0},
    {0, 14, 5, 1, CB_NONE, CB_NONE, CB_NONE, 0, 0, 1, "calloc", 0, 0, 0},
};
static cb_site_counts counts[3 * 2] = {
    {100, 10, 5, 3, 2}, {10, 4, 4, 0, 0}, {0}, {0}, {0}, {0},
};
/* malloc@11: 3 blocks of 16 bytes, 60 of the 100 loads, 7 misses;
 * calloc@14: one block, 40 loads, 3 misses. */
static cb_alloc_site allocs[] = {
    {1,
     CB_LIBC_MALLOC,
     3,
     48,
     16,
     16,
     2,
     0,
     10,
     {{60, 7, 4, 2, 1}, {7, 3, 3, 0, 0}}},
    {2,
     CB_LIBC_CALLOC,
     1,
     4000,
     4000,
     4000,
     63,
     0,
     10,
     {{40, 3, 1, 1, 1}, {3, 1, 1, 0, 0}}},
};
static uint8_t seen[2] = {CB_BRANCH_REACHED | CB_BRANCH_TRUE | CB_BRANCH_FALSE,
                          CB_BRANCH_NOT_TRUE | CB_BRANCH_NOT_FALSE};
static uint64_t bcounts[4] = {199999, 1, 0, 0};
static cb_branch branches[] = {{0, 0, 0, 12, 3, "i < n", false, 1},
                               {0, 0, 0, 15, 3, "n > 100", false, 1}};

static cb_program make_program(void) {
  cb_program p;
  memset(&p, 0, sizeof p);
  p.files = files;
  p.n_files = 1;
  p.src_funcs = funcs;
  p.n_src_funcs = 2;
  p.vars = vars;
  p.n_vars = 1;
  p.sites = sites;
  p.n_sites = 3;
  p.branches = branches;
  p.n_branches = 2;
  return p;
}

static cb_cache_result make_cache(void) {
  cb_cache_result c;
  memset(&c, 0, sizeof c);
  c.name = "test";
  c.n_levels = 2;
  c.level_names[0] = "L1D";
  c.level_names[1] = "LL";
  c.geometry[0] = (cb_level_geometry){32768, 8, 64, 64};
  c.geometry[1] = (cb_level_geometry){1 << 20, 16, 64, 1024};
  c.classified = true;
  c.sites = counts;
  c.n_sites = 3;
  c.alloc_sites = allocs;
  c.n_alloc_sites = 2;
  return c;
}

static char *render(const cb_results *r, const char *format) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(cb_report_write(f, r, NULL, format) == 0);
  fclose(f);
  return buf;
}

static json_object *find_named(json_object *arr, const char *name) {
  for (size_t i = 0; i < json_object_array_length(arr); i++) {
    json_object *o = json_object_array_get_idx(arr, i);
    const char *n = json_object_get_string(json_object_object_get(o, "name"));
    if (n && strcmp(n, name) == 0)
      return o;
  }
  return NULL;
}

static uint64_t get_u64(json_object *o, const char *k) {
  return json_object_get_uint64(json_object_object_get(o, k));
}

static void test_reports(void) {
  cb_program p = make_program();
  cb_cache_result c = make_cache();
  cb_run_result run;
  memset(&run, 0, sizeof run);
  run.index = 1;
  run.ok = true;
  run.exited = true;
  run.path_class = 1;
  run.caches = &c;
  run.n_caches = 1;
  run.branches = seen;
  run.branch_counts = bcounts;
  cb_results r = {&p, &run, 1, 1, NULL};

  /* The data view's rows: heaviest first, named with blocks and bytes. */
  cb_data_row *rows;
  size_t n = cb_report_data(&p, &c, CB_DATA_ALLOC, &rows);
  CHECK_EQ_U64(n, 2);
  char name[256];
  cb_report_data_name(&p, &rows[0], name, sizeof name);
  CHECK(strcmp(name, "malloc@prog.c:11 (3 blocks, 48 bytes)") == 0);
  cb_report_data_name(&p, &rows[1], name, sizeof name);
  CHECK(strcmp(name, "calloc@prog.c:14 (1 block, 4000 bytes)") == 0);
  CHECK_EQ_U64(rows[0].lines, 2);
  CHECK_EQ_U64(rows[1].hot_line, 10);
  free(rows);

  char *js = render(&r, "json");
  json_object *root = json_tokener_parse(js);
  CHECK(root != NULL);
  json_object *cache = json_object_array_get_idx(
      json_object_object_get(
          json_object_array_get_idx(json_object_object_get(root, "runs"), 0),
          "caches"),
      0);
  json_object *vars = json_object_object_get(cache, "variables");
  CHECK_EQ_U64(json_object_array_length(vars), 3); /* a and two heap rows */
  json_object *h = find_named(vars, "malloc@prog.c:11");
  CHECK(h != NULL);
  if (h) {
    CHECK(strcmp(json_object_get_string(json_object_object_get(h, "kind")),
                 "heap") == 0);
    CHECK(strcmp(json_object_get_string(json_object_object_get(h, "function")),
                 "f") == 0);
    json_object *as = json_object_object_get(h, "alloc_site");
    CHECK(strcmp(json_object_get_string(json_object_object_get(as, "file")),
                 "/src/prog.c") == 0);
    CHECK_EQ_U64(get_u64(as, "line"), 11);
    CHECK_EQ_U64(get_u64(h, "blocks"), 3);
    CHECK_EQ_U64(get_u64(h, "bytes"), 48);
    CHECK_EQ_U64(get_u64(h, "min_size"), 16);
    CHECK_EQ_U64(get_u64(h, "accesses"), 60);
    CHECK_EQ_U64(get_u64(json_object_object_get(h, "misses"), "LL"), 3);
    json_object *k =
        json_object_object_get(json_object_object_get(h, "classes"), "L1D");
    CHECK_EQ_U64(get_u64(k, "compulsory"), 4);
    CHECK_EQ_U64(get_u64(k, "conflict"), 1);
  }
  json_object *da = json_object_object_get(
      json_object_object_get(cache, "data"), "alloc_sites");
  CHECK_EQ_U64(json_object_array_length(da), 2);
  h = find_named(da, "calloc@prog.c:14 (1 block, 4000 bytes)");
  CHECK(h != NULL);
  if (h) {
    CHECK_EQ_U64(get_u64(h, "working_set_lines"), 63);
    CHECK_EQ_U64(get_u64(h, "hot_line"), 10);
    CHECK_EQ_U64(get_u64(h, "max_size"), 4000);
  }
  json_object_put(root);
  free(js);

  char *text = render(&r, "text");
  CHECK(strstr(text, "malloc@prog.c:11 (3 blocks, 48 bytes)  heap\n") != NULL);
  CHECK(strstr(text, "data view: heap blocks by allocation site") != NULL);
  /* a (10 misses) before malloc@11 (7) before calloc@14 (3) */
  const char *pa = strstr(text, "  a (in f)"),
             *pm = strstr(text, "malloc@prog.c:11 (3"),
             *pc = strstr(text, "calloc@prog.c:14 (1");
  CHECK(pa && pm && pc && pa < pm && pm < pc);
  free(text);

  char *html = render(&r, "html");
  CHECK(strstr(html, "malloc@prog.c:11 (3 blocks, 48 bytes)") != NULL);
  CHECK(strstr(html, "heap block") != NULL);
  free(html);

  char *pt = render(&r, "paths-text");
  CHECK(strstr(pt, "P1: both (true 199999, false 1)") != NULL);
  CHECK(strstr(pt, "P1: not reached\n") != NULL);
  free(pt);
  char *pj = render(&r, "paths-json");
  root = json_tokener_parse(pj);
  json_object *cls =
      json_object_array_get_idx(json_object_object_get(root, "classes"), 0);
  json_object *b0 =
      json_object_object_get(json_object_object_get(cls, "counts"), "0");
  CHECK_EQ_U64(get_u64(b0, "true"), 199999);
  CHECK_EQ_U64(get_u64(b0, "false"), 1);
  CHECK(strcmp(json_object_get_string(json_object_object_get(
                   json_object_object_get(cls, "outcomes"), "1")),
               "not reached") == 0);
  json_object_put(root);
  free(pj);
}

int main(void) {
  test_reports();
  return check_done();
}
