/* inputs.h: the inputs file (docs/inputs-format.md): one input set a
 * line, the program's arguments split as a POSIX shell splits words
 * ('single', "double" quotes, backslash escapes), `#` at the start of a
 * word starts a comment, blank lines are skipped, and `< FILE` (or
 * `<FILE`) feeds standard input from FILE, relative to the inputs file's
 * directory. A malformed line is reported with the file name and line
 * number; the other lines still parse. Owned by analysis/. */
#ifndef CBANA_INPUTS_H
#define CBANA_INPUTS_H

#include <stddef.h>

typedef struct cb_input_set {
  unsigned line;    /* line number in the inputs file (1-based) */
  int argc;         /* words after the program name */
  char **args;      /* argc words */
  char *stdin_path; /* the file for standard input (resolved), or NULL */
  char *text;       /* the line as written, without comment or newline */
} cb_input_set;

typedef struct cb_inputs {
  cb_input_set *sets;
  size_t n;
  char **errors; /* "FILE:LINE: message" */
  size_t n_errors;
} cb_inputs;

/* Parses a file. Returns 0 when every line parsed, -1 when some did not
 * (or the file cannot be read); *out holds the good sets and the errors
 * in both cases. Free with cb_inputs_free. */
int cb_inputs_parse_file(const char *path, cb_inputs *out);

/* Parses text; `name` is used in messages, `dir` resolves `< FILE`
 * (NULL: the current directory). */
int cb_inputs_parse_text(const char *text, const char *name, const char *dir,
                         cb_inputs *out);

/* Splits one line into words as above. Returns the number of words
 * (*words malloc'ed, each word malloc'ed) or -1 with a message in err.
 * stdin_file receives the redirection target (malloc'ed) or NULL. */
int cb_inputs_split(const char *line, char ***words, char **stdin_file,
                    char *err, size_t err_size);

void cb_inputs_free(cb_inputs *in);

#endif
