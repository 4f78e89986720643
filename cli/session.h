/* What analyze, validate and check share once their options are parsed:
 * the cache configurations, the input sets (from --inputs, --args or
 * none), the loaded Program, and one call that analyses them all. */
#ifndef CBANA_CLI_SESSION_H
#define CBANA_CLI_SESSION_H

#include "analyze_args.h"

#include "cbana/analysis.h"
#include "cbana/inputs.h"

typedef struct cb_session {
  const cb_analyze_args *args;
  cb_analysis_cache caches[CB_MAX_CACHE_ARGS];
  unsigned n_caches;
  cb_inputs parsed;          /* what the inputs file held */
  cb_analysis_input *inputs; /* good lines and bad ones, in line order */
  unsigned n_inputs;
  unsigned *index;       /* inputs file: each input's 1-based index there */
  unsigned total_inputs; /* inputs file: its inputs, all shards */
  char **inline_words;   /* --args, split */
  int n_inline_words;
  char *inline_stdin;
  cb_program *program;
  char *argv0;                 /* the executable path the real run gets */
  const char *exe_out;         /* keep the executable here (validate) */
  cb_analysis_stats stats;     /* --stats */
  int interrupted;             /* the signal that stopped the analysis */
} cb_session;

/* Resolves caches and inputs and loads the program. Returns 0, or the
 * exit status (2) after printing the error. */
int cb_session_open(cb_session *s, const cb_analyze_args *a,
                    const char *command);

/* Runs the analysis. Returns 0 when every input ran, 3 when some
 * stopped, 2 when it could not start (message printed). A SIGINT
 * meanwhile stops the inputs still running (s->interrupted), reported as
 * stopped. */
int cb_session_analyze(cb_session *s, cb_results *r, const char *command);

/* Writes the report in the format asked for, to -o FILE or stdout.
 * Returns 0, or 2 after printing why it could not. */
int cb_session_report(const cb_session *s, const cb_results *r,
                      const char *command);

void cb_session_close(cb_session *s);

#endif
