/* `cbana merge A.json B.json ... -o all.json`: JSON reports of slices of
 * one inputs file (`analyze --shard K/N`), of separate cache
 * configurations or of separate programs, joined into one report.
 *
 * Reports of one program (their "program" objects equal) are joined by
 * input index: a run found in two reports must be the same input with the
 * same outcome, and then its caches are joined; every run must end with
 * the same caches, of the same geometry. Shards must all be there, of one
 * count and inputs file. Path classes are numbered again as one run over
 * all the inputs numbers them (analysis/pipeline/paths.c): by first appearance
 * of the path hash in input order, per program. A report that breaks any of
 * this is refused with its name (exit 2): the joined report would
 * otherwise mix results that do not belong together. */
#include "commands.h"
#include "compare.h"

#include "cbana/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cb_cmd_merge_usage(void) {
  printf("usage: cbana merge A.json B.json... [-o ALL.json]\n\n"
         "Joins JSON reports of `cbana analyze --format json`: the shards of\n"
         "one inputs file (--shard K/N), runs of other cache configurations\n"
         "for the same inputs, and reports of other programs. Path classes\n"
         "are numbered as one run over all the inputs numbers them. A\n"
         "malformed or mismatched report is refused, naming the file.\n"
         "`cbana report ALL.json --format text|html|sarif` renders the "
         "result.\n\n"
         "  -o FILE   write the joined report to FILE (default: stdout)\n"
         "exit status: 0 joined, 2 error\n");
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *js(json_object *o) {
  return o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "null";
}

/* Two JSON values equal as text (json-c keeps keys in order). */
static bool same(json_object *a, json_object *b) {
  return strcmp(js(a), js(b)) == 0;
}

typedef struct m_run {
  json_object *run; /* ours (a deep copy) */
  unsigned index;
  const char *from;        /* the file it came from first */
  const char **cache_from; /* per cache of run: its file */
  size_t n_cache_from;
} m_run;

typedef struct m_group {
  json_object *program; /* borrowed from the first report */
  json_object *files;
  const char *first; /* its first report */
  m_run *runs;
  size_t n_runs, cap;
  /* shards */
  unsigned shards, total;
  json_object *inputs;
  const char **shard_file; /* [K - 1] */
  bool sharded, whole;
} m_group;

__attribute__((format(printf, 2, 3))) static int refuse(const char *file,
                                                        const char *fmt, ...) {
  fprintf(stderr, "cbana merge: %s: ", file);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 2;
}

static unsigned u(json_object *o) {
  return o ? (unsigned)json_object_get_uint64(o) : 0;
}

/* What a run was, apart from its caches and path class: equal in two
 * reports of the same program and input, or they do not belong together. */
static bool same_outcome(json_object *a, json_object *b, const char **field) {
  json_object_object_foreach(a, key, va) {
    if (strcmp(key, "caches") == 0 || strcmp(key, "path") == 0)
      continue;
    if (!same(va, get(b, key))) {
      *field = key;
      return false;
    }
  }
  return true;
}

static m_run *find_run(m_group *g, unsigned index) {
  for (size_t i = 0; i < g->n_runs; i++)
    if (g->runs[i].index == index)
      return &g->runs[i];
  return NULL;
}

