/* The program-state graph: the branch points of the program with their
 * conditions, the path classes the inputs fall into, what each class
 * does at each branch (cb_run_result.branches) and how often it took each
 * side (branch_counts), the inputs of each class and their misses. Text, JSON
 * and Graphviz DOT. */
#include "cbana/report.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* The outcome of class k at branch b, over its runs. */
static const char *class_outcome(const cb_results *r, unsigned k, uint32_t b) {
  unsigned bits = 0;
  for (unsigned i = 0; i < r->n_runs; i++)
    if (r->runs[i].path_class == k && r->runs[i].branches)
      bits |= r->runs[i].branches[b];
  bool t = bits & CB_BRANCH_TRUE, f = bits & CB_BRANCH_FALSE;
  if (t && f)
    return "both";
  if (t)
    return "true";
  if (f)
    return "false";
  if ((bits & CB_BRANCH_NOT_TRUE) && (bits & CB_BRANCH_NOT_FALSE))
    return "not reached";
  return "?";
}

/* How often class k's inputs went each way at branch b (counts[0]: true,
 * [1]: false), from its first input: inputs of a class decide every
 * branch alike, in the same order, so their counts are equal. False when
 * the runs hold no counts. */
static bool class_counts(const cb_results *r, unsigned k, uint32_t b,
                         uint64_t counts[2]) {
  for (unsigned i = 0; i < r->n_runs; i++)
    if (r->runs[i].path_class == k) {
      if (!r->runs[i].branch_counts)
        return false;
      counts[0] = r->runs[i].branch_counts[2 * (size_t)b];
      counts[1] = r->runs[i].branch_counts[2 * (size_t)b + 1];
      return true;
    }
  return false;
}

/* Does the branch's outcome tell classes apart? */
static bool deciding(const cb_results *r, uint32_t b) {
  const char *first = NULL;
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    const char *o = class_outcome(r, k, b);
    if (strcmp(o, "?") == 0)
      continue;
    if (first && strcmp(first, o) != 0)
      return true;
    first = o;
  }
  return false;
}

static const char *base(const cb_program *p, uint32_t f) {
  const char *s = f < p->n_files ? p->files[f] : "?";
  const char *b = strrchr(s, '/');
  return b ? b + 1 : s;
}

static const char *branch_func(const cb_program *p, const cb_branch *br) {
  return br->func < p->n_functions ? p->functions[br->func].name : "?";
}

static void print_args(FILE *out, const cb_run_result *run) {
  for (unsigned a = 0; a < run->n_args; a++)
    fprintf(out, "%s%s", a ? " " : "", run->args[a]);
  if (run->stdin_path)
    fprintf(out, "%s< %s", run->n_args ? " " : "", run->stdin_path);
}

int cb_report_paths_text(FILE *out, const cb_results *r,
                         const cb_report_options *opt) {
  (void)opt;
  const cb_program *p = r->program;
  fprintf(out, "%u input%s, %u path class%s, %u branch point%s\n", r->n_runs,
          r->n_runs == 1 ? "" : "s", r->n_path_classes,
          r->n_path_classes == 1 ? "" : "es", p->n_branches,
          p->n_branches == 1 ? "" : "s");
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    fprintf(out, "\nP%u:\n", k);
    for (unsigned i = 0; i < r->n_runs; i++) {
      const cb_run_result *run = &r->runs[i];
      if (run->path_class != k)
        continue;
      fprintf(out, "  input %u: ", run->index);
      print_args(out, run);
      if (run->n_caches) {
        const cb_cache_result *c = &run->caches[0];
        for (unsigned l = 0; l < c->n_levels; l++)
          fprintf(out, "  %s misses %" PRIu64, c->level_names[l],
                  c->levels[l].misses);
      }
      fprintf(out, "%s\n", run->ok ? "" : "  (stopped)");
    }
  }
  unsigned n_dec = 0;
  for (uint32_t b = 0; b < p->n_branches; b++)
    n_dec += deciding(r, b);
  fprintf(out, "\nbranch points whose outcome tells the classes apart: %u\n",
          n_dec);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1)
      fprintf(out, "\nthe other branch points:\n");
    for (uint32_t b = 0; b < p->n_branches; b++) {
      if (deciding(r, b) != (pass == 0))
        continue;
      const cb_branch *br = &p->branches[b];
      fprintf(out, "  B%u %s:%u in %s: %s\n", b, base(p, br->file), br->line,
              branch_func(p, br), br->text ? br->text : "(no condition text)");
      fprintf(out, "     ");
      for (unsigned k = 1; k <= r->n_path_classes; k++) {
        uint64_t n[2];
        fprintf(out, "  P%u: %s", k, class_outcome(r, k, b));
        if (class_counts(r, k, b, n) && (n[0] || n[1]))
          fprintf(out, " (true %" PRIu64 ", false %" PRIu64 ")", n[0], n[1]);
      }
      /* the frontend could not tell the compiled branch's sense from the
         source's: true and false are the compiled branch's */
      if (!br->sense)
        fprintf(out, "  (compiled sense)");
      fputc('\n', out);
    }
  }
  bool exact = r->n_runs && r->runs[0].branch_counts;
  if (exact)
    fprintf(out, "\n(outcomes: true/false/both as the inputs took them, with "
                 "how often each side was taken per input)\n");
  else
    fprintf(out, "\n(outcomes: true/false/both as far as the accesses under "
                 "each side show; ?: the side makes no access of its own)\n");
  return ferror(out) ? -1 : 0;
}

