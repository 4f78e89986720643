/* SARIF 2.1.0 (OASIS): one result per finding (report/advice.c) of every
 * input and cache, with a rule per kind: conflict-misses,
 * capacity-misses, sparse-struct, hot-line. Code-scanning tools and
 * editors place each at its source line. */
#include "cbana/report.h"
#include "json_render.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *id, *name, *text;
} rules[] = {
    {"conflict-misses", "ConflictMisses",
     "Misses of a variable that a fully associative cache of the same size "
     "would not take: its lines map to too few sets."},
    {"capacity-misses", "CapacityMisses",
     "Misses of a variable whose reuse comes after more distinct lines "
     "than the cache level holds."},
    {"sparse-struct", "SparseStruct",
     "A loop over an array of structs uses only part of each struct, so "
     "most of every line fetched is wasted."},
    {"hot-line", "HotLine",
     "A source line that takes a large share of a cache level's misses."},
};

static json_object *str(const char *s) {
  return json_object_new_string(s ? s : "");
}

static int rule_index(const char *id) {
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (strcmp(rules[i].id, id) == 0)
      return (int)i;
  return 0;
}

json_object *cb_sarif_begin(json_object **results) {
  json_object *root = json_object_new_object();
  json_object_object_add(root, "$schema",
                         str("https://json.schemastore.org/sarif-2.1.0.json"));
  json_object_object_add(root, "version", str("2.1.0"));
  json_object *runs = json_object_new_array();
  json_object *run = json_object_new_object();
  json_object *tool = json_object_new_object();
  json_object *driver = json_object_new_object();
  json_object_object_add(driver, "name", str("cbana"));
  json_object_object_add(driver, "semanticVersion", str("0.1.0"));
  json_object *jr = json_object_new_array();
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "id", str(rules[i].id));
    json_object_object_add(o, "name", str(rules[i].name));
    json_object *d = json_object_new_object();
    json_object_object_add(d, "text", str(rules[i].text));
    json_object_object_add(o, "shortDescription", d);
    json_object_array_add(jr, o);
  }
  json_object_object_add(driver, "rules", jr);
  json_object_object_add(tool, "driver", driver);
  json_object_object_add(run, "tool", tool);
  *results = json_object_new_array();
  json_object_object_add(run, "results", *results);
  json_object_array_add(runs, run);
  json_object_object_add(root, "runs", runs);
  return root;
}

json_object *cb_sarif_result(const char *rule, const char *text,
                             const char *uri, unsigned line) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "ruleId", str(rule));
  json_object_object_add(o, "ruleIndex", json_object_new_int(rule_index(rule)));
  json_object_object_add(
      o, "level", str(strcmp(rule, "hot-line") == 0 ? "note" : "warning"));
  json_object *msg = json_object_new_object();
  json_object_object_add(msg, "text", str(text));
  json_object_object_add(o, "message", msg);
  json_object *locs = json_object_new_array();
  json_object *loc = json_object_new_object();
  json_object *phys = json_object_new_object();
  json_object *art = json_object_new_object();
  json_object_object_add(art, "uri", str(uri));
  json_object_object_add(phys, "artifactLocation", art);
  json_object *region = json_object_new_object();
  json_object_object_add(region, "startLine", json_object_new_int((int)line));
  json_object_object_add(phys, "region", region);
  json_object_object_add(loc, "physicalLocation", phys);
  json_object_array_add(locs, loc);
  json_object_object_add(o, "locations", locs);
  return o;
}

int cb_sarif_end(FILE *out, json_object *root) {
  int rc = cb_report_json_put(out, root);
  json_object_put(root);
  return rc;
}

