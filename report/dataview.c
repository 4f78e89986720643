/* The data view: own accesses per variable, per accessed element type,
 * per struct field and per allocation site (heap blocks), each with its working
 * set (distinct lines touched, from the results) and the line where it misses
 * most. */
#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

static uint32_t key_of(const cb_site *s, cb_data_kind kind) {
  switch (kind) {
  case CB_DATA_VARIABLE:
    return s->var;
  case CB_DATA_TYPE:
    return s->type;
  case CB_DATA_FIELD:
    return s->field;
  case CB_DATA_ALLOC: /* rows of the results, see alloc_rows */
    break;
  }
  return CB_NONE;
}

static uint32_t n_keys(const cb_program *p, cb_data_kind kind) {
  return kind == CB_DATA_VARIABLE ? p->n_vars
         : kind == CB_DATA_TYPE   ? p->n_types
                                  : p->n_fields;
}

/* The struct or union type that owns field f. */
static uint32_t field_owner(const cb_program *p, uint32_t f) {
  for (uint32_t t = 0; t < p->n_types; t++) {
    const cb_ctype *ty = &p->types[t];
    if ((ty->kind == CB_CT_STRUCT || ty->kind == CB_CT_UNION) &&
        f >= ty->first_field && f < ty->first_field + ty->n_fields)
      return t;
  }
  return CB_NONE;
}

