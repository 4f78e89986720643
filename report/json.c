/* The JSON report (schema: docs/report-json.md), built with json-c so that
 * 64-bit counters stay exact and strings are escaped correctly. */
#include "cbana/report.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *u64(uint64_t v) {
  return json_object_new_uint64(v);
}

static json_object *str_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len = c < 0x80             ? 1
               : (c & 0xe0) == 0xc0 ? 2
               : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4
                                    : 0;
  if (!len || len > n)
    return 0;
  uint32_t cp = len == 1 ? c : c & (0x7f >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Bytes a program wrote, as a JSON string: as they are when they are UTF-8
 * (JSON's text), else with each invalid byte as U+FFFD, and then their
 * exact bytes in base64 as `<name>_base64` too (RFC 4648). */
static void add_bytes(json_object *o, const char *name, const char *s,
                      size_t n) {
  if (!s) {
    json_object_object_add(o, name, NULL);
    return;
  }
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < n && utf8_seq(u + i, n - i))
    i += utf8_seq(u + i, n - i);
  if (i == n) {
    json_object_object_add(o, name, json_object_new_string_len(s, (int)n));
    return;
  }
  char *t = malloc(3 * n + 1), *b = malloc(4 * (n / 3 + 1) + 1);
  if (!t || !b) {
    free(t);
    free(b);
    return;
  }
  size_t k = 0;
  for (i = 0; i < n;) {
    size_t l = utf8_seq(u + i, n - i);
    if (l) {
      memcpy(t + k, u + i, l);
      k += l;
      i += l;
    } else {
      memcpy(t + k, "\xef\xbf\xbd", 3);
      k += 3;
      i++;
    }
  }
  json_object_object_add(o, name, json_object_new_string_len(t, (int)k));
  k = 0;
  for (i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)u[i] << 16 |
                 (i + 1 < n ? (uint32_t)u[i + 1] << 8 : 0) |
                 (i + 2 < n ? u[i + 2] : 0);
    b[k++] = b64[v >> 18 & 63];
    b[k++] = b64[v >> 12 & 63];
    b[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    b[k++] = i + 2 < n ? b64[v & 63] : '=';
  }
  char key[64];
  snprintf(key, sizeof key, "%s_base64", name);
  json_object_object_add(o, key, json_object_new_string_len(b, (int)k));
  free(t);
  free(b);
}

static json_object *level_totals(const cb_level_counts *lc, bool classified) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "accesses", u64(lc->accesses));
  json_object_object_add(o, "reads", u64(lc->reads));
  json_object_object_add(o, "writes", u64(lc->writes));
  json_object_object_add(o, "misses", u64(lc->misses));
  json_object_object_add(o, "read_misses", u64(lc->read_misses));
  json_object_object_add(o, "write_misses", u64(lc->write_misses));
  json_object_object_add(o, "compulsory",
                         classified ? u64(lc->compulsory) : NULL);
  json_object_object_add(o, "capacity", classified ? u64(lc->capacity) : NULL);
  json_object_object_add(o, "conflict", classified ? u64(lc->conflict) : NULL);
  return o;
}

/* accesses (first level), misses keyed by level, classes keyed by level */
static void add_row_counts(json_object *o, const cb_cache_result *c,
                           const cb_row *row) {
  json_object_object_add(o, "accesses", u64(row->level[0].accesses));
  json_object *misses = json_object_new_object();
  json_object *classes = json_object_new_object();
  for (unsigned l = 0; l < c->n_levels; l++) {
    json_object_object_add(misses, c->level_names[l],
                           u64(row->level[l].misses));
    if (c->classified) {
      json_object *k = json_object_new_object();
      json_object_object_add(k, "compulsory", u64(row->level[l].compulsory));
      json_object_object_add(k, "capacity", u64(row->level[l].capacity));
      json_object_object_add(k, "conflict", u64(row->level[l].conflict));
      json_object_object_add(classes, c->level_names[l], k);
    }
  }
  json_object_object_add(o, "misses", misses);
  if (c->classified)
    json_object_object_add(o, "classes", classes);
  else
    json_object_put(classes);
}

static const char *file_name(const cb_program *p, uint32_t f) {
  return f < p->n_files ? p->files[f] : NULL;
}

static const char *func_name(const cb_program *p, uint32_t f) {
  return f < p->n_src_funcs ? p->src_funcs[f].name : NULL;
}

static const char *var_kind_name(cb_var_kind k) {
  switch (k) {
  case CB_VAR_GLOBAL:
    return "global";
  case CB_VAR_LOCAL:
    return "local";
  case CB_VAR_PARAM:
    return "parameter";
  }
  return "unknown";
}

