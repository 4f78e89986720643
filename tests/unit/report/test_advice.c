/* The data view and the findings on hand-made results: working sets,
 * per-type rows, a conflict finding whose stride folds into few sets
 * (pad), one shared with another variable (align), a capacity finding of
 * a column walk (interchange), and thresholds that keep quiet ones out. */
#include "check.h"

#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

static const char *files[] = {"k.c"};
static cb_src_func funcs[] = {{"k", 0, 1}};
static cb_ctype types[] = {{CB_CT_BASE, "double", 8, CB_NONE, 0, 0, 0}};
static cb_var vars[] = {{"A", CB_VAR_GLOBAL, CB_NONE, 0, 0, 1},
                        {"B", CB_VAR_GLOBAL, CB_NONE, 0, 0, 2},
                        {"C", CB_VAR_GLOBAL, CB_NONE, 0, 0, 3}};
/* site 0: A on line 10; site 1: B on line 10; site 2: C on line 20 */
static cb_site sites[] = {
    {0, 10, 1, 0, 0, 0, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
    {0, 10, 5, 0, 1, 0, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
    {0, 20, 1, 0, 2, 0, CB_NONE, 8, 0, 0, NULL, 0, 0, 0},
};
/* one level: accesses, misses, compulsory, capacity, conflict */
static cb_site_counts counts[3] = {
    {1000, 600, 10, 40, 550}, /* A: conflict-bound */
    {1000, 300, 10, 20, 270}, /* B: conflict, in A's sets */
    {1000, 100, 10, 90, 0},   /* C: capacity-bound */
};
static uint64_t var_lines[3] = {64, 64, 2048};
static uint64_t type_lines[1] = {2176};
static uint64_t field_lines[1] = {0};
static int64_t stride[3] = {4096, 8, 1024};
static uint64_t stride_runs[3] = {900, 900, 900};
/* A: all its conflicts in sets 0 and 1; B: in set 1; nothing else. */
static cb_var_set var_sets[] = {
    {0, 0, 300, 300}, {0, 1, 300, 250}, {1, 1, 300, 270}};

static void setup(cb_program *p, cb_cache_result *c) {
  memset(p, 0, sizeof *p);
  p->files = files;
  p->n_files = 1;
  p->src_funcs = funcs;
  p->n_src_funcs = 1;
  p->types = types;
  p->n_types = 1;
  p->vars = vars;
  p->n_vars = 3;
  p->sites = sites;
  p->n_sites = 3;
  memset(c, 0, sizeof *c);
  c->name = "t";
  c->n_levels = 1;
  c->level_names[0] = "L1D";
  c->levels[0].misses = 1000;
  c->levels[0].accesses = 3000;
  c->geometry[0] = (cb_level_geometry){32768, 8, 64, 64};
  c->classified = true;
  c->sites = counts;
  c->n_sites = 3;
  c->var_lines = var_lines;
  c->type_lines = type_lines;
  c->field_lines = field_lines;
  c->site_stride = stride;
  c->site_stride_runs = stride_runs;
  c->var_sets = var_sets;
  c->n_var_sets = 3;
}

static const cb_finding *find(const cb_finding *f, size_t n,
                              cb_finding_kind kind, uint32_t var) {
  for (size_t i = 0; i < n; i++)
    if (f[i].kind == kind && f[i].var == var)
      return &f[i];
  return NULL;
}

static void test_data(void) {
  cb_program p;
  cb_cache_result c;
  setup(&p, &c);
  cb_data_row *rows;
  size_t n = cb_report_data(&p, &c, CB_DATA_VARIABLE, &rows);
  CHECK_EQ_U64(n, 3);
  CHECK_EQ_U64(rows[0].id, 0); /* A: most misses */
  CHECK_EQ_U64(rows[0].lines, 64);
  CHECK_EQ_U64(rows[2].lines, 2048);
  CHECK_EQ_U64(rows[2].hot_line, 20);
  free(rows);
  n = cb_report_data(&p, &c, CB_DATA_TYPE, &rows);
  CHECK_EQ_U64(n, 1);
  CHECK_EQ_U64(rows[0].level[0].misses, 1000);
  CHECK_EQ_U64(rows[0].level[0].conflict, 820);
  CHECK_EQ_U64(rows[0].lines, 2176);
  free(rows);
  n = cb_report_data(&p, &c, CB_DATA_FIELD, &rows);
  CHECK_EQ_U64(n, 0);
  free(rows);
}

static void test_findings(void) {
  cb_program p;
  cb_cache_result c;
  setup(&p, &c);
  cb_finding *f;
  size_t n = cb_report_findings(&p, &c, &f);
  const cb_finding *a = find(f, n, CB_FINDING_CONFLICT, 0);
  CHECK(a != NULL);
  if (a) {
    CHECK_EQ_U64(a->class_misses, 550);
    CHECK_EQ_U64(a->sets_used, 2); /* 90% of 550 needs both sets */
    CHECK_EQ_U64(a->n_sets, 64);
    CHECK_EQ_U64(a->n_sharers, 1);
    CHECK_EQ_U64(a->sharers[0], 1);
    /* 4096 bytes = 64 lines: one set of 64 */
    CHECK(a->action && strcmp(a->action, "pad") == 0);
    CHECK(strstr(a->advice, "stride of 4096 bytes") != NULL);
  }
  const cb_finding *b = find(f, n, CB_FINDING_CONFLICT, 1);
  CHECK(b != NULL);
  if (b) {
    CHECK(b->action && strcmp(b->action, "align") == 0); /* stride 8 */
    CHECK(strstr(b->advice, "B and A") != NULL);
  }
  const cb_finding *cc = find(f, n, CB_FINDING_CAPACITY, 2);
  CHECK(cc != NULL);
  if (cc) {
    CHECK_EQ_U64(cc->working_set, 2048);
    CHECK_EQ_U64(cc->capacity, 512);
    CHECK(cc->action && strcmp(cc->action, "interchange") == 0);
  }
  /* A's 40 capacity misses are 4% of the level's but under 20% of its
   * own: no capacity finding for A. */
  CHECK(find(f, n, CB_FINDING_CAPACITY, 0) == NULL);
  /* Hot lines: line 10 (900 misses) and line 20 (100, 10%). */
  size_t hot = 0;
  for (size_t i = 0; i < n; i++)
    hot += f[i].kind == CB_FINDING_HOT_LINE;
  CHECK_EQ_U64(hot, 2);
  free(f);

  /* A stride that is not a multiple of a line: no pad; without sharers
   * the finding stays without advice. */
  stride[0] = 24;
  var_sets[2].conflict = 0;
  n = cb_report_findings(&p, &c, &f);
  a = find(f, n, CB_FINDING_CONFLICT, 0);
  CHECK(a != NULL && a->action == NULL && a->advice[0] == '\0');
  free(f);
  stride[0] = 4096;
  var_sets[2].conflict = 270;

  /* Without classes there are no findings. */
  c.classified = false;
  n = cb_report_findings(&p, &c, &f);
  CHECK_EQ_U64(n, 0);
  free(f);
}

static void test_fa_misses(void) {
  cb_program p;
  cb_cache_result c;
  setup(&p, &c);
  uint64_t hist[4] = {100, 50, 20, 10};
  c.distance_hist[0] = hist;
  c.distance_len[0] = 4;
  c.distance_cold[0] = 7;
  CHECK_EQ_U64(cb_report_fa_misses(&c, 0, 1), 7 + 50 + 20 + 10);
  CHECK_EQ_U64(cb_report_fa_misses(&c, 0, 3), 7 + 10);
  CHECK_EQ_U64(cb_report_fa_misses(&c, 0, 100), 7);
  c.distance_hist[0] = NULL;
  CHECK_EQ_U64(cb_report_fa_misses(&c, 0, 1), UINT64_MAX);
}

int main(void) {
  test_data();
  test_findings();
  test_fa_misses();
  return check_done();
}