static int add_run(m_group *g, json_object *run, const char *file) {
  json_object *in = get(run, "input");
  json_object *jidx = get(in, "index");
  if (!jidx || !json_object_is_type(jidx, json_type_int) ||
      json_object_get_int64(jidx) < 1)
    return refuse(file, "a run without a valid \"input\".\"index\"");
  unsigned index = u(jidx);
  json_object *caches = get(run, "caches");
  m_run *m = find_run(g, index);
  if (!m) {
    if (g->n_runs == g->cap) {
      g->cap = g->cap ? 2 * g->cap : 16;
      m_run *nr = realloc(g->runs, g->cap * sizeof *nr);
      if (!nr)
        return refuse(file, "out of memory");
      g->runs = nr;
    }
    m = &g->runs[g->n_runs++];
    memset(m, 0, sizeof *m);
    json_object_deep_copy(run, &m->run, NULL);
    m->index = index;
    m->from = file;
    size_t nc = json_object_array_length(caches);
    m->cache_from = calloc(nc ? nc : 1, sizeof *m->cache_from);
    for (size_t k = 0; k < nc; k++)
      m->cache_from[k] = file;
    m->n_cache_from = nc;
    return 0;
  }
  const char *field = NULL;
  if (!same(get(m->run, "input"), in))
    return refuse(file, "input %u is not the input of that index in %s", index,
                  m->from);
  if (!same_outcome(m->run, run, &field) || !same_outcome(run, m->run, &field))
    return refuse(file, "input %u ran otherwise (\"%s\") than in %s", index,
                  field, m->from);
  json_object *ours = get(m->run, "caches");
  for (size_t k = 0; k < json_object_array_length(caches); k++) {
    json_object *c = json_object_array_get_idx(caches, k);
    const char *name = json_object_get_string(get(c, "name"));
    for (size_t j = 0; j < json_object_array_length(ours); j++)
      if (strcmp(json_object_get_string(
                     get(json_object_array_get_idx(ours, j), "name")),
                 name) == 0) {
        return refuse(file, "input %u, cache %s is also in %s", index, name,
                      m->cache_from[j]);
      }
    json_object *copy = NULL;
    json_object_deep_copy(c, &copy, NULL);
    json_object_array_add(ours, copy);
    const char **cf =
        realloc(m->cache_from, (m->n_cache_from + 1) * sizeof *m->cache_from);
    if (!cf)
      return refuse(file, "out of memory");
    m->cache_from = cf;
    m->cache_from[m->n_cache_from++] = file;
  }
  return 0;
}

static int shard_of(m_group *g, json_object *root, const char *file) {
  json_object *sh = get(root, "shard");
  json_object *inputs = get(get(root, "program"), "inputs");
  if (!sh) {
    if (g->sharded)
      return refuse(file, "a whole report among the shards of %s", g->first);
    g->whole = true;
    return 0;
  }
  json_object *jk = get(sh, "index"), *jn = get(sh, "count"),
              *jt = get(sh, "total_inputs");
  unsigned k = u(jk), n = u(jn), t = u(jt);
  if (!jk || !jn || !jt || k < 1 || k > n)
    return refuse(file, "a malformed \"shard\": %s", js(sh));
  if (g->whole)
    return refuse(file, "a shard among whole reports of %s", g->first);
  if (!g->sharded) {
    g->sharded = true;
    g->shards = n;
    g->total = t;
    g->inputs = inputs;
    g->shard_file = calloc(n, sizeof *g->shard_file);
    if (!g->shard_file)
      return refuse(file, "out of memory");
  } else if (n != g->shards || t != g->total || !same(inputs, g->inputs)) {
    return refuse(file,
                  "shard %u/%u of %u inputs does not match the others' (of "
                  "%u shards, %u inputs, the same inputs file)",
                  k, n, t, g->shards, g->total);
  }
  if (g->shard_file[k - 1])
    return refuse(file, "the same shard as %s", g->shard_file[k - 1]);
  g->shard_file[k - 1] = file;
  /* Every run must be one this shard takes (session.c: index K + iN). */
  json_object *runs = get(root, "runs");
  for (size_t i = 0; i < json_object_array_length(runs); i++) {
    unsigned idx =
        u(get(get(json_object_array_get_idx(runs, i), "input"), "index"));
    if (idx < 1 || idx > t || (idx - 1) % n != k - 1)
      return refuse(file, "input %u is not in shard %u/%u", idx, k, n);
  }
  return 0;
}

static int cmp_run(const void *x, const void *y) {
  const m_run *a = x, *b = y;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The cache names of a run, as one string. */
static void cache_names(json_object *run, char *buf, size_t n) {
  buf[0] = 0;
  json_object *caches = get(run, "caches");
  for (size_t k = 0; k < json_object_array_length(caches); k++) {
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", k ? ", " : "",
             json_object_get_string(
                 get(json_object_array_get_idx(caches, k), "name")));
  }
}