static json_object *view_array(const cb_program *p, const cb_cache_result *c,
                               cb_view view) {
  cb_row *rows;
  size_t n = cb_report_aggregate(p, c, view, &rows);
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < n; i++) {
    const cb_row *row = &rows[i];
    json_object *o = json_object_new_object();
    switch (view) {
    case CB_VIEW_CALLS:
      json_object_object_add(o, "callee", str_or_null(row->callee));
      /* A call is placed by its calling line, as a line is. */
      /* fall through */
    case CB_VIEW_LINES:
      json_object_object_add(o, "file", str_or_null(file_name(p, row->file)));
      json_object_object_add(o, "line", u64(row->line));
      json_object_object_add(o, "function",
                             str_or_null(func_name(p, row->func)));
      break;
    case CB_VIEW_FUNCTIONS:
      json_object_object_add(o, "name", str_or_null(func_name(p, row->func)));
      json_object_object_add(o, "file", str_or_null(file_name(p, row->file)));
      break;
    case CB_VIEW_VARIABLES: {
      const cb_var *v = &p->vars[row->var];
      json_object_object_add(o, "name", str_or_null(v->name));
      json_object_object_add(o, "kind",
                             json_object_new_string(var_kind_name(v->kind)));
      json_object_object_add(o, "function",
                             v->kind == CB_VAR_GLOBAL
                                 ? NULL
                                 : str_or_null(func_name(p, v->src_func)));
      json_object_object_add(
          o, "type",
          v->type < p->n_types ? str_or_null(p->types[v->type].name) : NULL);
      break;
    }
    }
    add_row_counts(o, c, row);
    json_object_array_add(arr, o);
  }
  free(rows);
  return arr;
}

/* The allocation site, blocks and sizes of a heap row. */
static void add_alloc_fields(json_object *o, const cb_program *p,
                             const cb_alloc_site *a) {
  const cb_site *s = a->site < p->n_sites ? &p->sites[a->site] : NULL;
  json_object *where = json_object_new_object();
  json_object_object_add(where, "file",
                         str_or_null(s ? file_name(p, s->file) : NULL));
  json_object_object_add(where, "line", u64(s ? s->line : 0));
  json_object_object_add(where, "function",
                         str_or_null(s ? func_name(p, s->func) : NULL));
  json_object_object_add(o, "alloc_site", where);
  json_object_object_add(o, "blocks", u64(a->blocks));
  json_object_object_add(o, "bytes", u64(a->bytes));
  json_object_object_add(o, "min_size", u64(a->min_size));
  json_object_object_add(o, "max_size", u64(a->max_size));
}

/* Heap blocks as variables of kind "heap", named by allocation site
 * ("malloc@list.c:12"): the same accesses as the pointer variables they
 * are reached through, counted by the block they touch. */
static void add_heap_variables(json_object *arr, const cb_program *p,
                               const cb_cache_result *c) {
  cb_data_row *rows;
  size_t n = cb_report_data(p, c, CB_DATA_ALLOC, &rows);
  for (size_t i = 0; i < n; i++) {
    const cb_alloc_site *a = rows[i].alloc;
    const cb_site *s = a->site < p->n_sites ? &p->sites[a->site] : NULL;
    json_object *o = json_object_new_object();
    char name[256];
    cb_report_alloc_name(p, a, name, sizeof name);
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "kind", json_object_new_string("heap"));
    json_object_object_add(o, "function",
                           str_or_null(s ? func_name(p, s->func) : NULL));
    json_object_object_add(o, "type", NULL);
    add_alloc_fields(o, p, a);
    cb_row r;
    memset(&r, 0, sizeof r);
    memcpy(r.level, rows[i].level, sizeof r.level);
    add_row_counts(o, c, &r);
    json_object_array_add(arr, o);
  }
  free(rows);
}

static json_object *data_array(const cb_program *p, const cb_cache_result *c,
                               cb_data_kind kind) {
  cb_data_row *rows;
  size_t n = cb_report_data(p, c, kind, &rows);
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < n; i++) {
    const cb_data_row *row = &rows[i];
    json_object *o = json_object_new_object();
    char name[256];
    cb_report_data_name(p, row, name, sizeof name);
    json_object_object_add(o, "name", json_object_new_string(name));
    if (kind == CB_DATA_FIELD && row->id < p->n_fields) {
      json_object_object_add(o, "offset", u64(p->fields[row->id].offset));
      json_object_object_add(o, "size", u64(p->fields[row->id].size));
    }
    if (kind == CB_DATA_ALLOC && row->alloc)
      add_alloc_fields(o, p, row->alloc);
    json_object_object_add(o, "working_set_lines", u64(row->lines));
    json_object_object_add(o, "hot_file",
                           str_or_null(file_name(p, row->hot_file)));
    json_object_object_add(o, "hot_line", u64(row->hot_line));
    cb_row r;
    memset(&r, 0, sizeof r);
    memcpy(r.level, row->level, sizeof r.level);
    add_row_counts(o, c, &r);
    json_object_array_add(arr, o);
  }
  free(rows);
  return arr;
}

