/* `cbana analyze`: the main job. Loads the program, analyses every input
 * with every cache, and prints the report. Exit status: 0 every input
 * ran, 3 some input stopped (the report still covers all), 2 nothing
 * could run (usage, configuration, compile). */
#include "commands.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

void cb_cmd_analyze_usage(void) {
  cb_analyze_args_usage("analyze", NULL, NULL);
}

int cb_cmd_analyze_run(int argc, char **argv) {
  cb_analyze_args a;
  if (!cb_analyze_args_parse(argc, argv, &a, "analyze"))
    return 2;
  cb_session s;
  memset(&s, 0, sizeof s);
  s.args = &a;
  int rc = cb_session_open(&s, &a, "analyze");
  if (rc == 0) {
    cb_results r;
    rc = cb_session_analyze(&s, &r, "analyze");
    if (rc != 2) {
      int wrc = cb_session_report(&s, &r, "analyze");
      if (wrc)
        rc = wrc;
      cb_results_free(&r);
    }
  }
  cb_session_close(&s);
  cb_analyze_args_free(&a);
  return rc;
}