/* Once all are in: complete shards, the same caches everywhere. */
static int check_group(m_group *g, json_object **geometry) {
  if (g->sharded) {
    for (unsigned k = 0; k < g->shards; k++)
      if (!g->shard_file[k])
        return refuse(g->first, "shard %u/%u of its inputs is missing", k + 1,
                      g->shards);
    if (g->n_runs != g->total)
      return refuse(g->first, "its shards hold %zu of %u inputs", g->n_runs,
                    g->total);
  }
  qsort(g->runs, g->n_runs, sizeof *g->runs, cmp_run);
  char ref[4096], got[4096];
  if (g->n_runs)
    cache_names(g->runs[0].run, ref, sizeof ref);
  for (size_t i = 0; i < g->n_runs; i++) {
    m_run *m = &g->runs[i];
    cache_names(m->run, got, sizeof got);
    if (strcmp(got, ref) != 0) {
      const char *file =
          m->n_cache_from ? m->cache_from[m->n_cache_from - 1] : m->from;
      return refuse(file,
                    "input %u has caches (%s), others (%s): mismatched "
                    "reports",
                    m->index, got, ref);
    }
    json_object *caches = get(m->run, "caches");
    for (size_t k = 0; k < json_object_array_length(caches); k++) {
      json_object *c = json_object_array_get_idx(caches, k);
      const char *name = json_object_get_string(get(c, "name"));
      json_object *geo = get(c, "geometry");
      json_object *known = get(*geometry, name);
      if (!known) {
        json_object_object_add(*geometry, name, json_object_get(geo));
      } else if (!same(known, geo)) {
        return refuse(m->cache_from[k],
                      "cache %s of input %u has another geometry than in the "
                      "others",
                      name, m->index);
      }
    }
  }
  return 0;
}

/* The joined report: runs in program then input order, path classes
 * numbered again; written to out_path (NULL: stdout). */
static int write_joined(m_group *groups, size_t ng, const char *library_note,
                        const char *out_path) {
  int rc = 0;
  /* Path classes by first appearance in input order, per program. */
  json_object *root = json_object_new_object();
  json_object_object_add(root, "tool", json_object_new_string("cbana"));
  json_object *all_files = json_object_new_array();
  json_object *runs = json_object_new_array();
  json_object *paths = json_object_new_array();
  unsigned n_classes = 0;
  for (size_t gi = 0; gi < ng; gi++) {
    m_group *g = &groups[gi];
    for (size_t i = 0; i < json_object_array_length(g->files); i++) {
      json_object *fn = json_object_array_get_idx(g->files, i);
      bool have = false;
      for (size_t j = 0; j < json_object_array_length(all_files); j++)
        have |= same(json_object_array_get_idx(all_files, j), fn);
      if (!have)
        json_object_array_add(all_files, json_object_get(fn));
    }
    unsigned first_class = n_classes;
    const char **hashes = calloc(g->n_runs + 1, sizeof *hashes);
    for (size_t i = 0; i < g->n_runs; i++) {
      json_object *run = g->runs[i].run;
      const char *h = json_object_get_string(get(run, "path_hash"));
      unsigned cls = 0;
      for (unsigned k = first_class; k < n_classes && !cls; k++)
        if (h && hashes[k - first_class] &&
            strcmp(hashes[k - first_class], h) == 0)
          cls = k + 1;
      if (!cls) {
        hashes[n_classes - first_class] = h;
        cls = ++n_classes;
        json_object *pc = json_object_new_object();
        char name[32];
        snprintf(name, sizeof name, "P%u", cls);
        json_object_object_add(pc, "path", json_object_new_string(name));
        json_object_object_add(pc, "inputs", json_object_new_array());
        if (ng > 1)
          json_object_object_add(pc, "program", json_object_new_uint64(gi + 1));
        json_object_array_add(paths, pc);
      }
      char name[32];
      snprintf(name, sizeof name, "P%u", cls);
      json_object_object_add(run, "path", json_object_new_string(name));
      json_object_array_add(
          get(json_object_array_get_idx(paths, cls - 1), "inputs"),
          json_object_new_uint64(g->runs[i].index));
      if (ng > 1)
        json_object_object_add(run, "program", json_object_new_uint64(gi + 1));
      json_object_array_add(runs, json_object_get(run));
    }
    free(hashes);
  }
  json_object_object_add(root, "files", all_files);
  json_object_object_add(root, "runs", runs);
  json_object_object_add(root, "paths", paths);
  json_object_object_add(root, "library_note",
                         library_note ? json_object_new_string(library_note)
                                      : NULL);
  if (ng == 1) {
    if (groups[0].program)
      json_object_object_add(root, "program",
                             json_object_get(groups[0].program));
  } else {
    json_object *progs = json_object_new_array();
    for (size_t gi = 0; gi < ng; gi++)
      json_object_array_add(progs, json_object_get(groups[gi].program));
    json_object_object_add(root, "programs", progs);
  }
  FILE *out = out_path ? fopen(out_path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "cbana merge: %s: cannot write the report\n", out_path);
    rc = 2;
  } else {
    if (cb_report_json_put(out, root) != 0)
      rc = 2;
    if (out != stdout && fclose(out) != 0)
      rc = 2;
    if (rc)
      fprintf(stderr, "cbana merge: %s: writing the report failed\n",
              out_path ? out_path : "stdout");
  }
  json_object_put(root);
  return rc;
}

