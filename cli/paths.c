/* `cbana paths`: the program-state graph (report/paths.c): the branch
 * points with their conditions, the path classes the inputs fall into,
 * what each class does at each branch, its inputs and their misses.
 * --format text (default), json, or dot (Graphviz). */
#include "commands.h"
#include "session.h"

#include "cbana/report.h"

#include <string.h>

void cb_cmd_paths_usage(void) {
  cb_analyze_args_usage("paths", NULL,
                        "Prints the program-state graph: branch points "
                        "and their conditions,\nthe path classes of the "
                        "inputs, each class's outcome at each branch,\nits "
                        "inputs and their misses. --format text (default), "
                        "json or dot.\n");
}

int cb_cmd_paths_run(int argc, char **argv) {
  cb_analyze_args a;
  if (!cb_analyze_args_parse(argc, argv, &a, "paths"))
    return 2;
  const char *fmt = strcmp(a.format, "json") == 0   ? "paths-json"
                    : strcmp(a.format, "dot") == 0  ? "dot"
                    : strcmp(a.format, "text") == 0 ? "paths-text"
                                                    : NULL;
  if (!fmt) {
    fprintf(stderr, "cbana paths: --format is text, json or dot, not '%s'\n",
            a.format);
    cb_analyze_args_free(&a);
    return 2;
  }
  cb_session s;
  memset(&s, 0, sizeof s);
  s.args = &a;
  int rc = cb_session_open(&s, &a, "paths");
  if (rc == 0) {
    cb_results r;
    rc = cb_session_analyze(&s, &r, "paths");
    if (rc != 2) {
      FILE *out = stdout;
      if (a.output && !(out = fopen(a.output, "w"))) {
        fprintf(stderr, "cbana paths: %s: cannot write the report\n", a.output);
        rc = 2;
      } else {
        cb_report_options ro = {a.top, 0, NULL, 0, 0, NULL, NULL};
        if (cb_report_write(out, &r, &ro, fmt) ||
            (out != stdout && fclose(out))) {
          fprintf(stderr, "cbana paths: writing the report failed\n");
          rc = 2;
        }
      }
      cb_results_free(&r);
    }
  }
  cb_session_close(&s);
  cb_analyze_args_free(&a);
  return rc;
}