static json_object *findings_array(const cb_program *p,
                                   const cb_cache_result *c) {
  cb_finding *f;
  size_t n = cb_report_findings(p, c, &f);
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < n; i++) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rule",
                           json_object_new_string(cb_finding_rule(&f[i])));
    json_object_object_add(o, "level",
                           json_object_new_string(c->level_names[f[i].level]));
    json_object_object_add(
        o, "variable",
        f[i].var < p->n_vars ? str_or_null(p->vars[f[i].var].name) : NULL);
    json_object_object_add(o, "file", str_or_null(file_name(p, f[i].file)));
    json_object_object_add(o, "line", u64(f[i].line));
    json_object_object_add(o, "misses", u64(f[i].misses));
    json_object_object_add(o, "class_misses", u64(f[i].class_misses));
    if (f[i].kind == CB_FINDING_CONFLICT) {
      json_object_object_add(o, "sets_used", u64(f[i].sets_used));
      json_object_object_add(o, "sets", u64(f[i].n_sets));
      json_object *sh = json_object_new_array();
      for (unsigned k = 0; k < f[i].n_sharers; k++)
        json_object_array_add(sh, str_or_null(p->vars[f[i].sharers[k]].name));
      json_object_object_add(o, "sharing_with", sh);
    }
    if (f[i].kind == CB_FINDING_CAPACITY) {
      json_object_object_add(o, "working_set_lines", u64(f[i].working_set));
      json_object_object_add(o, "capacity_lines", u64(f[i].capacity));
    }
    json_object_object_add(o, "stride", json_object_new_int64(f[i].stride));
    json_object_object_add(o, "message", json_object_new_string(f[i].message));
    json_object_object_add(o, "action", str_or_null(f[i].action));
    json_object_object_add(o, "advice",
                           f[i].advice[0] ? json_object_new_string(f[i].advice)
                                          : NULL);
    json_object_array_add(arr, o);
  }
  free(f);
  return arr;
}

/* The miss-ratio curve of a level: misses of a fully associative LRU
 * cache at powers of two lines and at the level's own capacity. */
static json_object *mrc_array(const cb_cache_result *c, unsigned l) {
  json_object *arr = json_object_new_array();
  uint64_t cap =
      c->geometry[l].line ? c->geometry[l].size / c->geometry[l].line : 0;
  uint64_t top = c->distance_len[l] > cap * 2 ? c->distance_len[l] : cap * 2;
  bool cap_done = cap == 0;
  for (uint64_t lines = 1;; lines *= 2) {
    if (!cap_done && cap <= lines) {
      if (cap < lines) {
        json_object *pt = json_object_new_object();
        json_object_object_add(pt, "lines", u64(cap));
        json_object_object_add(pt, "misses",
                               u64(cb_report_fa_misses(c, l, cap)));
        json_object_array_add(arr, pt);
      }
      cap_done = true;
    }
    json_object *pt = json_object_new_object();
    json_object_object_add(pt, "lines", u64(lines));
    json_object_object_add(pt, "misses", u64(cb_report_fa_misses(c, l, lines)));
    json_object_array_add(arr, pt);
    if (lines >= top || lines > (1ull << 40))
      break;
  }
  return arr;
}

/* {"accesses", "misses": {LEVEL: n}} of one is_process site. */
static json_object *process_part(const cb_cache_result *c,
                                 const cb_site_counts *k) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "accesses", u64(k[0].accesses));
  json_object *m = json_object_new_object();
  for (unsigned l = 0; l < c->n_levels; l++)
    json_object_object_add(m, c->level_names[l], u64(k[l].misses));
  json_object_object_add(o, "misses", m);
  return o;
}

/* The process's start-up and exit: null when the run did not replay
 * them (the run's "process_note" says why). */
static json_object *process_object(const cb_program *p, const cb_run_result *r,
                                   const cb_cache_result *c) {
  cb_site_counts st[CB_RESULT_LEVELS], ex[CB_RESULT_LEVELS];
  if (!r->process_modelled || !cb_report_process(p, c, st, ex))
    return NULL;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "startup", process_part(c, st));
  json_object_object_add(o, "exit", process_part(c, ex));
  return o;
}

