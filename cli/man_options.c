/* cbana-man-options: writes the option table (options_table.c) into the
 * man page, between the CB_OPTIONS_MAN_BEGIN and CB_OPTIONS_MAN_END lines,
 * so the page's option list cannot drift from what cbana parses. The build
 * runs it on docs/cbana.1; the file is rewritten only when it changes.
 *
 *   cbana-man-options              the option list, on stdout
 *   cbana-man-options --update F   F with its option list rewritten */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  char chunk[8192];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (len + n + 1 > cap) {
      cap = 2 * (len + n + 1);
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    memcpy(buf + len, chunk, n);
    len += n;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad || !buf) {
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

static int update(const char *path) {
  char *page = read_file(path);
  if (!page) {
    fprintf(stderr, "cbana-man-options: %s: cannot read\n", path);
    return 1;
  }
  const char *begin = strstr(page, CB_OPTIONS_MAN_BEGIN "\n");
  const char *end = begin ? strstr(begin, CB_OPTIONS_MAN_END "\n") : NULL;
  if (!end) {
    fprintf(stderr,
            "cbana-man-options: %s: no lines '%s' and '%s' around the "
            "option list\n",
            path, CB_OPTIONS_MAN_BEGIN, CB_OPTIONS_MAN_END);
    free(page);
    return 1;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) {
    free(page);
    return 1;
  }
  const char *body = begin + strlen(CB_OPTIONS_MAN_BEGIN "\n");
  fwrite(page, 1, (size_t)(body - page), m);
  cb_options_man(m);
  fputs(end, m);
  if (fclose(m) != 0) {
    free(page);
    free(text);
    return 1;
  }
  int rc = 0;
  if (strcmp(text, page) != 0) {
    /* Beside the page, then renamed over it: a reader never sees half. */
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    FILE *f = tmp ? (snprintf(tmp, n, "%s.new", path), fopen(tmp, "wb")) : NULL;
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
      fprintf(stderr, "cbana-man-options: %s: cannot write\n", path);
      rc = 1;
    }
    free(tmp);
  }
  free(page);
  free(text);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 1) {
    cb_options_man(stdout);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--update") == 0)
    return update(argv[2]);
  fprintf(stderr, "usage: cbana-man-options [--update MAN_PAGE]\n");
  return 2;
}
