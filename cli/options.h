/* The options of the analysis commands (analyze, validate, check, annotate,
 * paths) as one table, cli/options_table.c, one entry per option. From it
 * come the getopt_long table the parser uses, each command's option list
 * in --help, and the OPTIONS section of the man page (docs/cbana.1, which
 * the build rewrites with cbana-man-options). Adding an option is adding
 * an entry (and a field in cb_analyze_args when it sets one). */
#ifndef CBANA_CLI_OPTIONS_H
#define CBANA_CLI_OPTIONS_H

#include "analyze_args.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The commands, as bits, so an entry can name where it applies. */
enum {
  CB_CMD_ANALYZE = 1u << 0,
  CB_CMD_VALIDATE = 1u << 1,
  CB_CMD_CHECK = 1u << 2,
  CB_CMD_ANNOTATE = 1u << 3,
  CB_CMD_PATHS = 1u << 4,
  CB_CMD_ANALYSIS = (1u << 5) - 1, /* all of them */
};

typedef enum cb_opt_kind {
  CB_OPT_FLAG,   /* no value; sets a bool field */
  CB_OPT_STRING, /* the value as given, into a const char * field */
  CB_OPT_UINT,   /* a whole number in [min, max], into an unsigned field */
  CB_OPT_U64,    /* a whole number in [min, max], into a uint64_t field */
  CB_OPT_CUSTOM, /* parse() checks and stores the value */
} cb_opt_kind;

typedef struct cb_option {
  const char *name; /* the long name without "--"; NULL for a short one */
  char short_name;  /* 'o' for -o; 0 for none */
  /* The value's name in --help ("FILE"); one starting with '=' is written
   * glued to the name ("--D1=S,A,L"); NULL: the option takes no value. */
  const char *arg;
  cb_opt_kind kind;
  size_t field;      /* offsetof(cb_analyze_args, ...) */
  uint64_t min, max; /* bounds of CB_OPT_UINT and CB_OPT_U64 */
  /* CB_OPT_CUSTOM: stores value, or prints the error naming the option
   * ("cbana COMMAND: ...") and returns false. */
  bool (*parse)(cb_analyze_args *a, const char *value, const char *command);
  unsigned takes;    /* commands whose parser accepts it (CB_CMD_*) */
  unsigned lists;    /* commands whose --help and the man page list it */
  const char *group; /* the heading it is listed under ("engine") */
  /* --help's text; a '\n' starts an indented line. NULL: the entry is
   * listed on one line with the next and shares its texts. */
  const char *help;
  const char *man; /* the man page's paragraph, roff */
} cb_option;

extern const cb_option cb_options[];
extern const size_t cb_n_options;

/* The CB_CMD_* bit of a command's name, 0 for another command. */
unsigned cb_options_command(const char *command);

/* Writes the options --help lists for a command, under their headings. */
void cb_options_help(FILE *out, unsigned command);

/* Writes the man page's option list (roff), every listed entry. */
void cb_options_man(FILE *out);

/* The lines of docs/cbana.1 that cb_options_man writes sit between these
 * two (roff comments). */
#define CB_OPTIONS_MAN_BEGIN                                                   \
  ".\\\" BEGIN OPTIONS: written from cli/options_table.c by "                  \
  "cbana-man-options; edit the table, not these lines."
#define CB_OPTIONS_MAN_END ".\\\" END OPTIONS"

#endif
