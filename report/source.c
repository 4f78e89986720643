/* Source files read for the views that quote them (text, annotate, HTML). */
#include "cbana/report.h"

#include <stdlib.h>
#include <string.h>

void cb_source_load_file(cb_source *sf, const char *path) {
  memset(sf, 0, sizeof *sf);
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f)
    return;
  size_t cap = 4096, len = 0;
  sf->text = malloc(cap);
  size_t got;
  while (sf->text && (got = fread(sf->text + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len - 1 == 0) {
      char *t = realloc(sf->text, cap * 2);
      if (!t)
        break;
      sf->text = t;
      cap *= 2;
    }
  }
  fclose(f);
  if (!sf->text)
    return;
  sf->text[len] = '\0';
  uint32_t n = 1;
  for (size_t i = 0; i < len; i++)
    n += sf->text[i] == '\n';
  sf->lines = malloc(sizeof *sf->lines * n);
  if (!sf->lines)
    return;
  char *s = sf->text;
  for (;;) {
    char *nl = strchr(s, '\n');
    if (!nl) {
      if (*s)
        sf->lines[sf->n_lines++] = s;
      break;
    }
    sf->lines[sf->n_lines++] = s;
    *nl = '\0';
    s = nl + 1;
  }
}

cb_source *cb_sources_load(const cb_program *p) {
  cb_source *src = calloc(p->n_files ? p->n_files : 1, sizeof *src);
  for (uint32_t f = 0; src && f < p->n_files; f++)
    cb_source_load_file(&src[f], p->files[f]);
  return src;
}

void cb_sources_free(const cb_program *p, cb_source *src) {
  for (uint32_t f = 0; src && f < p->n_files; f++) {
    free(src[f].lines);
    free(src[f].text);
  }
  free(src);
}

const char *cb_source_line(const cb_source *sf, uint32_t line) {
  if (!sf || line == 0 || line > sf->n_lines)
    return "";
  return sf->lines[line - 1];
}