static json_object *cache_object(const cb_program *p, const cb_run_result *r,
                                 const cb_cache_result *c) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "name", json_object_new_string(c->name));
  json_object *levels = json_object_new_object();
  for (unsigned l = 0; l < c->n_levels; l++)
    json_object_object_add(levels, c->level_names[l],
                           level_totals(&c->levels[l], c->classified));
  json_object_object_add(o, "levels", levels);
  json_object_object_add(o, "lines", view_array(p, c, CB_VIEW_LINES));
  json_object_object_add(o, "calls", view_array(p, c, CB_VIEW_CALLS));
  json_object_object_add(o, "process", process_object(p, r, c));
  json_object *vars = view_array(p, c, CB_VIEW_VARIABLES);
  add_heap_variables(vars, p, c);
  json_object_object_add(o, "variables", vars);
  json_object_object_add(o, "functions", view_array(p, c, CB_VIEW_FUNCTIONS));
  json_object *geo = json_object_new_object();
  for (unsigned l = 0; l < c->n_levels; l++) {
    json_object *g = json_object_new_object();
    json_object_object_add(g, "size", u64(c->geometry[l].size));
    json_object_object_add(g, "assoc", u64(c->geometry[l].assoc));
    json_object_object_add(g, "line", u64(c->geometry[l].line));
    json_object_object_add(g, "sets", u64(c->geometry[l].sets));
    json_object_object_add(geo, c->level_names[l], g);
  }
  json_object_object_add(o, "geometry", geo);
  if (!c->classified)
    return o;
  json_object *data = json_object_new_object();
  json_object_object_add(data, "variables", data_array(p, c, CB_DATA_VARIABLE));
  json_object_object_add(data, "types", data_array(p, c, CB_DATA_TYPE));
  json_object_object_add(data, "fields", data_array(p, c, CB_DATA_FIELD));
  json_object_object_add(data, "alloc_sites", data_array(p, c, CB_DATA_ALLOC));
  json_object_object_add(o, "data", data);
  json_object_object_add(o, "findings", findings_array(p, c));
  json_object *mrc = json_object_new_object();
  json_object *rate = json_object_new_object();
  json_object *sets = json_object_new_object();
  for (unsigned l = 0; l < c->n_levels; l++) {
    if (c->distance_hist[l]) {
      json_object_object_add(mrc, c->level_names[l], mrc_array(c, l));
      json_object_object_add(
          rate, c->level_names[l],
          json_object_new_double(1.0 /
                                 (double)(1ull << c->distance_scale_log2[l])));
    }
    if (c->set_misses[l]) {
      json_object *so = json_object_new_object();
      json_object *m = json_object_new_array(), *k = json_object_new_array();
      for (uint32_t i = 0; i < c->geometry[l].sets; i++) {
        json_object_array_add(m, u64(c->set_misses[l][i]));
        json_object_array_add(k, u64(c->set_conflicts[l][i]));
      }
      json_object_object_add(so, "misses", m);
      json_object_object_add(so, "conflict", k);
      json_object_object_add(sets, c->level_names[l], so);
    }
  }
  json_object_object_add(o, "miss_ratio_curve", mrc);
  json_object_object_add(o, "mrc_sampling", rate);
  json_object_object_add(o, "sets", sets);
  return o;
}