int cb_report_paths_json(FILE *out, const cb_results *r,
                         const cb_report_options *opt) {
  (void)opt;
  const cb_program *p = r->program;
  json_object *root = json_object_new_object();
  json_object_object_add(root, "tool", json_object_new_string("cbana"));
  json_object *brs = json_object_new_array();
  for (uint32_t b = 0; b < p->n_branches; b++) {
    const cb_branch *br = &p->branches[b];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_int((int)b));
    json_object_object_add(o, "file",
                           br->file < p->n_files
                               ? json_object_new_string(p->files[br->file])
                               : NULL);
    json_object_object_add(o, "line", json_object_new_int((int)br->line));
    json_object_object_add(o, "function",
                           json_object_new_string(branch_func(p, br)));
    json_object_object_add(o, "condition",
                           br->text ? json_object_new_string(br->text) : NULL);
    json_object_object_add(
        o, "sense", json_object_new_string(br->sense ? "source" : "compiled"));
    json_object_object_add(o, "deciding",
                           json_object_new_boolean(deciding(r, b)));
    json_object_array_add(brs, o);
  }
  json_object_object_add(root, "branches", brs);
  json_object *classes = json_object_new_array();
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    json_object *cls = json_object_new_object();
    char name[32];
    snprintf(name, sizeof name, "P%u", k);
    json_object_object_add(cls, "path", json_object_new_string(name));
    json_object *inputs = json_object_new_array();
    for (unsigned i = 0; i < r->n_runs; i++) {
      const cb_run_result *run = &r->runs[i];
      if (run->path_class != k)
        continue;
      json_object *in = json_object_new_object();
      json_object_object_add(in, "index", json_object_new_int((int)run->index));
      json_object *args = json_object_new_array();
      for (unsigned a = 0; a < run->n_args; a++)
        json_object_array_add(args, json_object_new_string(run->args[a]));
      json_object_object_add(in, "args", args);
      json_object *m = json_object_new_object();
      if (run->n_caches)
        for (unsigned l = 0; l < run->caches[0].n_levels; l++)
          json_object_object_add(
              m, run->caches[0].level_names[l],
              json_object_new_uint64(run->caches[0].levels[l].misses));
      json_object_object_add(in, "misses", m);
      json_object_array_add(inputs, in);
    }
    json_object_object_add(cls, "inputs", inputs);
    json_object *oc = json_object_new_object();
    for (uint32_t b = 0; b < p->n_branches; b++) {
      char id[16];
      snprintf(id, sizeof id, "%u", b);
      json_object_object_add(oc, id,
                             json_object_new_string(class_outcome(r, k, b)));
    }
    json_object_object_add(cls, "outcomes", oc);
    json_object *counts = json_object_new_object();
    for (uint32_t b = 0; b < p->n_branches; b++) {
      uint64_t n[2];
      if (!class_counts(r, k, b, n))
        break;
      char id[16];
      snprintf(id, sizeof id, "%u", b);
      json_object *c = json_object_new_object();
      json_object_object_add(c, "true", json_object_new_uint64(n[0]));
      json_object_object_add(c, "false", json_object_new_uint64(n[1]));
      json_object_object_add(counts, id, c);
    }
    json_object_object_add(cls, "counts", counts);
    json_object_array_add(classes, cls);
  }
  json_object_object_add(root, "classes", classes);
  int rc = cb_report_json_put(out, root);
  json_object_put(root);
  return rc;
}

/* A DOT string literal's contents. */
static void dot_str(FILE *out, const char *s) {
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', out);
    fputc(*s, out);
  }
}

int cb_report_paths_dot(FILE *out, const cb_results *r,
                        const cb_report_options *opt) {
  (void)opt;
  const cb_program *p = r->program;
  bool all = r->n_path_classes <= 1;
  fprintf(out, "digraph cbana_paths {\n  rankdir=LR;\n"
               "  node [fontname=\"monospace\"];\n");
  uint32_t prev = CB_NONE;
  for (uint32_t b = 0; b < p->n_branches; b++) {
    if (!all && !deciding(r, b))
      continue;
    const cb_branch *br = &p->branches[b];
    fprintf(out, "  B%u [shape=diamond, label=\"%s:%u\\n", b, base(p, br->file),
            br->line);
    dot_str(out, br->text ? br->text : "?");
    fprintf(out, "\"];\n");
    if (prev != CB_NONE)
      fprintf(out, "  B%u -> B%u [style=dotted, arrowhead=none];\n", prev, b);
    prev = b;
  }
  for (unsigned k = 1; k <= r->n_path_classes; k++) {
    fprintf(out, "  P%u [shape=box, label=\"P%u\\ninputs", k, k);
    uint64_t lo = UINT64_MAX, hi = 0;
    const char *lname = NULL;
    for (unsigned i = 0; i < r->n_runs; i++) {
      const cb_run_result *run = &r->runs[i];
      if (run->path_class != k)
        continue;
      fprintf(out, " %u", run->index);
      if (run->n_caches && run->caches[0].n_levels) {
        uint64_t m = run->caches[0].levels[0].misses;
        lname = run->caches[0].level_names[0];
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
      }
    }
    if (lname)
      fprintf(out, "\\n%s misses %" PRIu64 "%s", lname, lo, "");
    if (lname && hi != lo)
      fprintf(out, "..%" PRIu64, hi);
    fprintf(out, "\"];\n");
    for (uint32_t b = 0; b < p->n_branches; b++) {
      if (!all && !deciding(r, b))
        continue;
      const char *o = class_outcome(r, k, b);
      if (strcmp(o, "?") && strcmp(o, "not reached"))
        fprintf(out, "  B%u -> P%u [label=\"%s\"];\n", b, k, o);
    }
  }
  fprintf(out, "}\n");
  return ferror(out) ? -1 : 0;
}
