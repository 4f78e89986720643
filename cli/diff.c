/* `cbana diff A.json B.json`: what changed between two JSON reports, by
 * level, function, line and variable, input by input and cache by cache.
 * Exit status as diff(1): 0 no change, 1 changes, 2 error. */
#include "commands.h"
#include "compare.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cb_cmd_diff_usage(void) {
  printf("usage: cbana diff A.json B.json [--top N]\n\n"
         "Compares two JSON reports of `cbana analyze --format json` (or\n"
         "baselines of `cbana check`): for each input and cache found in\n"
         "both, the totals of every level, then the functions, lines and\n"
         "variables whose misses changed, largest increase first.\n\n"
         "  --top N   rows per table (default 10)\n"
         "exit status: 0 no change, 1 changes, 2 error\n");
}

static int64_t pct_x100(int64_t a, int64_t b) {
  return a ? (b - a) * 10000 / a : 0;
}

static int table(json_object *ca, json_object *cb, const char *name,
                 const char *level, unsigned top) {
  cb_row_delta *d;
  size_t n = cb_report_row_deltas(ca, cb, name, level, &d);
  if (n) {
    printf("    %s (%s misses):\n", name, level);
    /* The largest changes either way: increases first, then decreases. */
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < top; i++, shown++)
      printf("      %-44s %10" PRId64 " -> %10" PRId64 "  %+" PRId64 "\n",
             d[i].key, d[i].before, d[i].after, d[i].after - d[i].before);
    if (n > shown)
      printf("      (%zu more)\n", n - shown);
  }
  free(d);
  return n ? 1 : 0;
}

int cb_cmd_diff_run(int argc, char **argv) {
  const char *files[2] = {NULL, NULL};
  unsigned top = 10, nf = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (*end || !v) {
        fprintf(stderr, "cbana diff: --top needs a whole number, not '%s'\n",
                argv[i]);
        return 2;
      }
      top = (unsigned)v;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cbana diff: unknown option '%s'\n", argv[i]);
      return 2;
    } else if (nf < 2) {
      files[nf++] = argv[i];
    } else {
      fprintf(stderr, "cbana diff: give exactly two JSON reports\n");
      return 2;
    }
  }
  if (nf != 2) {
    fprintf(stderr, "cbana diff: give exactly two JSON reports\n");
    return 2;
  }
  json_object *a = cb_report_load(files[0], "report", "diff");
  if (!a)
    return 2;
  json_object *b = cb_report_load(files[1], "report", "diff");
  if (!b) {
    json_object_put(a);
    return 2;
  }
  int changed = 0;
  json_object *runs = json_object_object_get(b, "runs");
  for (size_t i = 0; i < json_object_array_length(runs); i++) {
    json_object *rb = json_object_array_get_idx(runs, i);
    char input[512];
    snprintf(input, sizeof input, "%s", cb_report_input_text(rb));
    json_object *ra = cb_report_match_run(a, rb);
    if (!ra) {
      printf("input '%s': only in %s\n", input, files[1]);
      changed = 1;
      continue;
    }
    json_object *caches = json_object_object_get(rb, "caches");
    for (size_t k = 0; k < json_object_array_length(caches); k++) {
      json_object *cb = json_object_array_get_idx(caches, k);
      const char *cname =
          json_object_get_string(json_object_object_get(cb, "name"));
      json_object *ca = cb_report_cache(ra, cname);
      if (!ca) {
        printf("input '%s', cache %s: only in %s\n", input, cname, files[1]);
        changed = 1;
        continue;
      }
      printf("input '%s', cache %s:\n", input, cname);
      printf("    %-8s %12s %12s %12s %9s\n", "level", "misses A", "misses B",
             "change", "%");
      json_object *levels = json_object_object_get(cb, "levels");
      const char *first = NULL;
      json_object_object_foreach(levels, lname, lval) {
        (void)lval;
        if (!first)
          first = lname;
        int64_t ma = cb_report_level(ca, lname, "misses");
        int64_t mb = cb_report_level(cb, lname, "misses");
        if (ma < 0) {
          printf("    %-8s only in %s\n", lname, files[1]);
          changed = 1;
          continue;
        }
        int64_t p = pct_x100(ma, mb);
        printf("    %-8s %12" PRId64 " %12" PRId64 " %+12" PRId64 " %+8" PRId64
               ".%02" PRId64 "\n",
               lname, ma, mb, mb - ma, p / 100, (p < 0 ? -p : p) % 100);
        changed |= ma != mb;
      }
      json_object_object_foreach(levels, lname2, lval2) {
        (void)lval2;
        changed |= table(ca, cb, "functions", lname2, top);
        changed |= table(ca, cb, "lines", lname2, top);
        changed |= table(ca, cb, "variables", lname2, top);
      }
    }
  }
  json_object *runs_a = json_object_object_get(a, "runs");
  for (size_t i = 0; i < json_object_array_length(runs_a); i++) {
    json_object *ra = json_object_array_get_idx(runs_a, i);
    if (!cb_report_match_run(b, ra)) {
      printf("input '%s': only in %s\n", cb_report_input_text(ra), files[0]);
      changed = 1;
    }
  }
  if (!changed)
    printf("no change\n");
  json_object_put(a);
  json_object_put(b);
  return changed;
}
