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

/* A level's geometry, for views that weigh working sets against it. */
typedef struct cb_level_geometry {
  uint64_t size;  /* bytes */
  uint32_t assoc; /* ways; 0: fully associative */
  uint32_t line;  /* bytes */
  uint32_t sets;  /* size / (assoc * line); 1 when fully associative */
} cb_level_geometry;

/* First-level misses of one variable in one cache set (nonzero only). */
typedef struct cb_var_set {
  uint32_t var, set;
  uint64_t misses, conflict;
} cb_var_set;

/* The heap blocks of one allocation site (a malloc, calloc, realloc,
 * posix_memalign, aligned_alloc or memalign call of the program) and the
 * program's own accesses to them: an access counts for the block live
 * at its address when it was made. A realloc is an allocation site of its
 * own: the block it returns is counted there from then on. */
typedef struct cb_alloc_site {
  uint32_t site;   /* program->sites: the call (file, line, function) */
  uint32_t callee; /* cb_libfn of the call: CB_LIBC_MALLOC, ... */
  uint64_t blocks; /* blocks the site returned in the run */
  uint64_t bytes;  /* bytes requested in all (calloc: n * size) */
  uint64_t min_size, max_size; /* smallest and largest request */
  uint64_t lines; /* working set: distinct first-level lines touched */
  uint32_t hot_file, hot_line; /* the line with most first-level misses
                                  in these blocks (hot_line 0: none) */
  /* accesses, misses and classes per level (n_levels used) */
  cb_site_counts level[CB_RESULT_LEVELS];
} cb_alloc_site;

typedef struct cb_cache_result {
  char *name; /* the configuration: file name, preset, or "flags" */
  unsigned n_levels;
  char *level_names[CB_RESULT_LEVELS];
  cb_level_counts levels[CB_RESULT_LEVELS];
  cb_level_geometry geometry[CB_RESULT_LEVELS];
  bool classified;
  /* n_sites * n_levels counters, site-major: sites[s * n_levels + l]. */
  cb_site_counts *sites;
  uint32_t n_sites;

  /* The rest is filled when classified (NULL/0 otherwise). */
  /* LRU stack-distance histogram of each level's line references:
   * distance_hist[l][d], d < distance_len[l], counts references with d
   * distinct other lines since the previous reference to the same line;
   * distance_cold[l] counts first references (the distinct lines). A fully
   * associative LRU cache of C lines misses cold + sum(hist[d], d >= C). */
  uint64_t *distance_hist[CB_RESULT_LEVELS];
  uint64_t distance_len[CB_RESULT_LEVELS];
  uint64_t distance_cold[CB_RESULT_LEVELS];
  /* The rate the distances were sampled at: 2^-distance_scale_log2[l]
   * (0: exact). Sampled, distance_cold, hist[0] and the total are exact,
   * the other buckets an estimate (cachemodel/shadow.h). */
  uint32_t distance_scale_log2[CB_RESULT_LEVELS];
  /* Misses and conflict misses per set of each level (geometry[l].sets
   * entries; accesses without a site are counted too). */
  uint64_t *set_misses[CB_RESULT_LEVELS];
  uint64_t *set_conflicts[CB_RESULT_LEVELS];
  /* Working sets: distinct lines (of the first level's line size) that
   * the program's own accesses touched, per program->vars, ->types (the
   * accessed element's type) and ->fields; arrays of n_vars, n_types and
   * n_fields entries. */
  uint64_t *var_lines, *type_lines, *field_lines;
  /* Per site: the stride of its accesses (bytes from the previous access
   * of the same site) that repeated most recently, and how many accesses
   * repeated the stride before them; n_sites entries each. */
  int64_t *site_stride;
  uint64_t *site_stride_runs;
  /* First-level misses per (variable, set), sorted by variable then set. */
  cb_var_set *var_sets;
  uint32_t n_var_sets;
  /* The program's allocation sites that returned a block in the run, in
   * order of their first block (program->sites order is not kept). */
  cb_alloc_site *alloc_sites;
  uint32_t n_alloc_sites;
} cb_cache_result;

/* What a run did at a branch point (bits of cb_run_result.branches[b]).
 * From the engine's counts of each outcome (branch_counts) when the run
 * has them: exact, a side is "taken" when control went that way at least
 * once, "not taken" otherwise. Without counts they are derived from
 * which accesses ran: a side is "taken" when an access in a block only
 * reachable through it ran, "not taken" when the side's first block has
 * an access that did not run; neither bit: unknown (the side makes no
 * access of its own). */
enum cb_branch_seen {
  CB_BRANCH_REACHED = 1u << 0, /* the branch's block ran */
  CB_BRANCH_TRUE = 1u << 1,    /* the true side was taken */
  CB_BRANCH_NOT_TRUE = 1u << 2,
  CB_BRANCH_FALSE = 1u << 3, /* the false side was taken */
  CB_BRANCH_NOT_FALSE = 1u << 4,
};

/* A file the program created, wrote, truncated or removed. cbana keeps
 * what the program writes in memory and never changes the disk. */
typedef struct cb_file_out {
  char *path;      /* as the program first named it */
  uint64_t bytes;  /* its size at the run's end (0 when removed) */
  uint64_t writes; /* bytes the program wrote into it in all */
  bool removed;    /* it does not exist at the run's end */
} cb_file_out;

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
  char *output;       /* what the program printed on stdout (NUL ended) */
  size_t output_len;  /* its bytes, which may include NULs */
  char *errors;       /* what it printed on stderr */
  cb_file_out *files; /* the files it wrote, in order of first write */
  unsigned n_files;
  uint64_t path_hash;  /* the sequence of branch outcomes, hashed */
  unsigned path_class; /* 1-based, in order of first appearance */
  uint64_t operations; /* operations executed */

  cb_cache_result *caches;
  unsigned n_caches;
  uint8_t *branches; /* per program->branches: cb_branch_seen bits */
  /* Per program->branches, how often control went each way: [2 * b] to
   * the true side (a switch: to a case), [2 * b + 1] to the false side (a
   * switch: its default); NULL when the engine did not count. */
  uint64_t *branch_counts;
  /* The process's start-up and exit (program.h, cb_process_info): true
   * when the run replayed them (their counts are those of the Program's
   * startup_site and exit_site); else process_note says why not
   * (malloc'ed, NULL when modelled). */
  bool process_modelled;
  char *process_note;
} cb_run_result;

typedef struct cb_results {
  const cb_program *program;
  cb_run_result *runs;
  unsigned n_runs;
  unsigned n_path_classes;
  /* NULL, or why the C library's internal traffic may be misplaced: the
   * program's libc is not the build the model was measured in (malloc'ed) */
  char *library_note;
} cb_results;

#endif
