#include "cbana/report.h"
int cb_report_html(FILE *out, const cb_results *r,
                   const cb_report_options *opt) {
  (void)r;
  (void)opt;
  return fputs("TODO\n", out) < 0 ? -1 : 0;
}
