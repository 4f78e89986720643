/* Findings: where misses of a class concentrate, why, and one sentence of
 * advice when the cause is clear from the counters:
 *  - conflict misses of a variable that a power-of-two stride folds into
 *    few sets: pad; that it shares with other variables: align;
 *  - capacity misses of a variable walked with a stride of a line or
 *    more: interchange; of one walked densely whose working set exceeds
 *    the level: tile;
 *  - a loop over an array of structs that reads a few of their fields:
 *    split the struct.
 * Anything else gets the finding and no advice. */
#include "cbana/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *fbase(const cb_program *p, uint32_t f) {
  const char *s = f < p->n_files ? p->files[f] : "?";
  const char *b = strrchr(s, '/');
  return b ? b + 1 : s;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint64_t absd(int64_t v) {
  return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

/* The dominant stride of a variable's accesses on a line: the stride of
 * its site with most first-level misses there, if at least half of that
 * site's accesses repeated it; 0 otherwise. Sites of the variable on the
 * line with the same stride are an unrolled loop's copies: m of them
 * stepping S bytes each walk the variable S/m bytes at a time. *elem:
 * that site's size. */
static int64_t line_stride(const cb_program *p, const cb_cache_result *c,
                           uint32_t var, uint32_t file, uint32_t line,
                           uint32_t *elem) {
  uint64_t best = 0;
  int64_t stride = 0;
  bool found = false;
  *elem = 0;
  if (!c->site_stride)
    return 0;
  for (int pass = 0; pass < 2; pass++) {
    int64_t copies = 0;
    for (uint32_t s = 0; s < c->n_sites && s < p->n_sites; s++) {
      const cb_site *site = &p->sites[s];
      const cb_site_counts *sc = &c->sites[(size_t)s * c->n_levels];
      if (site->is_call || site->var != var || site->file != file ||
          site->line != line || !sc->accesses)
        continue;
      bool steady = c->site_stride_runs[s] * 2 >= sc->accesses;
      if (pass == 0 && (!found || sc->misses > best)) {
        found = true;
        best = sc->misses;
        *elem = site->size;
        stride = steady ? c->site_stride[s] : 0;
      } else if (pass == 1 && steady && c->site_stride[s] == stride) {
        copies++;
      }
    }
    if (pass == 1 && copies > 1 && stride % copies == 0)
      stride /= copies;
  }
  return stride;
}

static uint32_t struct_of(const cb_program *p, uint32_t t);

static const char *var_name(const cb_program *p, uint32_t v) {
  return v < p->n_vars && p->vars[v].name ? p->vars[v].name : "?";
}

static int u64_desc(const void *x, const void *y) {
  const cb_var_set *a = x, *b = y;
  if (a->conflict != b->conflict)
    return a->conflict < b->conflict ? 1 : -1;
  return a->set < b->set ? -1 : a->set > b->set;
}

static void conflict_sets(const cb_program *p, const cb_cache_result *c,
                          cb_finding *f) {
  (void)p;
  size_t n = 0;
  for (uint32_t i = 0; i < c->n_var_sets; i++)
    n += c->var_sets[i].var == f->var && c->var_sets[i].conflict;
  cb_var_set *mine = calloc(n + 1, sizeof *mine);
  if (!mine)
    return;
  n = 0;
  uint64_t total = 0;
  for (uint32_t i = 0; i < c->n_var_sets; i++)
    if (c->var_sets[i].var == f->var && c->var_sets[i].conflict) {
      mine[n++] = c->var_sets[i];
      total += c->var_sets[i].conflict;
    }
  qsort(mine, n, sizeof *mine, u64_desc);
  uint64_t acc = 0;
  size_t used = 0;
  while (used < n && acc * 10 < total * 9)
    acc += mine[used++].conflict;
  f->sets_used = (uint32_t)used;
  f->n_sets = c->geometry[0].sets;
  f->first_set = n ? mine[0].set : 0;
  /* Other variables' conflict misses in those sets. */
  uint64_t best[CB_FINDING_SHARERS] = {0};
  for (uint32_t i = 0; i < c->n_var_sets; i++) {
    const cb_var_set *vs = &c->var_sets[i];
    if (vs->var == f->var || !vs->conflict)
      continue;
    bool in = false;
    for (size_t k = 0; k < used && !in; k++)
      in = mine[k].set == vs->set;
    if (!in)
      continue;
    /* Sum this variable's conflicts over the sets (entries are sorted by
     * variable, so a variable's entries are consecutive). */
    uint64_t sum = vs->conflict;
    while (i + 1 < c->n_var_sets && c->var_sets[i + 1].var == vs->var) {
      const cb_var_set *w = &c->var_sets[++i];
      for (size_t k = 0; k < used; k++)
        if (mine[k].set == w->set)
          sum += w->conflict;
    }
    if (sum * 10 < acc) /* under a tenth of ours: not a real sharer */
      continue;
    for (unsigned k = 0; k < CB_FINDING_SHARERS; k++)
      if (sum > best[k]) {
        for (unsigned j = CB_FINDING_SHARERS - 1; j > k; j--) {
          best[j] = best[j - 1];
          f->sharers[j] = f->sharers[j - 1];
        }
        best[k] = sum;
        f->sharers[k] = vs->var;
        if (f->n_sharers < CB_FINDING_SHARERS)
          f->n_sharers++;
        break;
      }
  }
  free(mine);
}

static void conflict_advice(const cb_program *p, const cb_cache_result *c,
                            cb_finding *f) {
  const cb_level_geometry *g = &c->geometry[0];
  const char *name = var_name(p, f->var);
  snprintf(f->message, sizeof f->message,
           "%s takes %" PRIu64 " conflict misses in %s (%" PRIu64
           " of its %" PRIu64 " misses); over the run 90%% of them fall in %u "
           "of its %u sets",
           name, f->class_misses, c->level_names[0], f->class_misses, f->misses,
           f->sets_used, f->n_sets);
  uint64_t s = absd(f->stride);
  if (g->line && s >= g->line && s % g->line == 0 && g->sets > 1) {
    uint64_t step = s / g->line;
    uint64_t visited = g->sets / gcd64(g->sets, step % g->sets ? step : 0);
    if (step % g->sets == 0)
      visited = 1;
    if (visited * 4 <= g->sets) {
      f->action = "pad";
      snprintf(f->advice, sizeof f->advice,
               "%s is walked at %s:%u with a stride of %" PRIu64
               " bytes, which reaches only %" PRIu64 " of the %u sets of %s "
               "at a time: "
               "pad each row of %s by one line (%u bytes) so successive rows "
               "fall into different sets.",
               name, fbase(p, f->file), f->line, s, visited, g->sets,
               c->level_names[0], name, g->line);
      return;
    }
  }
  if (f->n_sharers > 0) {
    f->action = "align";
    char others[160] = "";
    for (unsigned k = 0; k < f->n_sharers; k++) {
      size_t len = strlen(others);
      snprintf(others + len, sizeof others - len, "%s%s", k ? ", " : "",
               var_name(p, f->sharers[k]));
    }
    snprintf(f->advice, sizeof f->advice,
             "%s and %s evict each other in the same sets of %s: offset one "
             "of them by a few lines (pad between them, or align them "
             "differently) so that their elements used together map to "
             "different sets.",
             name, others, c->level_names[0]);
  }
}

static void capacity_advice(const cb_program *p, const cb_cache_result *c,
                            cb_finding *f, uint32_t elem) {
  const cb_level_geometry *g = &c->geometry[f->level];
  const char *name = var_name(p, f->var);
  snprintf(f->message, sizeof f->message,
           "%s takes %" PRIu64 " capacity misses in %s (%" PRIu64
           " of its %" PRIu64 " misses); it touches %" PRIu64
           " distinct lines against the %" PRIu64 " that %s holds",
           name, f->class_misses, c->level_names[f->level], f->class_misses,
           f->misses, f->working_set, f->capacity, c->level_names[f->level]);
  uint64_t s = absd(f->stride);
  uint32_t line0 = c->geometry[0].line;
  /* A stride of several lines, not a struct's size: a row of a 2-D array
   * walked down a column. */
  if (s >= 4 * (uint64_t)line0 && elem && elem < s && !f->in_struct) {
    f->action = "interchange";
    snprintf(f->advice, sizeof f->advice,
             "The loop at %s:%u steps through %s %" PRIu64
             " bytes at a time, so every access needs a new line that is "
             "evicted before its other elements are used: interchange the "
             "loops so that the innermost one walks %s contiguously.",
             fbase(p, f->file), f->line, name, s, name);
  } else if (s > 0 && s < line0) {
    f->action = "tile";
    snprintf(f->advice, sizeof f->advice,
             "%s is swept contiguously at %s:%u and its lines are used "
             "again only after more than the %" PRIu64 " lines of %s have "
             "been touched: tile the loops so that a block of %s that fits "
             "in %s is reused before moving on.",
             name, fbase(p, f->file), f->line, f->capacity,
             c->level_names[f->level], name, c->level_names[f->level]);
  }
  (void)g;
}

/* The struct type behind a variable's type: through pointers, arrays and
 * typedefs. */
static uint32_t struct_of(const cb_program *p, uint32_t t) {
  for (int depth = 0; t < p->n_types && depth < 16; depth++) {
    const cb_ctype *ty = &p->types[t];
    if (ty->kind == CB_CT_STRUCT)
      return t;
    if (ty->kind != CB_CT_POINTER && ty->kind != CB_CT_ARRAY &&
        ty->kind != CB_CT_TYPEDEF)
      return CB_NONE;
    t = ty->elem;
  }
  return CB_NONE;
}

/* A loop that walks an array of structs and reads few of their fields. */
static bool split_finding(const cb_program *p, const cb_cache_result *c,
                          const cb_data_row *row, cb_finding *f) {
  uint32_t st = struct_of(p, p->vars[row->id].type);
  if (st == CB_NONE)
    return false;
  const cb_ctype *ty = &p->types[st];
  uint32_t elem;
  int64_t stride =
      line_stride(p, c, row->id, row->hot_file, row->hot_line, &elem);
  if (absd(stride) != ty->size || ty->size < 2 * elem)
    return false;
  /* Bytes of the struct the hot line reads or writes. */
  uint64_t used = 0;
  char fields[160] = "";
  for (uint32_t k = 0; k < ty->n_fields; k++) {
    uint32_t fi = ty->first_field + k;
    bool touched = false;
    for (uint32_t s = 0; s < c->n_sites && s < p->n_sites && !touched; s++) {
      const cb_site *site = &p->sites[s];
      touched = !site->is_call && site->var == row->id && site->field == fi &&
                site->file == row->hot_file && site->line == row->hot_line &&
                c->sites[(size_t)s * c->n_levels].accesses;
    }
    if (touched) {
      used += p->fields[fi].size;
      size_t len = strlen(fields);
      snprintf(fields + len, sizeof fields - len, "%s%s", len ? ", " : "",
               p->fields[fi].name);
    }
  }
  if (!used || used * 2 > ty->size)
    return false;
  f->kind = CB_FINDING_CAPACITY;
  f->stride = stride;
  f->action = "split";
  snprintf(f->message, sizeof f->message,
           "%s takes %" PRIu64 " misses in %s while the loop at %s:%u uses "
           "%" PRIu64 " of the %" PRIu64 " bytes of each %s",
           var_name(p, row->id), row->level[0].misses, c->level_names[0],
           fbase(p, row->hot_file), row->hot_line, used, ty->size,
           ty->name ? ty->name : "struct");
  snprintf(f->advice, sizeof f->advice,
           "The loop at %s:%u reads only %s of each %s (%" PRIu64 " of %" PRIu64
           " bytes): split the struct so that these fields "
           "sit in their own array and every line fetched is fully used.",
           fbase(p, row->hot_file), row->hot_line, fields,
           ty->name ? ty->name : "struct", used, ty->size);
  return true;
}

static int finding_cmp(const void *x, const void *y) {
  const cb_finding *a = x, *b = y;
  if (a->level != b->level)
    return a->level < b->level ? -1 : 1;
  if (a->class_misses != b->class_misses)
    return a->class_misses < b->class_misses ? 1 : -1;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  return a->var < b->var ? -1 : a->var > b->var;
}

size_t cb_report_findings(const cb_program *p, const cb_cache_result *c,
                          cb_finding **out) {
  *out = NULL;
  size_t n = 0, cap = 16;
  cb_finding *v = calloc(cap, sizeof *v);
  if (!v || !c->classified)
    goto done;
  cb_data_row *rows;
  size_t nr = cb_report_data(p, c, CB_DATA_VARIABLE, &rows);
  for (size_t i = 0; i < nr; i++) {
    const cb_data_row *row = &rows[i];
    for (unsigned l = 0; l < c->n_levels; l++) {
      uint64_t total = c->levels[l].misses;
      const cb_site_counts *rc = &row->level[l];
      for (int kind = 0; kind < 2; kind++) {
        uint64_t cls = kind == 0 ? rc->conflict : rc->capacity;
        if (!total || cls * 50 < total || cls * 5 < rc->misses)
          continue;
        if (kind == 0 && l > 0)
          continue; /* per-set counts per variable: first level only */
        if (n == cap) {
          cb_finding *nv = realloc(v, sizeof *v * cap * 2);
          if (!nv)
            goto rows_done;
          v = nv;
          cap *= 2;
        }
        cb_finding *f = &v[n++];
        memset(f, 0, sizeof *f);
        f->kind = kind == 0 ? CB_FINDING_CONFLICT : CB_FINDING_CAPACITY;
        f->level = l;
        f->var = row->id;
        f->file = row->hot_file;
        f->line = row->hot_line;
        f->func = CB_NONE;
        f->misses = rc->misses;
        f->class_misses = cls;
        f->accesses = row->level[0].accesses;
        uint32_t elem;
        f->stride =
            line_stride(p, c, row->id, row->hot_file, row->hot_line, &elem);
        const cb_level_geometry *g = &c->geometry[l];
        f->capacity = g->line ? g->size / g->line : 0;
        f->working_set =
            g->line ? row->lines * c->geometry[0].line / g->line : row->lines;
        if (kind == 0) {
          conflict_sets(p, c, f);
          conflict_advice(p, c, f);
        } else {
          capacity_advice(p, c, f, elem);
        }
      }
    }
    /* Layout: a few fields of each struct used. */
    cb_finding split;
    memset(&split, 0, sizeof split);
    if (c->levels[0].misses &&
        row->level[0].misses * 50 >= c->levels[0].misses &&
        split_finding(p, c, row, &split)) {
      split.var = row->id;
      split.file = row->hot_file;
      split.line = row->hot_line;
      split.func = CB_NONE;
      split.misses = split.class_misses = row->level[0].misses;
      split.accesses = row->level[0].accesses;
      bool merged = false;
      for (size_t k = 0; k < n && !merged; k++)
        if (v[k].var == row->id && v[k].level == 0 && !v[k].action) {
          v[k].action = split.action;
          memcpy(v[k].advice, split.advice, sizeof split.advice);
          merged = true;
        }
      if (!merged && n < cap)
        v[n++] = split;
    }
  }
rows_done:
  free(rows);
  /* Hot lines. */
  for (unsigned l = 0; l < c->n_levels; l++) {
    cb_row *lines;
    size_t nl = cb_report_aggregate(p, c, CB_VIEW_LINES, &lines);
    uint64_t total = c->levels[l].misses;
    for (size_t i = 0; i < nl; i++) {
      const cb_site_counts *lc = &lines[i].level[l];
      if (!total || lc->misses * 20 < total || lines[i].line == 0)
        continue;
      if (n == cap) {
        cb_finding *nv = realloc(v, sizeof *v * cap * 2);
        if (!nv)
          break;
        v = nv;
        cap *= 2;
      }
      cb_finding *f = &v[n++];
      memset(f, 0, sizeof *f);
      f->kind = CB_FINDING_HOT_LINE;
      f->level = l;
      f->var = CB_NONE;
      f->file = lines[i].file;
      f->line = lines[i].line;
      f->func = lines[i].func;
      f->misses = f->class_misses = lc->misses;
      f->accesses = lines[i].level[0].accesses;
      snprintf(f->message, sizeof f->message,
               "%s:%u takes %" PRIu64 " of the %" PRIu64
               " %s misses (%.1f%%): %" PRIu64 " compulsory, %" PRIu64
               " capacity, %" PRIu64 " conflict",
               fbase(p, f->file), f->line, lc->misses, total, c->level_names[l],
               100.0 * (double)lc->misses / (double)total, lc->compulsory,
               lc->capacity, lc->conflict);
    }
    free(lines);
  }
  qsort(v, n, sizeof *v, finding_cmp);
done:
  *out = v;
  return n;
}

const char *cb_finding_rule(const cb_finding *f) {
  switch (f->kind) {
  case CB_FINDING_CONFLICT:
    return "conflict-misses";
  case CB_FINDING_CAPACITY:
    return f->action && strcmp(f->action, "split") == 0 ? "sparse-struct"
                                                        : "capacity-misses";
  case CB_FINDING_HOT_LINE:
    return "hot-line";
  }
  return "finding";
}
