/* The option table written out: each command's --help list and the man
 * page's OPTIONS section. Parsing is in analyze_args.c. */
#include "options.h"

#include <ctype.h>
#include <string.h>

static const char *const command_names[] = {"analyze", "validate", "check",
                                            "annotate", "paths"};
#define N_COMMANDS (sizeof command_names / sizeof command_names[0])

unsigned cb_options_command(const char *command) {
  for (unsigned i = 0; i < N_COMMANDS; i++)
    if (strcmp(command, command_names[i]) == 0)
      return 1u << i;
  return 0;
}

/* "--name ARG", "--name=ARG", "-o, --output ARG" or "-p ARG". */
static void help_label(const cb_option *o, char *buf, size_t n) {
  const char *arg = o->arg ? o->arg : "";
  const char *sep = !o->arg || arg[0] == '=' ? "" : " ";
  if (o->short_name && o->name)
    snprintf(buf, n, "-%c, --%s%s%s", o->short_name, o->name, sep, arg);
  else if (o->short_name)
    snprintf(buf, n, "-%c%s%s", o->short_name, sep, arg);
  else
    snprintf(buf, n, "--%s%s%s", o->name, sep, arg);
}

/* The column where the texts start in --help. */
#define HELP_COLUMN 22

void cb_options_help(FILE *out, unsigned command) {
  const char *group = NULL;
  char label[256] = "";
  for (size_t i = 0; i < cb_n_options; i++) {
    const cb_option *o = &cb_options[i];
    if (!(o->lists & command))
      continue;
    if (!group || strcmp(group, o->group) != 0)
      fprintf(out, "%s:\n", group = o->group);
    size_t len = strlen(label);
    if (len)
      label[len++] = ' ';
    help_label(o, label + len, sizeof label - len);
    if (!o->help)
      continue; /* listed with the next entry */
    if (strlen(label) < HELP_COLUMN - 2)
      fprintf(out, "  %-*s", HELP_COLUMN - 2, label);
    else
      fprintf(out, "  %s\n%*s", label, HELP_COLUMN, "");
    for (const char *s = o->help; *s; s++) {
      fputc(*s, out);
      if (*s == '\n')
        fprintf(out, "%*s", HELP_COLUMN, "");
    }
    fputc('\n', out);
    label[0] = '\0';
  }
}

/* Text as roff prints it: '-' is a hyphen otherwise, '"' ends a quoted
 * argument and '\' starts an escape (groff_char(7)). */
static void roff_text(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '-')
      fputs("\\-", out);
    else if (*s == '"')
      fputs("\\(dq", out);
    else if (*s == '\\')
      fputs("\\e", out);
    else
      fputc(*s, out);
  }
}

/* An entry's label as ".B" or ".BI" arguments: the name in bold, then,
 * with values, the value's name in italics ("\-\-D1=" "S,A,L",
 * "\-\-cflags" " FLAGS"). */
static void man_label(FILE *out, const cb_option *o, bool first, bool values) {
  fputs(first ? " \"" : " \" ", out);
  if (o->short_name) {
    fprintf(out, "\\-%c", o->short_name);
    if (o->name)
      fputs(", ", out);
  }
  if (o->name) {
    fputs("\\-\\-", out);
    roff_text(out, o->name);
  }
  const char *arg = o->arg ? o->arg : "";
  bool glued = arg[0] == '=';
  if (glued) {
    fputc('=', out);
    arg++;
  }
  fputc('"', out);
  if (!values)
    return;
  fputs(" \"", out);
  if (*arg && !glued)
    fputc(' ', out);
  roff_text(out, arg);
  fputc('"', out);
}

void cb_options_man(FILE *out) {
  fputs("Shared by analyze, annotate, paths, check and validate, but for\n"
        "those that name the commands using them.\n",
        out);
  const char *group = NULL;
  size_t run = 0; /* the first entry listed on the current line */
  for (size_t i = 0; i < cb_n_options; i++) {
    const cb_option *o = &cb_options[i];
    if (!o->lists) {
      run = i + 1;
      continue;
    }
    if (!group || strcmp(group, o->group) != 0) {
      group = o->group;
      fprintf(out, ".SS %c%s\n", toupper((unsigned char)group[0]), group + 1);
    }
    if (!o->help)
      continue;
    bool values = false;
    for (size_t k = run; k <= i; k++)
      values |= cb_options[k].arg != NULL;
    fputs(values ? ".TP\n.BI" : ".TP\n.B", out);
    for (size_t k = run; k <= i; k++)
      man_label(out, &cb_options[k], k == run, values);
    fputc('\n', out);
    run = i + 1;
    if (o->lists != CB_CMD_ANALYSIS) {
      fputc('(', out);
      const char *sep = "";
      for (unsigned c = 0; c < N_COMMANDS; c++)
        if (o->lists & (1u << c)) {
          fprintf(out, "%s\\fB%s\\fR", sep, command_names[c]);
          sep = ", ";
        }
      fputs(" only)\n", out);
    }
    fprintf(out, "%s\n", o->man);
  }
}
