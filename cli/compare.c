/* Loading, checking and matching JSON reports for check and diff. */
#include "compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The shape check and diff rely on. */
static const char *shape_error(json_object *root) {
  if (!json_object_is_type(root, json_type_object))
    return "not a JSON object";
  json_object *tool = get(root, "tool");
  if (!tool || strcmp(json_object_get_string(tool), "cbana") != 0)
    return "not a cbana JSON report (no \"tool\": \"cbana\")";
  json_object *runs = get(root, "runs");
  if (!runs || !json_object_is_type(runs, json_type_array))
    return "a cbana report without a \"runs\" array";
  for (size_t i = 0; i < json_object_array_length(runs); i++) {
    json_object *run = json_object_array_get_idx(runs, i);
    json_object *caches = get(run, "caches");
    if (!get(run, "input") || !caches ||
        !json_object_is_type(caches, json_type_array))
      return "a run without \"input\" or \"caches\"";
    for (size_t k = 0; k < json_object_array_length(caches); k++) {
      json_object *c = json_object_array_get_idx(caches, k);
      if (!get(c, "name") || !get(c, "levels"))
        return "a cache without \"name\" or \"levels\"";
    }
  }
  return NULL;
}

json_object *cb_report_parse(const char *text, const char *path,
                             const char *command) {
  json_tokener *tok = json_tokener_new();
  json_object *root = tok ? json_tokener_parse_ex(tok, text, -1) : NULL;
  if (!root) {
    enum json_tokener_error e =
        tok ? json_tokener_get_error(tok) : json_tokener_error_depth;
    if (e == json_tokener_continue)
      fprintf(stderr, "cbana %s: %s: malformed JSON: it ends too early\n",
              command, path);
    else
      fprintf(stderr, "cbana %s: %s: malformed JSON at byte %zu: %s\n", command,
              path, tok ? json_tokener_get_parse_end(tok) : 0,
              json_tokener_error_desc(e));
    if (tok)
      json_tokener_free(tok);
    return NULL;
  }
  json_tokener_free(tok);
  const char *why = shape_error(root);
  if (why) {
    fprintf(stderr, "cbana %s: %s: %s\n", command, path, why);
    json_object_put(root);
    return NULL;
  }
  return root;
}

json_object *cb_report_load(const char *path, const char *what,
                            const char *command) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cbana %s: %s: cannot read the %s: %s\n", command, path,
            what, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "cbana %s: %s: out of memory\n", command, path);
    return NULL;
  }
  buf[n] = '\0';
  json_object *root = cb_report_parse(buf, path, command);
  free(buf);
  return root;
}

/* The input's identity: its arguments and standard input. */
static bool same_input(json_object *a, json_object *b) {
  json_object *ia = get(a, "input"), *ib = get(b, "input");
  json_object *aa = get(ia, "args"), *ab = get(ib, "args");
  if (!aa || !ab ||
      json_object_array_length(aa) != json_object_array_length(ab))
    return false;
  for (size_t i = 0; i < json_object_array_length(aa); i++)
    if (strcmp(json_object_get_string(json_object_array_get_idx(aa, i)),
               json_object_get_string(json_object_array_get_idx(ab, i))))
      return false;
  const char *sa = json_object_get_string(get(ia, "stdin"));
  const char *sb = json_object_get_string(get(ib, "stdin"));
  return (!sa && !sb) || (sa && sb && strcmp(sa, sb) == 0);
}

json_object *cb_report_match_run(json_object *report, json_object *run) {
  json_object *runs = get(report, "runs");
  for (size_t i = 0; runs && i < json_object_array_length(runs); i++) {
    json_object *r = json_object_array_get_idx(runs, i);
    if (same_input(r, run))
      return r;
  }
  return NULL;
}

json_object *cb_report_cache(json_object *run, const char *name) {
  json_object *caches = get(run, "caches");
  for (size_t i = 0; caches && i < json_object_array_length(caches); i++) {
    json_object *c = json_object_array_get_idx(caches, i);
    if (strcmp(json_object_get_string(get(c, "name")), name) == 0)
      return c;
  }
  return NULL;
}

