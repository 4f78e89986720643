/* The command line shared by `analyze`, `validate`, `check`, `annotate`
 * and `paths`: sources, compile flags, inputs, caches, output. Parsing
 * only, from the option table (options.h); each subcommand decides what
 * to do with it. */
#ifndef CBANA_CLI_ANALYZE_ARGS_H
#define CBANA_CLI_ANALYZE_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#define CB_MAX_CACHE_ARGS 8

typedef struct cb_analyze_args {
  char **sources;
  unsigned n_sources;
  const char *inputs_file;               /* --inputs */
  const char *inline_args;               /* --args "..." */
  const char *caches[CB_MAX_CACHE_ARGS]; /* --cache FILE|PRESET, in order */
  unsigned n_caches;
  const char *flag_d1, *flag_l2, *flag_ll; /* --D1= --L2= --LL= */
  const char *cflags;                      /* --cflags, default "-O2" */
  const char *compdb_dir;                  /* -p DIR */
  const char *format;                      /* text | json */
  const char *output;                      /* -o FILE, NULL: stdout */
  const char *argv0;      /* --argv0 PATH: the program path given to it */
  unsigned top;           /* --top N */
  unsigned input;         /* --input N (annotate), 0: the first */
  unsigned jobs;          /* --jobs N, 0: number of cores */
  unsigned sim_threads;   /* --sim-threads N, 0 or 1: no split */
  uint64_t split_epoch;   /* --split-epoch N, 0: the default */
  uint64_t budget;        /* --budget N, 0: the engine's default */
  double timeout;         /* --timeout SECONDS per input, 0: none */
  uint64_t stack_top;     /* --stack-top ADDR, 0: computed */
  unsigned shard, shards; /* --shard K/N: the K-th of N slices of the
                             inputs (0/0: all) */
  bool no_classify;       /* --no-classify */
  bool exact_mrc;         /* --exact-mrc */
  bool quiet;             /* --quiet */
  bool stats;             /* --stats */
  bool exact_engine;      /* --exact-engine: the reference interpreter */
  bool no_process;        /* --no-process: no start-up and exit traffic */
  bool no_memo;           /* --no-memo: simulate every input */
  bool no_split;          /* --no-split: one simulation thread an input */
  bool no_kernels;        /* --no-kernels: no native kernels compiled */
  bool no_reuse;          /* --no-reuse: no translation units from the cache */
  bool wait_kernels;      /* --wait-kernels: compiled before the run */
  /* check and validate */
  const char *baseline; /* --baseline FILE */
  double tolerance;     /* --tolerance PCT (validate), --max-increase */
  const char *level;    /* --level NAME */
  bool update;          /* --update */
} cb_analyze_args;

/* Parses argv (after the subcommand's name). On error prints a message
 * naming the bad argument to stderr and returns false. */
bool cb_analyze_args_parse(int argc, char **argv, cb_analyze_args *a,
                           const char *command);

void cb_analyze_args_free(cb_analyze_args *a);

/* Prints a command's --help: the usage line ending in synopsis (NULL for
 * none), the prose (NULL for none), and the options the table lists for
 * the command. */
void cb_analyze_args_usage(const char *command, const char *synopsis,
                           const char *prose);

#endif