int cb_report_sarif(FILE *out, const cb_results *r,
                    const cb_report_options *opt) {
  (void)opt;
  const cb_program *p = r->program;
  json_object *results;
  json_object *root = cb_sarif_begin(&results);
  for (unsigned i = 0; i < r->n_runs; i++) {
    const cb_run_result *rr = &r->runs[i];
    for (unsigned k = 0; k < rr->n_caches; k++) {
      const cb_cache_result *c = &rr->caches[k];
      cb_finding *f;
      size_t n = cb_report_findings(p, c, &f);
      for (size_t j = 0; j < n; j++) {
        if (f[j].file >= p->n_files || f[j].line == 0)
          continue;
        const char *rule = cb_finding_rule(&f[j]);
        char text[1024];
        snprintf(text, sizeof text, "Input %u, cache %s: %s.%s%s", rr->index,
                 c->name, f[j].message, f[j].advice[0] ? " " : "", f[j].advice);
        json_object *o =
            cb_sarif_result(rule, text, p->files[f[j].file], f[j].line);
        json_object *props = json_object_new_object();
        json_object_object_add(props, "input",
                               json_object_new_int((int)rr->index));
        json_object_object_add(props, "cache", str(c->name));
        json_object_object_add(props, "level", str(c->level_names[f[j].level]));
        json_object_object_add(props, "misses",
                               json_object_new_uint64(f[j].misses));
        json_object_object_add(props, "classMisses",
                               json_object_new_uint64(f[j].class_misses));
        if (f[j].var < p->n_vars)
          json_object_object_add(props, "variable",
                                 str(p->vars[f[j].var].name));
        if (f[j].action)
          json_object_object_add(props, "action", str(f[j].action));
        json_object_object_add(o, "properties", props);
        json_object_array_add(results, o);
      }
      free(f);
    }
  }
  return cb_sarif_end(out, root);
}

/* The same from a JSON report read back: its findings carry the sentences
 * and numbers cb_report_sarif takes from the results. */
int cb_jr_sarif(FILE *out, json_object *doc) {
  json_object *results;
  json_object *root = cb_sarif_begin(&results);
  json_object *runs = cb_jr_get(doc, "runs");
  for (size_t i = 0; i < cb_jr_len(runs); i++) {
    json_object *run = cb_jr_at(runs, i);
    unsigned index = (unsigned)cb_jr_u64(cb_jr_get(run, "input"), "index");
    json_object *caches = cb_jr_get(run, "caches");
    for (size_t k = 0; k < cb_jr_len(caches); k++) {
      json_object *c = cb_jr_at(caches, k);
      const char *cname = cb_jr_str(c, "name");
      json_object *f = cb_jr_get(c, "findings");
      for (size_t j = 0; j < cb_jr_len(f); j++) {
        json_object *x = cb_jr_at(f, j);
        const char *file = cb_jr_str(x, "file"), *rule = cb_jr_str(x, "rule");
        unsigned line = (unsigned)cb_jr_u64(x, "line");
        if (!file || !line || !rule)
          continue;
        const char *msg = cb_jr_str(x, "message"),
                   *adv = cb_jr_str(x, "advice");
        char text[1024];
        snprintf(text, sizeof text, "Input %u, cache %s: %s.%s%s", index,
                 cname ? cname : "", msg ? msg : "", adv ? " " : "",
                 adv ? adv : "");
        json_object *o = cb_sarif_result(rule, text, file, line);
        json_object *props = json_object_new_object();
        json_object_object_add(props, "input", json_object_new_int((int)index));
        json_object_object_add(props, "cache", str(cname));
        json_object_object_add(props, "level", str(cb_jr_str(x, "level")));
        json_object_object_add(props, "misses",
                               json_object_new_uint64(cb_jr_u64(x, "misses")));
        json_object_object_add(
            props, "classMisses",
            json_object_new_uint64(cb_jr_u64(x, "class_misses")));
        if (cb_jr_str(x, "variable"))
          json_object_object_add(props, "variable",
                                 str(cb_jr_str(x, "variable")));
        if (cb_jr_str(x, "action"))
          json_object_object_add(props, "action", str(cb_jr_str(x, "action")));
        json_object_object_add(o, "properties", props);
        json_object_array_add(results, o);
      }
    }
  }
  return cb_sarif_end(out, root);
}