static int data_row_cmp(const void *x, const void *y) {
  const cb_data_row *a = x, *b = y;
  if (a->level[0].misses != b->level[0].misses)
    return a->level[0].misses < b->level[0].misses ? 1 : -1;
  if (a->level[0].accesses != b->level[0].accesses)
    return a->level[0].accesses < b->level[0].accesses ? 1 : -1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Heap blocks by allocation site: the results hold the rows already
 * (the driver attributes each access to the block live at its address),
 * so they are only copied and sorted. */
static size_t alloc_rows(const cb_cache_result *c, cb_data_row **rows) {
  cb_data_row *out = calloc(c->n_alloc_sites + 1, sizeof *out);
  size_t n = 0;
  for (uint32_t i = 0; out && i < c->n_alloc_sites; i++) {
    const cb_alloc_site *a = &c->alloc_sites[i];
    cb_data_row *row = &out[n++];
    row->kind = CB_DATA_ALLOC;
    row->id = a->site;
    row->owner = CB_NONE;
    row->lines = a->lines;
    row->hot_file = a->hot_file;
    row->hot_line = a->hot_line;
    memcpy(row->level, a->level, sizeof row->level);
    row->alloc = a;
  }
  if (out)
    qsort(out, n, sizeof *out, data_row_cmp);
  *rows = out;
  return n;
}

size_t cb_report_data(const cb_program *p, const cb_cache_result *c,
                      cb_data_kind kind, cb_data_row **rows) {
  if (kind == CB_DATA_ALLOC)
    return alloc_rows(c, rows);
  uint32_t nk = n_keys(p, kind);
  *rows = NULL;
  uint32_t *slot = malloc(sizeof *slot * (nk + 1));
  uint64_t *hot_misses = calloc(nk + 1, sizeof *hot_misses);
  cb_data_row *out = calloc(nk + 1, sizeof *out);
  if (!slot || !hot_misses || !out) {
    free(slot);
    free(hot_misses);
    free(out);
    return 0;
  }
  for (uint32_t k = 0; k < nk; k++)
    slot[k] = CB_NONE;
  size_t n = 0;
  for (uint32_t s = 0; s < c->n_sites && s < p->n_sites; s++) {
    const cb_site *site = &p->sites[s];
    uint32_t k = key_of(site, kind);
    const cb_site_counts *sc = &c->sites[(size_t)s * c->n_levels];
    if (site->is_call || k >= nk || !sc[0].accesses)
      continue;
    if (slot[k] == CB_NONE) {
      slot[k] = (uint32_t)n;
      cb_data_row *row = &out[n++];
      row->kind = kind;
      row->id = k;
      row->owner = kind == CB_DATA_FIELD ? field_owner(p, k) : CB_NONE;
      const uint64_t *lines = kind == CB_DATA_VARIABLE ? c->var_lines
                              : kind == CB_DATA_TYPE   ? c->type_lines
                                                       : c->field_lines;
      row->lines = lines ? lines[k] : 0;
      row->hot_file = site->file;
      row->hot_line = site->line;
    }
    cb_data_row *row = &out[slot[k]];
    for (unsigned l = 0; l < c->n_levels; l++) {
      row->level[l].accesses += sc[l].accesses;
      row->level[l].misses += sc[l].misses;
      row->level[l].compulsory += sc[l].compulsory;
      row->level[l].capacity += sc[l].capacity;
      row->level[l].conflict += sc[l].conflict;
    }
    if (sc[0].misses > hot_misses[k]) {
      hot_misses[k] = sc[0].misses;
      row->hot_file = site->file;
      row->hot_line = site->line;
    }
  }
  free(slot);
  free(hot_misses);
  qsort(out, n, sizeof *out, data_row_cmp);
  *rows = out;
  return n;
}

static const char *alloc_callee(const cb_program *p, const cb_alloc_site *a) {
  if (a->site < p->n_sites && p->sites[a->site].text)
    return p->sites[a->site].text;
  switch ((cb_libfn)a->callee) {
  case CB_LIBC_CALLOC:
    return "calloc";
  case CB_LIBC_REALLOC:
    return "realloc";
  case CB_LIBC_POSIX_MEMALIGN:
    return "posix_memalign";
  case CB_LIBC_ALIGNED_ALLOC:
    return "aligned_alloc";
  case CB_LIBC_MEMALIGN:
    return "memalign";
  default:
    return "malloc";
  }
}

void cb_report_alloc_name(const cb_program *p, const cb_alloc_site *a,
                          char *buf, size_t n) {
  const cb_site *s = a->site < p->n_sites ? &p->sites[a->site] : NULL;
  const char *file = s && s->file < p->n_files ? p->files[s->file] : "?";
  const char *slash = strrchr(file, '/');
  snprintf(buf, n, "%s@%s:%u", alloc_callee(p, a), slash ? slash + 1 : file,
           s ? s->line : 0);
}

void cb_report_data_name(const cb_program *p, const cb_data_row *row, char *buf,
                         size_t n) {
  switch (row->kind) {
  case CB_DATA_ALLOC: {
    if (!row->alloc) {
      snprintf(buf, n, "?");
      break;
    }
    char site[200];
    cb_report_alloc_name(p, row->alloc, site, sizeof site);
    snprintf(buf, n, "%s (%llu block%s, %llu bytes)", site,
             (unsigned long long)row->alloc->blocks,
             row->alloc->blocks == 1 ? "" : "s",
             (unsigned long long)row->alloc->bytes);
    break;
  }
  case CB_DATA_VARIABLE: {
    const cb_var *v = row->id < p->n_vars ? &p->vars[row->id] : NULL;
    if (v && v->kind != CB_VAR_GLOBAL && v->src_func < p->n_src_funcs)
      snprintf(buf, n, "%s (in %s)", v->name ? v->name : "?",
               p->src_funcs[v->src_func].name);
    else
      snprintf(buf, n, "%s", v && v->name ? v->name : "?");
    break;
  }
  case CB_DATA_TYPE:
    snprintf(buf, n, "%s",
             row->id < p->n_types && p->types[row->id].name
                 ? p->types[row->id].name
                 : "?");
    break;
  case CB_DATA_FIELD: {
    const cb_field *f = row->id < p->n_fields ? &p->fields[row->id] : NULL;
    const char *owner = row->owner < p->n_types && p->types[row->owner].name
                            ? p->types[row->owner].name
                            : "?";
    snprintf(buf, n, "%s.%s (offset %llu)", owner, f && f->name ? f->name : "?",
             f ? (unsigned long long)f->offset : 0ull);
    break;
  }
  }
}

uint64_t cb_report_fa_misses(const cb_cache_result *c, unsigned level,
                             uint64_t lines) {
  if (level >= c->n_levels || !c->distance_hist[level])
    return UINT64_MAX;
  uint64_t m = c->distance_cold[level];
  for (uint64_t d = lines; d < c->distance_len[level]; d++)
    m += c->distance_hist[level][d];
  return m;
}