int cb_cmd_merge_run(int argc, char **argv) {
  const char *out_path = NULL;
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  size_t nf = 0;
  for (int i = 0; i < argc; i++) {
    if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) &&
        i + 1 < argc)
      out_path = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cbana merge: unknown option '%s'\n", argv[i]);
      free(files);
      return 2;
    } else
      files[nf++] = argv[i];
  }
  if (nf == 0) {
    fprintf(stderr, "cbana merge: give the JSON reports to join\n");
    free(files);
    return 2;
  }
  json_object **docs = calloc(nf, sizeof *docs);
  m_group *groups = calloc(nf, sizeof *groups);
  size_t ng = 0;
  int rc = 0;
  json_object *geometry = json_object_new_object();
  for (size_t f = 0; f < nf && !rc; f++) {
    docs[f] = cb_report_load(files[f], "report", "merge");
    if (!docs[f]) {
      rc = 2;
      break;
    }
    json_object *program = get(docs[f], "program");
    m_group *g = NULL;
    for (size_t i = 0; i < ng && !g; i++)
      if (same(groups[i].program, program))
        g = &groups[i];
    if (!g) {
      g = &groups[ng++];
      g->program = program;
      g->files = get(docs[f], "files");
      g->first = files[f];
    } else if (!same(g->files, get(docs[f], "files"))) {
      rc = refuse(files[f], "the same program as %s, but other source files",
                  g->first);
      break;
    }
    if ((rc = shard_of(g, docs[f], files[f])))
      break;
    json_object *runs = get(docs[f], "runs");
    for (size_t i = 0; i < json_object_array_length(runs) && !rc; i++)
      rc = add_run(g, json_object_array_get_idx(runs, i), files[f]);
  }
  for (size_t i = 0; i < ng && !rc; i++) {
    json_object_put(geometry);
    geometry = json_object_new_object(); /* per program */
    rc = check_group(&groups[i], &geometry);
  }

  /* the reports' libc notes: the first one's (NULL when none has one) */
  const char *library_note = NULL;
  for (size_t f = 0; f < nf && !rc && !library_note; f++)
    library_note = json_object_get_string(get(docs[f], "library_note"));
  if (!rc)
    rc = write_joined(groups, ng, library_note, out_path);
  json_object_put(geometry);
  for (size_t gi = 0; gi < ng; gi++) {
    for (size_t i = 0; i < groups[gi].n_runs; i++) {
      json_object_put(groups[gi].runs[i].run);
      free(groups[gi].runs[i].cache_from);
    }
    free(groups[gi].runs);
    free(groups[gi].shard_file);
  }
  for (size_t f = 0; f < nf; f++)
    if (docs[f])
      json_object_put(docs[f]);
  free(groups);
  free(docs);
  free(files);
  return rc;
}
