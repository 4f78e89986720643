/* `cbana annotate`: `cbana analyze --format annotate`, the source listing
 * with per-line accesses, misses per level and classes, and the variables
 * each line touches (report/annotate.c). --input N picks the input shown. */
#include "commands.h"
#include "session.h"

#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

void cb_cmd_annotate_usage(void) {
  cb_analyze_args_usage("annotate",
                        " [--input N]\n\n"
                        "Prints every source line with its accesses, misses "
                        "per level (the\nfirst level split into compulsory, "
                        "capacity, conflict) and the variables\nit touches, "
                        "for one input (--input N, default the first).\n");
}

int cb_cmd_annotate_run(int argc, char **argv) {
  /* --input N is annotate's own; the rest is analyze's. */
  unsigned input = 0;
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  int n = 0;
  if (!rest)
    return 2;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--input") == 0 ||
        strncmp(argv[i], "--input=", 8) == 0) {
      const char *v = argv[i][7] == '=' ? argv[i] + 8
                      : i + 1 < argc    ? argv[++i]
                                        : "";
      char *end;
      unsigned long k = strtoul(v, &end, 10);
      if (!*v || *end || k == 0) {
        fprintf(stderr,
                "cbana annotate: --input needs an input number (1, 2, ...), "
                "not '%s'\n",
                v);
        free(rest);
        return 2;
      }
      input = (unsigned)k;
    } else {
      rest[n++] = argv[i];
    }
  }
  cb_analyze_args a;
  if (!cb_analyze_args_parse(n, rest, &a, "annotate")) {
    free(rest);
    return 2;
  }
  cb_session s;
  memset(&s, 0, sizeof s);
  s.args = &a;
  int rc = cb_session_open(&s, &a, "annotate");
  if (rc == 0) {
    cb_results r;
    rc = cb_session_analyze(&s, &r, "annotate");
    if (rc != 2) {
      if (input > r.n_runs) {
        fprintf(stderr, "cbana annotate: --input %u: there are %u inputs\n",
                input, r.n_runs);
        rc = 2;
      } else {
        FILE *out = stdout;
        if (a.output && !(out = fopen(a.output, "w"))) {
          fprintf(stderr, "cbana annotate: %s: cannot write the report\n",
                  a.output);
          rc = 2;
        } else {
          cb_report_options ro = {a.top, 0, NULL, input, 0, NULL, NULL};
          if (cb_report_annotate(out, &r, &ro) ||
              (out != stdout && fclose(out))) {
            fprintf(stderr, "cbana annotate: writing the report failed\n");
            rc = 2;
          }
        }
      }
      cb_results_free(&r);
    }
  }
  cb_session_close(&s);
  cb_analyze_args_free(&a);
  free(rest);
  return rc;
}
