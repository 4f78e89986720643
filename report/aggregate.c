/* Aggregation of per-site counters into the rows of a view. Sites are
 * sorted by the view's key, then each run of equal keys is summed: one
 * pass, no hash table, and the order of equal rows is deterministic. */
#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

typedef struct sort_ctx {
  const cb_program *p;
  cb_view view;
} sort_ctx;

/* qsort has no context argument; aggregation is not re-entrant across
 * threads for that reason only, and reports are written by one thread. */
static sort_ctx g_ctx;

static int str_cmp(const char *a, const char *b) {
  if (a == b)
    return 0;
  if (!a)
    return -1;
  if (!b)
    return 1;
  return strcmp(a, b);
}

static int u32_cmp(uint32_t a, uint32_t b) {
  return a < b ? -1 : a > b;
}

static bool site_in_view(const cb_site *s, cb_view view) {
  if (view == CB_VIEW_CALLS)
    return s->is_call && !s->is_process;
  if (s->is_call)
    return false;
  return view != CB_VIEW_VARIABLES || s->var != CB_NONE;
}

static int key_cmp(const cb_site *a, const cb_site *b, cb_view view) {
  int c = 0;
  switch (view) {
  case CB_VIEW_LINES:
    if ((c = u32_cmp(a->file, b->file)) || (c = u32_cmp(a->line, b->line)))
      return c;
    return u32_cmp(a->func, b->func);
  case CB_VIEW_FUNCTIONS:
    return u32_cmp(a->func, b->func);
  case CB_VIEW_VARIABLES:
    return u32_cmp(a->var, b->var);
  case CB_VIEW_CALLS:
    if ((c = str_cmp(a->text, b->text)) || (c = u32_cmp(a->file, b->file)))
      return c;
    return u32_cmp(a->line, b->line);
  }
  return 0;
}

static int site_index_cmp(const void *x, const void *y) {
  const cb_site *a = &g_ctx.p->sites[*(const uint32_t *)x];
  const cb_site *b = &g_ctx.p->sites[*(const uint32_t *)y];
  int c = key_cmp(a, b, g_ctx.view);
  return c ? c : u32_cmp(*(const uint32_t *)x, *(const uint32_t *)y);
}

static int row_cmp(const void *x, const void *y) {
  const cb_row *a = x, *b = y;
  if (a->level[0].misses != b->level[0].misses)
    return a->level[0].misses < b->level[0].misses ? 1 : -1;
  if (a->level[0].accesses != b->level[0].accesses)
    return a->level[0].accesses < b->level[0].accesses ? 1 : -1;
  int c;
  if ((c = u32_cmp(a->file, b->file)) || (c = u32_cmp(a->line, b->line)))
    return c;
  if ((c = u32_cmp(a->func, b->func)) || (c = u32_cmp(a->var, b->var)))
    return c;
  return str_cmp(a->callee, b->callee);
}

static void row_init(cb_row *row, const cb_site *s, cb_view view) {
  memset(row, 0, sizeof *row);
  row->file = s->file;
  row->line = s->line;
  row->func = s->func;
  row->var = view == CB_VIEW_VARIABLES ? s->var : CB_NONE;
  row->callee = view == CB_VIEW_CALLS ? s->text : NULL;
  if (view == CB_VIEW_FUNCTIONS || view == CB_VIEW_VARIABLES)
    row->line = 0;
  if (view == CB_VIEW_VARIABLES) {
    row->file = CB_NONE;
    row->func = CB_NONE;
  }
}

size_t cb_report_aggregate(const cb_program *p, const cb_cache_result *c,
                           cb_view view, cb_row **rows) {
  *rows = NULL;
  uint32_t n = 0;
  uint32_t *idx = malloc(sizeof *idx * (c->n_sites ? c->n_sites : 1));
  if (!idx)
    return 0;
  for (uint32_t s = 0; s < c->n_sites && s < p->n_sites; s++)
    if (site_in_view(&p->sites[s], view) && c->sites[s * c->n_levels].accesses)
      idx[n++] = s;
  g_ctx.p = p;
  g_ctx.view = view;
  qsort(idx, n, sizeof *idx, site_index_cmp);

  cb_row *out = malloc(sizeof *out * (n ? n : 1));
  size_t n_rows = 0;
  if (!out) {
    free(idx);
    return 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    const cb_site *s = &p->sites[idx[i]];
    if (i == 0 || key_cmp(&p->sites[idx[i - 1]], s, view) != 0)
      row_init(&out[n_rows++], s, view);
    cb_row *row = &out[n_rows - 1];
    for (unsigned l = 0; l < c->n_levels; l++) {
      const cb_site_counts *sc = &c->sites[idx[i] * c->n_levels + l];
      row->level[l].accesses += sc->accesses;
      row->level[l].misses += sc->misses;
      row->level[l].compulsory += sc->compulsory;
      row->level[l].capacity += sc->capacity;
      row->level[l].conflict += sc->conflict;
    }
  }
  free(idx);
  qsort(out, n_rows, sizeof *out, row_cmp);
  *rows = out;
  return n_rows;
}

bool cb_report_process(const cb_program *p, const cb_cache_result *c,
                       cb_site_counts startup[CB_RESULT_LEVELS],
                       cb_site_counts exit_counts[CB_RESULT_LEVELS]) {
  memset(startup, 0, CB_RESULT_LEVELS * sizeof *startup);
  memset(exit_counts, 0, CB_RESULT_LEVELS * sizeof *exit_counts);
  const cb_process_info *pi = p->process;
  if (!pi || pi->startup_site >= c->n_sites || pi->exit_site >= c->n_sites ||
      !c->sites)
    return false;
  for (unsigned l = 0; l < c->n_levels && l < CB_RESULT_LEVELS; l++) {
    startup[l] = c->sites[(size_t)pi->startup_site * c->n_levels + l];
    exit_counts[l] = c->sites[(size_t)pi->exit_site * c->n_levels + l];
  }
  return true;
}