static json_object *run_object(const cb_program *p, const cb_run_result *r) {
  json_object *o = json_object_new_object();
  json_object *in = json_object_new_object();
  json_object_object_add(in, "index", u64(r->index));
  json_object *args = json_object_new_array();
  for (unsigned i = 0; i < r->n_args; i++)
    json_object_array_add(args, json_object_new_string(r->args[i]));
  json_object_object_add(in, "args", args);
  json_object_object_add(in, "stdin", str_or_null(r->stdin_path));
  if (r->inputs_line)
    json_object_object_add(in, "line", u64(r->inputs_line));
  json_object_object_add(o, "input", in);
  json_object_object_add(o, "status",
                         json_object_new_string(r->ok ? "ok" : "error"));
  if (!r->ok) {
    json_object *e = json_object_new_object();
    json_object_object_add(e, "message", str_or_null(r->error_message));
    json_object_object_add(e, "file", str_or_null(r->error_file));
    json_object_object_add(e, "line", u64(r->error_line));
    json_object_object_add(o, "error", e);
  }
  json_object_object_add(o, "exit_code",
                         r->exited ? json_object_new_int(r->exit_code) : NULL);
  char path[32];
  snprintf(path, sizeof path, "P%u", r->path_class);
  json_object_object_add(o, "path", json_object_new_string(path));
  snprintf(path, sizeof path, "%016llx", (unsigned long long)r->path_hash);
  json_object_object_add(o, "path_hash", json_object_new_string(path));
  json_object_object_add(o, "operations", u64(r->operations));
  add_bytes(o, "output", r->output,
            r->output_len ? r->output_len
                          : (r->output ? strlen(r->output) : 0));
  json_object_object_add(o, "process_note", str_or_null(r->process_note));
  add_bytes(o, "stderr", r->errors, r->errors ? strlen(r->errors) : 0);
  json_object *files = json_object_new_array();
  for (unsigned i = 0; i < r->n_files; i++) {
    json_object *f = json_object_new_object();
    json_object_object_add(f, "path", str_or_null(r->files[i].path));
    json_object_object_add(f, "bytes", u64(r->files[i].bytes));
    json_object_object_add(f, "written", u64(r->files[i].writes));
    json_object_object_add(f, "removed",
                           json_object_new_boolean(r->files[i].removed));
    json_object_array_add(files, f);
  }
  json_object_object_add(o, "files_written", files);
  json_object *caches = json_object_new_array();
  for (unsigned i = 0; i < r->n_caches; i++)
    json_object_array_add(caches, cache_object(p, r, &r->caches[i]));
  json_object_object_add(o, "caches", caches);
  return o;
}

/* Which inputs share which path class. */
static json_object *paths_array(const cb_results *r) {
  json_object *arr = json_object_new_array();
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    json_object *cls = json_object_new_object();
    char name[32];
    snprintf(name, sizeof name, "P%u", k);
    json_object_object_add(cls, "path", json_object_new_string(name));
    json_object *inputs = json_object_new_array();
    for (unsigned i = 0; i < r->n_runs; i++)
      if (r->runs[i].path_class == k)
        json_object_array_add(inputs, u64(r->runs[i].index));
    json_object_object_add(cls, "inputs", inputs);
    json_object_array_add(arr, cls);
  }
  return arr;
}

/* "program": what was analysed; "shard": which slice of the inputs. */
static void add_batch(json_object *root, const cb_report_batch *b,
                      const cb_program *p) {
  json_object *prog = json_object_new_object();
  json_object *src = json_object_new_array();
  for (unsigned i = 0; i < b->n_sources; i++)
    json_object_array_add(src, json_object_new_string(b->sources[i]));
  json_object_object_add(prog, "sources", src);
  json_object_object_add(prog, "cflags", str_or_null(b->cflags));
  json_object_object_add(prog, "compile_commands", str_or_null(b->compdb_dir));
  json_object_object_add(prog, "argv0", str_or_null(b->argv0));
  json_object_object_add(prog, "inputs", str_or_null(b->inputs));
  /* whether runs that reach them replay start-up and exit: what a run
   * that stopped before would have had */
  json_object_object_add(prog, "process_sites",
                         json_object_new_boolean(p->process != NULL));
  json_object_object_add(root, "program", prog);
  if (!b->shards)
    return;
  json_object *sh = json_object_new_object();
  json_object_object_add(sh, "index", u64(b->shard));
  json_object_object_add(sh, "count", u64(b->shards));
  json_object_object_add(sh, "total_inputs", u64(b->total_inputs));
  json_object_object_add(root, "shard", sh);
}

int cb_report_json_put(FILE *out, struct json_object *doc) {
  const char *text = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
               JSON_C_TO_STRING_NOSLASHESCAPE);
  return fputs(text, out) < 0 || fputc('\n', out) == EOF ? -1 : 0;
}

int cb_report_json(FILE *out, const cb_results *r,
                   const cb_report_options *opt) {
  json_object *root = json_object_new_object();
  json_object_object_add(root, "tool", json_object_new_string("cbana"));
  json_object *files = json_object_new_array();
  for (uint32_t i = 0; i < r->program->n_files; i++)
    json_object_array_add(files, json_object_new_string(r->program->files[i]));
  json_object_object_add(root, "files", files);
  json_object *runs = json_object_new_array();
  for (unsigned i = 0; i < r->n_runs; i++)
    json_object_array_add(runs, run_object(r->program, &r->runs[i]));
  json_object_object_add(root, "runs", runs);
  json_object_object_add(root, "paths", paths_array(r));
  json_object_object_add(root, "library_note", str_or_null(r->library_note));
  if (opt && opt->batch)
    add_batch(root, opt->batch, r->program);
  int rc = cb_report_json_put(out, root);
  json_object_put(root);
  return rc;
}
