/* results.h: what an analysis found, the contract between analysis/ and
 * report/.
 *
 * Plain data, no behaviour: for each input set (a run), its outcome and,
 * for each cache configuration, the totals of every level and the counters
 * of every site of the Program (program.h) at every level. Reports
 * aggregate sites into lines, functions, variables and library calls; the
 * Program tells which is which. Counting follows cachegrind: a level sees
 * only what missed in the level above, so a site's accesses at level L are
 * its misses at level L-1.
 */
#ifndef CBANA_RESULTS_H
#define CBANA_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"

#define CB_RESULT_LEVELS 8 /* as many as a cache configuration may have */

/* Totals of one cache level. The three classes add up to misses when
 * classification is on; when it is off, `classified` is false and they
 * are meaningless. */
typedef struct cb_level_counts {
  uint64_t accesses, reads, writes;
  uint64_t misses, read_misses, write_misses;
  uint64_t compulsory, capacity, conflict;
} cb_level_counts;

/* One site at one level. */
typedef struct cb_site_counts {
  uint64_t accesses, misses;
  uint64_t compulsory, capacity, conflict;
} cb_site_counts;

typedef struct cb_cache_result {
  char *name; /* the configuration: file name, preset, or "flags" */
  unsigned n_levels;
  char *level_names[CB_RESULT_LEVELS];
  cb_level_counts levels[CB_RESULT_LEVELS];
  bool classified;
  /* n_sites * n_levels counters, site-major: sites[s * n_levels + l]. */
  cb_site_counts *sites;
  uint32_t n_sites;
} cb_cache_result;

typedef struct cb_run_result {
  unsigned index; /* 1-based position in the inputs */
  char **args;    /* the program's arguments (argv[1..]) */
  unsigned n_args;
  char *stdin_path;     /* NULL when none */
  unsigned inputs_line; /* line of the inputs file, 0 for --args */

  bool ok;             /* the input ran to the end */
  char *error_message; /* when it did not: what stopped it */
  char *error_file;
  unsigned error_line;

  bool exited; /* the program finished (exit_code is meaningful) */
  int exit_code;
  char *output;        /* what the program printed on stdout */
  uint64_t path_hash;  /* the sequence of branch outcomes, hashed */
  unsigned path_class; /* 1-based, in order of first appearance */
  uint64_t operations; /* operations executed */

  cb_cache_result *caches;
  unsigned n_caches;
} cb_run_result;

typedef struct cb_results {
  const cb_program *program;
  cb_run_result *runs;
  unsigned n_runs;
  unsigned n_path_classes;
} cb_results;

#endif
