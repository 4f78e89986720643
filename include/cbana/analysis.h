/* analysis.h: the analysis of a Program for many inputs and caches.
 *
 * The driver of analysis/: for each input set it runs the engine
 * (engine.h) with the input's arguments and standard input, feeds the
 * access stream to one cache hierarchy per configuration (cache.h), and
 * collects the counters into results (results.h) that report/ turns into
 * text or JSON. Independent inputs run in parallel on `jobs` threads;
 * inputs that take the same path through the program's branches share a
 * path class.
 */
#ifndef CBANA_ANALYSIS_H
#define CBANA_ANALYSIS_H

#include <stdio.h>

#include "cbana/cache.h"
#include "cbana/engine.h"
#include "cbana/program.h"
#include "cbana/results.h"

/* One cache configuration to simulate, with the name reports give it. */
typedef struct cb_analysis_cache {
  const char *name;
  cb_cache_config config;
} cb_analysis_cache;

/* One input set. An input whose line of the inputs file was malformed
 * carries the message in `error` and is reported without running. */
typedef struct cb_analysis_input {
  char **args; /* argv[1..] */
  unsigned n_args;
  const char *stdin_path; /* NULL: empty standard input */
  unsigned line;          /* line of the inputs file; 0 for --args */
  const char *error;      /* "FILE:LINE: message", or NULL */
  const char *error_file; /* the inputs file, for error */
} cb_analysis_input;

/* Where the time went (--stats). CPU seconds are summed over the worker
 * threads; the frontend's are filled by the caller. */
typedef struct cb_analysis_stats {
  double compile_s; /* clang: the frontend's child processes (CPU) */
  uint32_t units, units_reused; /* translation units; from the cache */
  double lowering_s;      /* the frontend in this process: bitcode to Program,
                             ELF, debug info (CPU) */
  double frontend_wall_s; /* both, wall clock */
  double path_s;          /* path selection: stream-hash passes (CPU) */
  double stream_s;        /* stream generation: the engine (CPU) */
  double sim_s;           /* cache simulation (CPU) */
  double analysis_wall_s;
  uint64_t ops, accesses;
  /* the engine's loop templates (analysis/engine/template.c): loops entered,
   * iterations and accesses run from a template */
  uint64_t tpl_loops, tpl_iters, tpl_accesses;
  uint64_t tpl_native_iters; /* of tpl_iters, run by native code */
  /* the frontend's native kernels (program.h): functions compiled, the
   * compile's CPU time (on a thread beside the engine), operations they
   * ran */
  uint32_t kernels;
  double kernel_compile_s;
  uint64_t kernel_ops;
  /* ops compiled over every compile, their functions' ops, and the
   * compiles that replaced a kernel with more blocks or with faster code
   * (program.h) */
  uint64_t kernel_ops_compiled, kernel_ops_whole;
  uint32_t kernel_recompiles, kernel_tier_ups;
  uint64_t kernel_left[CB_OP_COUNT]; /* cb_run_outcome's, summed */
  uint64_t kernel_engine_calls;      /* cb_run_outcome's, summed */
  /* blocks the cache model received, and of those, the ones counted
   * without running them and the ones split by set over sim_threads
   * threads (cb_affine_stats), over every cache */
  uint64_t sim_blocks, sim_blocks_skipped, sim_blocks_split;
  /* blocks run part by part by the memo, and their parts counted or run
   * (cb_affine_stats) */
  uint64_t sim_blocks_parts, sim_parts_counted, sim_parts_run;
  /* segments and parts the memos found steady after one run, in closed
   * form (cb_affine_stats) */
  uint64_t sim_segments_closed, sim_parts_closed;
  /* records counted as repeats without running them (the record memo) */
  uint64_t sim_records_skipped;
  unsigned sim_threads;
  /* the time split (options.split): pieces, hand-overs between the two
   * threads, guesses thrown away, and accesses run twice (by a thread whose
   * guess had not yet met the truth) */
  uint64_t split_epochs, split_handovers, split_abandoned, split_rerun;
  double split_idle_s;                /* the two threads' waits */
  unsigned inputs, simulated, shared; /* shared: results of a twin input */
  unsigned jobs;
} cb_analysis_stats;

typedef struct cb_analysis_options {
  cb_engine_options engine;
  bool classify;  /* 3C classes and stack distances */
  bool exact_mrc; /* exact distances however many lines (CB_EXACT_MRC) */
  unsigned jobs;  /* threads; 0: the number of cores */
  /* threads that split long affine blocks by cache set (the cache
   * model's cb_hierarchy_set_threads); 0 or 1: none */
  unsigned sim_threads;
  /* Simulate an input's stream on two threads at once, cut in time
   * (analysis/pipeline/split.h), where a core is to spare for it and the caches
   * allow (no classification; LRU, FIFO or MRU levels); split_epoch:
   * accesses per piece, 0: the default. The counters are the same. */
  bool split;
  uint64_t split_epoch;
  const char *argv0; /* the executable path the real run is given */
  bool progress;     /* a progress line on stderr */
  /* Share the results of inputs whose access streams are identical (equal
   * 128-bit stream hash and length): each is simulated once. */
  bool memoize;
  /* Leave out the process's start-up and exit (program.h,
   * cb_process_info), which are otherwise replayed around main. */
  bool no_process;
  /* cbana's cache directory, which the caller made (cli/cache_dir.c):
   * the process's traces and glibc's measured thresholds are kept there.
   * NULL: the thresholds are measured each run and the process is not
   * replayed. */
  const char *cache_dir;
  cb_analysis_stats *stats; /* filled when not NULL */
} cb_analysis_options;

/* Analyses every input with every cache. Returns 0 when every input ran
 * to its end, 1 when some stopped (their results say why), -1 when the
 * analysis could not start (message in err). */
int cb_analysis_run(const cb_program *p, const cb_analysis_input *inputs,
                    unsigned n_inputs, const cb_analysis_cache *caches,
                    unsigned n_caches, const cb_analysis_options *opt,
                    cb_results *out, char *err, size_t err_size);

void cb_results_free(cb_results *r);

/* Prints stats (and the process's peak RSS) on f, one phase a line. */
void cb_analysis_stats_print(FILE *f, const cb_analysis_stats *s);

#endif