const char *cb_report_input_text(json_object *run) {
  static char buf[512];
  json_object *in = get(run, "input");
  json_object *args = get(in, "args");
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; args && i < json_object_array_length(args); i++)
    len += (size_t)snprintf(
        buf + len, len < sizeof buf ? sizeof buf - len : 0, "%s%s",
        i ? " " : "",
        json_object_get_string(json_object_array_get_idx(args, i)));
  const char *s = json_object_get_string(get(in, "stdin"));
  if (s && len < sizeof buf)
    snprintf(buf + len, sizeof buf - len, "%s< %s", len ? " " : "", s);
  if (!buf[0])
    snprintf(buf, sizeof buf, "(no arguments)");
  return buf;
}

int64_t cb_report_level(json_object *cache, const char *level,
                        const char *field) {
  json_object *v = get(get(get(cache, "levels"), level), field);
  return v ? json_object_get_int64(v) : -1;
}

static void row_key(json_object *row, const char *table, char *key, size_t n) {
  const char *file = json_object_get_string(get(row, "file"));
  const char *fn = json_object_get_string(get(row, "function"));
  const char *name = json_object_get_string(get(row, "name"));
  /* Files by their last component: a baseline made in another checkout
   * (another absolute path) still matches. */
  const char *slash = file ? strrchr(file, '/') : NULL;
  if (slash)
    file = slash + 1;
  if (strcmp(table, "lines") == 0)
    snprintf(key, n, "%s:%d", file ? file : "?",
             json_object_get_int(get(row, "line")));
  else if (strcmp(table, "functions") == 0)
    snprintf(key, n, "%s", name ? name : "?");
  else
    snprintf(key, n, "%s%s%s", name ? name : "?", fn ? " in " : "",
             fn ? fn : "");
}

static int delta_cmp(const void *x, const void *y) {
  const cb_row_delta *a = x, *b = y;
  int64_t da = a->after - a->before, db = b->after - b->before;
  if (da != db)
    return da < db ? 1 : -1;
  return strcmp(a->key, b->key);
}

static cb_row_delta *find_delta(cb_row_delta *v, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].key, key) == 0)
      return &v[i];
  return NULL;
}

size_t cb_report_row_deltas(json_object *a, json_object *b, const char *table,
                            const char *level, cb_row_delta **out) {
  json_object *ta = get(a, table), *tb = get(b, table);
  size_t na = ta ? json_object_array_length(ta) : 0;
  size_t nb = tb ? json_object_array_length(tb) : 0;
  cb_row_delta *v = calloc(na + nb + 1, sizeof *v);
  size_t n = 0;
  if (!v) {
    *out = NULL;
    return 0;
  }
  for (int side = 0; side < 2; side++) {
    json_object *t = side ? tb : ta;
    size_t nt = side ? nb : na;
    for (size_t i = 0; i < nt; i++) {
      json_object *row = json_object_array_get_idx(t, i);
      char key[320];
      row_key(row, table, key, sizeof key);
      json_object *m = get(get(row, "misses"), level);
      int64_t misses = m ? json_object_get_int64(m) : 0;
      cb_row_delta *d = find_delta(v, n, key);
      if (!d || side) { /* the file and line as the newer report has them */
        if (!d) {
          d = &v[n++];
          snprintf(d->key, sizeof d->key, "%s", key);
        }
        const char *file = json_object_get_string(get(row, "file"));
        snprintf(d->file, sizeof d->file, "%s", file ? file : "");
        d->line = (unsigned)json_object_get_int(get(row, "line"));
      }
      if (side)
        d->after += misses;
      else
        d->before += misses;
    }
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (v[i].before != v[i].after)
      v[k++] = v[i];
  qsort(v, k, sizeof *v, delta_cmp);
  *out = v;
  return k;
}
