/* inputs.c: the inputs-file parser (see inputs.h). */
#include "cbana/inputs.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, char c) {
  if (b->n + 2 > b->cap) {
    b->cap = b->cap ? 2 * b->cap : 32;
    b->s = realloc(b->s, b->cap);
  }
  b->s[b->n++] = c;
  b->s[b->n] = 0;
}

static void free_words(char **w, int n) {
  for (int i = 0; i < n; i++)
    free(w[i]);
  free(w);
}

int cb_inputs_split(const char *line, char ***words, char **stdin_file,
                    char *err, size_t err_size) {
  char **w = NULL;
  int n = 0, cap = 0;
  *words = NULL;
  *stdin_file = NULL;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    if (!*p || *p == '#')
      break;
    bool redirect = false;
    if (*p == '<') {
      if (*stdin_file) {
        snprintf(err, err_size, "more than one `<` redirection");
        goto fail;
      }
      redirect = true;
      p++;
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p || *p == '#' || *p == '\r' || *p == '\n' || *p == '<') {
        snprintf(err, err_size, "`<` without a file name");
        goto fail;
      }
    }
    sbuf b = {0};
    bool any = false; /* a quoted empty string is still a word */
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
      if (*p == '\'') {
        const char *q = strchr(p + 1, '\'');
        if (!q) {
          free(b.s);
          snprintf(err, err_size, "unterminated single quote");
          goto fail;
        }
        for (const char *c = p + 1; c < q; c++)
          sb_put(&b, *c);
        any = true;
        p = q + 1;
      } else if (*p == '"') {
        p++;
        for (;;) {
          if (!*p) {
            free(b.s);
            snprintf(err, err_size, "unterminated double quote");
            goto fail;
          }
          if (*p == '"') {
            p++;
            break;
          }
          if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
            if (p[1] != '\n')
              sb_put(&b, p[1]);
            p += 2;
            continue;
          }
          sb_put(&b, *p++);
        }
        any = true;
      } else if (*p == '\\') {
        if (!p[1]) {
          free(b.s);
          snprintf(err, err_size, "backslash at the end of the line");
          goto fail;
        }
        if (p[1] != '\n')
          sb_put(&b, p[1]);
        any = true;
        p += 2;
      } else if (*p == '<' && !redirect) {
        break; /* `a<file`: the word ends, a redirection follows */
      } else {
        sb_put(&b, *p++);
        any = true;
      }
    }
    (void)any;
    if (!b.s)
      b.s = strdup("");
    if (redirect) {
      *stdin_file = b.s;
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      w = realloc(w, (size_t)cap * sizeof *w);
    }
    w[n++] = b.s;
  }
  *words = w;
  return n;
fail:
  free_words(w, n);
  free(*stdin_file);
  *stdin_file = NULL;
  return -1;
}

static void add_error(cb_inputs *in, const char *name, unsigned line,
                      const char *msg) {
  size_t len = strlen(name) + strlen(msg) + 32;
  char *s = malloc(len);
  snprintf(s, len, "%s:%u: %s", name, line, msg);
  in->errors = realloc(in->errors, (in->n_errors + 1) * sizeof *in->errors);
  in->errors[in->n_errors++] = s;
}

int cb_inputs_parse_text(const char *text, const char *name, const char *dir,
                         cb_inputs *out) {
  memset(out, 0, sizeof *out);
  unsigned lineno = 0;
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *line = malloc(len + 1);
    memcpy(line, p, len);
    line[len] = 0;
    p += len + (e ? 1 : 0);
    lineno++;
    char **words;
    char *file;
    char err[200];
    int n = cb_inputs_split(line, &words, &file, err, sizeof err);
    if (n < 0) {
      add_error(out, name, lineno, err);
      free(line);
      continue;
    }
    if (n == 0 && !file) {
      free(words);
      free(line);
      continue;
    }
    char *path = NULL;
    if (file) {
      if (file[0] == '/' || !dir || !*dir) {
        path = file;
      } else {
        size_t l = strlen(dir) + strlen(file) + 2;
        path = malloc(l);
        snprintf(path, l, "%s/%s", dir, file);
        free(file);
      }
      if (access(path, R_OK) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "cannot read standard input file `%s`", path);
        add_error(out, name, lineno, msg);
        free(path);
        free_words(words, n);
        free(line);
        continue;
      }
    }
    /* the text without the comment and trailing blanks */
    size_t tl = strlen(line);
    while (tl && (line[tl - 1] == ' ' || line[tl - 1] == '\t' ||
                  line[tl - 1] == '\r'))
      line[--tl] = 0;
    out->sets = realloc(out->sets, (out->n + 1) * sizeof *out->sets);
    cb_input_set *s = &out->sets[out->n++];
    s->line = lineno;
    s->argc = n;
    s->args = words;
    s->stdin_path = path;
    s->text = line;
  }
  return out->n_errors ? -1 : 0;
}

int cb_inputs_parse_file(const char *path, cb_inputs *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    add_error(out, path, 0, "cannot read the inputs file");
    return -1;
  }
  sbuf b = {0};
  int c;
  while ((c = fgetc(f)) != EOF)
    sb_put(&b, (char)c);
  fclose(f);
  char *dir = strdup(path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  else
    strcpy(dir, ".");
  int rc = cb_inputs_parse_text(b.s ? b.s : "", path, dir, out);
  free(dir);
  free(b.s);
  return rc;
}

void cb_inputs_free(cb_inputs *in) {
  for (size_t i = 0; i < in->n; i++) {
    free_words(in->sets[i].args, in->sets[i].argc);
    free(in->sets[i].stdin_path);
    free(in->sets[i].text);
  }
  free(in->sets);
  for (size_t i = 0; i < in->n_errors; i++)
    free(in->errors[i]);
  free(in->errors);
  memset(in, 0, sizeof *in);
}
