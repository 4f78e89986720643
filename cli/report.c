/* `cbana report ALL.json --format text|html|sarif`: a JSON report (of
 * `analyze --format json`, or joined by `cbana merge`) rendered again
 * without analysing anything (report/json_render.c). */
#include "commands.h"
#include "compare.h"

#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

void cb_cmd_report_usage(void) {
  printf("usage: cbana report REPORT.json [--format text|html|sarif] "
         "[-o FILE] [--top N]\n\n"
         "Renders a JSON report of `cbana analyze --format json` or of\n"
         "`cbana merge` as the text report (default), an HTML page or\n"
         "SARIF. Text and SARIF are what `analyze` writes for the same\n"
         "results; the page holds the report's tables.\n\n"
         "  --format F  text, html or sarif\n"
         "  -o FILE     write to FILE (default: stdout)\n"
         "  --top N     rows per table (default 10)\n"
         "exit status: 0 written, 2 error\n");
}

int cb_cmd_report_run(int argc, char **argv) {
  const char *in = NULL, *format = "text", *out_path = NULL;
  unsigned top = 10;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--format=", 9) == 0)
      format = a + 9;
    else if (strcmp(a, "--format") == 0 && i + 1 < argc)
      format = argv[++i];
    else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) &&
             i + 1 < argc)
      out_path = argv[++i];
    else if (strcmp(a, "--top") == 0 && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (*end || !v || v >= 1000000) {
        fprintf(stderr, "cbana report: --top needs a whole number, not '%s'\n",
                argv[i]);
        return 2;
      }
      top = (unsigned)v;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "cbana report: unknown option '%s'\n", a);
      return 2;
    } else if (!in) {
      in = a;
    } else {
      fprintf(stderr, "cbana report: give one JSON report\n");
      return 2;
    }
  }
  if (!in) {
    fprintf(stderr, "cbana report: give one JSON report\n");
    return 2;
  }
  bool known = false;
  for (const char *const *f = cb_report_json_formats; *f; f++)
    known |= strcmp(*f, format) == 0;
  if (!known) {
    fprintf(stderr, "cbana report: --format is text, html or sarif, not '%s'\n",
            format);
    return 2;
  }
  json_object *doc = cb_report_load(in, "report", "report");
  if (!doc)
    return 2;
  FILE *out = out_path ? fopen(out_path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "cbana report: %s: cannot write the report\n", out_path);
    json_object_put(doc);
    return 2;
  }
  cb_report_options ro = {top, 0, NULL, 0, 0, NULL, NULL};
  int rc = cb_report_render_json(out, doc, &ro, format);
  if (out != stdout && fclose(out) != 0)
    rc = -1;
  json_object_put(doc);
  if (rc) {
    fprintf(stderr, "cbana report: writing the report failed\n");
    return 2;
  }
  return 0;
}
