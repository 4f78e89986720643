/* The annotated source, in the manner of cg_annotate: each line of each
 * source file with the accesses its own loads and stores made, the
 * misses per level (the first level split into compulsory, capacity and
 * conflict) and the variables it touches. Lines without accesses show
 * dots. One input and one cache per listing (the first, or opt->input),
 * every cache of that input in turn. */
#include "cbana/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct line_info {
  cb_site_counts level[CB_RESULT_LEVELS];
  bool any;
  char vars[96];
} line_info;

static void add_var(line_info *li, const char *name) {
  size_t len = strlen(li->vars);
  /* already listed? */
  const char *s = li->vars;
  size_t n = strlen(name);
  while ((s = strstr(s, name)) != NULL) {
    if ((s == li->vars || s[-1] == ' ') && (s[n] == ',' || s[n] == '\0'))
      return;
    s += n;
  }
  if (len + n + 3 < sizeof li->vars)
    snprintf(li->vars + len, sizeof li->vars - len, "%s%s", len ? ", " : "",
             name);
}

static void print_counts(FILE *out, const cb_cache_result *c,
                         const line_info *li) {
  if (!li || !li->any) {
    fprintf(out, "%12s %9s", ".", ".");
    if (c->classified)
      fprintf(out, " %8s %8s %8s", ".", ".", ".");
    for (unsigned l = 1; l < c->n_levels; l++)
      fprintf(out, " %9s", ".");
    return;
  }
  fprintf(out, "%12" PRIu64 " %9" PRIu64, li->level[0].accesses,
          li->level[0].misses);
  if (c->classified)
    fprintf(out, " %8" PRIu64 " %8" PRIu64 " %8" PRIu64,
            li->level[0].compulsory, li->level[0].capacity,
            li->level[0].conflict);
  for (unsigned l = 1; l < c->n_levels; l++)
    fprintf(out, " %9" PRIu64, li->level[l].misses);
}

static void print_header(FILE *out, const cb_cache_result *c) {
  fprintf(out, "%12s %9s", "accesses", c->level_names[0]);
  if (c->classified)
    fprintf(out, " %8s %8s %8s", "compuls", "capacity", "conflict");
  for (unsigned l = 1; l < c->n_levels; l++)
    fprintf(out, " %9s", c->level_names[l]);
  fprintf(out, "  line  source  [variables]\n");
}

static void annotate_cache(FILE *out, const cb_program *p,
                           const cb_cache_result *c, const cb_source *src) {
  for (uint32_t f = 0; f < p->n_files; f++) {
    uint32_t n_lines = src[f].n_lines;
    /* Lines past the file's end (none in a sane program) are counted in
     * the last entry so nothing is lost. */
    line_info *li = calloc((size_t)n_lines + 2, sizeof *li);
    if (!li)
      return;
    line_info *none = &li[0]; /* line 0: no line */
    uint64_t total_acc = 0, total_miss = 0;
    for (uint32_t s = 0; s < c->n_sites && s < p->n_sites; s++) {
      const cb_site *site = &p->sites[s];
      const cb_site_counts *sc = &c->sites[(size_t)s * c->n_levels];
      if (site->file != f || site->is_call || !sc[0].accesses)
        continue;
      line_info *x = site->line == 0         ? none
                     : site->line <= n_lines ? &li[site->line]
                                             : &li[n_lines + 1];
      x->any = true;
      for (unsigned l = 0; l < c->n_levels; l++) {
        x->level[l].accesses += sc[l].accesses;
        x->level[l].misses += sc[l].misses;
        x->level[l].compulsory += sc[l].compulsory;
        x->level[l].capacity += sc[l].capacity;
        x->level[l].conflict += sc[l].conflict;
      }
      total_acc += sc[0].accesses;
      total_miss += sc[0].misses;
      if (site->var < p->n_vars && p->vars[site->var].name)
        add_var(x, p->vars[site->var].name);
    }
    if (!total_acc) { /* a header the program's own code never reached */
      free(li);
      continue;
    }
    fprintf(out, "-- file %s: %" PRIu64 " accesses, %" PRIu64 " %s misses\n",
            p->files[f], total_acc, total_miss, c->level_names[0]);
    print_header(out, c);
    if (none->any) {
      print_counts(out, c, none);
      fprintf(out,
              "     0  (no line: code the compiler left without one)"
              "%s%s%s\n",
              none->vars[0] ? "  [" : "", none->vars, none->vars[0] ? "]" : "");
    }
    for (uint32_t ln = 1; ln <= n_lines; ln++) {
      print_counts(out, c, &li[ln]);
      fprintf(out, " %5u  %s", ln, cb_source_line(&src[f], ln));
      if (li[ln].vars[0])
        fprintf(out, "  [%s]", li[ln].vars);
      fputc('\n', out);
    }
    if (li[n_lines + 1].any) {
      print_counts(out, c, &li[n_lines + 1]);
      fprintf(out, "     ?  (lines past the end of the file as read)\n");
    }
    free(li);
  }
}

int cb_report_annotate(FILE *out, const cb_results *r,
                       const cb_report_options *opt) {
  const cb_program *p = r->program;
  unsigned want = opt && opt->input ? opt->input : 1;
  const cb_run_result *run = NULL;
  for (unsigned i = 0; i < r->n_runs; i++)
    if (r->runs[i].index == want)
      run = &r->runs[i];
  if (!run) {
    fprintf(out, "no input %u to annotate\n", want);
    return ferror(out) ? -1 : 0;
  }
  cb_source *src = cb_sources_load(p);
  if (!src)
    return -1;
  for (unsigned k = 0; k < run->n_caches; k++) {
    const cb_cache_result *c = &run->caches[k];
    fprintf(out, "-- input %u:", run->index);
    for (unsigned a = 0; a < run->n_args; a++)
      fprintf(out, " %s", run->args[a]);
    if (run->stdin_path)
      fprintf(out, " < %s", run->stdin_path);
    fprintf(out, "  [path P%u%s]  cache %s\n", run->path_class,
            run->ok ? "" : ", stopped", c->name);
    for (unsigned l = 0; l < c->n_levels; l++)
      fprintf(out,
              "-- %s: %" PRIu64 " accesses, %" PRIu64 " misses (program "
              "and library)\n",
              c->level_names[l], c->levels[l].accesses, c->levels[l].misses);
    annotate_cache(out, p, c, src);
    if (k + 1 < run->n_caches)
      fputc('\n', out);
  }
  cb_sources_free(p, src);
  return ferror(out) ? -1 : 0;
}
