/* `cbana check`: the CI gate. Analyses the program as `analyze` does and
 * compares each input's misses at one level (the first, L1D, unless
 * --level) with a baseline JSON report; fails (exit 1) when any input's
 * misses grew by more than --max-increase percent (default 1), naming the
 * inputs, functions and lines responsible; with GITHUB_ACTIONS set it
 * also prints workflow annotations. --update writes the baseline instead.
 * Exit status: 0 pass (or baseline written), 1 regression, 2 error (bad
 * baseline, usage, compile), 3 some input stopped. */
#include "commands.h"
#include "compare.h"
#include "session.h"

#include "cbana/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cb_cmd_check_usage(void) {
  cb_analyze_args_usage(
      "check", " --baseline FILE [--update]",
      "Fails (exit 1) when, for any input, the misses of a level exceed "
      "the\nbaseline's by more than --max-increase percent.\n"
      "exit status: 0 pass, 1 regression, 2 error, 3 an input stopped\n");
}

/* The report of the current analysis, as JSON text. */
static char *current_json(const cb_results *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  cb_report_options ro = {10, 0, NULL, 0, 0, NULL, NULL};
  int rc = cb_report_json(f, r, &ro);
  if (fclose(f) != 0 || rc) {
    free(buf);
    return NULL;
  }
  return buf;
}

static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* The level to compare in a cache: --level, else the first. */
static const char *level_of(json_object *cache, const char *want) {
  json_object *levels = NULL;
  json_object_object_get_ex(cache, "levels", &levels);
  if (want)
    return json_object_object_get_ex(levels, want, NULL) ? want : NULL;
  json_object_object_foreach(levels, key, val) {
    (void)val;
    return key;
  }
  return NULL;
}

static void show_deltas(json_object *base, json_object *cur, const char *table,
                        const char *what, const char *level, bool gha,
                        const char *input) {
  cb_row_delta *d;
  size_t n = cb_report_row_deltas(base, cur, table, level, &d);
  size_t shown = 0;
  for (size_t i = 0; i < n && shown < 5; i++) {
    if (d[i].after <= d[i].before)
      break;
    if (!shown++)
      printf("    %s responsible:\n", what);
    printf("      %-40s %10" PRId64 " -> %10" PRId64 "  (+%" PRId64 ")\n",
           d[i].key, d[i].before, d[i].after, d[i].after - d[i].before);
    if (gha && d[i].line && d[i].file[0])
      printf("::error file=%s,line=%u::cbana: %s misses at this line rose "
             "from %" PRId64 " to %" PRId64 " for input '%s'\n",
             d[i].file, d[i].line, level, d[i].before, d[i].after, input);
  }
  free(d);
}

static int compare(json_object *base, json_object *cur,
                   const cb_analyze_args *a, double max_pct) {
  bool gha = getenv("GITHUB_ACTIONS") != NULL;
  int failures = 0, compared = 0;
  json_object *runs = NULL;
  json_object_object_get_ex(cur, "runs", &runs);
  for (size_t i = 0; i < json_object_array_length(runs); i++) {
    json_object *run = json_object_array_get_idx(runs, i);
    const char *input = cb_report_input_text(run);
    char input_copy[512];
    snprintf(input_copy, sizeof input_copy, "%s", input);
    json_object *brun = cb_report_match_run(base, run);
    if (!brun) {
      printf("input '%s': not in the baseline (not compared)\n", input_copy);
      continue;
    }
    json_object *caches = NULL;
    json_object_object_get_ex(run, "caches", &caches);
    for (size_t k = 0; k < json_object_array_length(caches); k++) {
      json_object *c = json_object_array_get_idx(caches, k);
      const char *cname =
          json_object_get_string(json_object_object_get(c, "name"));
      json_object *bc = cb_report_cache(brun, cname);
      const char *level = level_of(c, a->level);
      if (!level) {
        fprintf(stderr, "cbana check: cache %s has no level %s\n", cname,
                a->level);
        return 2;
      }
      if (!bc || cb_report_level(bc, level, "misses") < 0) {
        printf("input '%s', cache %s: no %s in the baseline (not "
               "compared)\n",
               input_copy, cname, level);
        continue;
      }
      int64_t before = cb_report_level(bc, level, "misses");
      int64_t after = cb_report_level(c, level, "misses");
      compared++;
      double pct = before ? 100.0 * (double)(after - before) / (double)before
                          : (after ? 100.0 : 0.0);
      bool bad = (double)after > (double)before * (1.0 + max_pct / 100.0) &&
                 after > before;
      printf("%s input '%s', cache %s: %s misses %" PRId64 " -> %" PRId64
             " (%+.2f%%)\n",
             bad ? "FAIL" : "ok  ", input_copy, cname, level, before, after,
             pct);
      if (!bad)
        continue;
      failures++;
      if (gha)
        printf("::error title=cbana check::%s misses of input '%s' rose "
               "from %" PRId64 " to %" PRId64 " (%+.2f%%, allowed %.2f%%)\n",
               level, input_copy, before, after, pct, max_pct);
      show_deltas(bc, c, "functions", "functions", level, false, input_copy);
      show_deltas(bc, c, "lines", "lines", level, gha, input_copy);
    }
  }
  if (failures)
    printf("cbana check: %d of %d comparisons exceed the baseline by more "
           "than %.2f%%\n",
           failures, compared, max_pct);
  else
    printf("cbana check: %d comparison%s within %.2f%% of the baseline\n",
           compared, compared == 1 ? "" : "s", max_pct);
  (void)base_name;
  return failures ? 1 : 0;
}

int cb_cmd_check_run(int argc, char **argv) {
  cb_analyze_args a;
  if (!cb_analyze_args_parse(argc, argv, &a, "check"))
    return 2;
  if (!a.baseline) {
    fprintf(stderr, "cbana check: --baseline FILE is required\n");
    cb_analyze_args_free(&a);
    return 2;
  }
  double max_pct = a.tolerance >= 0 ? a.tolerance : 1.0;
  json_object *base = NULL;
  if (!a.update && !(base = cb_report_load(a.baseline, "baseline", "check"))) {
    cb_analyze_args_free(&a);
    return 2;
  }
  cb_session s;
  memset(&s, 0, sizeof s);
  s.args = &a;
  int rc = cb_session_open(&s, &a, "check");
  if (rc == 0) {
    cb_results r;
    rc = cb_session_analyze(&s, &r, "check");
    if (rc != 2 && s.interrupted) {
      fprintf(stderr, "cbana check: interrupted: nothing compared or "
                      "written\n");
      cb_results_free(&r);
    } else if (rc != 2) {
      char *text = current_json(&r);
      if (!text) {
        fprintf(stderr, "cbana check: out of memory writing the report\n");
        rc = 2;
      } else if (a.update) {
        FILE *f = fopen(a.baseline, "w");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
          fprintf(stderr, "cbana check: %s: cannot write the baseline\n",
                  a.baseline);
          rc = 2;
        } else {
          printf("cbana check: baseline written to %s\n", a.baseline);
        }
      } else {
        json_object *cur = cb_report_parse(text, "(current report)", "check");
        int crc = cur ? compare(base, cur, &a, max_pct) : 2;
        if (crc)
          rc = crc; /* a regression outranks a stopped input */
        json_object_put(cur);
      }
      free(text);
      cb_results_free(&r);
    }
  }
  json_object_put(base);
  cb_session_close(&s);
  cb_analyze_args_free(&a);
  return rc;
}
