/* `cbana annotate`: `cbana analyze --format annotate`, the source listing
 * with per-line accesses, misses per level and classes, and the variables
 * each line touches (report/annotate.c). --input N picks the input shown. */
#include "commands.h"
#include "session.h"

#include "cbana/report.h"

#include <string.h>

void cb_cmd_annotate_usage(void) {
  cb_analyze_args_usage("annotate", " [--input N]",
                        "Prints every source line with its accesses, misses "
                        "per level (the\nfirst level split into compulsory, "
                        "capacity, conflict) and the variables\nit touches, "
                        "for one input (--input N, default the first).\n");
}

int cb_cmd_annotate_run(int argc, char **argv) {
  cb_analyze_args a;
  if (!cb_analyze_args_parse(argc, argv, &a, "annotate"))
    return 2;
  unsigned input = a.input;
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
  return rc;
}
