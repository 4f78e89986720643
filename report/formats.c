/* The report formats by name, for the command line. */
#include "cbana/report.h"

#include <string.h>

const char *const cb_report_formats[] = {"text",  "json", "annotate",   "html",
                                         "sarif", "dot",  "cachegrind", NULL};

int cb_report_write(FILE *out, const cb_results *r,
                    const cb_report_options *opt, const char *format) {
  if (strcmp(format, "text") == 0)
    return cb_report_text(out, r, opt);
  if (strcmp(format, "json") == 0)
    return cb_report_json(out, r, opt);
  if (strcmp(format, "annotate") == 0)
    return cb_report_annotate(out, r, opt);
  if (strcmp(format, "html") == 0)
    return cb_report_html(out, r, opt);
  if (strcmp(format, "sarif") == 0)
    return cb_report_sarif(out, r, opt);
  if (strcmp(format, "cachegrind") == 0)
    return cb_report_cachegrind(out, r, opt);
  if (strcmp(format, "dot") == 0)
    return cb_report_paths_dot(out, r, opt);
  if (strcmp(format, "paths-text") == 0)
    return cb_report_paths_text(out, r, opt);
  if (strcmp(format, "paths-json") == 0)
    return cb_report_paths_json(out, r, opt);
  return -1;
}
